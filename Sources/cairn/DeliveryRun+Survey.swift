import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// The survey: what a run finds before it sends anything (the trips, the receipts, the board's
/// folder as listed, what waits), and the marker that tells the log directory's own storage.
extension DeliveryRun {
    /// What a run finds before it sends anything: the finished trips, the receipts, the board's
    /// folder as listed (kept to this board's names), the trips that wait and why the run stops
    /// early (a ride being recorded, the remote out of reach). Nil when the log directory cannot
    /// be read.
    struct Survey {
        var finished: [(trip: TripRef, summary: TripSummary, openBecause: String?)]
        var receipts: ExportState
        var listing: Listing
        var waiting: [Waiting]
        var unreadable: Int
        var stop: Stop?
        /// Where the next run's read-back of delivered copies starts (no hashes listed).
        var readBackNext = 0
        /// Conversions of trips pruned on the board that read back with other bytes than they
        /// went up with (no hashes listed): made again from their logs (`remakeGone`).
        var goneReadWrong = Set<String>()
        /// Where the next run's read-back of pruned trips' copies starts (no hashes listed).
        var goneReadBackNext = 0
        /// The page's files read back with other bytes than the last run sent (no hashes listed).
        var pageReadWrong = Set<String>()
        /// The pruned trips whose copies are read back in turn (no hashes listed), and in how
        /// many runs all of them are (`DeliveryPlans.readBackRuns`).
        var goneReadBackTrips = 0
        var goneReadBackRuns = 0
    }

    /// `marker`: the name of a file this run put in the log directory's staging folder; the
    /// listing finding it means the board's folder is the log directory's own storage.
    func survey(_ counts: inout DeliveryPlans.Counts, _ problem: (String) -> Void, marker: String? = nil) -> Survey? {
        let all: [(trip: TripRef, summary: TripSummary, openBecause: String?)]
        do { all = try catalogTrips(in: dir, say: problem) } catch {
            printErr("cairn: \(error)")
            return nil
        }
        let finished = all.filter { $0.openBecause == nil }
        let receipts = ExportState(directory: dir, fileName: ExportState.deliveredFileName)
        if let p = receipts.problem { printErr("cairn: \(p)") }
        let destination = receiptDestination

        var stop: Stop?
        if let why = recording() { stop = .recording(why) }
        // One listing of the board's folder per run, kept to the names that matter here (a
        // folder of any size is read in bounded memory): a receipt is trusted only as far as
        // the remote shows its copies now (one deleted or cut there since goes again).
        var listing = Listing()
        if stop == nil {
            do {
                listing = try list(wanted: wantedNames(finished.map { ($0.trip, $0.summary) }, receipts: receipts), marker: marker)
            } catch let e as Stop {
                stop = e
            } catch { stop = .remote("\(error)") }
        }
        let receiptsNs = modifiedNs(receipts.path)
        var waiting: [Waiting] = []
        var unreadable = 0
        // Delivered trips whose copies the listing showed without hashes (WebDAV): a few read
        // back each run (below).
        var unhashed: [(trip: TripRef, summary: TripSummary, files: [RemoteCopies.FileCheck])] = []
        // Counted whether or not the run goes on: a deferred run's status says what waits.
        for (t, s, _) in finished {
            // Sizes suffice for a log untouched since the receipts were written; one written
            // since (even to the same size) is read whole.
            var now: [ExportState.CopiedFile]?
            var known = receipts.isExportedBySize(t, to: destination, logs: copyLogs) && !t.files.contains { modifiedNs($0.path) >= receiptsNs }
            if !known {
                do { now = try ExportState.current(t) } catch {
                    problem("trip \(t.id): \(error)")
                    unreadable += 1
                    continue
                }
                known = receipts.isExported(t, to: destination, now: now!, logs: copyLogs)
            }
            if known {
                guard stop == nil, let lost = lostCopies(t, s, receipts: receipts, destination: destination, listing: listing) else {
                    counts.alreadyThere += 1
                    if stop == nil, let files = unhashedCopies(t, receipts: receipts, destination: destination, listing: listing) {
                        unhashed.append((t, s, files))
                    }
                    continue
                }
                printErr("cairn: trip \(t.id): its copies on \(base) are not whole (\(lost.joined(separator: ", "))); sent again")
                if now == nil {
                    do { now = try ExportState.current(t) } catch {
                        problem("trip \(t.id): \(error)")
                        unreadable += 1
                        continue
                    }
                }
            }
            waiting.append(Waiting(trip: t, summary: s, now: now!))
        }
        let previous = DeliveryStatus.read(directory: dir)
        var next = previous?.readBackFrom ?? 0
        var goneNext = previous?.goneReadBackFrom ?? 0
        var goneReadWrong = Set<String>()
        var pageReadWrong = Set<String>()
        var goneRuns = (trips: 0, runs: 0)
        if stop == nil {
            // Pruned trips' copies take their own turn with their own budget: their remote log
            // is the ride's only copy, so a log flipped there at its size is found within a
            // known number of runs whatever the board still holds (issue 38, deliv-38g).
            let gone = goneUnhashed(receipts, listing)
            let pageFiles = pageUnhashed(previous, listing)
            let goneSizes = gone.map { $0.reduce(0) { $0 + $1.size } }
            goneRuns = (gone.count, DeliveryPlans.readBackRuns(sizes: goneSizes, budget: DeliveryPlans.readBackBytesPerRun))
            let turn = DeliveryPlans.readBackTurn(
                sizes: unhashed.map { $0.files.reduce(0) { $0 + $1.size } }, from: next, budget: DeliveryPlans.readBackBytesPerRun)
            let goneTurn = DeliveryPlans.readBackTurn(
                sizes: goneSizes, from: goneNext, budget: DeliveryPlans.readBackBytesPerRun)
            let paths =
                turn.chosen.flatMap { unhashed[$0].files.map(\.name) } + goneTurn.chosen.flatMap { gone[$0].map(\.name) }
                + pageFiles.map(\.name)
            var got: [String: String] = [:]
            // One call, no retries: a read-back that fails is tried again by the next run.
            if paths.isEmpty || (try? transport.readBack(base, paths: paths, md5: { md5, path in got[path] = md5 })) != nil {
                next = turn.next
                goneNext = goneTurn.next
                for i in turn.chosen {
                    let (t, s, files) = unhashed[i]
                    let wrong = files.filter { got[$0.name] != $0.md5 }.map {
                        "\($0.name): \(got[$0.name] == nil ? "missing" : "other bytes") read back"
                    }
                    if wrong.isEmpty { continue }
                    printErr("cairn: trip \(t.id): its copies on \(base) are not whole (\(wrong.joined(separator: ", "))); sent again")
                    do {
                        waiting.append(Waiting(trip: t, summary: s, now: try ExportState.current(t)))
                        counts.alreadyThere -= 1
                    } catch {
                        problem("trip \(t.id): \(error)")
                    }
                }
                let goneRead = goneTurn.chosen.flatMap { gone[$0] }
                goneReadWrong = DeliveryPlans.readWrong(
                    goneRead + gone.flatMap { $0 }, read: got, readNow: Set(goneRead.map(\.name)), earlier: Set(previous?.damagedThere ?? []))
                pageReadWrong = Set(pageFiles.filter { got[$0.name] != nil && got[$0.name] != $0.md5 }.map(\.name))
            } else {
                // Not read this run: what an earlier run found damaged stays said.
                goneReadWrong = DeliveryPlans.readWrong(gone.flatMap { $0 }, read: [:], readNow: [], earlier: Set(previous?.damagedThere ?? []))
            }
        }
        return Survey(
            finished: finished, receipts: receipts, listing: listing, waiting: waiting, unreadable: unreadable, stop: stop, readBackNext: next,
            goneReadWrong: goneReadWrong, goneReadBackNext: goneNext, pageReadWrong: pageReadWrong, goneReadBackTrips: goneRuns.trips,
            goneReadBackRuns: goneRuns.runs)
    }

    /// The copies of each trip pruned on the board (its logs, conversions and picture) that the
    /// listing showed without a hash while its receipt has one, where its log copies went up:
    /// read back in their own turn (`survey`). A log there is the ride's only copy.
    func goneUnhashed(_ receipts: ExportState, _ listing: Listing) -> [[RemoteCopies.FileCheck]] {
        var out: [[RemoteCopies.FileCheck]] = []
        for g in receipts.gone() {
            let here = g.receipts.filter { ExportState.folder(ofDestination: $0.destination) == base }
            guard here.contains(where: { $0.logs }) else { continue }
            var files: [RemoteCopies.FileCheck] = []
            var seen = Set<String>()
            for e in here {
                for (p, sum) in e.md5.sorted(by: { $0.key < $1.key }) {
                    guard let l = listing.files[p], l.md5 == nil, seen.insert(p).inserted else { continue }
                    files.append(RemoteCopies.FileCheck(name: p, size: l.size, md5: sum))
                }
            }
            if !files.isEmpty { out.append(files) }
        }
        return out
    }

    /// The page's files as the last run sent them, listed without a hash (WebDAV): read back
    /// every run (an index of at most `PageBuilder.maxIndexBytes`, its MD5 made as it streams),
    /// so a row edited there at the same size is found.
    func pageUnhashed(_ previous: DeliveryStatus?, _ listing: Listing) -> [RemoteCopies.FileCheck] {
        guard page, let p = previous, p.pageFolder == base else { return [] }
        return p.pageSent.sorted { $0.key < $1.key }.compactMap { name, sum in
            guard let l = listing.files[name], l.md5 == nil else { return nil }
            return RemoteCopies.FileCheck(name: name, size: l.size, md5: sum)
        }
    }

    /// The copies of a delivered trip the listing showed without a hash while its receipt has
    /// one (a backend without hashes: WebDAV): to be read back; nil when there are none.
    func unhashedCopies(_ t: TripRef, receipts: ExportState, destination: String, listing: Listing) -> [RemoteCopies.FileCheck]? {
        let md5 = receipts.md5s(t, destination: destination)
        let files = md5.sorted { $0.key < $1.key }.compactMap { path, sum -> RemoteCopies.FileCheck? in
            guard let l = listing.files[path], l.md5 == nil else { return nil }
            return RemoteCopies.FileCheck(name: path, size: l.size, md5: sum)
        }
        return files.isEmpty ? nil : files
    }

    /// How the survey ended: found, or the run's exit status.
    enum SurveyOutcome {
        case found(Survey)
        case end(Int32)
    }

    /// The survey, with a file only this run names put in its staging folder first: a listing of
    /// the board's folder that shows it shows the log directory's own storage (a symlink, an
    /// alias, a mount), refused (78).
    func surveyWithMarker(_ counts: inout DeliveryPlans.Counts, _ problem: (String) -> Void) -> SurveyOutcome {
        let marker = "probe-" + randomHex()
        do {
            try prepareOutbox()
            try writeFileAtomically(POSIX.join(staging, marker), Array("cairn: where a delivery's remote is\n".utf8))
        } catch {
            printErr("cairn: \(error)")
            return .end(ExitCode.failure)
        }
        guard let found = survey(&counts, problem, marker: marker) else {
            removeStaging(staging)
            return .end(ExitCode.failure)
        }
        if let seen = found.listing.marker {
            removeStaging(staging)
            printErr(
                "cairn deliver: --remote \(terminalSafe(remote)): its folder \(terminalSafe(base)) is on this board's own storage"
                    + " (it lists \(terminalSafe(seen)), made in \(staging) just now); deliver off the board's card")
            return .end(ExitCode.config)
        }
        return .found(found)
    }
}

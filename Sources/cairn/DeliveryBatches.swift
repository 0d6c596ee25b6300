import CairnSystem
import CairnLog
import CairnExport

/// The sending part of one delivery run, after its survey (`DeliveryRun.go`): the waiting trips
/// in batches of what the card can hold staged beside its logs (a month of rides staged at once
/// filled a card near its limit), each batch whole before the next (after a failed run one trip
/// a batch, so that a remote with room for some takes those); the page and the key with the
/// last; what each batch moved into place read back and receipted once for the run (`settle`).
struct DeliveryBatches {
    typealias Stop = DeliveryPlans.Stop

    let run: DeliveryRun
    let previous: DeliveryStatus?
    let shippingId: String
    let finished: [(trip: TripRef, summary: TripSummary, openBecause: String?)]
    let listing: DeliveryRun.Listing
    /// Trips delivered, then deleted from the board, whose conversions were cut for other zones
    /// than today's (`DeliveryRun.outdatedCuts`), and the remote paths they sent.
    let outdated: [ExportState.GoneTrip]
    let takeDown: Set<String>
    /// The board's key is owed by an earlier run (`DeliveryRun.go`), or is damaged there.
    let keyOwed: Bool
    let keyDamaged: Bool
    /// Where the key goes and where it went up whole before (`DeliveryRun.KeyState`).
    var keyTarget = TripShipment.keyPath
    var keySentTo: String?
    /// The page on the remote is not as this log directory last sent it: made again, this
    /// board's entries anew.
    let pageRedo: Bool
    /// Pictures gone from the remote whose trips' entries the page makes anew (`picturesGone`).
    let redraw: Set<String>
    /// The page's files as they went up (or were found there) in this run: name -> MD5.
    var pageSums: [String: String] = [:]
    /// The key went up whole in this run.
    var keyWentUp: Bool { keySent }
    /// Where the key went up whole in this run (under the board's folder).
    private(set) var keyWentUpAt: String?

    var receipts: ExportState
    var waiting: [DeliveryRun.Waiting]
    var counts: DeliveryPlans.Counts
    /// A page owed (by an earlier run, or by this one until its page goes up).
    var pagePending: Bool
    /// The shipping folder written and not yet removed.
    var shipped = false
    /// This run removed its shipping folder (and so what an earlier run left in it).
    var shippingRemoved = false
    /// Trips deleted from the board since the run began, delivered before: no failure.
    var gone = 0
    /// The conversions of pruned trips made again from their remote logs that read back whole.
    var remadeFiles = Set<String>()
    /// Rows of trips pruned on the board that come back from the kept copy of the page, even
    /// where the remote's index has them otherwise (`DeliveryRun.remakeGone`).
    var keptGoneRows = Set<String>()
    private var keySent = false
    private var next = 0
    private var budget: Int
    private var local: DeliveryRun.LocalDestination?
    private var lookedUp = false
    /// The batches moved into place since the last read-back.
    private var unsettled: [DeliveryRun.Moved] = []

    init(
        run: DeliveryRun, previous: DeliveryStatus?, shippingId: String, survey: DeliveryRun.Survey,
        outdated: [ExportState.GoneTrip], keyOwed: Bool, keyDamaged: Bool = false, pagePending: Bool, pageRedo: Bool = false,
        redraw: Set<String> = [], counts: DeliveryPlans.Counts
    ) {
        self.redraw = redraw
        self.run = run
        self.previous = previous
        self.shippingId = shippingId
        finished = survey.finished
        listing = survey.listing
        receipts = survey.receipts
        waiting = survey.waiting
        self.outdated = outdated
        takeDown = Set(outdated.flatMap { $0.receipts.flatMap(\.sent).map(\.path) })
        self.keyOwed = keyOwed
        self.keyDamaged = keyDamaged
        self.pageRedo = pageRedo
        self.pagePending = pagePending
        self.counts = counts
        budget = DeliveryPlans.batchBytes(freeBytes: POSIX.freeBytes(run.dir), afterFailure: previous?.result == .failed)
    }

    /// Whether the run has anything to send or take down.
    var hasWork: Bool { !waiting.isEmpty || pagePending || keyOwed || listing.temporaries || !takeDown.isEmpty }

    mutating func problem(_ line: String) {
        printErr("cairn: \(line)")
        if counts.problems == 0 { counts.firstProblem = line }
        counts.problems += 1
    }

    /// Every batch up and settled, then the emptied shipping folder removed (once for the run:
    /// each batch's upload cleared what the one before left; a run cut before leaves it to the
    /// next). Throws `Stop` when the remote fails or a ride starts, `Failure` on a setup error.
    mutating func send() throws {
        repeat { try sendBatch() } while next < waiting.count
        try settle()
        if shipped {
            let (transport, shipping) = (run.transport, run.shipping)
            do {
                try run.attempt { () throws(Rclone.Failure) in try transport.removeFolder(shipping) }
                shipped = false
                shippingRemoved = true
            } catch {}  // kept in the status: the next run removes it
        }
    }

    /// The batches moved into place since the last read-back: their final names read back in one
    /// call, the trips whose files all read back receipted, the key and the page counted sent,
    /// the trips taken down forgotten.
    mutating func settle() throws {
        if unsettled.isEmpty { return }
        let all = unsettled
        unsettled = []
        var final: [String: String] = [:]
        let paths = all.flatMap(\.files).map(\.relative)
        if !paths.isEmpty {
            let (transport, base) = (run.transport, run.base)
            try run.attempt { () throws(Rclone.Failure) in
                final = [:]
                try transport.readBack(base, paths: paths) { md5, path in final[path] = md5 }
            }
        }
        let check = DeliveryPlans.verified(all.flatMap(\.files), readBack: final)
        let wrong = all.flatMap(\.wrong) + check.wrong
        for m in all {
            for w in m.trips where w.remade {
                // Counted once, when any of it (a conversion, its row, its picture) went whole.
                let page = m.page ? w.shown.map { [TripIndex.fileName, PageBuilder.picturePath(name: $0.entry.name)] } ?? [] : []
                if (w.staged.map(\.relative) + page).contains(where: check.whole.contains) {
                    counts.remade += 1
                }
                // No receipt: the one it has stays what it was (its logs are what went up).
                for s in w.staged where check.whole.contains(s.relative) {
                    remadeFiles.insert(s.relative)
                    printErr(
                        "cairn: \(DeliverCommand.join(run.base, terminalSafe(s.relative))): made again from its log there"
                            + " (trip \(w.trip.id), \(baseName(w.trip.files[0].path)), no longer on the board)")
                }
                if m.page && w.shown != nil && check.whole.contains(TripIndex.fileName) {
                    printErr(
                        "cairn: trip \(w.trip.id) (\(baseName(w.trip.files[0].path))), no longer on the board: its row on \(run.base)'s page"
                            + " made from its log there")
                }
            }
            for w in m.trips where !w.remade && DeliveryPlans.receipted(w.staged.map(\.relative), whole: check.whole) {
                // What each file read back with: the next runs' listings check it (a copy
                // damaged at its size is found where the backend has hashes).
                var md5 = w.there
                for s in w.staged { md5[s.relative] = s.md5 }
                receipts.mark(
                    w.trip, files: w.now, logs: run.copyLogs, destination: run.receiptDestination, salted: w.salted, hidden: w.hidden != nil,
                    sent: w.conversions, md5: md5)
                counts.delivered += 1
            }
            if let k = m.key, check.whole.contains(k.relative) {
                keySent = true
                keyWentUpAt = k.relative
            }
            if m.page {
                for f in m.files where Self.pageNames.contains(f.relative) && check.whole.contains(f.relative) { pageSums[f.relative] = f.md5 }
                // The pictures of trips pruned on the board, drawn again from their logs: not
                // said damaged after (`damagedGoneCopies`).
                if m.trips.contains(where: \.remade) {
                    for f in m.files where f.relative.hasPrefix(PageBuilder.picturesFolder + "/") && check.whole.contains(f.relative) {
                        remadeFiles.insert(f.relative)
                    }
                }
                // Each picture on its trip's receipt, as it read back (`picturesGone`).
                for f in m.files where f.relative.hasPrefix(PageBuilder.picturesFolder + "/") && check.whole.contains(f.relative) {
                    receipts.notePicture(f.relative, md5: f.md5, destination: run.receiptDestination)
                }
            }
        }
        // What reached the remote whole, the page's files and the key too (a run said "4 files"
        // where 7 went).
        let sent = DeliveryPlans.tally(all.flatMap(\.files), whole: check.whole)
        counts.sentFiles += sent.files
        counts.sentBytes += sent.bytes
        try receipts.save()
        if !wrong.isEmpty {
            // The trips whose files all went are delivered; the others wait.
            throw Stop.remote("\(run.base): does not read back as sent (\(wrong.prefix(3).joined(separator: ", ")))")
        }
        if all.contains(where: \.page) { pagePending = false }
        // Down, and off the page: their receipts have nothing left to name.
        if all.contains(where: \.takeDown) {
            for g in outdated {
                receipts.forget(g, folder: run.base)
                let files = g.receipts.flatMap(\.sent).map(\.path)
                printErr(
                    "cairn: trip \(g.trip) (\(g.file)): deleted from the board before it was cut for today's privacy zones;"
                        + " its conversions cut for other zones are taken off \(run.base)\(run.page ? " and its page" : "")"
                        + " (\(files.joined(separator: ", ")))")
            }
            try receipts.save()
        }
    }

    /// The next batch: staged, the page and the key with the run's last, what is there already
    /// left out, shipped and left to `settle`.
    private mutating func sendBatch() throws {
        try run.prepareOutbox()
        if next == 0 && listing.temporaries { try run.removeTemporaries() }
        let (part, stagedBytes) = try stageNext()
        let last = next == waiting.count
        var obsolete: [String] = []
        var pageMade = false
        let goes = part.map { waiting[$0] }.filter { !$0.failed }
        // Owed from here until a run sends it: a page that fails leaves it so. It is made with
        // the run's last batch (the trips of the others receipted by then).
        if run.page && !goes.isEmpty { pagePending = true }
        if run.page && pagePending && last {
            do {
                obsolete = try stagePage(goes)
                pageMade = true
            } catch let e as Failure {
                problem("the page on \(run.base): \(e.message)")
                run.removePage()
            }
        }
        if last { obsolete += takeDown }
        let logsGo = goes.contains { w in w.staged.contains { TripShipment.isLog($0.relative) } }
        var keyStaged: DeliveryPlans.Staged?
        if ShippingPlan.keyGoes(logs: run.copyLogs, key: run.stageOptions.zones.key != nil), let key = run.stageOptions.zones.key, !keySent,
            logsGo || keyOwed
        {
            do {
                keyStaged = try run.stageKey(key.bytes, listing: listing, target: keyTarget, damaged: keyDamaged, sentTo: keySentTo)
            } catch let e as Failure { problem(e.message) }
        }
        // What an earlier delivery sent of a trip that it names otherwise now (a zone added or
        // moved) or no longer sends (now wholly inside a zone), by its receipt: with the page
        // off too, nothing uncut of the place stays up.
        var renamed: [TripRef] = []
        // A trip made again from its remote log never takes anything down.
        for w in goes where !w.remade {
            let gone = DeliveryPlans.obsolete(
                before: receipts.sent(w.trip, folder: run.base).map(\.path), now: w.conversions.map(\.path),
                hidden: w.hidden != nil, formatsSent: run.formats.map(\.name), allFormats: ExportFormat.allCases.map(\.name),
                picturesFolder: PageBuilder.picturesFolder, nameNow: { w.names[$0] })
            if !gone.isEmpty { renamed.append(w.trip) }
            obsolete += gone
        }
        obsolete = Array(Set(obsolete)).sorted()
        var pageFiles = try run.stagedPage()
        // What the remote holds already, byte for byte, stays out of the batch (a format added
        // later sends only the new files); a log there at its size but with other bytes is
        // decided as `stage` decides any log there.
        let there = try run.copiesThere(goes.flatMap(\.staged) + pageFiles, listing: listing)
        for i in part where !waiting[i].failed {
            do { try run.drop(there, from: &waiting[i]) } catch let e as Failure {
                problem("trip \(waiting[i].trip.id): \(e.message)")
                waiting[i].failed = true
                counts.failedTrips += 1
            }
        }
        if pageMade {
            for f in pageFiles where Self.pageNames.contains(f.relative) && there[f.relative] == f.md5 { pageSums[f.relative] = f.md5 }
        }
        pageFiles.removeAll { there[$0.relative] == $0.md5 }
        // The page made is on the remote byte for byte already: owed no more.
        if pageMade && pageFiles.isEmpty { pagePending = false }
        let sending = part.map { waiting[$0] }.filter { !$0.failed }
        let batch = sending.flatMap(\.staged) + pageFiles + (keyStaged.map { [$0] } ?? [])
        // The outbox is mirrored whole: what a failed trip or a copy already there left in it
        // goes first.
        run.keepOnly(Set(batch.map(\.relative)))
        if !batch.isEmpty || !obsolete.isEmpty {
            try ship(
                batch, of: sending, deleting: obsolete, renamed: renamed, key: keyStaged, pageMade: pageMade, last: last)
        } else if sending.contains(where: { $0.staged.isEmpty && !$0.remade }) {
            // Nothing to ship in this batch: its trips' files are all there already, whole (a
            // run cut after its move, before its receipts): receipted now, so the page made with
            // a later batch shows them.
            for w in sending where w.staged.isEmpty && !w.remade {
                receipts.mark(
                    w.trip, files: w.now, logs: run.copyLogs, destination: run.receiptDestination, salted: w.salted, hidden: w.hidden != nil,
                    sent: w.conversions, md5: w.there)
                counts.delivered += 1
            }
            try receipts.save()
        }
        budget = DeliveryPlans.grow(budget, staged: stagedBytes, freeBytes: POSIX.freeBytes(run.dir))
    }

    /// Stages the waiting trips from `next` until the batch holds `budget` bytes of conversions
    /// (at least one trip); returns their indices and those bytes.
    private mutating func stageNext() throws -> (part: [Int], bytes: Int) {
        var part: [Int] = []
        var stagedBytes = 0
        while next < waiting.count && (part.isEmpty || stagedBytes < budget) {
            let i = next
            next += 1
            part.append(i)
            let label = "trip \(waiting[i].trip.id) (\(waiting[i].trip.files.map { baseName($0.path) }.joined(separator: ", ")))"
            do { try run.stage(&waiting[i], receipts: receipts, listing: listing) } catch let e as DeliveryRun.Undeliverable {
                waiting[i].failed = true
                printErr("cairn: \(label): \(e.message)")
            } catch let e as Failure {
                waiting[i].failed = true
                // Deleted since the run began (retention between two batches, on the strength
                // of a receipt and its copies found whole): delivered before, no failure; the
                // page keeps its entry.
                if DeliveryRun.vanished(waiting[i].trip), !receipts.recorded(waiting[i].trip).isEmpty {
                    printErr("cairn: \(label): deleted from the board since this run began (delivered before); left as it was delivered")
                    gone += 1
                    counts.alreadyThere += 1
                } else if waiting[i].remade {
                    problem("\(label), no longer on the board: not made again from its log there: \(e.message)")
                } else {
                    problem("\(label): \(e.message)")
                    counts.failedTrips += 1
                }
            }
            stagedBytes += waiting[i].staged.filter { !TripShipment.isLog($0.relative) }.reduce(0) { $0 + $1.size }
        }
        return (part, stagedBytes)
    }

    /// The page with the run's last batch: the trips receipted, those of the run's earlier
    /// batches moved and not yet receipted, and `goes`. Returns what the page no longer shows.
    private func stagePage(_ goes: [DeliveryRun.Waiting]) throws -> [String] {
        // A trip deleted since the survey keeps the entry the page has of it.
        let receipted = finished.filter {
            receipts.names($0.trip, destination: run.receiptDestination) && !DeliveryRun.vanished($0.trip)
        }.map { ($0.trip, $0.summary, receipts.salted($0.trip, destination: run.receiptDestination)) }
        let onPage = unsettled.flatMap(\.trips) + goes
        return try run.stagePage(
            onPage.compactMap(\.shown), hidden: onPage.compactMap(\.hidden), receipted: receipted,
            reconcile: previous?.pagePending == true || pageRedo, indexSize: listing.files[TripIndex.fileName]?.size, listing: listing,
            takeDown: takeDown, redraw: redraw, keptGone: keptGoneRows,
            own: Set(
                finished.map(\.trip).map(run.pageKey) + waiting.filter(\.remade).map(\.trip).map(run.pageKey)))
    }

    /// The page's files whose MD5s the status keeps (`DeliveryPlans.pageChanged`).
    static let pageNames: Set<String> = [TripIndex.fileName, IndexPage.fileName]

    /// Ships one batch (`DeliveryRun.ship`), said first in the status, and leaves it to `settle`.
    private mutating func ship(
        _ batch: [DeliveryPlans.Staged], of sending: [DeliveryRun.Waiting], deleting obsolete: [String], renamed: [TripRef],
        key keyStaged: DeliveryPlans.Staged?, pageMade: Bool, last: Bool
    ) throws {
        // Where the board's folder is, as the first batch goes up (one rclone call; none for a
        // plain path): on the log directory's own card it is refused; in a run of more batches
        // than one, each batch finds it still where it was.
        if !lookedUp && !batch.isEmpty {
            lookedUp = true
            try run.refuseOnCard()
            if next < waiting.count { local = run.localDestination() }
        }
        // Said before anything goes up: a run cut after it leaves the page owed and its
        // shipping folder to remove.
        var owed = previous ?? DeliveryStatus()
        owed.pagePending = run.page && pagePending
        owed.remote = run.remote
        owed.shippingId = shippingId
        owed.shippingLeft = true
        owed.boardFolder = run.board
        do { try owed.write(directory: run.dir) } catch { printErr("cairn: \(error)") }
        // A trip whose earlier conversions go before its new ones are in place is not delivered
        // until they are: a run cut between must not leave prune a receipt to delete the trip
        // on (its logs whole there, its tracks gone). What the receipt says was sent stays, for
        // the next run to take back.
        if !renamed.isEmpty {
            for t in renamed { receipts.withholdLogs(t, folder: run.base) }
            try receipts.save()
        }
        shipped = true
        // A log (or the key) the listing did not show never replaces a file that is there by
        // the time it moves: another board's, come meanwhile, or unlisted.
        var keep = Set(sending.flatMap(\.fresh))
        if let k = keyStaged, listing.files[k.relative] == nil { keep.insert(k.relative) }
        // Progress where someone watches (standard error a terminal; under systemd the journal
        // gets only the outcome).
        if !run.quietFailures && !batch.isEmpty {
            let bytes = batch.reduce(0) { $0 + $1.size }
            printErr(
                "cairn: sending \(sending.count) trip\(sending.count == 1 ? "" : "s") (\(batch.count) files, \(bytes) bytes)"
                    + (next < waiting.count ? ", \(waiting.count - next) more after" : "") + " to \(run.base)...")
        }
        let moved = try run.ship(batch, deleting: obsolete, keep: keep, local: local)
        // Read back under their final names, and receipted, once for the run (`settle`): a run
        // cut before leaves them there unreceipted, and the next finds them whole and receipts
        // them.
        unsettled.append(
            DeliveryRun.Moved(
                trips: sending, files: moved.going, wrong: moved.wrong, key: keyStaged, page: pageMade,
                takeDown: last && !outdated.isEmpty && (pageMade || !run.page)))
        // A file that did not read back as sent stops the run here, as it did before the
        // read-backs were one for the run.
        if !moved.wrong.isEmpty { try settle() }
    }
}

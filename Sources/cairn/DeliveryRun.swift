#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// One run of `cairn deliver` (see DeliverCommand): which trips wait, each staged (logs linked,
/// conversions made, the page), the whole batch shipped (DeliveryRun+Shipping), the receipts,
/// and what the run says (`DeliveryPlans.outcome`).
struct DeliveryRun {
    let dir: String
    let remote: String
    /// The remote folder of this board (`DeliverCommand.boardFolder`).
    let board: String
    let transport: TripRemote
    let retries: Int
    let formats: [ExportFormat]
    let copyLogs: Bool
    let stageOptions: ExportStageOptions
    /// Under systemd (standard error not a terminal): a failure that goes on is not said again.
    let quietFailures: Bool
    /// Keep the remote's page (index.html, index.tsv, pictures/) up to date.
    let page: Bool
    /// What the run did, for `deliver --json` (the status it wrote, its counts); nil when it
    /// ended before (the log directory unreadable, the remote the board's own storage).
    var report: JSONObject?
    /// The rclone program and config, kept in the status for retention.
    var rcloneProgram = ""
    var rcloneConfig = ""

    typealias Stop = DeliveryPlans.Stop

    var base: String { DeliverCommand.join(remote, board) }
    /// Where this run's batch goes up before it moves into the board's folder: beside that folder
    /// (rclone moves nothing into a folder from inside it), named for the board and the run (an
    /// rclone left running by a killed run writes only in its own).
    var shipping = ""
    /// What a receipt names as its destination: the board's folder on the remote (where
    /// retention looks for the copies), the formats sent there and, with privacy zones, their
    /// keyed hash: a folder, a format or a zone changed later sends every trip again.
    var receiptDestination: String {
        base + " " + (formats.isEmpty ? "none" : formats.map(\.name).joined(separator: ","))
            + (stageOptions.zones.isEmpty ? "" : " zones-" + stageOptions.zones.fingerprint)
    }
    var staging: String { POSIX.join(dir, DeliverCommand.stagingName) }
    /// The folder mirrored to `shipping`: the batch, laid out as under the board's folder.
    var outbox: String { POSIX.join(staging, "out") }

    /// A trip waiting: its files now, and what was staged for it.
    struct Waiting {
        var trip: TripRef
        var summary: TripSummary
        var now: [ExportState.CopiedFile]
        var staged: [DeliveryPlans.Staged] = []
        /// Its conversions, whether sent by this run or there already, and each format's name
        /// for it now.
        var conversions: [ExportState.SentFile] = []
        var names: [String: String] = [:]
        /// Its logs the listing did not show at the remote: they never replace a file there.
        var fresh: Set<String> = []
        /// Its files found there already, byte for byte, and their MD5s (for the receipt).
        var there: [String: String] = [:]
        var shown: PageTrip?
        var hidden: String?
        var failed = false
        /// Its names carry its logs' salts (`DeliveryRun.salted`; set as it is staged).
        var salted = true
    }

    mutating func go() -> Int32 {
        let previous = DeliveryStatus.read(directory: dir)
        // The same shipping folder run after run (its name from this board and this log
        // directory's id, never read from anywhere else): a run cut mid-upload is resumed.
        let shippingId = previous.flatMap { $0.shippingId.count == 16 ? $0.shippingId : nil } ?? randomHex()
        shipping = DeliverCommand.join(remote, DeliverCommand.temporaryPrefix + board + "-" + shippingId)
        var leftover = previous?.shippingLeft == true
        var counts = DeliveryPlans.Counts()
        func problem(_ line: String) {
            printErr("cairn: \(line)")
            if counts.problems == 0 { counts.firstProblem = line }
            counts.problems += 1
        }
        let found: Survey
        switch surveyWithMarker(&counts, problem) {
        case .found(let f): found = f
        case .end(let code): return code
        }
        // Once per log directory, with a run that sends after its first (a first delivery and a
        // run with nothing to send cost no more): what a run on a card before this one left in a
        // shipping folder of this board goes.
        var othersCleared = previous?.othersCleared == true
        if let p = previous, !p.othersCleared, found.stop == nil, !found.waiting.isEmpty { othersCleared = removeOtherShippingFolders() }
        // A shipping folder left on the remote of before (the rider changed `remote`): removed.
        if let p = previous, p.shippingLeft, p.remote != remote, p.shippingId.count == 16, !p.remote.isEmpty, found.stop == nil {
            let old = DeliverCommand.join(
                p.remote, DeliverCommand.temporaryPrefix + (p.boardFolder.isEmpty ? board : p.boardFolder) + "-" + p.shippingId)
            try? transport.removeFolder(old)
        }
        let listing = found.listing
        var stop = found.stop
        // Trips delivered, then deleted from the board (retention), whose conversions were cut
        // for other zones than today's: never cut again, so what was published of them comes
        // down with the run's last batch (conversions, picture, page entry; the logs stay).
        let outdated = stop == nil ? outdatedCuts(found.receipts) : []
        // A shipping folder a cut run left: resumed by a run that sends, else removed now.
        if stop == nil && leftover && found.waiting.isEmpty {
            do {
                try attempt { () throws(Rclone.Failure) in try transport.removeFolder(shipping) }
                leftover = false
            } catch {}  // tried again by the next run
        }
        // The board's key goes with its logs: owed while the logs folder holds logs and not it
        // (a run cut after its receipts, before the key went up, leaves it so); sent again when
        // this key went up here whole before and shows damaged now (`DeliveryPlans.keyThere`).
        var keyOwed = false
        var keyDamaged = false
        var keySent = previous?.keySent ?? ""
        if ShippingPlan.keyGoes(logs: copyLogs, key: stageOptions.zones.key != nil), let key = stageOptions.zones.key, stop == nil {
            var m = MD5()
            m.add(key.bytes)
            let ours = m.hex() + " " + base
            let listed = listing.files[TripShipment.keyPath]
            switch DeliveryPlans.keyThere(ours: (key.bytes.count, m.hex()), listed: listed, holdsLogs: listing.holdsLogs, sentHere: keySent == ours) {
            case .fine: if listed?.md5 != nil { keySent = ours }
            case .owed: keyOwed = true
            case .damaged:
                keyOwed = true
                keyDamaged = true
                printErr(
                    "cairn: \(DeliverCommand.join(base, TripShipment.keyPath)): this board's key, damaged there (other bytes than it went up with); sent again"
                )
            case .another: keyOwed = listing.holdsLogs
            }
        }
        // The page as this log directory last sent it, changed there since (damaged, or another
        // card's page): made again with the run, its entries of this board's trips made anew.
        var pageRedo = false
        if page && stop == nil, let p = previous, p.pageFolder == base {
            let changed = DeliveryPlans.pageChanged(sent: p.pageSent, listed: listing.files)
            if !changed.isEmpty {
                pageRedo = true
                printErr(
                    "cairn: \(base): \(changed.joined(separator: ", ")) not as this board last sent it (damaged there, or another card's page since): made again"
                )
            }
        }
        // Pictures of this card's delivered trips gone from the remote since (attack-r22 c22):
        // the page is made again with those trips' entries, their pictures drawn anew. A trip
        // without positions (a trainer) has none.
        var redraw: Set<String> = []
        if page && stop == nil {
            let sent = found.finished.filter { !$0.summary.hasNoPositions }.map {
                found.receipts.sent($0.trip, destination: receiptDestination).map(\.path)
            }
            redraw = Set(DeliveryPlans.picturesGone(sent: sent, listed: listing.files))
            if let first = redraw.min() {
                pageRedo = true
                printErr("cairn: \(base): \(first)\(redraw.count > 1 ? " and \(redraw.count - 1) more" : ""): missing there; drawn again")
            }
        }
        // A file under the name of a folder deliver writes in would hold every file back, run
        // after run: said, and nothing sent until it is moved away.
        let blocking = TripShipment.folders.filter { listing.files[$0] != nil }
        if stop == nil && !blocking.isEmpty && !found.waiting.isEmpty {
            problem("\(base): \(blocking.joined(separator: ", ")): a file where deliver keeps a folder; move it away")
            counts.failedTrips += found.waiting.count
        }
        // A page owed by an earlier run (cut, or its page failed) is made whatever this run sends.
        var batches = DeliveryBatches(
            run: self, previous: previous, shippingId: shippingId, survey: found, outdated: outdated, keyOwed: keyOwed,
            keyDamaged: keyDamaged, pagePending: page && (previous?.pagePending == true || !outdated.isEmpty || pageRedo), pageRedo: pageRedo,
            redraw: redraw, counts: counts)
        if stop == nil && blocking.isEmpty && batches.hasWork {
            do {
                try batches.send()
            } catch let e as Stop {
                stop = e
                // What earlier batches moved into place is receipted still, when the remote
                // answers (a remote with room for some trips takes those); not while a ride is
                // recorded (the read-back downloads every byte): the next run finds them there.
                if case .remote = e { try? batches.settle() }
            } catch let e as Failure where e.status == ExitCode.config {
                removeStaging(staging)
                printErr("cairn deliver: \(e.message)")
                return e.status
            } catch {
                stop = .remote("\(error)")
            }
        }
        if batches.shippingRemoved { leftover = false }
        removeStaging(staging)
        counts = batches.counts
        counts.left = found.waiting.count - counts.delivered - batches.gone + found.unreadable
        var status = DeliveryStatus()
        status.remote = remote
        status.pagePending = batches.pagePending
        status.rclone = rcloneProgram
        status.rcloneConfig = rcloneConfig
        status.shippingId = shippingId
        status.shippingLeft = batches.shipped || leftover
        status.boardFolder = board
        status.othersCleared = othersCleared
        status.zonesWanted = stageOptions.zones.isEmpty ? "" : stageOptions.zones.fingerprint
        status.readBackFrom = found.readBackNext
        if batches.keyWentUp, let key = stageOptions.zones.key {
            var m = MD5()
            m.add(key.bytes)
            keySent = m.hex() + " " + base
        }
        status.keySent = keySent
        // What the page's files read back with, where they are: the next run finds them changed.
        if let p = previous, p.pageFolder == base { status.pageSent = p.pageSent }
        status.pageFolder = base
        status.pageSent.merge(batches.pageSums) { $1 }
        if status.pageSent.isEmpty { status.pageFolder = "" }
        status.delivered = counts.delivered
        status.waiting = counts.left
        status.atMs = SystemClock.wallClockMs()
        let o = DeliveryPlans.outcome(
            stop: stop, counts: counts, remote: remote, base: base, previous: previous, quietFailures: quietFailures, nowMs: status.atMs)
        status.result = o.result
        status.reason = o.reason
        status.failures = o.failures
        status.failingSinceMs = o.failingSinceMs
        status.tryLater = o.tryLater
        for l in o.lines { printErr("cairn: \(l)") }
        do { try status.write(directory: dir) } catch { printErr("cairn: \(error)") }
        var r = status.json
        r.add("already_there", counts.alreadyThere)
        r.add("not_delivered", counts.failedTrips)
        r.add("sent_files", counts.sentFiles)
        r.add("sent_bytes", counts.sentBytes)
        r.add("problems", counts.problems)
        report = r
        return o.exitCode
    }

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
        var next = 0
        if stop == nil && !unhashed.isEmpty {
            let turn = DeliveryPlans.readBackTurn(
                sizes: unhashed.map { $0.files.reduce(0) { $0 + $1.size } }, from: DeliveryStatus.read(directory: dir)?.readBackFrom ?? 0,
                budget: DeliveryPlans.readBackBytesPerRun)
            var got: [String: String] = [:]
            // One call, no retries: a read-back that fails is tried again by the next run.
            let paths = turn.chosen.flatMap { unhashed[$0].files.map(\.name) }
            if (try? transport.readBack(base, paths: paths, md5: { md5, path in got[path] = md5 })) != nil {
                next = turn.next
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
            } else {
                next = DeliveryStatus.read(directory: dir)?.readBackFrom ?? 0
            }
        }
        return Survey(
            finished: finished, receipts: receipts, listing: listing, waiting: waiting, unreadable: unreadable, stop: stop, readBackNext: next)
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

    /// `deliver --check`: reaches the remote and says what a run would send, writing nothing.
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

    func check(json: Bool = false) -> Int32 {
        // With --json the same, as one object on standard output at the end (notes in "notes").
        var notes: [String] = []
        var recording: String?
        func say(_ line: String) { if json { notes.append(line) } else { printOut(line) } }
        func ended(_ code: Int32, reached: Bool, reason: String? = nil, body: (inout JSONObject) -> Void = { _ in }) -> Int32 {
            guard json else { return code }
            var o = JSONObject()
            o.add("check", true)
            o.add("remote", remote)
            o.add("board_folder", base)
            o.add("reached", reached)
            o.add("reason", reason)
            o.add("recording", recording)
            body(&o)
            o.add("notes", json: "[" + notes.map(TextFormat.jsonString).joined(separator: ", ") + "]")
            o.add("exit_status", Int(code))
            printOut(o.text)
            return code
        }
        var counts = DeliveryPlans.Counts()
        let found: Survey
        switch surveyWithMarker(&counts, { printErr("cairn: \($0)") }) {
        case .found(let f): found = f
        case .end(let code): return ended(code, reached: false)
        }
        removeStaging(staging)
        if let stop = found.stop {
            switch stop {
            case .recording(let why):
                say("cairn deliver --check: \(why); a run now would wait")
                recording = why
            case .remote(let why):
                printErr("cairn deliver --check: \(remote): \(why)")
                return ended(DeliveryPlans.RemoteTrouble(why).exitCode, reached: false, reason: why)
            }
        }
        if !json { printOut("remote: \(remote) (reached); this board's folder: \(base)") }
        switch (try? transport.localFolders(base)) ?? .folders([]) {
        case .folders(let local):
            if let why = onCardRefusal() {
                printErr("cairn deliver --check: \(why)")
                return ended(ExitCode.config, reached: true, reason: why)
            }
            if let onCard = local.first(where: { OnThisCard.isOnIt($0, logDirectory: dir) }) {
                say(
                    "note: \(terminalSafe(onCard)) is on the log directory's own card (a stick that is not mounted? another partition?):"
                        + " copies there are no copies off the board, and prune keeps the trips")
            }
        case .unknown(let why):
            say("note: where \(terminalSafe(base)) keeps its files cannot be told (\(terminalSafe(why))): prune keeps the trips delivered there")
        }
        let code = counts.problems > 0 ? ExitCode.failure : ExitCode.ok
        guard !json else {
            return ended(code, reached: true) { o in
                o.add("formats", json: "[" + formats.map { TextFormat.jsonString($0.name) }.joined(separator: ", ") + "]")
                o.add("logs", copyLogs)
                o.add("page", page)
                o.add("privacy_zones", stageOptions.zones.zones.count)
                o.add("would_send", json: "[" + found.waiting.map { "\($0.trip.id)" }.joined(separator: ", ") + "]")
                o.add("already_there", counts.alreadyThere)
            }
        }
        printOut(
            "formats: \(formats.isEmpty ? "none" : formats.map(\.name).joined(separator: ",")); logs: \(copyLogs ? "yes" : "no"); page: \(page ? "yes" : "no")"
                + (stageOptions.zones.isEmpty ? "" : "; privacy zones: \(stageOptions.zones.zones.count), cut"))
        for w in found.waiting {
            printOut("would send: trip \(w.trip.id) (\(w.trip.files.map { baseName($0.path) }.joined(separator: ", ")))")
        }
        printOut("\(found.waiting.count) trip\(found.waiting.count == 1 ? "" : "s") to send, \(counts.alreadyThere) already there")
        return code
    }

    /// What delivery keeps of the board folder's listing: the files it may need by name (the
    /// trips' logs and conversions, the page's index, the key) and whether anything else of its
    /// own is there (temporaries of a cut run, logs).
    struct Listing {
        var files: [String: RemoteCopies.FileCheck] = [:]
        var folders = Set<String>()
        var temporaries = false
        var holdsLogs = false
        /// Where the listing showed the run's marker (the log directory's own storage).
        var marker: String?
    }

    /// Which listed paths matter to this run: exact names, and conversion names by their tail
    /// after the start time (with zones the start is the cut's, unknown without the trip read).
    struct Wanted {
        var exact = Set<String>()
        var tails = Set<String>()
    }

    /// Whether `t`'s copies on the board's folder are named with its logs' salts: all but those
    /// of a trip delivered there under cairn 0.3's plain names (`TripShipment.logName`).
    func salted(_ t: TripRef, _ receipts: ExportState) -> Bool { !receipts.plainNames(t, folder: base) }

    func wantedNames(_ trips: [(TripRef, TripSummary)], receipts: ExportState) -> Wanted {
        var w = Wanted()
        w.exact.insert(TripIndex.fileName)
        w.exact.insert(IndexPage.fileName)
        // The folders deliver writes in: a file under one of these names holds every file back.
        for f in TripShipment.folders { w.exact.insert(f) }
        w.exact.insert(TripShipment.keyPath)
        for (t, s) in trips {
            let salted = salted(t, receipts)
            for f in t.files { w.exact.insert(TripShipment.logPath(f, salted: salted)) }
            for c in receipts.sent(t, destination: receiptDestination) {
                w.exact.insert(c.path)
                // Its picture on the page (`DeliveryPlans.picturesGone`).
                if let p = DeliveryPlans.picture(of: c.path) { w.exact.insert(p) }
            }
            let tripBoard = TripCatalog.board(of: t, fallback: stageOptions.board)
            for format in formats {
                let plain = TripShipment.conversionName(format, t, startMs: nil, board: tripBoard, salted: salted)
                w.tails.insert(format.name + "/" + plain)
                if stageOptions.zones.isEmpty, s.records > 0 {
                    w.exact.insert(
                        format.name + "/" + TripShipment.conversionName(format, t, startMs: s.stats.firstTimeMs, board: tripBoard, salted: salted))
                }
            }
        }
        return w
    }

    /// A conversion's name without its start time ("20250601-080000-bike-trip3.gpx" -> "bike-trip3.gpx").
    static func tail(_ name: Substring) -> Substring {
        let u = Array(name.utf8.prefix(16))
        let dated = u.count == 16 && u[8] == UInt8(ascii: "-") && u[15] == UInt8(ascii: "-")
        return dated ? name.dropFirst(16) : name
    }

    /// The board's folder as the remote lists it now, kept to `wanted`; empty when it is not there yet.
    func list(wanted: Wanted, marker: String? = nil) throws -> Listing {
        var out = Listing()
        try attempt { () throws(Rclone.Failure) in
            out = Listing()
            do throws(Rclone.Failure) {
                // With each file's MD5 where the backend has one: a copy damaged at its size
                // is found (by the receipt's MD5s) and sent again.
                try transport.list(base, hashes: true) { e in
                    let name = e.path.split(separator: "/").last ?? ""
                    if name.hasPrefix(DeliverCommand.temporaryPrefix) { out.temporaries = true }
                    if let m = marker, name == m { out.marker = e.path }
                    if TripShipment.isLog(e.path) && e.path.hasSuffix(".cairn") { out.holdsLogs = true }
                    var keep = wanted.exact.contains(e.path)
                    if !keep, let slash = e.path.firstIndex(of: "/") {
                        keep = wanted.tails.contains(String(e.path[...slash]) + Self.tail(e.path[e.path.index(after: slash)...]))
                    }
                    guard keep else { return }
                    if e.isFolder {
                        out.folders.insert(e.path)
                    } else {
                        out.files[e.path] = RemoteCopies.FileCheck(name: e.path, size: e.size, md5: e.md5)
                    }
                }
            } catch {
                if !error.notFound { throw error }
            }
        }
        return out
    }

    /// What the listing lacks of a delivered trip's copies: its logs at the sizes of its receipt
    /// and its conversions (by name; with zones by the name's tail), each with the MD5 it read
    /// back with where the receipt and the listing both have one; nil when all are there.
    func lostCopies(_ t: TripRef, _ whole: TripSummary, receipts: ExportState, destination: String, listing: Listing) -> [String]? {
        var problems: [String] = []
        let md5 = receipts.md5s(t, destination: destination)
        var wanted: [RemoteCopies.FileCheck] = []
        if copyLogs, let files = receipts.files(t, destination: destination) {
            let salted = receipts.salted(t, destination: destination)
            wanted += files.map { f in
                let rel = TripShipment.logPath(f, salted: salted)
                return RemoteCopies.FileCheck(name: rel, size: f.digest.size, md5: md5[rel])
            }
        }
        let sent = receipts.sent(t, destination: destination)
        wanted += sent.map { RemoteCopies.FileCheck(name: $0.path, size: $0.size, md5: md5[$0.path]) }
        if case .notWhole(let p) = RemoteCopies.found(wanted, in: listing.files) { problems += p }
        // A receipt of before the conversions were recorded: by their names.
        if sent.isEmpty && whole.stats.points > 0 {
            let tripBoard = TripCatalog.board(of: t, fallback: stageOptions.board)
            let salted = salted(t, receipts)
            for format in formats {
                if stageOptions.zones.isEmpty {
                    let name =
                        format.name + "/" + TripShipment.conversionName(format, t, startMs: whole.stats.firstTimeMs, board: tripBoard, salted: salted)
                    if listing.files[name] == nil { problems.append("\(name): missing") }
                } else {
                    // A trip wholly inside a zone has no conversion; one that has shows under its tail.
                    let plain = format.name + "/" + TripShipment.conversionName(format, t, startMs: nil, board: tripBoard, salted: salted)
                    let any = listing.files.keys.contains { k in
                        guard let slash = k.firstIndex(of: "/") else { return false }
                        return String(k[...slash]) + Self.tail(k[k.index(after: slash)...]) == plain
                    }
                    if !any && !receipts.hidesAll(t, destination: destination) { problems.append("\(plain): missing") }
                }
            }
        }
        return problems.isEmpty ? nil : problems
    }
    /// Where a file named `name` is in `dir`, in its folders up to 6 deep, or in the folders
    /// above it (at most 20,000 entries looked at); nil when nowhere.
    static func find(_ name: String, around dir: String) -> String? {
        let start = ExportCommand.canonical(dir)
        var up = start
        while true {
            let p = POSIX.join(up, name)
            if POSIX.exists(p) { return up == start ? "the log directory" : "\(up), which holds the log directory" }
            if up == "/" || up.isEmpty { break }
            up = POSIX.parent(of: up)
        }
        var budget = 20_000
        var level = [start]
        for _ in 0..<6 {
            var next: [String] = []
            for d in level {
                for n in (try? POSIX.listDirectory(d)) ?? [] where n != "." && n != ".." {
                    budget -= 1
                    if budget < 0 { return nil }
                    let p = POSIX.join(d, n)
                    if n == name { return "\(d), inside the log directory" }
                    if POSIX.isDirectory(p) { next.append(p) }
                }
            }
            level = next
        }
        return nil
    }

    /// Removes the staging folder and everything in it (the page's folders too).
    func removeStaging(_ staging: String) {
        guard let names = try? POSIX.listDirectory(staging) else { return }
        for n in names where n != "." && n != ".." {
            let p = POSIX.join(staging, n)
            if POSIX.isDirectory(p) && (try? POSIX.status(p, followLinks: false)).map({ ($0.st_mode & S_IFMT) == S_IFDIR }) == true {
                removeStaging(p)
            } else {
                _ = POSIX.unlink(p)
            }
        }
        POSIX.removeDirectory(staging)
    }

    /// The trip as the page shows it, its zones cut: nil for one with no point to show.
    func pageTrip(_ t: TripRef, _ whole: TripSummary, salted: Bool) throws -> PageTrip? {
        if whole.records == 0 { return nil }
        let shipment = try TripShipment(t, whole, zones: stageOptions.zones, board: stageOptions.board, salted: salted)
        if shipment.hidesAll { return nil }
        return shipment.pageTrip(formats: formats, logs: copyLogs) { _ in true }
    }

    /// The delivered trips deleted from the board since (`ExportState.gone`) whose conversions at
    /// this board's folder were cut for other privacy zones than today's (or for none): with
    /// their logs gone they cannot be cut again, and what shows the place must come down.
    func outdatedCuts(_ receipts: ExportState) -> [ExportState.GoneTrip] {
        guard !stageOptions.zones.isEmpty else { return [] }
        let today = " zones-" + stageOptions.zones.fingerprint
        return receipts.gone().compactMap { g in
            var g = g
            g.receipts = g.receipts.filter { ExportState.folder(ofDestination: $0.destination) == base }
            // Cut for today's zones already (its earlier cuts taken down then), or nothing sent.
            if g.receipts.contains(where: { $0.destination.hasSuffix(today) }) { return nil }
            return g.receipts.contains { !$0.sent.isEmpty } ? g : nil
        }
    }

    /// A batch moved into place, not yet read back under its final names (`DeliveryBatches.settle`).
    struct Moved {
        var trips: [Waiting]
        var files: [DeliveryPlans.Staged]
        /// What did not read back right in the shipping folder (never moved).
        var wrong: [String]
        var key: DeliveryPlans.Staged?
        var page: Bool
        var takeDown: Bool
    }

    /// Whether every file of `t` is gone from the board (deleted since the run read it).
    static func vanished(_ t: TripRef) -> Bool { !t.files.contains { POSIX.exists($0.path) } }

    /// A file's modification time in ns; Int64.max when it cannot be read (then it counts as new).
    func modifiedNs(_ path: String) -> Int64 {
        guard let st = try? POSIX.status(path) else { return .max }
        return Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    /// Why delivery must wait: a trip the recorder is writing.
    func recording() -> String? {
        if case .running(let pid, let open?, _) = DirectoryLock.recorder(in: dir) {
            // The recorder holds its lock whole days while parked; only a log it has open counts.
            let logs = ((try? LogDirectory.logFiles(in: dir)) ?? []).compactMap { DirectoryLock.FileKey(path: $0.path) }
            if logs.contains(where: { open.contains($0) }) { return "the recorder (PID \(pid)) is recording a trip" }
        }
        return nil
    }

    /// What `cairn verify` finds wrong with a local log that matters for its copies ("torn at its
    /// end", "damaged"), nil when it reads clean.
    static func flaw(_ path: String) -> String? {
        guard let r = try? LogReader(path: path), let s = try? r.scan() else { return "unreadable" }
        if !s.damaged.isEmpty { return "damaged" }
        if s.tornTailBytes > 0 { return "torn at its end (\(s.tornTailBytes) bytes)" }
        return nil
    }

    /// Whether the first bytes of a file may begin a cairn trip index (its version line, or the
    /// header line of one without): a file of zeros or of anything else is none.
    static func mayBeIndex(_ head: [UInt8]) -> Bool {
        [Array("# cairn trip index".utf8), Array("key\t".utf8)].contains { p in
            head.count >= p.count ? head.prefix(p.count).elementsEqual(p) : p.prefix(head.count).elementsEqual(head)
        }
    }

    /// Runs `call` up to `retries` times, waiting 2, 8, 32... s between (monotonic: a clock set
    /// back or forward does not change the waits); the last failure stops the run.
    func attempt(_ call: () throws(Rclone.Failure) -> Void) throws {
        var wait: UInt32 = 2
        for n in 1...retries {
            do {
                try call()
                return
            } catch {
                // A full remote stays full for the seconds between tries: said at once.
                if n == retries || DeliveryPlans.RemoteTrouble(error.description) == .full { throw Stop.remote(error.description) }
                POSIX.sleep(seconds: wait)
                wait = min(wait * 4, 300)
            }
        }
    }

}

/// 16 random hex digits: a name no other run picks.
func randomHex() -> String {
    var g = SystemRandomNumberGenerator()
    let v = g.next() as UInt64
    let h = String(v, radix: 16)
    return String(repeating: "0", count: 16 - h.count) + h
}

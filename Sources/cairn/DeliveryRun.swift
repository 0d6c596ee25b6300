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

/// One run of `cairn deliver` (see DeliverCommand): the trips, each file up and verified, the
/// receipts, and what the run says.
struct DeliveryRun {
    let dir: String
    let remote: String
    let rclone: Rclone
    let retries: Int
    let formats: [ExportFormat]
    let copyLogs: Bool
    let stageOptions: ExportStageOptions
    /// Under systemd (standard error not a terminal): a failure that goes on is not said again.
    let quietFailures: Bool
    /// Keep the remote's page (index.html, index.tsv, pictures/) up to date.
    let page: Bool

    /// Why the run stopped early: the remote failed, or a trip started.
    enum Stop: Error {
        case remote(String)
        case recording(String)
    }

    /// The remote folder of this board: its id (`board` in the config, `--board`), else `unnamed`.
    var board: String { stageOptions.board ?? DeliverCommand.unnamedBoard }
    var base: String { DeliverCommand.join(remote, board) }
    /// What a receipt names as its destination: the remote, the formats sent there and, with
    /// privacy zones, their keyed hash: a format or a zone changed later sends every trip again.
    var receiptDestination: String {
        remote + " " + (formats.isEmpty ? "none" : formats.map(\.name).joined(separator: ","))
            + (stageOptions.zones.isEmpty ? "" : " zones-" + stageOptions.zones.fingerprint)
    }

    mutating func go() -> Int32 {
        let previous = DeliveryStatus.read(directory: dir)
        var status = DeliveryStatus()
        status.remote = remote
        var problems = 0
        let all: [(trip: TripRef, summary: TripSummary, openBecause: String?)]
        do {
            all = try catalogTrips(
                in: dir,
                say: {
                    printErr("cairn: \($0)"); problems += 1
                })
        } catch {
            printErr("cairn: \(error)")
            return ExitCode.failure
        }
        var receipts = ExportState(directory: dir, fileName: ExportState.deliveredFileName)
        if let p = receipts.problem { printErr("cairn: \(p)") }
        // The formats are part of what was delivered: a format added later goes up for every trip.
        let destination = receiptDestination
        let staging = POSIX.join(dir, DeliverCommand.stagingName)

        let receiptsNs = modifiedNs(receipts.path)
        var waiting: [(trip: TripRef, summary: TripSummary, files: [ExportState.CopiedFile])] = []
        var stop: Stop?
        if let why = recording() { stop = .recording(why) }
        // Counted whether or not the run goes on: a deferred run's status says what waits.
        for (t, s, openBecause) in all where openBecause == nil {
            // Sizes suffice for a log untouched since the receipts were written; one written
            // since (even to the same size) is read whole.
            if receipts.isExportedBySize(t, to: destination, logs: copyLogs), !t.files.contains(where: { modifiedNs($0.path) >= receiptsNs }) {
                continue
            }
            let now: [ExportState.CopiedFile]
            do { now = try ExportState.current(t) } catch {
                printErr("cairn: trip \(t.id): \(error)")
                problems += 1
                continue
            }
            if receipts.isExported(t, to: destination, now: now, logs: copyLogs) { continue }
            waiting.append((t, s, now))
        }
        var delivered = 0, failedTrips = 0, sentFiles = 0, sentBytes = 0
        // A page owed by an earlier run (cut, or its page failed) is made whatever this run sends.
        var pagePending = page && previous?.pagePending == true
        if stop == nil && (!waiting.isEmpty || pagePending) {
            do {
                try prepare(staging)
            } catch let e as Stop {
                stop = e
            } catch {
                stop = .remote("\(error)")
            }
        }
        var left = waiting.count
        var shown: [PageTrip] = []
        var hidden: [String] = []
        if page && stop == nil && !waiting.isEmpty {
            // Said before the first receipt, so that a run cut after it leaves the page owed.
            var owed = previous ?? DeliveryStatus()
            owed.pagePending = true
            do { try owed.write(directory: dir) } catch { printErr("cairn: \(error)") }
            pagePending = true
        }
        for (t, whole, now) in waiting where stop == nil {
            let label = "trip \(t.id) (\(t.files.map { baseName($0.path) }.joined(separator: ", ")))"
            if let why = recording() { stop = .recording(why); break }
            do {
                let sent = try deliver(t, whole, now, label: label, staging: staging)
                sentFiles += sent.files
                sentBytes += sent.bytes
                if let p = sent.shown { shown.append(p) }
                if let k = sent.hidden { hidden.append(k) }
                receipts.mark(t, files: now, logs: copyLogs, destination: destination)
                // Each receipt is durable on its own: a run cut later keeps the trips before.
                try receipts.save()
                delivered += 1
                left -= 1
            } catch let e as Stop {
                stop = e
            } catch let e as Failure {
                printErr("cairn: \(label): \(e.message)")
                problems += 1
                failedTrips += 1
            } catch {
                printErr("cairn: \(label): \(error)")
                problems += 1
                failedTrips += 1
            }
        }
        // The page after the trips: a trip is delivered (and receipted) whether or not its page
        // goes up; a page that fails is said, and owed until a run makes it.
        if page, stop == nil, pagePending {
            do {
                let receipted = all.filter { $0.openBecause == nil && receipts.names($0.trip, destination: destination) }
                try updatePage(
                    shown, hidden: hidden, receipted: receipted.map { ($0.trip, $0.summary) }, reconcile: previous?.pagePending == true,
                    staging: staging)
                pagePending = false
            } catch let e as Stop {
                stop = e
            } catch let e as Failure {
                printErr("cairn: the page on \(base): \(e.message)")
                problems += 1
            } catch {
                printErr("cairn: the page on \(base): \(error)")
                problems += 1
            }
        }
        // The board's privacy key goes with its logs, as export's does: a laptop's convert of
        // the copies then cuts the zones where the board does (they hold every point anyway).
        if stop == nil, delivered > 0, copyLogs, let key = stageOptions.zones.key {
            do {
                let local = POSIX.join(staging, ExportStageOptions.keyFileName)
                try writeFileAtomically(local, key.bytes, mode: 0o600)
                let target = DeliverCommand.join(DeliverCommand.join(base, "logs"), ExportStageOptions.keyFileName)
                _ = try send(local, FileDigest.of(local), to: target)
            } catch let e as Stop {
                stop = e
            } catch {
                printErr("cairn: \(error)")
                problems += 1
            }
        }
        removeStaging(staging)

        status.pagePending = pagePending
        status.delivered = delivered
        status.waiting = left
        status.atMs = SystemClock.wallClockMs()
        let code: Int32
        switch stop {
        case .recording(let why):
            status.result = .deferred
            status.reason = why
            printErr("cairn: delivery waits: \(why); \(left) trip\(left == 1 ? "" : "s") left for a later run")
            code = DeliverCommand.tryLater
        case .remote(let why):
            status.result = .failed
            status.reason = why
            let ongoing = previous?.result == .failed
            status.failures = ongoing ? (previous?.failures ?? 0) + 1 : 1
            status.failingSinceMs = ongoing ? (previous?.failingSinceMs ?? status.atMs) : status.atMs
            if !(ongoing && quietFailures) {
                printErr("cairn: delivery to \(remote) failed: \(why); \(left) trip\(left == 1 ? "" : "s") wait for the next run")
            }
            code = DeliverCommand.tryLater
        case nil:
            status.result = .ok
            if previous?.result == .failed, let p = previous {
                printErr("cairn: delivery to \(remote) works again (it failed \(p.failures) run\(p.failures == 1 ? "" : "s") in a row)")
            }
            printErr(
                "cairn: delivered \(delivered) trip\(delivered == 1 ? "" : "s") to \(base) (\(sentFiles) file\(sentFiles == 1 ? "" : "s"), \(sentBytes) bytes); \(all.count - waiting.count - all.filter { $0.openBecause != nil }.count) already there"
            )
            if failedTrips > 0 { printErr("cairn: \(failedTrips) trip\(failedTrips == 1 ? "" : "s") not delivered (see above)") }
            code = problems > 0 ? ExitCode.failure : ExitCode.ok
        }
        do { try status.write(directory: dir) } catch { printErr("cairn: \(error)") }
        return code
    }

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

    /// A clean staging folder, and the remote's folder, its temporaries from cut runs removed.
    func prepare(_ staging: String) throws {
        removeStaging(staging)
        try ensureDirectory(staging)
        try attempt { () throws(Rclone.Failure) in try rclone.makeFolder(base) }
        do {
            try rclone.deleteMatching(DeliverCommand.temporaryPrefix + "*", under: base)
        } catch {
            if !error.notFound { throw Stop.remote(error.description) }
        }
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
        rmdir(staging)
    }

    /// Sends one trip: its logs, then its conversions. Throws `Stop` when the remote fails,
    /// `Failure` for a trip that cannot be converted.
    func deliver(
        _ t: TripRef, _ whole: TripSummary, _ now: [ExportState.CopiedFile], label: String, staging: String
    ) throws -> (files: Int, bytes: Int, shown: PageTrip?, hidden: String?) {
        var files = 0, bytes = 0
        let tripBoard = TripCatalog.board(of: t, fallback: stageOptions.board)
        if copyLogs {
            for (f, c) in zip(t.files, now) {
                if try send(f.path, c.digest, to: DeliverCommand.join(DeliverCommand.join(base, "logs"), c.name), logSalt: c.salt) {
                    files += 1
                    bytes += c.digest.size
                }
            }
        }
        let empty = whole.stats.points == 0
        if empty || (formats.isEmpty && !page) { return (files, bytes, nil, nil) }
        var window: PrivacyWindow?
        var s = whole
        if !stageOptions.zones.isEmpty {
            let w = try ExportStages.window(t, zones: stageOptions.zones)
            window = w
            if w.hidesAll {
                printErr("cairn: \(label): every point is inside a privacy zone; no conversion sent")
                // Off the page, with what an earlier delivery (before the zone) sent of it.
                return (files, bytes, nil, TripIndex.key(tripId: t.id, suffix: t.nameSuffix, board: tripBoard))
            }
            s = try ExportStages.summary(t, window: w)
        }
        for format in formats {
            let name = format.fileName(tripId: t.id, startMs: s.stats.firstTimeMs, suffix: t.nameSuffix, prefix: "", board: tripBoard)
            let local = POSIX.join(staging, name)
            if let err = ExportCommand.convert(t, s, window: window, format: format, to: local, laps: stageOptions.laps, board: tripBoard) {
                throw Failure("\(format.name) not made: \(err)")
            }
            defer { _ = POSIX.unlink(local) }
            let digest = try FileDigest.of(local)
            if try send(local, digest, to: DeliverCommand.join(DeliverCommand.join(base, format.name), name)) {
                files += 1
                bytes += digest.size
            }
        }
        let shown = pageTrip(t, s, window: window, board: tripBoard, logs: copyLogs ? now.map(\.name) : [])
        return (files, bytes, shown, nil)
    }

    /// The trip as the page shows it, its zones cut: nil for one with no point to show.
    func pageTrip(_ t: TripRef, _ whole: TripSummary) throws -> PageTrip? {
        if whole.stats.points == 0 { return nil }
        var window: PrivacyWindow?
        var s = whole
        if !stageOptions.zones.isEmpty {
            let w = try ExportStages.window(t, zones: stageOptions.zones)
            if w.hidesAll { return nil }
            window = w
            s = try ExportStages.summary(t, window: w)
        }
        let logs = copyLogs ? t.files.map { baseName($0.path) } : []
        return pageTrip(t, s, window: window, board: TripCatalog.board(of: t, fallback: stageOptions.board), logs: logs)
    }

    /// The trip as the page shows it: what the conversions hold, linked to the files sent.
    func pageTrip(_ t: TripRef, _ s: TripSummary, window: PrivacyWindow?, board: String?, logs: [String]) -> PageTrip {
        let entry = ExportCommand.pageEntry(
            t, s, key: TripIndex.key(tripId: t.id, suffix: t.nameSuffix, board: board), present: { _ in true }, formats: formats,
            prefix: "", board: board, hidden: false, logs: logs.map { "logs/" + $0 })
        return PageTrip(entry: entry, trip: t, window: window)
    }

    /// Brings the remote's page up to date with `shown`: its index read back from the remote
    /// (the trips of earlier runs and of other tools stay), the pictures drawn here, then the
    /// pictures, the index and the page sent, each whole.
    /// `receipted`: every trip delivered here (by any run) that is still on the board: one the
    /// remote's index lacks (a run cut before its page went up) is added too.
    ///
    /// What an earlier delivery sent of a trip that this one names otherwise (a zone added since
    /// moves its first point, so its names) or no longer shows (now wholly inside a zone) is
    /// deleted from the remote once the new page is up: the index says what each trip's files were.
    /// Only what deliver itself names is deleted: a conversion or a picture, never a log copy,
    /// never a path out of the board's folder (the index may have been edited).
    func updatePage(_ shown: [PageTrip], hidden: [String], receipted: [(TripRef, TripSummary)], reconcile: Bool, staging: String) throws {
        let folder = POSIX.join(staging, "page")
        try ensureDirectory(folder)
        let indexName = TripIndex.fileName
        var bytes: [UInt8] = []
        var found = false
        try attempt { () throws(Rclone.Failure) in
            bytes = []
            do throws(Rclone.Failure) {
                // One byte past the page's limit is enough to tell the index is too large: a huge
                // file there is never read whole into the board's memory or onto its card.
                try rclone.read(DeliverCommand.join(base, indexName), limit: PageBuilder.maxIndexBytes + 1) {
                    bytes.append(contentsOf: $0)
                }
                found = true
            } catch {
                if !error.notFound { throw error }
                found = false
            }
        }
        if bytes.count > PageBuilder.maxIndexBytes {
            // Said as export says it, without a copy on the card or a second one in memory.
            throw Failure(
                "\(DeliverCommand.join(base, indexName)): over \(PageBuilder.maxIndexBytes >> 20) MiB, not a cairn trip index; the page is not updated"
            )
        }
        if found { try writeFileAtomically(POSIX.join(folder, indexName), bytes) }
        let builder: PageBuilder
        do throws(ExportError) { builder = try PageBuilder(folder: folder, say: { printErr("cairn: \(terminalSafe($0))") }) } catch {
            throw Failure("\(error)")
        }
        builder.title = "cairn trips: \(board)"
        var adding = shown
        var hiding = hidden
        for (t, whole) in receipted {
            let key = TripIndex.key(tripId: t.id, suffix: t.nameSuffix, board: TripCatalog.board(of: t, fallback: stageOptions.board))
            if adding.contains(where: { $0.entry.key == key }) || hiding.contains(key) { continue }
            let listed = builder.index.entry(key: key)
            // A page an earlier run owed: every receipted trip as it shows now (a run cut between
            // deleting and sending the index left its entry stale). Otherwise only those missing.
            if listed != nil && !reconcile { continue }
            guard let p = try pageTrip(t, whole) else {
                if listed != nil { hiding.append(key) }
                continue
            }
            if listed?.files != p.entry.files { adding.append(p) }
        }
        var obsolete: [String] = []
        func sentFiles(_ e: TripIndex.Entry?) -> [String] { e.map { $0.files + ($0.picture.map { [$0] } ?? []) } ?? [] }
        for key in hiding {
            obsolete += sentFiles(builder.index.entry(key: key))
            builder.remove(key: key)
        }
        for t in adding where !t.entry.files.isEmpty {
            let before = sentFiles(builder.index.entry(key: t.entry.key))
            if let p = builder.add(t) { printErr("cairn: trip \(t.entry.tripId): no picture on the page: \(p)") }
            let now = sentFiles(builder.index.entry(key: t.entry.key))
            obsolete += before.filter { !now.contains($0) }
        }
        do throws(ExportError) { try builder.write() } catch { throw Failure("\(error)") }
        // What showed the place goes first: privacy before a page whose links all resolve (a run
        // cut here leaves the page owed, and the next one makes it).
        let folders = formats.map { $0.name + "/" } + ExportFormat.allCases.map { $0.name + "/" } + [PageBuilder.picturesFolder + "/"]
        for rel in Set(obsolete)
        where folders.contains(where: { rel.hasPrefix($0) }) && !rel.split(separator: "/").contains("..") && !rel.utf8.contains(0) {
            do throws(Rclone.Failure) { try rclone.delete(DeliverCommand.join(base, rel)) } catch {
                if !error.notFound { throw Stop.remote(error.description) }
            }
        }
        let pictures = POSIX.join(folder, PageBuilder.picturesFolder)
        for name in ((try? POSIX.listDirectory(pictures)) ?? []).sorted() where !name.hasPrefix(".") {
            let local = POSIX.join(pictures, name)
            _ = try send(local, FileDigest.of(local), to: DeliverCommand.join(DeliverCommand.join(base, PageBuilder.picturesFolder), name))
        }
        for name in [indexName, IndexPage.fileName] {
            let local = POSIX.join(folder, name)
            _ = try send(local, FileDigest.of(local), to: DeliverCommand.join(base, name))
        }
    }

    /// Puts the local file (whose bytes are `digest`) at `target` whole: nothing when the remote
    /// holds those bytes already, else up under a temporary name, read back, renamed, read back.
    /// Returns whether it sent anything. A log (`logSalt`) never replaces another log under its
    /// name (another board's, or this board's from before its log directory started again at
    /// 00000001): that copy may be the only one, its trip pruned on the strength of it.
    func send(_ local: String, _ digest: FileDigest, to target: String, logSalt: UInt32? = nil) throws -> Bool {
        if let why = recording() { throw Stop.recording(why) }
        // rclone cat reads a folder's files as one: a folder under the name is no copy.
        if try isFolder(target) { throw Failure("\(target): a folder on the remote has this file's name; move it away") }
        if let there = try remoteFile(target) {
            if there.digest == digest { return false }
            if let mine = logSalt, let theirs = Self.logSalt(there.head), theirs != mine {
                throw Failure(
                    "\(target) holds another log (salt \(String(theirs, radix: 16)), this one's \(String(mine, radix: 16))): not replaced;"
                        + " move it away, or deliver this board's trips to another folder")
            }
            // A log is never rewritten after its trip (only its unused zeros trimmed): a copy of
            // the same log that differs from a damaged one here (a card's bit rot since) may be
            // the whole one, and must not be replaced by it.
            if logSalt != nil, Self.isDamaged(local) {
                throw Failure("\(local) is damaged ('cairn verify'); the copy at \(target) differs and is kept")
            }
        }
        let folder = String(target[..<target.lastIndex(of: "/")!])
        let name = String(target[target.index(after: target.lastIndex(of: "/")!)...])
        let temporary = folder + "/" + DeliverCommand.temporaryPrefix + randomHex() + "-" + name
        try attempt { () throws(Rclone.Failure) in try rclone.upload(local, to: temporary) }
        guard let sent = try digestOf(temporary), sent == digest else {
            try? rclone.delete(temporary)
            throw Stop.remote("\(temporary) does not read back as the \(digest.size) bytes sent")
        }
        try attempt { () throws(Rclone.Failure) in try rclone.move(temporary, to: target) }
        guard try !isFolder(target), let there = try digestOf(target), there == digest else {
            throw Stop.remote("\(target) does not read back as the \(digest.size) bytes sent after its rename")
        }
        return true
    }

    /// Whether the remote holds a folder at `path` (rclone cat would read the files in it as one).
    func isFolder(_ path: String) throws -> Bool {
        var result = false
        try attempt { () throws(Rclone.Failure) in result = try rclone.isFolder(path) }
        return result
    }

    /// The size and CRC-32C of what the remote holds at `path`, nil when it holds nothing there.
    func digestOf(_ path: String) throws -> FileDigest? { try remoteFile(path)?.digest }

    /// The size and CRC-32C of what the remote holds at `path`, and its first 16 bytes (a log's
    /// header: magic, version, length, salt); nil when it holds nothing there.
    func remoteFile(_ path: String) throws -> (digest: FileDigest, head: [UInt8])? {
        var result: (digest: FileDigest, head: [UInt8])?
        try attempt { () throws(Rclone.Failure) in
            var acc = FileDigest.Accumulator()
            var head: [UInt8] = []
            do throws(Rclone.Failure) {
                try rclone.read(path) {
                    acc.add($0)
                    if head.count < 16 { head += $0.prefix(16 - head.count) }
                }
                result = (acc.digest, head)
            } catch {
                if error.notFound { result = nil } else { throw error }
            }
        }
        return result
    }

    /// Whether the local log reads with damaged records (or not at all).
    static func isDamaged(_ path: String) -> Bool {
        guard let r = try? LogReader(path: path), let s = try? r.scan() else { return true }
        return !s.damaged.isEmpty
    }

    /// The salt in a log header's first 16 bytes; nil for anything else.
    static func logSalt(_ head: [UInt8]) -> UInt32? {
        guard head.count == 16, head.prefix(8).elementsEqual("CAIRNLOG".utf8) else { return nil }
        return UInt32(head[12]) | UInt32(head[13]) << 8 | UInt32(head[14]) << 16 | UInt32(head[15]) << 24
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
                if n == retries { throw Stop.remote(error.description) }
                sleep(wait)
                wait = min(wait * 4, 300)
            }
        }
    }

    func randomHex() -> String {
        var g = SystemRandomNumberGenerator()
        let v = g.next() as UInt64
        let h = String(v, radix: 16)
        return String(repeating: "0", count: 16 - h.count) + h
    }
}

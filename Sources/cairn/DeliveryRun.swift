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
    /// What a receipt names as its destination: the board's folder on the remote (where
    /// retention looks for the copies), the formats sent there and, with privacy zones, their
    /// keyed hash: a folder, a format or a zone changed later sends every trip again.
    var receiptDestination: String {
        base + " " + (formats.isEmpty ? "none" : formats.map(\.name).joined(separator: ","))
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
        // One listing of the board's folder (sizes) per run: a receipt is trusted only as far as
        // the remote shows its copies now (one deleted or cut there since goes again), and the
        // temporaries of a cut run are found whatever this run sends.
        var listing: [String: RemoteCopies.FileCheck]?
        if stop == nil {
            do { listing = try list() } catch let e as Stop { stop = e } catch { stop = .remote("\(error)") }
        }
        var unreadable = 0
        // Counted whether or not the run goes on: a deferred run's status says what waits.
        for (t, s, openBecause) in all where openBecause == nil {
            // Sizes suffice for a log untouched since the receipts were written; one written
            // since (even to the same size) is read whole.
            var now: [ExportState.CopiedFile]?
            var known = receipts.isExportedBySize(t, to: destination, logs: copyLogs) && !t.files.contains { modifiedNs($0.path) >= receiptsNs }
            if !known {
                do { now = try ExportState.current(t) } catch {
                    printErr("cairn: trip \(t.id): \(error)")
                    problems += 1
                    unreadable += 1
                    continue
                }
                known = receipts.isExported(t, to: destination, now: now!, logs: copyLogs)
            }
            if known {
                guard let l = listing, let lost = lostCopies(t, s, receipts: receipts, destination: destination, listing: l) else { continue }
                printErr("cairn: trip \(t.id): its copies on \(base) are not whole (\(lost.joined(separator: ", "))); sent again")
                if now == nil {
                    do { now = try ExportState.current(t) } catch {
                        printErr("cairn: trip \(t.id): \(error)")
                        problems += 1
                        unreadable += 1
                        continue
                    }
                }
            }
            waiting.append((t, s, now!))
        }
        let temporaries = listing?.keys.contains { baseName($0).hasPrefix(DeliverCommand.temporaryPrefix) } ?? false
        // The board's key goes with its logs: owed while the logs folder holds logs and not it
        // (a run cut after its receipts, before the key went up, leaves it so).
        var keyOwed = false
        if copyLogs, let key = stageOptions.zones.key, let l = listing, l.keys.contains(where: { $0.hasPrefix("logs/") && $0.hasSuffix(".cairn") }) {
            keyOwed = l["logs/" + ExportStageOptions.keyFileName]?.size != key.bytes.count
        }
        var delivered = 0, failedTrips = 0, sentFiles = 0, sentBytes = 0
        // A page owed by an earlier run (cut, or its page failed) is made whatever this run sends.
        var pagePending = page && previous?.pagePending == true
        if stop == nil && (!waiting.isEmpty || pagePending || temporaries || keyOwed) {
            do {
                try prepare(staging)
            } catch let e as Stop {
                stop = e
            } catch let e as Failure where e.status == ExitCode.config {
                removeStaging(staging)
                printErr("cairn deliver: \(e.message)")
                return e.status
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
                let sent = try deliver(t, whole, now, receipts: receipts, label: label, staging: staging)
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
                    staging: staging, indexSize: listing?[TripIndex.fileName]?.size)
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
        if stop == nil, delivered > 0 || keyOwed, copyLogs, let key = stageOptions.zones.key {
            do {
                let local = POSIX.join(staging, ExportStageOptions.keyFileName)
                try writeFileAtomically(local, key.bytes, mode: 0o600)
                let target = DeliverCommand.join(DeliverCommand.join(base, "logs"), ExportStageOptions.keyFileName)
                _ = try send(local, FileDigest.of(local), to: target, keepOther: true)
            } catch let e as Stop {
                stop = e
            } catch {
                printErr("cairn: \(error)")
                problems += 1
            }
        }
        removeStaging(staging)

        status.pagePending = pagePending
        status.rclone = rclone.program
        status.rcloneConfig = rclone.configFile ?? ""
        status.delivered = delivered
        // A trip whose files could not be read is not delivered either.
        status.waiting = left + unreadable
        status.atMs = SystemClock.wallClockMs()
        let code: Int32
        switch stop {
        case .recording(let why):
            status.result = .deferred
            status.reason = why
            printErr("cairn: delivery waits: \(why); \(left) trip\(left == 1 ? "" : "s") left for a later run")
            code = ExitCode.tryLater
        case .remote(let why):
            status.result = .failed
            status.reason = why
            let ongoing = previous?.result == .failed
            status.failures = ongoing ? (previous?.failures ?? 0) + 1 : 1
            status.failingSinceMs = ongoing ? (previous?.failingSinceMs ?? status.atMs) : status.atMs
            if !(ongoing && quietFailures) {
                printErr("cairn: delivery to \(remote) failed: \(why); \(left) trip\(left == 1 ? "" : "s") wait for the next run")
            }
            code = ExitCode.tryLater
        case nil:
            status.result = .ok
            if previous?.result == .failed, let p = previous {
                printErr("cairn: delivery to \(remote) works again (it failed \(p.failures) run\(p.failures == 1 ? "" : "s") in a row)")
            }
            printErr(
                "cairn: delivered \(delivered) trip\(delivered == 1 ? "" : "s") to \(base) (\(sentFiles) file\(sentFiles == 1 ? "" : "s"), \(sentBytes) bytes); \(all.count - waiting.count - unreadable - all.filter { $0.openBecause != nil }.count) already there"
            )
            if failedTrips > 0 { printErr("cairn: \(failedTrips) trip\(failedTrips == 1 ? "" : "s") not delivered (see above)") }
            code = problems > 0 ? ExitCode.failure : ExitCode.ok
        }
        do { try status.write(directory: dir) } catch { printErr("cairn: \(error)") }
        return code
    }

    /// The board's folder as the remote lists it now (path under it -> size), empty when it is
    /// not there yet.
    func list() throws -> [String: RemoteCopies.FileCheck] {
        var out: [String: RemoteCopies.FileCheck] = [:]
        try attempt { () throws(Rclone.Failure) in
            out = [:]
            do throws(Rclone.Failure) {
                try rclone.list(base, md5: false) { line in
                    if let f = RemoteCopies.listed(line) { out[f.name] = f }
                }
            } catch {
                if !error.notFound { throw error }
            }
        }
        return out
    }

    /// What the listing lacks of a delivered trip's copies: its logs at the sizes of its receipt
    /// and, where their names are known without reading the trip (no zones), its conversions;
    /// nil when all are there.
    func lostCopies(
        _ t: TripRef, _ whole: TripSummary, receipts: ExportState, destination: String, listing: [String: RemoteCopies.FileCheck]
    ) -> [String]? {
        var problems: [String] = []
        if copyLogs, let files = receipts.files(t, destination: destination) {
            let wanted = files.map { RemoteCopies.FileCheck(name: "logs/" + $0.name, size: $0.digest.size) }
            if case .notWhole(let p) = RemoteCopies.found(wanted, in: listing) { problems += p }
        }
        if stageOptions.zones.isEmpty && whole.stats.points > 0 {
            let tripBoard = TripCatalog.board(of: t, fallback: stageOptions.board)
            for format in formats {
                let name =
                    format.name + "/"
                    + format.fileName(tripId: t.id, startMs: whole.stats.firstTimeMs, suffix: t.nameSuffix, prefix: "", board: tripBoard)
                if listing[name] == nil { problems.append("\(name): missing") }
            }
        }
        return problems.isEmpty ? nil : problems
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
        try refuseSameStorage(staging)
    }

    /// Refuses a board folder on the log directory's own storage however rclone names it (a
    /// local remote of its config, an alias, a symlink; a plain path is refused before, by
    /// `DeliverCommand.refuseNesting`): a probe sent there is looked for in the log directory,
    /// below it and above it. Copies on the board's card are no copies off the board, yet prune
    /// would delete the trips on their strength. The probe is a temporary: a cut run's goes
    /// with the next run's temporaries.
    func refuseSameStorage(_ staging: String) throws {
        let name = DeliverCommand.temporaryPrefix + "probe-" + randomHex()
        let local = POSIX.join(staging, "probe")
        try writeFileAtomically(local, Array("cairn: a delivery's probe of where the remote is\n".utf8))
        defer { POSIX.unlink(local) }
        let target = DeliverCommand.join(base, name)
        try attempt { () throws(Rclone.Failure) in try rclone.upload(local, to: target) }
        defer { try? rclone.delete(target) }
        if let found = Self.find(name, around: dir) {
            throw Failure(
                "--remote \(terminalSafe(remote)): its folder \(terminalSafe(base)) is \(found) on this board's own storage;"
                    + " deliver off the board's card", status: ExitCode.config)
        }
    }

    /// Where a file named `name` is in `dir`, in its folders up to 3 deep, or in the folders
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
        for _ in 0..<3 {
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

    /// Sends one trip: its logs, then its conversions. Throws `Stop` when the remote fails,
    /// `Failure` for a trip that cannot be converted.
    func deliver(
        _ t: TripRef, _ whole: TripSummary, _ now: [ExportState.CopiedFile], receipts: ExportState, label: String, staging: String
    ) throws -> (files: Int, bytes: Int, shown: PageTrip?, hidden: String?) {
        var files = 0, bytes = 0
        // A trip whose files lost bytes since a delivery (a tail torn off, a card's rot) is not
        // sent again: its copies there are whole, and neither its logs nor its conversions may
        // be replaced by what is left.
        for earlier in receipts.recorded(t) {
            let names = Set(earlier.map(\.name))
            var flaws: [String: String] = [:]
            for (f, c) in zip(t.files, now) where names.contains(c.name) && !earlier.contains(c) {
                if let flaw = Self.flaw(f.path) { flaws[c.name] = flaw }
            }
            if let why = RemoteCopies.shrank(
                delivered: earlier.map { ($0.name, $0.digest) }, now: now.map { ($0.name, $0.digest) }, flaws: flaws)
            {
                throw Failure("\(why); its delivered copies are kept")
            }
        }
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
                return (files, bytes, nil, TripIndex.key(tripId: t.id, suffix: t.nameSuffix, board: tripBoard, salt: t.files[0].header.salt))
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
            t, s, key: TripIndex.key(tripId: t.id, suffix: t.nameSuffix, board: board, salt: t.files[0].header.salt), present: { _ in true },
            formats: formats,
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
    func updatePage(
        _ shown: [PageTrip], hidden: [String], receipted: [(TripRef, TripSummary)], reconcile: Bool, staging: String, indexSize: Int?
    ) throws {
        let folder = POSIX.join(staging, "page")
        try ensureDirectory(folder)
        let indexName = TripIndex.fileName
        let remoteIndex = DeliverCommand.join(base, indexName)
        // Never read whole into the board's memory: over the page's limit by the listing's size,
        // refused unread; else streamed to the staging folder, and refused at its first bytes
        // when they are no cairn trip index (a file of zeros).
        if let size = indexSize, size > PageBuilder.maxIndexBytes {
            throw Failure("\(remoteIndex): over \(PageBuilder.maxIndexBytes >> 20) MiB, not a cairn trip index; the page is not updated")
        }
        let indexPath = POSIX.join(folder, indexName)
        let fd: Int32
        do { fd = try POSIX.open(indexPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } catch {
            throw Failure("\(indexPath): cannot create: \(error)")
        }
        var found = false, size = 0, head: [UInt8] = [], notIndex = false, writeFailed: Errno?
        defer { _ = POSIX.close(fd) }
        try attempt { () throws(Rclone.Failure) in
            found = false
            size = 0
            head = []
            notIndex = false
            writeFailed = nil
            // A retry starts the copy again from nothing.
            try? POSIX.truncate(fd, to: 0)
            _ = try? POSIX.seek(fd, to: 0)
            do throws(Rclone.Failure) {
                // One byte past the page's limit is enough to tell the index is too large.
                try rclone.read(remoteIndex, limit: PageBuilder.maxIndexBytes + 1) { chunk in
                    size += chunk.count
                    if notIndex || writeFailed != nil || size > PageBuilder.maxIndexBytes { return }
                    if head.count < 32 {
                        head += chunk.prefix(32 - head.count)
                        if !Self.mayBeIndex(head) {
                            notIndex = true
                            return
                        }
                    }
                    do throws(Errno) { try POSIX.writeAll(fd, chunk) } catch { writeFailed = error }
                }
                found = true
            } catch {
                if !error.notFound { throw error }
                found = false
            }
        }
        if size > PageBuilder.maxIndexBytes {
            throw Failure("\(remoteIndex): over \(PageBuilder.maxIndexBytes >> 20) MiB, not a cairn trip index; the page is not updated")
        }
        if notIndex { throw Failure("\(remoteIndex): not a cairn trip index; the page is not updated") }
        if let e = writeFailed { throw Failure("\(indexPath): write failed: \(e)") }
        if !found { _ = POSIX.unlink(indexPath) }
        let builder: PageBuilder
        do throws(ExportError) { builder = try PageBuilder(folder: folder, say: { printErr("cairn: \(terminalSafe($0))") }) } catch {
            throw Failure("\(error)")
        }
        builder.title = "cairn trips: \(board)"
        var adding = shown
        var hiding = hidden
        for (t, whole) in receipted {
            let key = TripIndex.key(
                tripId: t.id, suffix: t.nameSuffix, board: TripCatalog.board(of: t, fallback: stageOptions.board), salt: t.files[0].header.salt)
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
    /// `keepOther`: another file under the name is never replaced (the privacy key beside the
    /// logs: another board's in a shared folder, or the key that cut the logs already there).
    func send(_ local: String, _ digest: FileDigest, to target: String, logSalt: UInt32? = nil, keepOther: Bool = false) throws -> Bool {
        if let why = recording() { throw Stop.recording(why) }
        // rclone cat reads a folder's files as one: a folder under the name is no copy.
        if try isFolder(target) { throw Failure("\(target): a folder on the remote has this file's name; move it away") }
        if let there = try remoteFile(target) {
            if there.digest == digest { return false }
            if keepOther {
                throw Failure(
                    "\(target) holds another key (another board's in this folder, or the one the logs there were cut with): not replaced;"
                        + " give this board its own id ('board' in the config)")
            }
            if let salt = logSalt {
                // A log is never replaced by another, nor by a version of itself that is
                // shorter, torn or damaged: the copy there may be the only whole one, its trip
                // pruned on the strength of it.
                let prefix = there.digest.size < digest.size ? try? FileDigest.of(local, limit: there.digest.size) : nil
                let decision = RemoteCopies.log(
                    local: digest, localSalt: salt, localFlaw: Self.flaw(local), remote: there.digest, remoteSalt: Self.logSalt(there.head),
                    remoteIsPrefix: prefix == there.digest)
                switch decision {
                case .send, .same, .grow: break
                case .repair: printErr("cairn: \(target): a damaged copy (\(there.digest.size) bytes, other bytes); sent again")
                case .keep(let why):
                    throw Failure("\(target) is kept: \(why)")
                }
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
        do {
            try attempt { () throws(Rclone.Failure) in try rclone.move(temporary, to: target) }
        } catch {
            // A rename that went through while its answer was lost (an outage) fails when tried
            // again: its source is gone. Then what the target holds decides, just below.
            if try remoteFile(temporary) != nil { throw error }
        }
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
                POSIX.sleep(seconds: wait)
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

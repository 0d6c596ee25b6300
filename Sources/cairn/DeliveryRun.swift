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

    /// Why the run stopped early: the remote failed, or a trip started.
    enum Stop: Error {
        case remote(String)
        case recording(String)
    }

    var board: String { "unnamed" }
    var base: String { DeliverCommand.join(remote, board) }

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
        let destination = remote
        let staging = POSIX.join(dir, DeliverCommand.stagingName)

        var waiting: [(trip: TripRef, summary: TripSummary, files: [ExportState.CopiedFile])] = []
        var stop: Stop?
        if let why = recording() { stop = .recording(why) }
        for (t, s, openBecause) in all where openBecause == nil && stop == nil {
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
        if stop == nil && !waiting.isEmpty {
            do {
                try prepare(staging)
            } catch let e as Stop {
                stop = e
            } catch {
                stop = .remote("\(error)")
            }
        }
        var left = waiting.count
        for (t, whole, now) in waiting where stop == nil {
            let label = "trip \(t.id) (\(t.files.map { baseName($0.path) }.joined(separator: ", ")))"
            if let why = recording() { stop = .recording(why); break }
            do {
                let sent = try deliver(t, whole, now, label: label, staging: staging)
                sentFiles += sent.files
                sentBytes += sent.bytes
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

    func removeStaging(_ staging: String) {
        guard let names = try? POSIX.listDirectory(staging) else { return }
        for n in names { _ = POSIX.unlink(POSIX.join(staging, n)) }
        rmdir(staging)
    }

    /// Sends one trip: its logs, then its conversions. Throws `Stop` when the remote fails,
    /// `Failure` for a trip that cannot be converted.
    func deliver(
        _ t: TripRef, _ whole: TripSummary, _ now: [ExportState.CopiedFile], label: String, staging: String
    ) throws -> (files: Int, bytes: Int) {
        var files = 0, bytes = 0
        if copyLogs {
            for (f, c) in zip(t.files, now) {
                if try send(f.path, c.digest, to: DeliverCommand.join(DeliverCommand.join(base, "logs"), c.name)) {
                    files += 1
                    bytes += c.digest.size
                }
            }
        }
        let empty = whole.stats.points == 0
        if empty || formats.isEmpty { return (files, bytes) }
        var window: PrivacyWindow?
        var s = whole
        if !stageOptions.zones.isEmpty {
            let w = try ExportStages.window(t, zones: stageOptions.zones)
            window = w
            if w.hidesAll {
                printErr("cairn: \(label): every point is inside a privacy zone; no conversion sent")
                return (files, bytes)
            }
            s = try ExportStages.summary(t, window: w)
        }
        for format in formats {
            let name = format.fileName(tripId: t.id, startMs: s.stats.firstTimeMs, suffix: t.nameSuffix, prefix: "")
            let local = POSIX.join(staging, name)
            if let err = ExportCommand.convert(t, s, window: window, format: format, to: local, laps: stageOptions.laps) {
                throw Failure("\(format.name) not made: \(err)")
            }
            defer { _ = POSIX.unlink(local) }
            let digest = try FileDigest.of(local)
            if try send(local, digest, to: DeliverCommand.join(DeliverCommand.join(base, format.name), name)) {
                files += 1
                bytes += digest.size
            }
        }
        return (files, bytes)
    }

    /// Puts the local file (whose bytes are `digest`) at `target` whole: nothing when the remote
    /// holds those bytes already, else up under a temporary name, read back, renamed, read back.
    /// Returns whether it sent anything.
    func send(_ local: String, _ digest: FileDigest, to target: String) throws -> Bool {
        if let why = recording() { throw Stop.recording(why) }
        if let there = try digestOf(target), there == digest { return false }
        let folder = String(target[..<target.lastIndex(of: "/")!])
        let name = String(target[target.index(after: target.lastIndex(of: "/")!)...])
        let temporary = folder + "/" + DeliverCommand.temporaryPrefix + randomHex() + "-" + name
        try attempt { () throws(Rclone.Failure) in try rclone.upload(local, to: temporary) }
        guard let sent = try digestOf(temporary), sent == digest else {
            try? rclone.delete(temporary)
            throw Stop.remote("\(temporary) does not read back as the \(digest.size) bytes sent")
        }
        try attempt { () throws(Rclone.Failure) in try rclone.move(temporary, to: target) }
        guard let there = try digestOf(target), there == digest else {
            throw Stop.remote("\(target) does not read back as the \(digest.size) bytes sent after its rename")
        }
        return true
    }

    /// The size and CRC-32C of what the remote holds at `path`, nil when it holds nothing there.
    func digestOf(_ path: String) throws -> FileDigest? {
        var result: FileDigest?
        try attempt { () throws(Rclone.Failure) in
            var acc = FileDigest.Accumulator()
            do throws(Rclone.Failure) {
                try rclone.read(path) { acc.add($0) }
                result = acc.digest
            } catch {
                if error.notFound { result = nil } else { throw error }
            }
        }
        return result
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

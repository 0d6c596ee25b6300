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

/// Retention: deletes the oldest finished trips of a log directory while the directory is over
/// its limits (`keepDays`: trips that ended longer ago; `maxBytes`: the log files' total size),
/// and never a trip that is not exported (see `ExportState.verdict`: every file unchanged since
/// its copy was verified, logs included) unless `force`. The newest file's trip is never touched
/// (its file number keeps the counter going), nor a trip still being recorded. Ages count from
/// the system clock, and only while it is not over a day behind the newest trip's end (a board
/// without a real-time clock at 1970, a clock set back: then nothing is old; `--max-mb` still
/// applies). A trip counted exported on the strength of a delivery is deleted only when its logs
/// are found whole on the remote in this run (`DeliveredCopies`); a copy found not whole voids its
/// receipt, and a remote out of reach keeps the trip.
/// The plan is `RetentionPlan`'s; every deletion is reported through `say`, naming the trip, its
/// files and why.
struct Retention {
    var keepDays: Double?
    var maxBytes: Int?
    var force = false
    var dryRun = false

    var isActive: Bool { keepDays != nil || maxBytes != nil }

    struct Outcome {
        var deletedTrips = 0
        var deletedBytes = 0
        var keptUnexported = 0
        var problems = 0
    }

    /// `remoteTimeout`, `remoteDeadline`: rclone's for the listing of a delivered trip's remote
    /// (the recorder's retention keeps them short: its watchdog waits 30 s).
    func apply(
        directory dir: String, wallClockMs: Int64, remoteTimeout: Int = 30, remoteDeadline: Double? = nil, say: (String) -> Void
    ) -> Outcome {
        var out = Outcome()
        guard isActive else { return out }
        let all: [(trip: TripRef, summary: TripSummary, openBecause: String?)]
        do {
            all = try catalogTrips(in: dir) {
                say("retention: \($0)"); out.problems += 1
            }
        } catch {
            say("retention: \(error)")
            out.problems += 1
            return out
        }
        // A trip delivered (`cairn deliver`) counts as one exported.
        var state = ExportState(directory: dir)
        var delivered = ExportState(directory: dir, fileName: ExportState.deliveredFileName)
        if let p = state.problem { say("retention: \(p)") }
        if let p = delivered.problem { say("retention: \(p)") }
        let copies = DeliveredCopies(directory: dir, timeoutSeconds: remoteTimeout, deadlineSeconds: remoteDeadline)
        var total = 0
        let files = (try? LogDirectory.logFiles(in: dir)) ?? []
        for f in files { total += fileSize(f.path) ?? 0 }
        // The newest file is always kept: it carries the counter that names the next file.
        let newestFile = files.last?.path
        let trips = all.map { e in
            RetentionPlan.Trip(
                id: e.trip.id, bytes: e.trip.files.reduce(0) { $0 + (fileSize($1.path) ?? 0) },
                endMs: e.summary.stats.lastTimeMs ?? e.summary.stats.firstTimeMs,
                open: e.openBecause != nil, holdsNewestFile: e.trip.files.contains { $0.path == newestFile })
        }
        var forgotReceipts = false
        let plan = RetentionPlan.plan(
            trips: trips, totalBytes: total, nowMs: wallClockMs,
            limits: RetentionPlan.Limits(keepDays: keepDays, maxBytes: maxBytes, force: force)
        ) { i in
            let exported = state.verdict(all[i].trip)
            let sent = delivered.verdict(all[i].trip)
            // Nothing is deleted on the strength of a copy that was not found whole in this run;
            // a delivered copy found damaged in it outweighs an export's receipt (the stick is
            // not here to look at, and the delivery will send the copy again).
            if sent == .exported {
                let t = all[i].trip
                let found = copies.verdict(t, destinations: delivered.exportedDestinations(t), say: say)
                // A receipt whose copy is not whole there no longer holds: the next delivery
                // reads that copy back and sends it again (a damaged one too, unseen by its sizes).
                if !dryRun && !found.notWhole.isEmpty {
                    for d in found.notWhole { delivered.forget(t, destination: d) }
                    forgotReceipts = true
                }
                if found.verdict == .copyNotWhole || exported != .exported { return found.verdict }
                return exported
            }
            if exported == .exported { return exported }
            return sent == .neverExported ? exported : sent
        }
        if let c = plan.clockBehind {
            say(
                "retention: the clock reads \(TextFormat.isoTime(ms: c.nowMs)), before the newest trip's end \(TextFormat.isoTime(ms: c.newestEndMs)): no trip counts as old until the clock is right (--keep-days deletes nothing)"
            )
        }
        var warned = Set<String>()
        var changed = forgotReceipts
        for step in plan.steps {
            let t = all[step.trip].trip
            let size = trips[step.trip].bytes
            let reason: String
            switch step.reason {
            case .age(let end, let days): reason = "ended \(TextFormat.isoTime(ms: end)), over \(TextFormat.trimmed(days, 2) ?? "?") days ago"
            case .size(let total, let limit): reason = "the log directory holds \(total) bytes, over the limit of \(limit)"
            }
            if let kept = step.kept {
                out.keptUnexported += 1
                // One line per kind of reason: a directory of 500 unexported trips says it once.
                if warned.insert(kept.keptBecause).inserted {
                    say(
                        "retention: trip \(t.id) (\(baseName(t.files[0].path))) is over the limit (\(reason)) but \(kept.keptBecause); kept (run 'cairn export' or 'cairn deliver'\(kept == .logsLeftOff ? " with --logs yes" : ""), or 'cairn prune --force')"
                    )
                }
                continue
            }
            let names = t.files.map { baseName($0.path) }.joined(separator: ", ")
            if dryRun {
                say("retention: would delete trip \(t.id) (\(names); \(size) bytes): \(reason)")
            } else {
                var failed = false
                for f in t.files {
                    guard let e = POSIX.unlink(f.path), e != .noSuchFile else { continue }
                    say("retention: \(f.path): cannot delete: \(e)")
                    failed = true
                }
                if failed { out.problems += 1; continue }
                state.forget(t)
                delivered.forget(t)
                changed = true
                say(
                    "retention: deleted trip \(t.id) (\(names); \(size) bytes)"
                        + (step.verdict == .exported ? "" : " [--force: it \(step.verdict.keptBecause)]")
                        + ": \(reason)")
            }
            out.deletedTrips += 1
            out.deletedBytes += size
        }
        if changed {
            do {
                try syncDirectory(dir)
                try state.save()
                if !delivered.entries.isEmpty || pathExists(delivered.path) { try delivered.save() }
            } catch let e as Failure {
                say("retention: \(e.message)")
                out.problems += 1
            } catch {
                say("retention: \(error)")
                out.problems += 1
            }
        }
        return out
    }

    /// Parses `--keep-days` and `--max-mb` (nil when absent). `invalid` builds the error.
    static func from(keepDays: String?, maxMb: String?, invalid: (String, String) -> Error) throws -> Retention {
        var r = Retention()
        if let k = keepDays {
            guard let d = StrictNumber.decimal(k), d > 0, d.isFinite else {
                throw invalid("--keep-days", "The value '\(k)' is invalid for '--keep-days <days>': use a number of days above 0")
            }
            r.keepDays = d
        }
        if let m = maxMb {
            guard let v = StrictNumber.decimal(m), v > 0, v < 1e9 else {
                throw invalid("--max-mb", "The value '\(m)' is invalid for '--max-mb <mb>': use a number of megabytes above 0")
            }
            r.maxBytes = Int(v * 1_000_000)
        }
        return r
    }
}

/// The logs a delivery's receipts name, found (or not) on their remote in this run: one listing
/// of each board folder's `logs/` with sizes and MD5s (where the backend has them), through the
/// rclone program and config the last delivery used (LOGDIR/delivery).
final class DeliveredCopies {
    let rclone: Rclone
    private var listings: [String: [String: RemoteCopies.FileCheck]?] = [:]

    init(directory: String, timeoutSeconds: Int, deadlineSeconds: Double?) {
        // The program and config the last delivery used, from LOGDIR/delivery, only when that file
        // belongs to this user (or root): one the recorder's user can write must not choose what
        // a root `cairn prune` runs. Otherwise rclone from PATH, with its own config.
        let path = POSIX.join(directory, DeliveryStatus.fileName)
        let owner = (try? POSIX.status(path)).map { $0.st_uid }
        let trusted = owner == POSIX.effectiveUserID || owner == 0
        let status = trusted ? DeliveryStatus.read(directory: directory) : nil
        var r = Rclone(
            program: status.map(\.rclone).flatMap { $0.isEmpty ? nil : $0 } ?? "rclone",
            configFile: status.map(\.rcloneConfig).flatMap { $0.isEmpty ? nil : $0 }, timeoutSeconds: timeoutSeconds)
        r.deadlineSeconds = deadlineSeconds
        rclone = r
    }

    /// `.exported` when one destination holds every file of `t` whole; `notWhole`: the
    /// destinations listed without them whole.
    func verdict(_ t: TripRef, destinations: [String], say: (String) -> Void) -> (verdict: RetentionPlan.ExportVerdict, notWhole: [String]) {
        var notWhole: [String] = []
        var unreachable = false
        for d in destinations {
            guard let folder = ExportState.folder(ofDestination: d) else { continue }
            guard let listing = listing(DeliverCommand.join(folder, "logs"), say: say) else {
                unreachable = true
                continue
            }
            var wanted: [RemoteCopies.FileCheck] = []
            for f in t.files {
                guard let check = Self.local(f.path) else { return (.copyUnchecked, notWhole) }
                wanted.append(check)
            }
            switch RemoteCopies.found(wanted, in: listing) {
            case .whole:
                // A listing is what the backend says (sizes only on WebDAV, a cache's view on
                // some servers): before a delete, each copy is read back whole and its MD5 taken.
                switch readBack(wanted, in: DeliverCommand.join(folder, "logs")) {
                case .whole: return (.exported, [])
                case .unreachable(let why):
                    say("retention: trip \(t.id): its copies in \(terminalSafe(folder)) could not be read back (\(terminalSafe(why))): kept")
                    unreachable = true
                case .differs(let what):
                    notWhole.append(d)
                    say("retention: trip \(t.id): its copies in \(terminalSafe(folder)) are not found whole: \(what) read back")
                }
            case .notWhole(let p):
                notWhole.append(d)
                say("retention: trip \(t.id): its copies in \(terminalSafe(folder)) are not found whole: \(p.joined(separator: ", "))")
            }
        }
        return (unreachable ? .copyUnchecked : .copyNotWhole, notWhole)
    }

    enum ReadBack {
        case whole
        case differs(String)
        case unreachable(String)
    }

    /// Reads each file of `wanted` back from `folder` and compares its size and MD5.
    func readBack(_ wanted: [RemoteCopies.FileCheck], in folder: String) -> ReadBack {
        for w in wanted {
            var md5 = MD5()
            var size = 0
            do throws(Rclone.Failure) {
                try rclone.read(DeliverCommand.join(folder, w.name), limit: w.size + 1) { chunk in
                    md5.add(chunk)
                    size += chunk.count
                }
            } catch {
                if error.notFound { return .differs("\(w.name): missing when") }
                return .unreachable(error.description)
            }
            if size != w.size || md5.hex() != w.md5 { return .differs("\(w.name): other bytes (\(size) bytes) when") }
        }
        return .whole
    }

    /// A local log's name, size and MD5.
    static func local(_ path: String) -> RemoteCopies.FileCheck? {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { _ = POSIX.close(fd) }
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { buf.deallocate() }
        var md5 = MD5()
        var size = 0
        while true {
            guard let n = try? POSIX.read(fd, into: buf) else { return nil }
            if n == 0 { break }
            md5.add(UnsafeRawBufferPointer(rebasing: buf[0..<n]))
            size += n
        }
        return RemoteCopies.FileCheck(name: baseName(path), size: size, md5: md5.hex())
    }

    /// The folder's files (name -> size, MD5), listed once per run; nil when it could not be.
    private func listing(_ folder: String, say: (String) -> Void) -> [String: RemoteCopies.FileCheck]? {
        if let known = listings[folder] { return known }
        var out: [String: RemoteCopies.FileCheck] = [:]
        var result: [String: RemoteCopies.FileCheck]?
        do throws(Rclone.Failure) {
            try rclone.list(folder, md5: true) { line in
                if let f = RemoteCopies.listed(line) { out[f.name] = f }
            }
            result = out
        } catch {
            if error.notFound {
                result = [:]
            } else {
                say("retention: \(terminalSafe(folder)) could not be checked (\(terminalSafe(error.description))): its delivered trips are kept")
            }
        }
        listings[folder] = result
        return result
    }
}

enum PruneCommand: Command {
    static let name = "prune"
    static let overview = "Delete the oldest exported trips while the log directory is over its limits (retention)."
    static let usage = "cairn prune [--dir <dir>] [--keep-days <days>] [--max-mb <mb>] [--force] [--dry-run]"
    static let options = [
        OptionSpec(name: "--dir", valueName: "DIR", help: "The recorder's log directory. (default: /var/lib/cairn)"),
        OptionSpec(name: "--keep-days", valueName: "DAYS", help: "Delete trips that ended more than this many days ago."),
        OptionSpec(name: "--max-mb", valueName: "MB", help: "Delete the oldest trips while the log files take more than this (1 MB = 10^6 bytes)."),
        OptionSpec(
            name: "--force", valueName: nil, help: "Also delete trips that are not exported: never, without their logs (--logs no), or changed since."
        ),
        OptionSpec(name: "--dry-run", valueName: nil, help: "Say what would be deleted; delete nothing.")
    ]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        var r = try Retention.from(keepDays: a.value("--keep-days"), maxMb: a.value("--max-mb")) { _, m in UsageError(m) }
        guard r.isActive else { throw UsageError("Give a limit: '--keep-days <days>' or '--max-mb <mb>'") }
        r.force = a.has("--force")
        r.dryRun = a.has("--dry-run")
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        guard pathExists(dir) else { throw Failure("\(dir): no such directory") }
        let o = r.apply(directory: dir, wallClockMs: SystemClock.wallClockMs() / 1000 * 1000) { printErr("cairn: \($0)") }
        printErr(
            "cairn: retention: \(r.dryRun ? "would delete" : "deleted") \(o.deletedTrips) trip\(o.deletedTrips == 1 ? "" : "s") (\(o.deletedBytes) bytes)"
                + (o.keptUnexported > 0 ? "; kept \(o.keptUnexported) over the limit that are not safely exported (see above)" : ""))
        return o.problems > 0 ? ExitCode.failure : ExitCode.ok
    }
}

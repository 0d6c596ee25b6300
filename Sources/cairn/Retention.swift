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
/// and never a trip that was not exported (see `ExportState`) unless `force`. The newest trip is
/// never touched (it may still be recording, and its file number keeps the counter going). "Now" for the age is the later of the system clock and the
/// newest trip's end (a board without a real-time clock may think it is 1970: then nothing is
/// old). Every deletion is reported through `say`, naming the trip, its files and why.
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

    func apply(directory dir: String, wallClockMs: Int64, say: (String) -> Void) -> Outcome {
        var out = Outcome()
        guard isActive else { return out }
        let trips: [(TripRef, TripSummary)]
        do {
            trips = try finishedTrips(in: dir) {
                say("retention: \($0)"); out.problems += 1
            }
        } catch {
            say("retention: \(error)")
            out.problems += 1
            return out
        }
        var state = ExportState(directory: dir)
        var total = 0
        let all = (try? LogDirectory.logFiles(in: dir)) ?? []
        for f in all { total += fileSize(f.path) ?? 0 }
        // The newest trip is always kept: its file carries the counter that names the next file.
        let newestFile = all.last?.path
        let newestEnd = trips.compactMap { $0.1.stats.lastTimeMs }.max() ?? 0
        let now = max(wallClockMs, newestEnd)
        var warnedUnexported = false
        var changed = false
        for (t, s) in trips {
            if t.files.contains(where: { $0.path == newestFile }) { continue }
            let size = t.files.reduce(0) { $0 + (fileSize($1.path) ?? 0) }
            var why: String?
            if let days = keepDays, let end = s.stats.lastTimeMs ?? s.stats.firstTimeMs,
                Double(now - end) > days * 86_400_000
            {
                why = "ended \(TextFormat.isoTime(ms: end)), over \(TextFormat.trimmed(days, 2) ?? "?") days ago"
            } else if let limit = maxBytes, total > limit {
                why = "the log directory holds \(total) bytes, over the limit of \(limit)"
            }
            guard let reason = why else { continue }
            let exported = state.isExported(t)
            if !force && !exported {
                out.keptUnexported += 1
                if !warnedUnexported {
                    say(
                        "retention: trip \(t.id) (\(baseName(t.files[0].path))) is over the limit (\(reason)) but was never exported; kept (run 'cairn export', or 'cairn prune --force')"
                    )
                    warnedUnexported = true
                }
                continue
            }
            let names = t.files.map { baseName($0.path) }.joined(separator: ", ")
            if dryRun {
                say("retention: would delete trip \(t.id) (\(names); \(size) bytes): \(reason)")
            } else {
                var failed = false
                for f in t.files where unlink(f.path) != 0 && errno != ENOENT {
                    say("retention: \(f.path): cannot delete: \(Errno.current)")
                    failed = true
                }
                if failed { out.problems += 1; continue }
                state.forget(t)
                changed = true
                say(
                    "retention: deleted trip \(t.id) (\(names); \(size) bytes)" + (exported ? "" : " [--force: it was never exported]")
                        + ": \(reason)")
            }
            out.deletedTrips += 1
            out.deletedBytes += size
            total -= size
        }
        if changed {
            do {
                try syncDirectory(dir)
                try state.save()
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

enum PruneCommand: Command {
    static let name = "prune"
    static let overview = "Delete the oldest exported trips while the log directory is over its limits (retention)."
    static let usage = "cairn prune [--dir <dir>] [--keep-days <days>] [--max-mb <mb>] [--force] [--dry-run]"
    static let options = [
        OptionSpec(name: "--dir", valueName: "DIR", help: "The recorder's log directory. (default: /var/lib/cairn)"),
        OptionSpec(name: "--keep-days", valueName: "DAYS", help: "Delete trips that ended more than this many days ago."),
        OptionSpec(name: "--max-mb", valueName: "MB", help: "Delete the oldest trips while the log files take more than this (1 MB = 10^6 bytes)."),
        OptionSpec(name: "--force", valueName: nil, help: "Also delete trips that were never exported."),
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
                + (o.keptUnexported > 0 ? "; kept \(o.keptUnexported) over the limit that were never exported" : ""))
        return o.problems > 0 ? ExitCode.failure : ExitCode.ok
    }
}

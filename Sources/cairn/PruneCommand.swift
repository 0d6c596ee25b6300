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

enum PruneCommand: Command {
    static let name = "prune"
    static let overview = "Delete the oldest exported trips while the log directory is over its limits (retention)."
    static let usage =
        "cairn prune [--dir <dir>] [--keep-days <days>] [--max-mb <mb>] [--force] [--dry-run] [--config <file|none>] [--privacy-zone <lat,lon,radius_m>]..."
    static let options =
        [
            OptionSpec(name: "--dir", valueName: "DIR", help: "The recorder's log directory. (default: /var/lib/cairn)"),
            OptionSpec(name: "--keep-days", valueName: "DAYS", help: "Delete trips that ended more than this many days ago."),
            OptionSpec(
                name: "--max-mb", valueName: "MB", help: "Delete the oldest trips while the log files take more than this (1 MB = 10^6 bytes)."),
            OptionSpec(
                name: "--force", valueName: nil,
                help: "Also delete trips that are not exported: never, without their logs (--logs no), or changed since."
            ),
            OptionSpec(name: "--dry-run", valueName: nil, help: "Say what would be deleted; delete nothing.")
        ]
        // Today's zones: a trip delivered cut by others is kept until a delivery cuts it again.
        + ExportStageOptions.zoneOptions

    static func run(_ a: ParsedArguments) throws -> Int32 {
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        var r = try Retention.from(keepDays: a.value("--keep-days"), maxMb: a.value("--max-mb")) { _, m in UsageError(m) }
        guard r.isActive else { throw UsageError("Give a limit: '--keep-days <days>' or '--max-mb <mb>'") }
        r.force = a.has("--force")
        r.dryRun = a.has("--dry-run")
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        guard pathExists(dir) else { throw Failure("\(dir): no such directory") }
        r.zones = try ExportStageOptions.zones(a, logDirectory: dir)
        let o = r.apply(directory: dir, wallClockMs: SystemClock.wallClockMs() / 1000 * 1000) { printErr("cairn: \($0)") }
        printErr(
            "cairn: retention: \(r.dryRun ? "would delete" : "deleted") \(o.deletedTrips) trip\(o.deletedTrips == 1 ? "" : "s") (\(o.deletedBytes) bytes)"
                + (o.keptUnexported > 0 ? "; kept \(o.keptUnexported) over the limit that are not safely exported (see above)" : ""))
        return o.problems > 0 ? ExitCode.failure : ExitCode.ok
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport

/// `cairn export --to DIR`: copies finished trips off the recorder's directory onto a mounted card
/// or stick, with their conversions. Layout under DIR:
///
///     DIR/logs/NNNNNNNN.cairn                   the log files, byte for byte (unless --logs no)
///     DIR/gpx/YYYYMMDD-HHMMSS-tripID.gpx        one GPX per trip (UTC time of its first exported point)
///     DIR/fit/YYYYMMDD-HHMMSS-tripID.fit        one FIT activity per trip
///     DIR/index.html, DIR/index.tsv             the page of every trip exported here (unless --page no)
///     DIR/pictures/YYYYMMDD-HHMMSS-tripID.svg   each trip's picture on the page
///
/// The page (`PageBuilder`) is made from the index, which keeps the trips of earlier runs: a
/// trip retention has since deleted on the board stays on it. Its pictures and figures are of
/// what the conversions hold (the privacy zones cut the same way).
///
/// With a board id (the log's, else `--board` or the config's `board`) the names are
/// `YYYYMMDD-HHMMSS-BOARD-tripID.EXT`.
///
/// `--name-prefix TEXT` puts TEXT in front of each conversion's name; the log copies keep their
/// names (the `exported` state, retention and a later export know them by it).
///
/// A trip is finished when the recorder closed it, or when no recorder is appending to its last
/// file (`TripFinish`); never because other files exist. Each file is written under a hidden
/// temporary name, fsynced, renamed, read back (size and CRC-32C of each log copy, the size of each
/// conversion) and the directory is fsynced: a stick pulled mid-export holds whole files or none,
/// and a trip is recorded as exported only once all its copies read back right. The `exported`
/// file in the log directory records each copied log's size and checksum (`ExportState`); a trip
/// whose files changed since (a new part after a restart) is exported again: its new part copied,
/// its conversions rewritten. A log copy of another size is never replaced, except an earlier copy
/// of the same log that it has grown past (the copy is a byte prefix of the log).
///
/// A trip that cannot be exported (a log copy that clashes, a conversion that fails) is said in
/// one line naming the trip, its file and the reason, and the others are exported: the exit
/// status is then 1 (0 when every trip was exported or already there). A trip without a point
/// has nothing to copy: it is said once and marked as done, so retention may delete its file.
enum ExportCommand: Command {
    static let name = "export"
    static let overview = "Copy finished trips (log files and conversions) to a card or stick; a second run copies nothing new."
    static let usage =
        "cairn export --to <dir> [--dir <dir>] [--format <gpx,fit,...|none>] [--logs <yes|no>] [--laps <marks|pause|none|1km|...>] [--privacy-zone <lat,lon,radius_m>]... [--config <file|none>] [--privacy-key <file>] [--name-prefix <text>] [--board <id>] [--page <yes|no>]"
    static let options =
        [
            OptionSpec(name: "--to", valueName: "DIR", help: "Destination (a mounted card or stick); created if its parent exists."),
            OptionSpec(name: "--dir", valueName: "DIR", help: "The recorder's log directory. (default: /var/lib/cairn)"),
            OptionSpec(
                name: "--format", valueName: "FORMATS",
                help: "Conversions to write next to the logs: any of gpx, fit, geojson, kml, csv, comma-separated, or none. (default: gpx,fit)"),
            OptionSpec(
                name: "--logs", valueName: "YES|NO",
                help:
                    "Copy the raw log files to DIR/logs. They hold every point, the privacy zones' too, so with zones in effect the default is no; a trip exported without its logs is not safe to delete, and retention keeps it. (default: yes, or no with privacy zones)"
            ),
            OptionSpec(
                name: "--page", valueName: "YES|NO",
                help:
                    "Keep DIR/index.html, a page of every trip exported to DIR (date, distance, moving time, climb, picture, links to its files), with its index DIR/index.tsv and DIR/pictures/. (default: yes)"
            )
        ]
        + ExportStageOptions.options + [SharedOptions.namePrefixOption, SharedOptions.boardOption]

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let a = parsed
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        guard let dest = a.value("--to"), !dest.isEmpty else { throw UsageError("Missing expected option '--to <dir>'") }
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        let formatText = a.value("--format") ?? "gpx,fit"
        let formats = try SharedOptions.formats(formatText)
        let namePrefix = try a.value("--name-prefix").map(SharedOptions.namePrefix) ?? ""
        let logsText = a.value("--logs")
        if let l = logsText, l != "yes" && l != "no" { throw UsageError("The value '\(l)' is invalid for '--logs <yes|no>'") }
        let pageText = a.value("--page") ?? "yes"
        if pageText != "yes" && pageText != "no" { throw UsageError("The value '\(pageText)' is invalid for '--page <yes|no>'") }
        let stageOptions = try ExportStageOptions.parse(a, logDirectory: dir)
        let copyLogs = ShippingPlan.logsGo(
            asked: logsText.map { $0 == "yes" }, zones: !stageOptions.zones.isEmpty, formats: formats.count, to: .folder)
        if !copyLogs && formats.isEmpty { throw UsageError("'--format none' with '--logs no' leaves nothing to export") }
        guard pathExists(dir) else { throw Failure("\(dir): no such directory") }
        ignoreFileSizeLimitSignal()
        try refuseNesting(dest: dest, logs: dir)
        // A read-only log directory (a card mounted read-only) cannot hold the lock: go on without.
        let lock: DirectoryLock?
        do throws(DirectoryLock.Failure) {
            lock = try DirectoryLock(directory: dir, fileName: DirectoryLock.exportFileName)
        } catch {
            switch error {
            case .held(_, let holder):
                throw Failure(
                    "\(dir): another export from this directory is running" + (holder.map { " (PID \($0))" } ?? "")
                        + "; run again once it is done")
            case .system(_, _, let code) where code == EACCES || code == EROFS || code == EPERM:
                lock = nil
            case .system:
                throw Failure(error.description)
            }
        }
        defer { withExtendedLifetime(lock) {} }
        var run = ExportRun(
            dir: dir, dest: dest, formats: formats, copyLogs: copyLogs, logsText: logsText, page: pageText == "yes", stageOptions: stageOptions,
            namePrefix: namePrefix)
        return try run.go()
    }

    /// Refuses a destination inside the log directory, or a log directory inside the
    /// destination: the copies would be read back as logs (a trip listed twice, retention
    /// deleting what it thinks are copies).
    static func refuseNesting(dest: String, logs: String) throws {
        let d = canonical(dest), l = canonical(logs)
        if d == l || d.hasPrefix(l == "/" ? "/" : l + "/") {
            throw Failure("--to \(dest): inside the log directory \(logs); export to another directory (a card or stick)")
        }
        if l.hasPrefix(d == "/" ? "/" : d + "/") {
            throw Failure("--to \(dest): holds the log directory \(logs); export to a directory outside it")
        }
    }

    /// The path with symbolic links and `..` resolved; for a path that does not exist yet, its
    /// nearest existing ancestor resolved and the rest appended.
    static func canonical(_ p: String) -> String {
        var rest: [String] = []
        var cur = absolute(p)
        while true {
            if var base = try? POSIX.realPath(cur) {
                for part in rest.reversed() where part != "." && !part.isEmpty {
                    if part == ".." { base = POSIX.parent(of: base) } else { base = POSIX.join(base, part) }
                }
                return base
            }
            guard cur != "/" && !cur.isEmpty else { return absolute(p) }
            rest.append(baseName(cur))
            cur = POSIX.parent(of: cur)
        }
    }

    static func absolute(_ p: String) -> String {
        if p.hasPrefix("/") { return p }
        guard let cwd = try? POSIX.currentDirectory() else { return p }
        return POSIX.join(cwd, p)
    }
}

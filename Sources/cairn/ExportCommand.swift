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
        // The raw logs hold every point, home too: with zones they stay off the stick unless asked.
        // `--format none` asks for the logs alone, zones or not.
        let copyLogs = logsText.map { $0 == "yes" } ?? (stageOptions.zones.isEmpty || formats.isEmpty)
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
        try ensureDirectory(dest)
        let logsDir = POSIX.join(dest, "logs")
        if copyLogs { try ensureDirectory(logsDir) }
        for f in formats { try ensureDirectory(POSIX.join(dest, f.name)) }
        let destination = absolute(dest)
        // A stick unmounted (or swapped) mid-export: the path then leads elsewhere.
        let destIdentity = DirectoryLock.FileKey(path: dest)

        var problems = 0
        let all = try catalogTrips(
            in: dir,
            say: {
                printErr("cairn: \($0)"); problems += 1
            },
            unfinished: { printErr("cairn: \($0)") })
        var state = ExportState(directory: dir)
        if let p = state.problem { printErr("cairn: \(p)") }
        // The page's index is read before any trip, so one that cannot be read stops no export.
        var page: PageBuilder?
        if pageText == "yes" {
            do throws(ExportError) { page = try PageBuilder(folder: dest, say: { printErr("cairn: \(terminalSafe($0))") }) } catch {
                printErr("cairn: \(error)")
                problems += 1
            }
        }
        var copiedFiles = 0, copiedBytes = 0, wroteConversions = 0, exportedTrips = 0, alreadyThere = 0, failedTrips = 0, openTrips = 0
        for (t, whole, openBecause) in all {
            let label = "trip \(t.id) (\(t.files.map { baseName($0.path) }.joined(separator: ", ")))"
            if let why = openBecause {
                printErr("cairn: \(label): still open (\(why)); exported once it closes")
                openTrips += 1
                continue
            }
            if let n = t.note { printErr("cairn: \(n)") }
            let now: [ExportState.CopiedFile]
            do { now = try ExportState.current(t) } catch {
                printErr("cairn: \(label): \(error)")
                problems += 1; failedTrips += 1
                continue
            }
            // A trip without a point has no conversion. One that holds nothing but a header has
            // nothing to lose either: marked done, so retention may delete its file. One whose
            // records are damaged still has bytes someone may recover: its log is copied (with
            // --logs yes) before retention may delete it.
            let empty = whole.stats.points == 0
            if empty && whole.damagedBytes == 0 {
                printErr("cairn: \(label): no points (an empty or unfinished trip); nothing to export")
                state.mark(t, files: now, logs: true, destination: destination)
                continue
            }
            if empty {
                printErr("cairn: \(label): no points (an empty or damaged trip); no conversion" + (copyLogs ? ", its log copied" : ""))
            }
            let verified = state.isExported(t, to: destination, now: now, logs: copyLogs)
            var tripProblem = false
            var wroteAny = false
            // The log files, byte for byte, each read back before the trip counts as exported.
            if copyLogs {
                for (f, c) in zip(t.files, now) {
                    let target = POSIX.join(logsDir, c.name)
                    switch existingCopy(target, of: f.path, c.digest) {
                    case .same: continue
                    case .other(let why):
                        printErr("cairn: \(target): exists and is another file (\(why)); not replaced: export to another directory")
                        // An earlier verified export to here no longer holds (a copy damaged since).
                        state.forget(t, destination: destination)
                        tripProblem = true
                        continue
                    case .earlierCopy:
                        printErr("cairn: \(target): an earlier copy of this log, which has grown since; replaced")
                    case .none: break
                    }
                    do {
                        let copied = try copyFileAtomically(f.path, target)
                        let back = try FileDigest.of(target, fromMedium: true)
                        if copied != c.digest {
                            throw Failure("\(f.path): changed while being copied (\(c.digest.text) before, \(copied.text) copied); run again")
                        }
                        if back != copied {
                            POSIX.unlink(target)
                            throw Failure("\(target): reads back as \(back.text), not the \(copied.text) written (a failing card?); removed")
                        }
                        copiedBytes += copied.size
                        copiedFiles += 1
                        wroteAny = true
                    } catch let e as Failure {
                        printErr("cairn: \(label): \(e.message)")
                        tripProblem = true
                    } catch {
                        printErr("cairn: \(label): \(error)")
                        tripProblem = true
                    }
                }
            }
            // Conversions, one file per trip and format, cut once (`TripShipment`). The page
            // shows the trip too (its picture and figures): cut it even with --format none.
            let shipment: TripShipment
            do {
                shipment = try TripShipment(
                    t, whole, zones: (!empty && (!formats.isEmpty || page != nil)) ? stageOptions.zones : PrivacyZones(),
                    board: stageOptions.board, prefix: namePrefix)
            } catch {
                // Never a conversion without its zones' cut.
                printErr("cairn: \(label): \(error)")
                problems += 1
                failedTrips += 1
                continue
            }
            for format in formats where !empty {
                if shipment.hidesAll {
                    printErr("cairn: \(label): every point is inside a privacy zone; no \(format.name) written")
                    continue
                }
                let target = POSIX.join(dest, shipment.path(format))
                // Written again unless this trip, as it is now, was verified here: a trip resumed
                // since has more points than its earlier conversion.
                if verified && pathExists(target) { continue }
                if let err = shipment.write(format, to: target, laps: stageOptions.laps) {
                    printErr("cairn: \(label): \(format.name) not written: \(err)")
                    tripProblem = true
                } else {
                    wroteConversions += 1
                    wroteAny = true
                }
            }
            if tripProblem { problems += 1; failedTrips += 1; continue }
            if wroteAny { exportedTrips += 1 } else { alreadyThere += 1 }
            if let page, wroteAny || !page.isCurrent(key: shipment.key) {
                let p = shipment.pageTrip(formats: formats, logs: copyLogs ? now.map { "logs/" + $0.name } : []) {
                    pathExists(POSIX.join(dest, $0))
                }
                if !p.entry.files.isEmpty, let why = page.add(p) { printErr("cairn: \(label): no picture on the page: \(why)") }
            }
            state.mark(t, files: now, logs: copyLogs, destination: destination)
        }
        if let page {
            do throws(ExportError) { try page.write() } catch {
                printErr("cairn: \(error); the trips are exported")
                problems += 1
            }
        }
        // One directory sync per directory covers every rename into it; the state is saved only
        // after them, so a stick that fills or vanishes on the way marks nothing.
        do {
            // The board's privacy key goes with its logs (never without them: they hold every
            // point anyway), so a laptop's `convert` of the copies cuts the zones as the board
            // does; a second key would give home away where two cuts' rings cross.
            if copyLogs, let key = stageOptions.zones.key {
                try writeFileAtomically(POSIX.join(logsDir, ExportStageOptions.keyFileName), key.bytes, mode: 0o600)
            }
            if copyLogs { try syncDirectory(logsDir) }
            for f in formats { try syncDirectory(POSIX.join(dest, f.name)) }
            try syncDirectory(dest)
            guard let current = DirectoryLock.FileKey(path: dest), current == destIdentity else {
                throw Failure("\(dest): is no longer the directory this export wrote to (the stick unmounted or replaced?)")
            }
            try state.save()
        } catch let e as Failure {
            printErr("cairn: \(e.message); no trip marked as exported")
            problems += 1
        }
        printErr(
            "cairn: exported \(exportedTrips) trip\(exportedTrips == 1 ? "" : "s") to \(dest) (\(copiedFiles) log file\(copiedFiles == 1 ? "" : "s"), \(copiedBytes) bytes; \(wroteConversions) conversion\(wroteConversions == 1 ? "" : "s")); \(alreadyThere) already there"
        )
        if !copyLogs {
            printErr(
                "cairn: log files left off the stick (--logs \(logsText ?? "no, the default with privacy zones")): retention keeps these trips until an export with --logs yes copies them"
            )
        }
        if all.isEmpty || openTrips == all.count {
            printErr("cairn: no finished trips in \(dir) (an open trip is exported once it closes)")
        }
        if failedTrips > 0 {
            printErr("cairn: \(failedTrips) trip\(failedTrips == 1 ? "" : "s") not exported (see above); run again once fixed")
        }
        return problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    enum ExistingCopy: Equatable {
        case none
        /// The same bytes.
        case same
        /// An earlier copy of this log, which has grown since (a byte prefix of it): replaced.
        case earlierCopy
        case other(String)
    }

    /// What is at `target` already, against the log `source` whose bytes are `digest`. Always
    /// read whole: a copy verified by an earlier export may have been damaged on the stick since.
    static func existingCopy(_ target: String, of source: String, _ digest: FileDigest) -> ExistingCopy {
        guard fileSize(target) != nil else { return .none }
        guard let theirs = try? FileDigest.of(target) else { return .other("cannot be read") }
        if theirs == digest { return .same }
        if theirs.size < digest.size, let prefix = try? FileDigest.of(source, limit: theirs.size), prefix == theirs { return .earlierCopy }
        return .other("\(theirs.size) bytes, not a copy of this log's \(digest.size); a log from another board?")
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

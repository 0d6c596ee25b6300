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
///     DIR/logs/NNNNNNNN.cairn                   the log files, byte for byte
///     DIR/gpx/YYYYMMDD-HHMMSS-tripID.gpx        one GPX per trip (UTC start time)
///     DIR/fit/YYYYMMDD-HHMMSS-tripID.fit        one FIT activity per trip
///
/// Each file is written under a hidden temporary name, fsynced, renamed, and the directory is
/// fsynced: a stick pulled mid-export holds whole files or none. A file already there is not
/// written again (a log copy of another size is an error, never replaced), so a second run copies
/// nothing new. Exported trips are recorded in the log directory's `exported` file, which is
/// what retention (`prune`, `record --keep-days/--max-mb`) checks before deleting anything.
///
/// A trip that cannot be exported (a log copy that clashes, a conversion that fails) is said in
/// one line naming the trip, its file and the reason, and the others are exported: the exit
/// status is then 1 (0 when every trip was exported or already there). A trip without a point
/// has nothing to copy: it is said once and marked as done, so retention may delete its file.
enum ExportCommand: Command {
    static let name = "export"
    static let overview = "Copy finished trips (log files and conversions) to a card or stick; a second run copies nothing new."
    static let usage =
        "cairn export --to <dir> [--dir <dir>] [--format <gpx,fit,...|none>] [--laps <pause|none|1km|...>] [--privacy-zone <lat,lon,radius_m>]... [--config <file>]"
    static let options =
        [
            OptionSpec(name: "--to", valueName: "DIR", help: "Destination (a mounted card or stick); created if its parent exists."),
            OptionSpec(name: "--dir", valueName: "DIR", help: "The recorder's log directory. (default: /var/lib/cairn)"),
            OptionSpec(
                name: "--format", valueName: "FORMATS",
                help: "Conversions to write next to the logs: any of gpx, fit, geojson, kml, csv, comma-separated, or none. (default: gpx,fit)")
        ] + ExportStageOptions.options

    static func run(_ a: ParsedArguments) throws -> Int32 {
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        guard let dest = a.value("--to"), !dest.isEmpty else { throw UsageError("Missing expected option '--to <dir>'") }
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        let formatText = a.value("--format") ?? "gpx,fit"
        var formats: [String] = []
        if formatText != "none" {
            for f in formatText.split(separator: ",").map(String.init) {
                guard ConvertCommand.formats.contains(f) else {
                    throw UsageError("The value '\(f)' is invalid for '--format <formats>': use gpx, fit, geojson, kml, csv or none")
                }
                if !formats.contains(f) { formats.append(f) }
            }
        }
        let stageOptions = try ExportStageOptions.parse(a, logDirectory: dir)
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
        try ensureDirectory(logsDir)
        for f in formats { try ensureDirectory(POSIX.join(dest, f)) }

        var problems = 0
        let trips = try finishedTrips(
            in: dir,
            say: {
                printErr("cairn: \($0)"); problems += 1
            },
            unfinished: { printErr("cairn: \($0)") })
        var state = ExportState(directory: dir)
        var copiedFiles = 0, copiedBytes = 0, wroteConversions = 0, exportedTrips = 0, alreadyThere = 0, failedTrips = 0
        for (t, s) in trips {
            if let n = t.note { printErr("cairn: \(n)") }
            let label = "trip \(t.id) (\(t.files.map { baseName($0.path) }.joined(separator: ", ")))"
            guard s.stats.points > 0 else {
                printErr("cairn: \(label): no points (an empty or unfinished trip); nothing to export")
                state.mark(t, destination: absolute(dest))
                continue
            }
            var tripProblem = false
            var wroteAny = false
            // The log files, byte for byte.
            for f in t.files {
                let target = POSIX.join(logsDir, baseName(f.path))
                if pathExists(target) {
                    let theirs = try? LogReader(path: target).header.salt
                    if theirs != f.header.salt || fileSize(target) != fileSize(f.path) {
                        printErr(
                            "cairn: \(target): exists and is another file (a log from another board?); not replaced: export to another directory")
                        tripProblem = true
                    }
                    continue
                }
                do {
                    copiedBytes += try copyFileAtomically(f.path, target)
                    copiedFiles += 1
                    wroteAny = true
                } catch let e as Failure {
                    printErr("cairn: \(label): \(e.message)")
                    tripProblem = true
                }
            }
            // Conversions, one file per trip and format.
            for format in formats {
                let name = String(FITWriter.fileName(tripId: t.id, startMs: s.stats.firstTimeMs, suffix: t.nameSuffix).dropLast(4)) + "." + format
                let target = POSIX.join(POSIX.join(dest, format), name)
                if pathExists(target) { continue }
                if let err = convert(t, s, format: format, to: target, stages: stageOptions) {
                    printErr("cairn: \(label): \(format) not written: \(err)")
                    tripProblem = true
                } else if !pathExists(target) {
                    printErr("cairn: \(label): every point is inside a privacy zone; no \(format) written")
                } else {
                    wroteConversions += 1
                    wroteAny = true
                }
            }
            if tripProblem { problems += 1; failedTrips += 1; continue }
            if wroteAny { exportedTrips += 1 } else { alreadyThere += 1 }
            state.mark(t, destination: absolute(dest))
        }
        // One directory sync per directory covers every rename into it.
        do {
            try syncDirectory(logsDir)
            for f in formats { try syncDirectory(POSIX.join(dest, f)) }
            try syncDirectory(dest)
            try state.save()
        } catch let e as Failure {
            printErr("cairn: \(e.message)")
            problems += 1
        }
        printErr(
            "cairn: exported \(exportedTrips) trip\(exportedTrips == 1 ? "" : "s") to \(dest) (\(copiedFiles) log file\(copiedFiles == 1 ? "" : "s"), \(copiedBytes) bytes; \(wroteConversions) conversion\(wroteConversions == 1 ? "" : "s")); \(alreadyThere) already there"
        )
        if trips.isEmpty { printErr("cairn: no finished trips in \(dir) (an open trip is exported once it closes)") }
        if failedTrips > 0 {
            printErr("cairn: \(failedTrips) trip\(failedTrips == 1 ? "" : "s") not exported (see above); run again once fixed")
        }
        return problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    /// Converts one trip into `target` through a temporary name; returns an error text or nil.
    static func convert(_ t: TripRef, _ whole: TripSummary, format: String, to target: String, stages options: ExportStageOptions) -> String? {
        let tmp = temporaryName(for: target)
        unlink(tmp)
        // Privacy zones: the stretch the export keeps, and its figures.
        var window: PrivacyWindow?
        var s = whole
        if !options.zones.isEmpty {
            do {
                let w = try ExportStages.window(t, zones: options.zones)
                if w.hidesAll { return nil }  // nothing to write: the caller says so
                window = w
                s = try ExportStages.summary(t, window: w)
            } catch { return "\(error)" }
        }
        let laps = options.laps != .none
        let writer: TrackExporter
        if format == "fit" {
            writer = FITWriter(target: .file(tmp), force: true, softwareVersion: cairnVersion, atomic: false, laps: options.laps)
        } else {
            let sink: OutputSink
            do { sink = try OutputSink(creating: tmp, force: true) } catch { return "\(error)" }
            let creator = "cairn \(cairnVersion)"
            switch format {
            case "gpx": writer = GPXWriter(sink: sink, creator: GPXWriter.creator(version: cairnVersion, barometer: s.stats.climbFromBarometer))
            case "geojson": writer = GeoJSONWriter(sink: sink, colouring: .none, laps: laps)
            case "kml": writer = KMLWriter(sink: sink, creator: creator, colouring: .none)
            default: writer = CSVWriter(sink: sink, laps: laps)
            }
        }
        writer.begin()
        do {
            try writer.beginTrip(TripHeading(id: t.id, activity: s.activity, summary: s))
        } catch {
            unlink(tmp)
            return "\(error)"
        }
        var readError: String?
        var stages = ExportStages(window: window, laps: options.laps)
        do {
            try TripCatalog.read(t) { e in
                stages.feed(e, segment: { writer.beginSegment($0) }, point: { writer.point($0, $1) })
            }
        } catch { readError = "\(error)" }
        let endErr = writer.endTrip()
        let err = writer.end()
        if let e = readError ?? endErr ?? err { unlink(tmp); return e }
        do {
            try syncFile(tmp)
        } catch let e as Failure { unlink(tmp); return e.message } catch { unlink(tmp); return "\(error)" }
        if rename(tmp, target) != 0 { let m = Errno.current; unlink(tmp); return "\(target): cannot rename into place: \(m)" }
        return nil
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
            if let r = realpath(cur, nil) {
                defer { free(r) }
                var base = String(cString: r)
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
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buf, buf.count) != nil else { return p }
        let cwd = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return POSIX.join(cwd, p)
    }
}

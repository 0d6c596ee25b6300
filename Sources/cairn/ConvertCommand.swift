#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport

enum ConvertCommand: Command {
    static let name = "convert"
    static let overview = """
        Convert trips to GPX 1.1, FIT activities, GeoJSON, KML or CSV, streamed from the log.
          gpx      one <trk> per trip, one <trkseg> per segment; temperature in
                   Garmin's TrackPointExtension v1, speed and course as
                   cairn:speed, cairn:course
          fit      one activity file per trip into a directory (-o DIR), for
                   Strava and Garmin
          geojson  one MultiLineString Feature per trip (RFC 7946), or
                   speed-coloured lines; 3-D positions only when every point
                   has a trusted height
          kml      one gx:MultiTrack per trip, or speed-coloured tracks
          csv      time,lat,lon,ele,speed,course,temp,pressure,climb,segment,
                   trip,board[,lap][,origin]
        Laps (--laps) and privacy zones (--privacy-zone, --config) apply to every
        format; the figures an export writes (FIT session and laps, GeoJSON and
        KML properties) count the points it holds. --smooth and --fill-gaps change
        the exported track (never the log): the points are flagged (CSV's origin
        column), and the figures are the exported track's.
        """
    static let usage =
        "cairn convert <path> ... --to <gpx|fit|geojson|kml|csv> [-o <file|dir|->] [--trip <id>] [--speed-bands <auto|kmh,...>] [--utc-offset <±HH:MM>] [--refilter [--activity <activity>] [--close-after <minutes>] | --raw] [--smooth] [--fill-gaps] [--laps <marks|pause|none|1km|5km|10km|1mi|5mi>] [--privacy-zone <lat,lon,radius_m>]... [--config <file|none>] [--privacy-key <file>] [--name-prefix <text>] [--board <id>] [--force]"
    static let arguments = [("<path>", "Log files or directories of them.")]
    static let options =
        [
            OptionSpec(name: "--to", valueName: "FORMAT", help: "Output format: gpx, fit, geojson, kml or csv."),
            OptionSpec(
                name: "--output", valueName: "PATH",
                help:
                    "A file, or - for standard output (default: -). fit: a directory (created if missing; YYYYMMDD-HHMMSS-tripID.fit per trip) or one .fit file for one trip.",
                short: "-o"),
            OptionSpec(name: "--trip", valueName: "ID", help: "Only this trip (see 'cairn list'). (default: all trips)"),
            OptionSpec(
                name: "--speed-bands", valueName: "BANDS",
                help:
                    "geojson, kml: colour by speed. 'auto' (km/h: ride 10,20,30; run 8,10,12; walk 3,5,6; drive 50,90,110) or your limits in km/h: 12,24,36."
            ),
            OptionSpec(
                name: "--utc-offset", valueName: "OFFSET",
                help:
                    "fit: the rider's zone for local times, e.g. +02:00 or -05:30, instead of the one the trip recorded. (default: the recorded one; none recorded: no local time)"
            ),
            OptionSpec(name: "--force", valueName: nil, help: "Replace existing output files."),
            SharedOptions.namePrefixOption,
            SharedOptions.boardOption,
            // The export-side stages (TrackPipeline).
            OptionSpec(
                name: "--smooth", valueName: nil,
                help:
                    "Smooth each segment with a Kalman filter and backward pass that weighs each point by its own uncertainty and follows its doppler speed and course; nothing is smoothed across a track break. (default: the points as recorded)"
            ),
            OptionSpec(
                name: "--fill-gaps", valueName: nil,
                help:
                    "Across dropouts over 10 s inside a segment while moving, add a point a second on a curve that follows the speed and course at both ends (a straight chord when those are missing or the curve would overshoot), flagged as interpolated; the exported length follows the filled path. (default: no filling)"
            ),
            // Re-filtering and raw fixes (need a log recorded with 'record --raw on', the default).
            OptionSpec(
                name: "--refilter", valueName: nil,
                help:
                    "Run the fix rules again over every fix the trip logged, as if recorded anew (this version's rules; --activity and --close-after to judge by other limits)."
            ),
            OptionSpec(
                name: "--activity", valueName: "ACTIVITY",
                help: "With --refilter: judge by this activity's limits (ride, run, walk or drive). (default: the recorded one)"),
            OptionSpec(
                name: "--close-after", valueName: "MINUTES",
                help: "With --refilter: a standstill this long ends the trip, 5 to 1440. (default: the recorded one)"),
            OptionSpec(
                name: "--raw", valueName: nil,
                help:
                    "gpx, csv: every fix the trip logged, kept or not, with the rules' verdict (GPX cairn:verdict, CSV column verdict: kept, the rule that dropped it, or undecided)."
            )
        ] + ExportStageOptions.options

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty else { throw UsageError("Missing expected argument '<path>'") }
        guard let formatName = a.value("--to") else { throw UsageError("Missing expected option '--to <format>'") }
        guard let format = ExportFormat.named(formatName) else {
            throw UsageError(
                "The value '\(formatName)' is invalid for '--to <format>': use one of \(ExportFormat.names.joined(separator: ", "))")
        }
        var settings = ExportFormat.Settings(version: cairnVersion)
        if let b = a.value("--speed-bands") {
            guard format == .geojson || format == .kml else {
                throw UsageError("'--speed-bands' applies to geojson and kml, not \(format.name)")
            }
            if b == "auto" {
                settings.colouring = .auto
            } else {
                do { settings.colouring = .bands(try SpeedBands.parse(b)) } catch { throw UsageError(error.description) }
            }
        }
        if let o = a.value("--utc-offset") {
            guard format == .fit else { throw UsageError("'--utc-offset' applies to fit (its local_timestamp), not \(format.name)") }
            guard let s = UTCOffset.parse(o) else {
                throw UsageError("The value '\(o)' is invalid for '--utc-offset <offset>': use ±HH:MM within ±18:00, e.g. +02:00, -05:30 or Z")
            }
            settings.utcOffsetS = s
        }
        if let p = a.value("--name-prefix") {
            settings.namePrefix = try SharedOptions.namePrefix(p)
            // Only FIT into a directory makes names; any other output is the name -o gives.
            guard format == .fit else {
                throw UsageError("'--name-prefix' applies to the files --to fit makes in a directory, not to \(format.name): -o names that file")
            }
        }
        let stageOptions = try ExportStageOptions.parse(a, inputs: a.positionals)
        let force = a.has("--force")
        var stages = TripConversion.Stages()
        stages.smooth = a.has("--smooth")
        stages.fillGaps = a.has("--fill-gaps")
        stages.zones = stageOptions.zones
        stages.laps = stageOptions.laps
        stages.board = stageOptions.board
        stages.source = try source(a, format: format)
        if stages.source.isRaw {
            // Every fix as judged: nothing to smooth, fill or cut into laps.
            for o in ["--smooth", "--fill-gaps"] where a.has(o) {
                throw UsageError("'\(o)' and '--raw' do not go together: --raw exports every fix as gpsd delivered it")
            }
            if a.value("--laps") != nil { throw UsageError("'--laps' and '--raw' do not go together: --raw exports every fix, kept or not") }
        }
        settings.laps = stages.source.isRaw ? .none : stageOptions.laps
        settings.origins = stages.pipelined
        settings.verdicts = stages.source.isRaw
        ignoreFileSizeLimitSignal()
        let outPath = a.value("--output") ?? (format == .fit ? nil : "-")
        if outPath?.isEmpty == true { throw UsageError("The value '' is invalid for '-o, --output <path>': give a file, a directory or -") }
        if format == .fit {
            guard let o = outPath else {
                throw UsageError("--to fit writes one file per trip: give a directory with '-o <dir>'")
            }
            if o == "-" {
                throw UsageError(
                    "--to fit cannot write to standard output (a FIT header is completed after the data): give a directory with '-o <dir>'")
            }
        }
        let sel = try TripSelection(paths: a.positionals, trip: a.value("--trip"))
        guard !sel.trips.isEmpty else {
            throw Failure("no trips in \(a.positionals.joined(separator: " ")): nothing written")
        }
        if case .refilter(var o) = stages.source {
            o.logTrips = sel.all
            o.carry = TripReplay.Carry()  // trips in order: each run replayed once
            stages.source = .refilter(o)
        }

        let output: ExportFormat.Output
        var sink: OutputSink?
        let describeOutput = outPath ?? "-"
        if format == .fit {
            let o = outPath!
            let target: FITWriter.Target
            if POSIX.isDirectory(o) {
                target = .directory(o)
            } else if o.hasSuffix(".fit") {
                if a.value("--name-prefix") != nil {
                    throw UsageError("'--name-prefix' applies to the files --to fit makes in a directory, not to -o \(o), a file named by -o")
                }
                guard sel.trips.count == 1 else {
                    throw Failure(
                        "-o \(o): one FIT file holds one trip, and \(sel.trips.count) are selected: give a directory, or choose one with --trip")
                }
                target = .file(o)
            } else if pathExists(o) {
                throw Failure("-o \(o): not a directory (FIT writes one file per trip into a directory)")
            } else {
                do throws(Errno) { try POSIX.makeDirectory(o, existingIsFine: false) } catch {
                    throw Failure("-o \(o): cannot create directory: \(error)")
                }
                target = .directory(o)
            }
            output = .fitFiles(target, force: force, atomic: true)
        } else {
            let out: OutputSink
            do {
                // A file is written under a temporary name and renamed over the final one only
                // when complete: a failure leaves the old file (or none) under the name.
                out = outPath == "-" ? OutputSink() : try OutputSink(atomically: describeOutput, force: force)
            } catch {
                throw Failure("\(error)")
            }
            sink = out
            if format == .gpx {
                // The document's board: the one every selected trip was recorded on, if any.
                let boards = Set(sel.trips.map { TripCatalog.board(of: $0, fallback: stages.board) })
                if boards.count == 1, let only = boards.first { settings.board = only }
                // One creator for the file: "with barometer" only when every trip's climb is the barometer's.
                for t in sel.trips {
                    guard let b = try? TripCatalog.climbsByBarometer(t) else { continue }
                    settings.barometer = b
                    if !b { break }
                }
            }
            if format == .csv, sel.trips.count > 1 {
                // One header for every trip's rows: the sensor columns when any trip has values.
                settings.sensorColumns = sel.trips.contains { (try? SensorTrack.has($0)) == true }
            }
            output = .sink(out)
        }
        var progress = TerminalProgress(total: sel.trips.count)
        let conversion = TripConversion(writer: format.makeWriter(output, settings), stages: stages) {
            progress.clear()
            printErr("cairn: \($0)")
        }

        var problems = sel.problems
        var converted = 0
        for (i, t) in sel.trips.enumerated() {
            progress.step(i + 1, "trip \(t.id)")
            let o = conversion.convert(t)
            problems += o.problems
            if o.converted { converted += 1 }
        }
        progress.clear()
        if !conversion.begun {
            sink?.discard()
            throw Failure("no trip with points in \(a.positionals.joined(separator: " ")): nothing written")
        }
        do throws(OutputError) { try conversion.finish() } catch { throw Failure("\(error)") }
        if let fit = conversion.writer as? FITWriter {
            printErr("cairn: wrote \(fit.written.count) FIT file\(fit.written.count == 1 ? "" : "s") to \(describeOutput)")
        } else if describeOutput != "-" {
            printErr("cairn: wrote \(converted) trip\(converted == 1 ? "" : "s") to \(describeOutput)")
        }
        return problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    /// What is exported of each trip (`--refilter`, `--raw`), checked against the format.
    static func source(_ a: ParsedArguments, format: ExportFormat) throws -> TrackSource {
        let refilter = a.has("--refilter"), raw = a.has("--raw")
        if !refilter {
            for o in ["--activity", "--close-after"] where a.value(o) != nil {
                throw UsageError("'\(o)' applies to --refilter (the limits the rules are run again with)")
            }
        }
        if refilter && raw {
            throw UsageError("'--refilter' and '--raw' do not go together: --raw exports the fixes with the verdicts they were recorded with")
        }
        if raw {
            guard format == .gpx || format == .csv else {
                throw UsageError("'--raw' applies to gpx and csv (where each fix's verdict has a place), not \(format.name)")
            }
            return .raw
        }
        guard refilter else { return .recorded }
        var options = TripReplay.Options()
        if let name = a.value("--activity") { options.activity = try SharedOptions.activity(name) }
        if let text = a.value("--close-after") { options.closeAfterMs = try SharedOptions.closeAfterMs(text) }
        return .refilter(options)
    }
}

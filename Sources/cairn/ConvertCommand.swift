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
          gpx      one <trk> per trip, one <trkseg> per segment; temperature in Garmin's
                   TrackPointExtension v1, speed and course as cairn:speed, cairn:course
          fit      one activity file per trip into a directory (-o DIR), for Strava and Garmin
          geojson  one MultiLineString Feature per trip (RFC 7946), or speed-coloured lines;
                   3-D positions only when every point has a trusted height
          kml      one gx:MultiTrack per trip, or speed-coloured tracks
          csv      time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip[,lap][,origin]
        Laps (--laps) and privacy zones (--privacy-zone, --config) apply to every format; the
        figures an export writes (FIT session and laps, GeoJSON and KML properties) count the
        points it holds. --smooth and --fill-gaps change the exported track (never the log):
        the points are flagged (CSV's origin column), and the figures are the exported track's.
        """
    static let usage =
        "cairn convert <path> ... --to <gpx|fit|geojson|kml|csv> [-o <file|dir|->] [--trip <id>] [--speed-bands <auto|kmh,...>] [--utc-offset <±HH:MM>] [--refilter [--activity <activity>] [--close-after <minutes>] | --raw] [--smooth] [--fill-gaps] [--laps <pause|none|1km|5km|10km|1mi|5mi>] [--privacy-zone <lat,lon,radius_m>]... [--config <file|none>] [--privacy-key <file>] [--force]"
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

    static let formats = ["gpx", "fit", "geojson", "kml", "csv"]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty else { throw UsageError("Missing expected argument '<path>'") }
        guard let format = a.value("--to") else { throw UsageError("Missing expected option '--to <format>'") }
        guard formats.contains(format) else {
            throw UsageError("The value '\(format)' is invalid for '--to <format>': use one of \(formats.joined(separator: ", "))")
        }
        var colouring = GeoJSONWriter.Colouring.none
        if let b = a.value("--speed-bands") {
            guard format == "geojson" || format == "kml" else {
                throw UsageError("'--speed-bands' applies to geojson and kml, not \(format)")
            }
            if b == "auto" {
                colouring = .auto
            } else {
                do { colouring = .bands(try SpeedBands.parse(b)) } catch { throw UsageError(error.description) }
            }
        }
        var utcOffset: Int?
        if let o = a.value("--utc-offset") {
            guard format == "fit" else { throw UsageError("'--utc-offset' applies to fit (its local_timestamp), not \(format)") }
            guard let s = UTCOffset.parse(o) else {
                throw UsageError("The value '\(o)' is invalid for '--utc-offset <offset>': use ±HH:MM within ±18:00, e.g. +02:00, -05:30 or Z")
            }
            utcOffset = s
        }
        let stageOptions = try ExportStageOptions.parse(a, firstInput: a.positionals.first)
        let force = a.has("--force")
        let smooth = a.has("--smooth"), fillGaps = a.has("--fill-gaps")
        let pipelined = smooth || fillGaps
        var mode = try Mode(a, format: format)
        let laps = !mode.isRaw && stageOptions.laps != .none
        if mode.isRaw {
            // Every fix as judged: nothing to smooth, fill or cut into laps.
            for o in ["--smooth", "--fill-gaps"] where a.has(o) {
                throw UsageError("'\(o)' and '--raw' do not go together: --raw exports every fix as gpsd delivered it")
            }
            if a.value("--laps") != nil { throw UsageError("'--laps' and '--raw' do not go together: --raw exports every fix, kept or not") }
        }
        ignoreFileSizeLimitSignal()
        let outPath = a.value("--output") ?? (format == "fit" ? nil : "-")
        if outPath?.isEmpty == true { throw UsageError("The value '' is invalid for '-o, --output <path>': give a file, a directory or -") }
        if format == "fit" {
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
        if case .refilter(var o) = mode {
            o.logTrips = sel.all
            o.carry = TripReplay.Carry()  // trips in order: each run replayed once
            mode = .refilter(o)
        }
        let creator = "cairn \(cairnVersion)"

        let writer: TrackExporter
        var sink: OutputSink?
        var describeOutput = outPath ?? "-"
        if format == "fit" {
            let o = outPath!
            let target: FITWriter.Target
            if POSIX.isDirectory(o) {
                target = .directory(o)
            } else if o.hasSuffix(".fit") {
                guard sel.trips.count == 1 else {
                    throw Failure(
                        "-o \(o): one FIT file holds one trip, and \(sel.trips.count) are selected: give a directory, or choose one with --trip")
                }
                target = .file(o)
            } else if pathExists(o) {
                throw Failure("-o \(o): not a directory (FIT writes one file per trip into a directory)")
            } else {
                if mkdir(o, 0o755) != 0 { throw Failure("-o \(o): cannot create directory: \(Errno.current)") }
                target = .directory(o)
            }
            writer = FITWriter(target: target, force: force, softwareVersion: cairnVersion, utcOffsetS: utcOffset, laps: stageOptions.laps)
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
            switch format {
            case "gpx":
                // One creator for the file: "with barometer" only when every trip's climb is the barometer's.
                var barometer = false
                for t in sel.trips {
                    guard let b = try? TripCatalog.climbsByBarometer(t) else { continue }
                    barometer = b
                    if !b { break }
                }
                writer = GPXWriter(sink: out, creator: GPXWriter.creator(version: cairnVersion, barometer: barometer))
            case "geojson": writer = GeoJSONWriter(sink: out, colouring: colouring, laps: laps)
            case "kml": writer = KMLWriter(sink: out, creator: creator, colouring: colouring)
            default: writer = CSVWriter(sink: out, laps: laps, origins: pipelined, verdicts: mode.isRaw)
            }
        }

        var problems = sel.problems
        var converted = 0
        // The document starts with its first trip that has a point: no trip, no document.
        var begun = false
        for t in sel.trips {
            var heading = TripHeading(id: t.id, activity: nil, nameSuffix: t.nameSuffix)
            // Privacy zones: this trip's cut circles, applied to each point as it is written.
            let window: PrivacyWindow? = stageOptions.zones.isEmpty ? nil : stageOptions.zones.window(for: t)
            var stages = ExportStages(window: window, laps: mode.isRaw ? .none : stageOptions.laps)
            // The smoother's tuning follows the activity, which the trip's first record names.
            let stageActivity = pipelined ? (mode.activity ?? activity(of: t)) : nil
            // The smoother learns from the fixes the rules thinned out where the log holds them,
            // and the filler tells a dropout from a thinned step by them (a re-filtered trip
            // always has them: the replay judges them anew).
            var thinned = false
            if pipelined && !mode.isRaw {
                if case .refilter = mode { thinned = true } else { thinned = (try? TripRaw.has(t)) == true }
                if smooth && !thinned {
                    printErr("cairn: trip \(t.id): no raw fixes (\(TripRaw.whyMissing(t))): smoothed from its points alone, which corrects less")
                }
            }
            var summaryLeftOut = 0
            if writer.wantsSummaryFirst {
                // A first streamed pass for the figures the format puts before the points (those
                // of the exported track: through the same stages as the points).
                do {
                    let s = try ExportStages.summary(
                        t, window: window,
                        pipeline: pipelined
                            ? TrackPipeline(smooth: smooth, fillGaps: fillGaps, activity: stageActivity, usesRaw: thinned, window: window) : nil,
                        read: { t, visit in try mode.readTrack(t, thinned: thinned, visit: visit) }, leftOut: { summaryLeftOut = $0 })
                    heading.summary = s
                    heading.activity = s.activity
                } catch {
                    printErr("cairn: trip \(t.id): \(error)")
                    problems += 1
                    continue
                }
                if heading.summary?.stats.points == 0 {
                    if summaryLeftOut > 0 {
                        printErr("cairn: trip \(t.id): every point is inside a privacy zone; nothing written for it")
                    } else {
                        printErr("cairn: trip \(t.id): no points (an empty or unfinished trip); nothing written for it")
                    }
                    continue
                }
            } else {
                // The heading needs the activity, which the trip's first record names.
                heading.activity = mode.activity ?? activity(of: t)
            }
            // The trip begins at its first point, so a trip without one writes nothing.
            var tripBegun = false
            var beginFailed = false
            var segments: [SegmentReason] = []
            func beginTrip() -> Bool {
                if tripBegun { return true }
                if beginFailed { return false }
                if !begun { writer.begin(); begun = true }
                do {
                    try writer.beginTrip(heading)
                } catch {
                    printErr("cairn: trip \(t.id): \(error)")
                    problems += 1
                    beginFailed = true
                    return false
                }
                tripBegun = true
                for r in segments { writer.beginSegment(r) }
                return true
            }
            var readFailed = false
            // --raw: a stretch left out between written fixes starts a segment, as in `ExportStages`.
            var rawHiding = false, rawLeftOut = 0, rawStretches = 0
            let pipeline = TrackPipeline(smooth: smooth, fillGaps: fillGaps, activity: stageActivity, usesRaw: thinned, window: window)
            // The exported track's figures, for the line that says what the filling did.
            var exported: TripStats? = fillGaps ? TripStats() : nil
            // The exported track (through the pipeline) through the privacy window and the laps.
            func put(_ item: TrackItem) {
                stages.feed(
                    item,
                    segment: { reason in
                        exported?.startSegment(reason)
                        if tripBegun { writer.beginSegment(reason) } else { segments.append(reason) }
                    },
                    point: { f, extras in
                        exported?.add(f)
                        if beginTrip() { writer.point(f, extras) }
                    })
            }
            do {
                let s = try mode.read(t, thinned: thinned) { event in
                    switch event {
                    case .judged(let r): pipeline.push(.raw(r), emit: put)
                    case .segment(let reason) where mode.isRaw:
                        if tripBegun { writer.beginSegment(reason) } else { segments.append(reason) }
                    case .segment(let reason): pipeline.push(.segment(reason), emit: put)
                    case .point(let f): pipeline.push(.point(f), emit: put)
                    case .raw(let r):
                        if let w = window, !w.keeps(r.fix) {
                            rawLeftOut += 1
                            if !rawHiding { rawStretches += 1 }
                            rawHiding = true
                            return
                        }
                        if rawHiding && tripBegun { writer.beginSegment(.hidden) }
                        rawHiding = false
                        if beginTrip() { writer.point(r.fix, PointExtras(r)) }
                    }
                }
                pipeline.finish(emit: put)
                let leftOut = mode.isRaw ? rawLeftOut : stages.leftOut, stretches = mode.isRaw ? rawStretches : stages.stretches
                if window != nil && leftOut > 0 {
                    printErr(
                        tripBegun
                            ? "cairn: trip \(t.id): privacy zones: left out \(leftOut) point\(leftOut == 1 ? "" : "s") in \(stretches) stretch\(stretches == 1 ? "" : "es")"
                            : "cairn: trip \(t.id): every point is inside a privacy zone; nothing written for it")
                }
                if var f = pipeline.filled, let exported, tripBegun {
                    if window != nil { f.points = stages.interpolatedWritten }  // what the zones left of them
                    printErr(
                        "cairn: trip \(t.id): filled \(f.gaps) gap\(f.gaps == 1 ? "" : "s") with \(f.points) interpolated point\(f.points == 1 ? "" : "s")"
                            + (f.chords > 0 ? " (\(f.chords) as straight chords)" : "")
                            + "; exported length \(TextFormat.fixed(exported.distanceM / 1000, 2) ?? "?") km, recorded \(TextFormat.fixed(s.stats.distanceM / 1000, 2) ?? "?") km"
                    )
                }
                if let u = pipeline.unfilled, u.tooLong + u.overBudget > 0, tripBegun {
                    printErr("cairn: trip \(t.id): " + GapFiller.unfilledNote(tooLong: u.tooLong, overBudget: u.overBudget))
                }
                if s.stats.points == 0 && !writer.wantsSummaryFirst {
                    printErr("cairn: trip \(t.id): no points (an empty or unfinished trip); nothing written for it")
                } else if s.status == .recovered && tripBegun {
                    printErr("cairn: trip \(t.id): recovered from a damaged or interrupted log; converted what is intact (\(s.stats.points) points)")
                }
            } catch {
                printErr("cairn: trip \(t.id): \(error)")
                problems += 1
                readFailed = true
            }
            guard tripBegun else { continue }
            if readFailed, let fit = writer as? FITWriter {
                fit.abandonTrip()  // no FIT file for a trip that could not be read to its end
                continue
            }
            if let e = writer.endTrip() {
                printErr("cairn: trip \(t.id): \(e)")
                problems += 1
            } else {
                converted += 1
            }
        }
        if !begun {
            sink?.discard()
            throw Failure("no trip with points in \(a.positionals.joined(separator: " ")): nothing written")
        }
        if let err = writer.end() { throw Failure(err) }
        if let fit = writer as? FITWriter {
            describeOutput = outPath ?? "-"
            printErr("cairn: wrote \(fit.written.count) FIT file\(fit.written.count == 1 ? "" : "s") to \(describeOutput)")
        } else if describeOutput != "-" {
            printErr("cairn: wrote \(converted) trip\(converted == 1 ? "" : "s") to \(describeOutput)")
        }
        return problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    /// What is exported of each trip: the recorded points, the points of the rules run again, or
    /// every raw fix with its verdict.
    enum Mode {
        case recorded
        case refilter(TripReplay.Options)
        case raw

        init(_ a: ParsedArguments, format: String) throws {
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
                guard format == "gpx" || format == "csv" else {
                    throw UsageError("'--raw' applies to gpx and csv (where each fix's verdict has a place), not \(format)")
                }
                self = .raw
                return
            }
            guard refilter else {
                self = .recorded
                return
            }
            var options = TripReplay.Options()
            if let name = a.value("--activity") {
                guard let p = ActivityProfile.named(name) else {
                    throw UsageError("The value '\(name)' is invalid for '--activity <activity>': use ride, run, walk or drive")
                }
                options.activity = p
            }
            if let text = a.value("--close-after") {
                guard let m = StrictNumber.whole(text), m >= 5, m <= 1440 else {
                    throw UsageError("The value '\(text)' is invalid for '--close-after <minutes>': use whole minutes from 5 to 1440")
                }
                options.closeAfterMs = Int64(m) * 60_000
            }
            self = .refilter(options)
        }

        var isRaw: Bool { if case .raw = self { return true } else { return false } }

        /// The activity the export names, when it is not the recorded one.
        var activity: String? {
            if case .refilter(let o) = self { return o.activity?.name }
            return nil
        }

        /// The trip's track as this mode exports it (recorded or re-filtered points; a raw
        /// export's kept points), for the figures and the privacy window.
        @discardableResult
        func readTrack(_ t: TripRef, thinned: Bool = false, visit: (TripEvent) -> Void) throws -> TripSummary {
            if case .raw = self { return try TripCatalog.read(t, visit: visit) }
            return try read(t, thinned: thinned) { e in
                switch e {
                case .segment(let r): visit(.segment(r))
                case .point(let f): visit(.point(f))
                case .judged(let r): visit(.raw(r))
                case .raw: break
                }
            }
        }

        enum Event {
            case segment(SegmentReason)
            case point(Fix)
            /// A fix to export with its verdict (`--raw`).
            case raw(RawFix)
            /// A raw fix for the smoother to learn from (`TrackPipeline.usesRaw`), not exported.
            case judged(RawFix)
        }

        /// Streams one trip's events and returns its summary; with `thinned`, the raw fixes
        /// behind the points too (`Event.judged`), as the recording or the replay judged them.
        @discardableResult
        func read(_ t: TripRef, thinned: Bool = false, visit: (Event) -> Void = { _ in }) throws -> TripSummary {
            switch self {
            case .recorded:
                return try TripCatalog.read(t, raw: thinned) { e in
                    switch e {
                    case .segment(let r): visit(.segment(r))
                    case .point(let f): visit(.point(f))
                    case .raw(let r): visit(.judged(r))
                    }
                }
            case .refilter(var options):
                options.judged = thinned
                var s = try TripReplay.read(
                    t, options: options, warn: { printErr("cairn: \($0)") },
                    visit: { e in
                        switch e {
                        case .segment(let r): visit(.segment(r))
                        case .point(let f): visit(.point(f))
                        case .raw(let r): visit(.judged(r))
                        }
                    })
                if options.activity == nil { s.activity = s.activity ?? activity }
                return s
            case .raw:
                let s = try TripCatalog.read(t)
                var first = true
                try TripRaw.read(t) { r, _ in
                    if first { visit(.segment(.start)); first = false }
                    visit(.raw(r))
                }
                return s
            }
        }
    }

    static func activity(of t: TripRef) -> String? {
        guard let r = try? LogReader(path: t.files[0].path) else { return nil }
        var a: String?
        try? r.forEach { e in
            if case .tripStart(let act, _, _) = e.record { a = act }
            return false
        }
        return a
    }
}

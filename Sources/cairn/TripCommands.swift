import CairnCore
import CairnSystem
import CairnLog
import CairnExport

/// Shared by list, info and convert: find the trips under the given paths, reporting files that
/// cannot be read (named) without losing the rest.
///
/// A file whose header was never completed (empty or all zeros, what a power cut while the
/// recorder created it leaves) is said once on stderr and is not a failure; two files claiming
/// the same trip and part are both read, each as a trip, and said so once.
struct TripSelection {
    var trips: [TripRef]
    /// Every trip in the paths, also those `--trip` left out.
    var all: [TripRef]
    var problems = 0

    /// `naming` is how a missing trip id is named: `--trip 99` for convert, `trip 99` for info.
    init(paths: [String], trip: String?, naming: String = "--trip") throws {
        var problems = 0
        for p in paths where !pathExists(p) { throw Failure("\(p): no such file or directory") }
        let files = TripCatalog.files(
            paths,
            problem: { msg in
                printErr("cairn: \(msg)")
                problems += 1
            }, unfinished: { printErr("cairn: \($0)") })
        var trips = TripCatalog.trips(files)
        all = trips
        if let t = trip {
            guard let id = UInt64(t) else { throw UsageError("The value '\(t)' is invalid for '--trip <id>': use a trip id from 'cairn list'") }
            trips = trips.filter { $0.id == id }
            if trips.isEmpty { throw Failure("\(naming) \(t): no such trip in \(paths.joined(separator: " "))") }
        }
        for t in trips { if let n = t.note { printErr("cairn: \(n)") } }
        self.trips = trips
        self.problems = problems
    }
}

/// A trip without a single point (a file that holds only its header and start records) is not
/// a trip to list or export: said once on stderr, not a failure.
func hasPoints(_ s: TripSummary) -> Bool {
    if s.records > 0 { return true }
    printErr("cairn: trip \(s.id) (\(s.files.joined(separator: ", "))): no points (an empty or unfinished trip); skipped")
    return false
}

func formatDistance(_ m: Double) -> String {
    m >= 1000 ? (TextFormat.fixed(m / 1000, 2) ?? "?") + " km" : (TextFormat.fixed(m, 0) ?? "?") + " m"
}

func formatDuration(ms: Int64) -> String { TextFormat.clock(ms: ms) }

/// The JSON object `list --json` prints for one trip (keys are part of the CLI contract).
func tripJSON(
    _ s: TripSummary, indent: String, fuel: FuelRate? = nil, published: Bool = false, sensors: SensorFigures? = nil, laps: InfoLaps? = nil
) -> String {
    let drops = s.drops.nonzero.map { c -> String in
        let name = DropReason(rawValue: c.rule)?.name ?? "rule_\(c.rule)"
        return "\(TextFormat.jsonString(name)): \(c.count)"
    }
    // The trip's figures are named once, in TripFigures (the exports carry the same keys).
    // Built in steps: one expression of it is too much for Swift 6.0's type checker.
    var fields: [(String, String)] = [
        ("id", String(s.id)),
        ("file", TextFormat.jsonString(s.files.first ?? "")),
        ("files", "[" + s.files.map(TextFormat.jsonString).joined(separator: ", ") + "]")
    ]
    fields += TripFigures.json(s).filter { $0.0 != "trip" }
    fields += [
        ("dropped", "{" + drops.joined(separator: ", ") + "}"),
        ("damaged_bytes", String(s.damagedBytes)),
        ("damaged_records", String(s.damagedRecords)),
        ("torn_tail_bytes", String(s.tornTailBytes))
    ]
    fields += fuelJSON(s, fuel)
    if let f = sensors { fields += sensorJSON(f) }
    if let l = laps { fields.append(("laps", l.json(published: published))) }
    if published { fields.append(("figures", TextFormat.jsonString(publishedFigures))) }
    return indent + "{\n" + fields.map { "\(indent)  \(TextFormat.jsonString($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n\(indent)}"
}

/// The sensors' figures (`info` of a trip with sensors): the FIT session's, null where none.
func sensorJSON(_ f: SensorFigures) -> [(String, String)] {
    func n(_ v: Int?) -> String { v.map(String.init) ?? "null" }
    return [
        ("heart_rate_avg", n(f.avgHeartRate)), ("heart_rate_max", n(f.maxHeartRate)), ("cadence_avg", n(f.avgCadence)),
        ("cadence_max", n(f.maxCadence)), ("power_avg_w", n(f.avgPowerW)), ("power_max_w", n(f.maxPowerW))
    ]
}

/// `fuel_l` and `fuel_cost` when the config sets a fuel rate (`--config`): numbers for a drive,
/// null for other activities; `fuel_cost` only with a price.
func fuelJSON(_ s: TripSummary, _ fuel: FuelRate?) -> [(String, String)] {
    guard let f = fuel else { return [] }
    let drive = FuelRate.applies(to: s.activity)
    func num(_ v: Double?) -> String { v.flatMap { TextFormat.trimmed($0, 2) } ?? "null" }
    var out = [("fuel_l", drive ? num(f.litres(distanceM: s.stats.distanceM)) : "null")]
    if f.pricePerLitre != nil { out.append(("fuel_cost", drive ? num(f.cost(distanceM: s.stats.distanceM)) : "null")) }
    return out
}

/// What `list` and `info` say of a trip's figures with privacy zones: they are the exported
/// part's (`published`), never the whole trip's. The whole trip's distance and times less the
/// exported part's are the hidden stretches' length and duration; drawn along the streets from
/// the first and last exported points they put home within 18-20 m (issue 38).
let publishedFigures = "exported part only (privacy zones)"

/// The trip's summary as its exports count it: with zones, the figures of the points an export
/// writes (`ExportStages.summary`, as GeoJSON's and FIT's: up to the rider's end press too), the
/// rest (files, drops, damage) the log's.
func published(_ t: TripRef, _ s: TripSummary, zones: PrivacyZones) throws -> TripSummary {
    guard !zones.isEmpty else { return s }
    var p = try ExportStages.summary(t, window: zones.window(for: t), endPressMs: s.endPressMs)
    p.files = s.files
    return p
}

/// The zones `list` and `info` count the figures with: `--config` (default: the recorder's
/// /etc/cairn.conf when it exists) and `--privacy-zone`, the key beside the logs (the same
/// beside every path given).
func listZones(_ a: ParsedArguments, paths: [String]) throws -> PrivacyZones {
    try ExportStageOptions.zones(a, logDirectory: nil, inputs: paths.isEmpty ? ["."] : paths)
}

enum ListCommand: Command {
    static let name = "list"
    static let overview = "List the trips in log files or directories of them (a card copied to a laptop)."
    static let usage =
        "cairn list [<path> ...] [--json] [--config <file|none>] [--privacy-zone <lat,lon,radius_m>]... [--privacy-key <file>]"
    static let arguments = [("<path>", "Log files or directories. (default: ., or the recorder's /var/lib/cairn when . holds no logs)")]
    static let options =
        [
            OptionSpec(name: "--json", valueName: nil, help: "Print a JSON array, one object per trip."),
            OptionSpec(
                name: "--config", valueName: "FILE",
                help:
                    "The record config file: its privacy-zone lines (the figures are then the exported part's), and a drive's fuel and its cost from its fuel_l_per_100km and fuel_price. none: no file. (default: \(ExportStageOptions.defaultConfig) when it exists, for the zones)"
            )
        ] + ExportStageOptions.zoneOptions.filter { $0.name != "--config" }

    static func run(_ a: ParsedArguments) throws -> Int32 {
        let paths = a.positionals.isEmpty ? [defaultLogDirectory()] : a.positionals
        let fuel = try FuelSettings.load(a)
        let sel = try TripSelection(paths: paths, trip: nil)
        // With zones the figures are those of the exported part (the whole trip's less them
        // would give the hidden stretches away).
        let zones = try listZones(a, paths: paths)
        var summaries: [TripSummary] = []
        var problems = sel.problems
        for t in sel.trips {
            do {
                let s = try TripCatalog.read(t)
                if hasPoints(s) { summaries.append(try published(t, s, zones: zones)) }
            } catch {
                printErr("cairn: \(error)")
                problems += 1
            }
        }
        if a.has("--json") {
            let objects = summaries.map { tripJSON($0, indent: "  ", fuel: fuel, published: !zones.isEmpty) }
            printOut("[" + (summaries.isEmpty ? "" : "\n" + objects.joined(separator: ",\n") + "\n") + "]")
        } else if summaries.isEmpty {
            printOut("no trips")
        } else {
            if !zones.isEmpty { printOut("figures of the exported part only: privacy zones leave the rest out") }
            printOut(pad("ID", 6) + pad("START", 25) + pad("DISTANCE", 11) + pad("MOVING", 9) + pad("POINTS", 8) + pad("STATUS", 10) + "BOARD")
            for s in summaries {
                printOut(
                    pad(String(s.id), 6) + pad(s.stats.firstTimeMs.map { TextFormat.isoTime(ms: $0) } ?? "-", 25)
                        + pad(formatDistance(s.stats.distanceM), 11) + pad(formatDuration(ms: s.stats.movingTimeMs), 9)
                        + pad(String(s.stats.points), 8) + pad(s.status.name, 10) + (s.board ?? "-"))
            }
        }
        return try checkedStdout(problems > 0 ? ExitCode.failure : ExitCode.ok)
    }

    static func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count) }
}

enum InfoCommand: Command {
    static let name = "info"
    static let overview = "Show a trip's figures: distance, times, climb, speeds, and why fixes were dropped."
    static let usage =
        "cairn info <trip-id | path> [--dir <dir>] [--why] [--json] [--config <file|none>] [--privacy-zone <lat,lon,radius_m>]... [--privacy-key <file>]"
    static let arguments = [("<trip-id | path>", "A trip id (looked up in --dir), or a log file or directory.")]
    static let options =
        [
            OptionSpec(
                name: "--dir", valueName: "DIR",
                help: "Where to look up a trip id. (default: ., or the recorder's /var/lib/cairn when . holds no logs)"),
            OptionSpec(name: "--json", valueName: nil, help: "Print JSON (the same keys as 'list --json')."),
            OptionSpec(
                name: "--config", valueName: "FILE",
                help:
                    "The record config file: its privacy-zone lines, and a drive's fuel and its cost from its fuel_l_per_100km and fuel_price. none: no file. (default: \(ExportStageOptions.defaultConfig) when it exists, for the zones)"
            ),
            OptionSpec(
                name: "--why", valueName: nil,
                help:
                    "Print the decisions that shaped the trip, in time order: when it started and why not earlier, every gap, pause and reset, every run of dropped fixes with its rule (needs a log recorded with 'record --raw on', the default)."
            )
        ] + ExportStageOptions.zoneOptions.filter { $0.name != "--config" }

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard let target = a.positionals.first else { throw UsageError("Missing expected argument '<trip-id | path>'") }
        if a.positionals.count > 1 { throw UsageError("Unexpected argument '\(a.positionals[1])'") }
        let fuel = try FuelSettings.load(a)
        let sel: TripSelection
        if pathExists(target) {
            sel = try TripSelection(paths: [target], trip: nil)
        } else if UInt64(target) != nil {
            sel = try TripSelection(paths: [a.value("--dir") ?? defaultLogDirectory()], trip: target, naming: "trip")
        } else {
            throw Failure("\(target): no such file, directory or trip id")
        }
        var out: [TripSummary] = []
        var sensors: [SensorFigures?] = []
        var laps: [InfoLaps?] = []
        var problems = sel.problems
        // Privacy zones (--privacy-zone, the config's lines): the figures are the exported part's
        // (the whole trip's less them would give the hidden stretches away); the key lies with
        // the trip's logs.
        let zones = try ExportStageOptions.zones(
            a,
            logDirectory: pathExists(target)
                ? (POSIX.isDirectory(target) ? target : POSIX.parent(of: target)) : (a.value("--dir") ?? defaultLogDirectory()))
        if a.has("--why") { return try TripWhy.run(sel, json: a.has("--json"), zones: zones) }
        for t in sel.trips {
            do {
                let s = try TripCatalog.read(t)
                // A trip asked for by id is shown even without points; a directory's empty ones are not.
                if UInt64(target) != nil && !pathExists(target) || hasPoints(s) {
                    out.append(try published(t, s, zones: zones))
                    sensors.append(try SensorTrack.figures(t, window: zones.isEmpty ? nil : zones.window(for: t)))
                    laps.append(try InfoLaps.read(t, zones: zones, summary: s))
                }
            } catch {
                printErr("cairn: \(error)")
                problems += 1
            }
        }
        if a.has("--json") {
            printOut(
                out.count == 1
                    ? tripJSON(out[0], indent: "", fuel: fuel, published: !zones.isEmpty, sensors: sensors[0], laps: laps[0] ?? .whole)
                    : "[\n"
                        + out.indices.map {
                            tripJSON(
                                out[$0], indent: "  ", fuel: fuel, published: !zones.isEmpty, sensors: sensors[$0], laps: laps[$0] ?? .whole)
                        }
                        .joined(separator: ",\n") + "\n]")
        } else {
            if out.isEmpty { printOut("no trips") }
            for i in out.indices {
                printOut(describe(out[i], fuel: fuel, published: !zones.isEmpty, sensors: sensors[i], laps: laps[i]))
            }
        }
        return try checkedStdout(problems > 0 ? ExitCode.failure : ExitCode.ok)
    }

    /// The laps the exports write by default (`InfoLaps`): the rider's laps and where each
    /// starts (the first ten), or the pause laps when no press makes one, the presses without a
    /// usable time, and a long press's end: where every export ends, and the points after it.
    /// With privacy zones (`published`) no time: a lap's start could place the rider at a zone.
    static func lapsLine(_ l: InfoLaps, published: Bool = false) -> String {
        let starts = l.made.startsMs
        var notes: [String] = []
        if starts.isEmpty {
            if l.made.pauseLaps > 1 { notes.append("pauses") }
        } else if published {
            notes.append("the rider's button; no times with privacy zones")
        } else {
            let shown = starts.prefix(10).map { String(TextFormat.isoTime(ms: $0).dropFirst(11)) }
            let more = starts.count > 10 ? " and \(starts.count - 10) more" : ""
            notes.append("the rider's button: a lap from " + shown.joined(separator: ", ") + more)
        }
        if l.untimed > 0 {
            notes.append("\(l.untimed) press\(l.untimed == 1 ? "" : "es") at no usable time (the clock was not set): no lap")
        }
        if l.endedByButton && l.made.endBeforeStart {
            // attack-r21 U5: the press lies before the first point (a clock behind the fixes):
            // placed nowhere, as the exports do, so nothing is cut.
            notes.append("ended by the button, but its press is before the trip's first point: placed nowhere, every export keeps the whole trip")
        } else if l.endedByButton && l.endUntimed {
            notes.append("ended by the button, but its press has no usable time: placed nowhere, every export keeps the whole trip")
        } else if l.endedByButton {
            // Where every export ends (no time with zones: it could place the rider).
            var ended = "ended by the button"
            if let end = l.made.endMs, !published { ended += " at " + TextFormat.isoTime(ms: end).dropFirst(11) }
            // (Indoor records and outdoor points apart: a trainer's trip that went outdoors has both.)
            var left: [String] = []
            if l.made.recordsAfterEnd > 0 { left.append("\(l.made.recordsAfterEnd) record\(l.made.recordsAfterEnd == 1 ? "" : "s")") }
            if l.made.afterEnd > 0 {
                let what = l.made.onWheel ? "record" : "point"
                left.append("\(l.made.afterEnd) \(what)\(l.made.afterEnd == 1 ? "" : "s")")
            }
            if !left.isEmpty { ended += ": " + left.joined(separator: " and ") + " after it left out of the exports" }
            notes.append(ended)
        }
        return "\(l.made.count) (" + notes.joined(separator: "; ") + ")"
    }

    static func describe(
        _ s: TripSummary, fuel: FuelRate? = nil, published: Bool = false, sensors: SensorFigures? = nil, laps: InfoLaps? = nil
    ) -> String {
        let st = s.stats
        let avg = st.movingTimeMs > 0 ? st.distanceM / (Double(st.movingTimeMs) / 1000) : nil
        func kmh(_ v: Double?) -> String { v.flatMap { TextFormat.fixed($0 * 3.6, 1) }.map { $0 + " km/h" } ?? "-" }
        func m(_ v: Double?) -> String { v.flatMap { TextFormat.fixed($0, 0) }.map { $0 + " m" } ?? "-" }
        var lines = [
            "Trip \(s.id) (\(s.activity.map(terminalSafe) ?? "unknown activity")), \(s.status.name)",
            "  files:      \(s.files.joined(separator: ", "))",
            "  board:      " + (s.board ?? "- (not recorded; convert and export take --board)"),
            "  start:      \(st.firstTimeMs.map { TextFormat.isoTime(ms: $0) } ?? "-")",
            "  end:        \(st.lastTimeMs.map { TextFormat.isoTime(ms: $0) } ?? "-")",
            "  UTC offset: "
                + (s.utcOffsetS.map { UTCOffset.format($0) + " (recorded)" } ?? "- (not recorded; convert --utc-offset sets FIT's local time)"),
            "  distance:   \(formatDistance(st.distanceM))"
                + (s.hasNoPositions
                    ? " from the wheel (no positions: a trainer)"
                    : s.wheelGaps > 0
                        // The wheel may measure less than the line (down to 0.8 of it): said as less.
                        ? " (\(formatDistance(abs(s.wheelDistanceM))) \(s.wheelDistanceM < 0 ? "less" : "more") than the straight lines over \(s.wheelGaps) gap\(s.wheelGaps == 1 ? "" : "s"), from the wheel)"
                        : "")
                + (s.wheelLeadM > 0
                    ? " (\(formatDistance(s.wheelLeadM)) of it on the wheel before the first fix, from "
                        + (s.wheelLeadFromMs.map { String(TextFormat.isoTime(ms: $0).dropFirst(11)) } ?? "-") + ")"
                    : ""),
            "  moving:     \(formatDuration(ms: st.movingTimeMs)) of \(formatDuration(ms: st.elapsedMs)) elapsed",
            "  speed:      avg \(kmh(avg)) moving, max \(kmh(st.maxSpeedMps))",
            "  climb:      " + (st.ascentM == nil ? "- (no trusted height)" : "+\(m(st.ascentM)) / -\(m(st.descentM))"),
            s.hasNoPositions
                ? "  points:     0 (\(s.wheelSamples) records of the wheel in \(s.wheelSegments) segment\(s.wheelSegments == 1 ? "" : "s"))"
                : "  points:     \(st.points) in \(st.segments) segment\(st.segments == 1 ? "" : "s")"
        ]
        // The wheel after the last fix (back on the trainer, the trip still open: attack-r23
        // case 1): in the figures, FIT's and CSV's records; the track formats end at the fix.
        if s.wheelTrailM > 0, let to = s.wheelTrailToMs {
            lines.append(
                "  after:      \(formatDistance(s.wheelTrailM)) and \(formatDuration(ms: s.wheelTrailMovingMs)) on the wheel after the last fix, to "
                    + TextFormat.isoTime(ms: to).dropFirst(11)
                    + " (\(s.wheelTrailSamples) records): in these figures and in FIT and CSV, without positions; GPX, GeoJSON and KML end at the last fix"
            )
        }
        if let f = fuel, FuelRate.applies(to: s.activity) {
            let l = TextFormat.fixed(f.litres(distanceM: st.distanceM), 2) ?? "?"
            var line = "  fuel:       \(l) l at \(TextFormat.trimmed(f.litresPer100Km, 2) ?? "?") l/100 km"
            if let c = f.cost(distanceM: st.distanceM), let p = f.pricePerLitre {
                line += ", cost \(TextFormat.fixed(c, 2) ?? "?") (\(TextFormat.trimmed(p, 3) ?? "?") a litre)"
            }
            lines.append(line)
        }
        if let f = sensors {
            func pair(_ avg: Int?, _ max: Int?, _ unit: String) -> String {
                avg == nil && max == nil ? "-" : "avg \(avg.map(String.init) ?? "-") \(unit), max \(max.map(String.init) ?? "-") \(unit)"
            }
            lines.append("  heart rate: " + pair(f.avgHeartRate, f.maxHeartRate, "bpm"))
            lines.append("  cadence:    " + pair(f.avgCadence, f.maxCadence, "rpm"))
            lines.append("  power:      " + pair(f.avgPowerW, f.maxPowerW, "W"))
            for note in f.notes { lines.append("  sensors:    " + terminalSafe(note)) }
        }
        if let l = laps { lines.append("  laps:       " + lapsLine(l, published: published)) }
        if published { lines.append("  figures:    \(publishedFigures): what every export of it writes") }
        let drops = s.drops.nonzero
        if drops.isEmpty {
            lines.append("  dropped:    none")
        } else {
            lines.append(
                "  dropped:    " + drops.map { "\(DropReason(rawValue: $0.rule)?.name ?? "rule \($0.rule)") \($0.count)" }.joined(separator: ", "))
        }
        if s.damagedBytes > 0 || s.tornTailBytes > 0 || s.damagedRecords > 0 {
            var d = "  damage:     \(s.damagedBytes) damaged bytes skipped, torn tail \(s.tornTailBytes) bytes"
            if s.damagedRecords > 0 { d += ", \(s.damagedRecords) damaged record(s) skipped" }
            lines.append(d + " (see 'cairn verify')")
        }
        return lines.joined(separator: "\n")
    }
}

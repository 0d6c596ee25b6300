import CairnCore
import CairnLog
import CairnExport

enum ConvertCommand: Command {
    static let name = "convert"
    static let overview = "Convert trips to GPX 1.1: one <trk> per trip, one <trkseg> per segment, streamed."
    static let usage = "cairn convert <path> ... --to gpx [-o <file|->] [--trip <id>] [--force]"
    static let arguments = [("<path>", "Log files or directories of them.")]
    static let options = [
        OptionSpec(name: "--to", valueName: "FORMAT", help: "Output format: gpx."),
        OptionSpec(name: "--output", valueName: "FILE", help: "Output file, or - for standard output. (default: -)", short: "-o"),
        OptionSpec(name: "--trip", valueName: "ID", help: "Only this trip (see 'cairn list'). (default: all trips)"),
        OptionSpec(name: "--force", valueName: nil, help: "Replace an existing output file."),
    ]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty else { throw UsageError("Missing expected argument '<path>'") }
        guard let format = a.value("--to") else { throw UsageError("Missing expected option '--to <format>'") }
        guard format == "gpx" else {
            throw UsageError("The value '\(format)' is invalid for '--to <format>': this version writes gpx")
        }
        let sel = try TripSelection(paths: a.positionals, trip: a.value("--trip"))
        let outPath = a.value("--output") ?? "-"
        let sink: OutputSink
        do {
            sink = outPath == "-" ? OutputSink() : try OutputSink(creating: outPath, force: a.has("--force"))
        } catch {
            throw Failure("\(error)")
        }
        let writer: TrackExporter = GPXWriter(sink: sink, creator: "cairn \(cairnVersion)")
        var problems = sel.problems
        writer.begin()
        for t in sel.trips {
            // The heading needs the activity, which the trip's first record names: read it first.
            writer.beginTrip(TripHeading(id: t.id, activity: activity(of: t)))
            do {
                let s = try TripCatalog.read(t) { event in
                    switch event {
                    case .segment: writer.beginSegment()
                    case .point(let f): writer.point(f)
                    }
                }
                if s.status == "recovered" {
                    printErr("cairn: trip \(t.id): recovered from a damaged or interrupted log; converted what is intact (\(s.stats.points) points)")
                }
            } catch {
                printErr("cairn: trip \(t.id): \(error)")
                problems += 1
            }
            writer.endTrip()
        }
        if let err = writer.end() { throw Failure(err) }
        if outPath != "-" { printErr("cairn: wrote \(sel.trips.count) trip\(sel.trips.count == 1 ? "" : "s") to \(outPath)") }
        return problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    static func activity(of t: TripRef) -> String? {
        guard let r = try? LogReader(path: t.files[0].path) else { return nil }
        var a: String?
        try? r.forEach { e in
            if case .tripStart(let act, _) = e.record { a = act }
            return false
        }
        return a
    }
}

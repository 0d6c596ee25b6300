import CairnExport

enum RenderCommand: Command {
    static let name = "render"
    static let overview = """
        Draw one trip as an SVG picture: the track coloured by speed, the height profile below it,
        stops, pauses, start and finish, a summary line, and optionally the explored cells behind.
        No map tiles and no network: everything comes from the log.
        """
    static let usage =
        "cairn render <trip-id | path> -o <file.svg|-> [--dir <dir>] [--trip <id>] [--speed-bands <auto|kmh,...>] [--cells] [--precision <5|6|7>] [--privacy-zone <lat,lon,radius_m>]... [--config <file|none>] [--privacy-key <file>] [--force]"
    static let arguments = [
        ("<trip-id | path>", "A trip id (looked up in --dir), or a log file or directory holding one trip (or choose it with --trip).")
    ]
    static let options =
        [
            OptionSpec(
                name: "--output", valueName: "PATH", help: "The SVG file (written under a temporary name, then renamed), or - for standard output.",
                short: "-o"),
            OptionSpec(name: "--dir", valueName: "DIR", help: "Where to look up a trip id. (default: .)"),
            OptionSpec(name: "--trip", valueName: "ID", help: "The trip to draw when the path holds several."),
            OptionSpec(
                name: "--speed-bands", valueName: "BANDS",
                help:
                    "'auto' (km/h: ride 10,20,30; run 8,10,12; walk 3,5,6; drive 50,90,110 in green, yellow, orange, red) or your limits: 12,24,36. (default: auto)"
            ),
            OptionSpec(
                name: "--cells", valueName: nil,
                help: "Draw the explored cells of the trip's directory behind the track (see 'cairn cells'; updates its index)."),
            OptionSpec(name: "--precision", valueName: "N", help: "--cells: cell size 5, 6 or 7. (default: 7)"),
            OptionSpec(name: "--force", valueName: nil, help: "Replace an existing output file.")
        ] + ExportStageOptions.zoneOptions

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard let target = a.positionals.first else { throw UsageError("Missing expected argument '<trip-id | path>'") }
        if a.positionals.count > 1 { throw UsageError("Unexpected argument '\(a.positionals[1])'") }
        guard let outPath = a.value("--output") else { throw UsageError("Missing expected option '-o, --output <path>'") }
        if outPath.isEmpty { throw UsageError("The value '' is invalid for '-o, --output <path>': give a file or -") }
        var custom: SpeedBands?
        if let b = a.value("--speed-bands"), b != "auto" {
            do { custom = try SpeedBands.parse(b) } catch { throw UsageError(error.description) }
        }
        let precisionText = a.value("--precision") ?? "7"
        guard let precision = StrictNumber.whole(precisionText), Geohash.precisions.contains(precision) else {
            throw UsageError("The value '\(precisionText)' is invalid for '--precision <n>': use 5, 6 or 7")
        }
        if a.value("--precision") != nil && !a.has("--cells") { throw UsageError("'--precision' applies with '--cells'") }

        let sel: TripSelection
        let byId = !pathExists(target) && UInt64(target) != nil
        if byId {
            if a.value("--trip") != nil { throw UsageError("Give a trip id or '--trip', not both") }
            sel = try TripSelection(paths: [a.value("--dir") ?? "."], trip: target, naming: "trip")
        } else if pathExists(target) {
            sel = try TripSelection(paths: [target], trip: a.value("--trip"))
        } else {
            throw Failure("\(target): no such file, directory or trip id")
        }
        guard let trip = sel.trips.first else { throw Failure("\(target): no trips") }
        if sel.trips.count > 1 {
            throw Failure(
                "\(target): holds \(sel.trips.count) trips (ids \(sel.trips.prefix(8).map { String($0.id) }.joined(separator: ", "))\(sel.trips.count > 8 ? ", ..." : "")): choose one with --trip, or give its log file"
            )
        }

        // The board's key lies with the trip's logs (or in --dir, where an id is looked up).
        let zones = try ExportStageOptions.zones(
            a, logDirectory: byId ? (a.value("--dir") ?? ".") : trip.files[0].directory)
        var options = TrackPicture.Options.defaults(activity: TripConversion.recordedActivity(of: trip))
        if let b = custom { options = TrackPicture.Options(bands: b, colours: (0..<b.count).map { b.cssColour($0) }) }
        if !zones.isEmpty { options.privacy = zones.window(for: trip) }
        if a.has("--cells") {
            let dirs = Array(Set(trip.files.map(\.directory)))
            let report = ExploredCells.collect(
                paths: dirs, precision: precision, prefix: nil, hide: zones,
                problem: { printErr("cairn: \($0)") }, note: { printErr("cairn: \($0)") })
            options.cells = CellsCommand.outsideZones(report.cells, precision: precision, zones: zones)
            options.cellPrecision = precision
        }
        ignoreFileSizeLimitSignal()
        let out: OutputSink
        do { out = outPath == "-" ? OutputSink() : try OutputSink(atomically: outPath, force: a.has("--force")) } catch { throw Failure("\(error)") }
        let summary: TripSummary
        do {
            summary = try TrackPicture.render(trip, options: options, to: out)
        } catch {
            out.discard()
            throw Failure("\(error)")
        }
        do throws(OutputError) { try out.finish() } catch { throw Failure("\(error)") }
        if outPath != "-" { printErr("cairn: drew trip \(summary.id) (\(summary.stats.points) points) to \(outPath), \(out.bytesWritten) bytes") }
        return sel.problems > 0 ? ExitCode.failure : ExitCode.ok
    }
}

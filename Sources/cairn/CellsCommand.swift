import CairnSystem
import CairnExport

enum CellsCommand: Command {
    static let name = "cells"
    static let overview = """
        The geohash cells your trips touched (where you have been): each with its number of trips
        and first and last visit. A log directory keeps an index beside the logs (.cairn-cells),
        so later runs read only new or changed log files; the logs themselves are never written.
        """
    static let usage =
        "cairn cells [<path> ...] [--precision <5|6|7>] [--prefix <geohash>] [--to <text|geojson>] [-o <file|->] [--privacy-zone <lat,lon,radius_m>]... [--config <file|none>] [--privacy-key <file>] [--force]"
    static let arguments = [("<path>", "Log directories or files. (default: .)")]
    static let options =
        [
            OptionSpec(name: "--precision", valueName: "N", help: "Cell size: 5 (~4.9 km), 6 (~1.2 × 0.6 km) or 7 (~150 m). (default: 7)"),
            OptionSpec(name: "--prefix", valueName: "GEOHASH", help: "Only cells inside this geohash (e.g. u0qj), at most --precision characters."),
            OptionSpec(
                name: "--to", valueName: "FORMAT", help: "text (one line a cell) or geojson (a FeatureCollection of cell polygons). (default: text)"),
            OptionSpec(
                name: "--output", valueName: "PATH",
                help: "A file (written under a temporary name, then renamed), or - for standard output. (default: -)", short: "-o"),
            OptionSpec(name: "--force", valueName: nil, help: "Replace an existing output file.")
        ] + ExportStageOptions.zoneOptions

    static func run(_ a: ParsedArguments) throws -> Int32 {
        let paths = a.positionals.isEmpty ? ["."] : a.positionals
        let precisionText = a.value("--precision") ?? "7"
        guard let precision = StrictNumber.whole(precisionText), Geohash.precisions.contains(precision) else {
            throw UsageError("The value '\(precisionText)' is invalid for '--precision <n>': use 5, 6 or 7")
        }
        var prefix: String?
        if let p = a.value("--prefix") {
            let lower = p.lowercased()
            guard !p.isEmpty, lower.utf8.allSatisfy({ Geohash.alphabet.contains($0) }) else {
                throw UsageError(
                    "The value '\(p)' is invalid for '--prefix <geohash>': a geohash has only the characters 0-9 and b-z without a, i, l, o")
            }
            guard lower.utf8.count <= precision else {
                throw UsageError(
                    "The value '\(p)' is invalid for '--prefix <geohash>': \(lower.utf8.count) characters, longer than --precision \(precision)")
            }
            prefix = lower
        }
        let format = a.value("--to") ?? "text"
        guard format == "text" || format == "geojson" else {
            throw UsageError("The value '\(format)' is invalid for '--to <format>': use text or geojson")
        }
        let outPath = a.value("--output") ?? "-"
        if outPath.isEmpty { throw UsageError("The value '' is invalid for '-o, --output <path>': give a file or -") }
        for p in paths where !pathExists(p) { throw Failure("\(p): no such file or directory") }
        // The board's key: in the first log directory given (a file's directory), the same in
        // every other that holds one.
        let zones = try ExportStageOptions.zones(a, logDirectory: nil, inputs: paths)
        ignoreFileSizeLimitSignal()
        let out: OutputSink
        do { out = outPath == "-" ? OutputSink() : try OutputSink(atomically: outPath, force: a.has("--force")) } catch { throw Failure("\(error)") }

        var report = ExploredCells.collect(
            paths: paths, precision: precision, prefix: prefix, hide: zones,
            problem: { printErr("cairn: \($0)") }, note: { printErr("cairn: \($0)") })
        let before = report.cells.count
        report.cells = outsideZones(report.cells, precision: precision, zones: zones)
        if before > report.cells.count {
            printErr("cairn: privacy zones: left out \(before - report.cells.count) cell\(before - report.cells.count == 1 ? "" : "s") near a zone")
        } else if !zones.isEmpty {
            // The walk itself left out each trip's cut (the disc and the path beyond it), so no
            // cell it listed touches a disc: said all the same.
            let n = zones.zones.count
            printErr("cairn: privacy zones: left out each trip's stretches near \(n == 1 ? "the zone" : "\(n) zones") before counting cells")
        }
        if format == "geojson" {
            CellsWriter.geoJSON(report.cells, precision: precision, to: out)
        } else {
            CellsWriter.text(report.cells, precision: precision, to: out)
        }
        do throws(OutputError) { try out.finish() } catch { throw Failure("\(error)") }
        if outPath != "-" { printErr("cairn: wrote \(report.cells.count) cells to \(outPath)") }
        return report.problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    /// The cells that touch no zone's widest cut (the largest circle any trip is cut by). The
    /// walk itself left the zones out (`ExploredCells.collect(hide:)`, an index of its own per
    /// zone set); this also drops the cells a walk only grazed at the cut's edge.
    static func outsideZones(_ cells: [ExploredCell], precision: Int, zones: PrivacyZones) -> [ExploredCell] {
        guard !zones.isEmpty else { return cells }
        return cells.filter { c in
            let b = Geohash.bounds(c.cell, precision: precision)
            return !zones.hidesCell(south: b.south, west: b.west, north: b.north, east: b.east)
        }
    }
}

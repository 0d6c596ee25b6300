import CairnCore

/// The formats a trip is exported to: each names itself, its file extension, and makes its
/// writer. `cairn convert --to` and `cairn export --format` both go through this table, so a
/// format is added here once.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// Whether the format holds a trip without positions (a trainer, issue 40): FIT's indoor
    /// records and CSV's rows do; GPX, GeoJSON and KML are tracks of positions.
    public var holdsNoPositions: Bool { self == .fit || self == .csv }

    case gpx, fit, geojson, kml, csv

    /// The name options take and messages use.
    public var name: String { rawValue }

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }

    /// The format with this name; nil for anything else.
    public static func named(_ name: String) -> ExportFormat? { ExportFormat(rawValue: name) }

    /// Every name, in the order the help lists them.
    public static var names: [String] { allCases.map(\.name) }

    /// The name a trip's file takes: `PREFIXYYYYMMDD-HHMMSS-BOARD-tripID.EXT` (its start in
    /// UTC; `BOARD-` only when the board is known, a `BoardId`, so safe in a name);
    /// `PREFIXBOARD-tripID.EXT` without a start or for a year outside 1000-9999 (the reader never
    /// hands one over: see `PointBounds`). FIT into a directory and every file of `export` are
    /// named so.
    public func fileName(tripId: UInt64, startMs: Int64?, suffix: String = "", prefix: String = "", board: String? = nil) -> String {
        // An id that is not one never reaches a name (the reader and the options refuse it).
        let boardPart = board.flatMap(BoardId.init).map { $0.text + "-" } ?? ""
        let plain = "\(prefix)\(boardPart)trip\(tripId)\(suffix).\(fileExtension)"
        guard let ms = startMs else { return plain }
        let iso = TextFormat.isoTime(ms: ms)  // 2025-06-01T08:00:00Z
        guard iso.utf8.count == 20 || iso.utf8.count == 24, let first = iso.first, first != "0", first != "-" else { return plain }
        let digits = iso.prefix(19).filter { $0 != "-" && $0 != ":" }  // 20250601T080000
        return prefix + digits.replacingOccurrences("T", "-") + "-\(boardPart)trip\(tripId)\(suffix).\(fileExtension)"
    }

    /// FIT writes one file per trip (its header is completed after the data); the others stream
    /// a document of every trip into one sink.
    public var writesFilePerTrip: Bool { self == .fit }

    /// Where the writer puts its bytes: a sink for the streamed formats, files for FIT.
    public enum Output {
        case sink(OutputSink)
        /// `atomic`: each file under a temporary name, renamed when complete (`FITWriter.init`).
        case fitFiles(FITWriter.Target, force: Bool, atomic: Bool)
    }

    /// What a writer is told beyond its output.
    public struct Settings {
        /// cairn's version, for the creator (GPX, KML) and FIT's software_version.
        public var version: String
        /// GPX's creator says "with barometer" (when every trip's climb is the barometer's).
        public var barometer = false
        /// GeoJSON, KML: colour by speed.
        public var colouring: GeoJSONWriter.Colouring = .none
        /// The lap rule that numbered the points; `.none` leaves the lap columns out.
        public var laps: LapRule = .none
        /// CSV: the origin column (`--smooth`, `--fill-gaps`).
        public var origins = false
        /// CSV: the verdict column (`--raw`).
        public var verdicts = false
        /// FIT: the rider's zone for local times instead of the recorded one.
        public var utcOffsetS: Int?
        /// FIT into a directory: put in front of each file name it makes (`--name-prefix`).
        public var namePrefix = ""
        /// GPX: the board every trip of the document was recorded on, for its `<metadata>`
        /// (nil: unknown, or trips of several boards; each `<trk>` names its own).
        public var board: String?
        /// CSV: the sensor columns or not for the whole document (several trips: any trip's
        /// sensors); nil: the first trip's.
        public var sensorColumns: Bool?

        public init(version: String) { self.version = version }
    }

    /// The writer for this format. `output` must be `.fitFiles` for FIT and `.sink` otherwise.
    public func makeWriter(_ output: Output, _ s: Settings) -> TrackExporter {
        switch (self, output) {
        case (.fit, .fitFiles(let target, let force, let atomic)):
            return FITWriter(
                target: target, force: force, softwareVersion: s.version, atomic: atomic, utcOffsetS: s.utcOffsetS, laps: s.laps,
                namePrefix: s.namePrefix)
        case (.gpx, .sink(let out)):
            return GPXWriter(sink: out, creator: GPXWriter.creator(version: s.version, barometer: s.barometer), board: s.board)
        case (.geojson, .sink(let out)):
            return GeoJSONWriter(sink: out, colouring: s.colouring, laps: s.laps != .none)
        case (.kml, .sink(let out)):
            return KMLWriter(sink: out, creator: "cairn \(s.version)", colouring: s.colouring)
        case (.csv, .sink(let out)):
            return CSVWriter(
                sink: out, laps: s.laps != .none, origins: s.origins, verdicts: s.verdicts, sensorColumns: s.sensorColumns)
        default:
            preconditionFailure("\(name): FIT writes files, the other formats a sink")
        }
    }
}

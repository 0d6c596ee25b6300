import CairnCore

/// GPX 1.1 (Topografix), streamed: one `<trk>` per trip, one `<trkseg>` per segment, `<ele>` only
/// where the height is trusted (see `Accuracy.heightIsTrusted`), `<time>` on every point.
/// Child order follows the XSD sequence: `ele, time, ..., fix, extensions`.
///
/// The air temperature goes into Garmin's TrackPointExtension v1 (`atemp`: what Strava and
/// gpsbabel read), with the sensor named in its `Extensions` (`cairn:sensor`, "barometer": the
/// sensor sits on the board, so sun and the board warm it). Naming it also keeps GDAL, which reads
/// a nested extension as one field whose type it guesses from the text inside, from taking the
/// extension for a number and warning at every point. Speed (m/s), course (degrees true),
/// pressure (hPa) and vertical speed (m/s) go into cairn's own namespace as flat elements, which
/// GDAL reads as numeric fields; so does the point's lap (`cairn:lap`, from 1 within each trip)
/// with `convert --laps`. The GPX schema checks extensions laxly, so they validate, and
/// readers that don't know them skip them.
///
/// Points that `convert --smooth` moved say `<src>cairn smoothed</src>`; points that
/// `--fill-gaps` made up say `<src>cairn interpolated</src>` and carry
/// `<cairn:interpolated>1</cairn:interpolated>`.
///
/// The board a trip was recorded on (`BoardId`) is each `<trk>`'s `<extensions><cairn:board>`,
/// and the document's `<metadata><extensions><cairn:board>` when every trip in it is that
/// board's (one trip per file from `export`).
public final class GPXWriter: TrackExporter {
    /// cairn's namespace for the values no common GPX extension carries.
    public static let cairnNamespace = "urn:x-cairn:gpx:1"
    public static let tpxNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    /// Garmin's PowerExtension v1 (`gpxpx:PowerInWatts`), declared on each element that uses it:
    /// the document's head is written before any trip says whether it has sensors. (Strava's own
    /// export writes an unqualified `<power>`, which the GPX 1.1 schema refuses in `extensions`.)
    public static let powerNamespace = "http://www.garmin.com/xmlschemas/PowerExtension/v1"

    private let out: OutputSink
    private let creator: String
    private let board: BoardId?
    private var inTrip = false
    private var inSegment = false
    private var segmentRequested = false

    /// The `creator` attribute: "cairn VERSION", with " with barometer" when the climb of every
    /// trip in the file came from the barometer. Strava keeps a GPX file's elevations only when
    /// the creator names a barometric device this way; otherwise it puts its map's in their place.
    public static func creator(version: String, barometer: Bool) -> String {
        "cairn \(version)" + (barometer ? " with barometer" : "")
    }

    public init(sink: OutputSink, creator: String, board: String? = nil) {
        out = sink
        self.creator = creator
        self.board = board.flatMap(BoardId.init)
    }

    public func begin() {
        out.put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.write(
            "<gpx version=\"1.1\" creator=\"\(TextFormat.xmlEscaped(creator))\" "
                + "xmlns=\"http://www.topografix.com/GPX/1/1\" "
                + "xmlns:gpxtpx=\"\(Self.tpxNamespace)\" "
                + "xmlns:cairn=\"\(Self.cairnNamespace)\" "
                + "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                + "xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n")
        // A BoardId needs no escaping: letters, digits, '.', '_' and '-'.
        if let b = board {
            out.write("  <metadata>\n    <extensions>\n      <cairn:board>\(b.text)</cairn:board>\n    </extensions>\n  </metadata>\n")
        }
    }

    public func beginTrip(_ heading: TripHeading) {
        endTrip()
        out.write("  <trk>\n    <name>Trip \(heading.id)</name>\n")
        if let a = heading.activity, !a.isEmpty { out.write("    <type>\(TextFormat.xmlEscaped(a))</type>\n") }
        if let b = heading.board.flatMap(BoardId.init) {
            out.write("    <extensions>\n      <cairn:board>\(b.text)</cairn:board>\n    </extensions>\n")
        }
        inTrip = true
        segmentRequested = true
    }

    /// Segments open lazily at their first point, so no empty `<trkseg>` is written.
    public func beginSegment(_ reason: SegmentReason) {
        segmentRequested = true
    }

    public func point(_ fix: Fix, _ extras: PointExtras) {
        guard PointValues.isWritable(fix) else { return }
        guard inTrip else { return }
        if segmentRequested || !inSegment {
            if inSegment { out.put("    </trkseg>\n") }
            out.put("    <trkseg>\n")
            inSegment = true
            segmentRequested = false
        }
        // GPX longitudes are in [-180, 180) as written: what rounds to 180 is written as -180.
        let lon = TextFormat.longitude(fix.lon, decimals: 7)
        out.put("      <trkpt lat=\"")
        if !out.decimal(TextFormat.latitude(fix.lat), 7) { out.byte(UInt8(ascii: "0")) }
        out.put("\" lon=\"")
        if !out.decimal(lon, 7) { out.byte(UInt8(ascii: "0")) }
        out.put("\">")
        if let h = PointValues.height(fix), h.isFinite {
            out.put("<ele>")
            out.decimal(h, 2)
            out.put("</ele>")
        }
        out.put("<time>")
        out.isoTime(ms: fix.timeMs)
        out.put("</time>")
        // GPX's own word for where a point comes from (its sequence puts `src` before `fix`).
        switch extras.origin {
        case .measured: break
        case .smoothed: out.put("<src>cairn smoothed</src>")
        case .interpolated: out.put("<src>cairn interpolated</src>")
        }
        if fix.mode >= 3 { out.put("<fix>3d</fix>") } else { out.put("<fix>2d</fix>") }

        let temp = PointValues.finite(extras.temperatureC)
        let speed = PointValues.finite(fix.speed)
        let course = PointValues.finite(fix.track)
        let pressure = PointValues.finite(extras.pressurePa)
        let climb = PointValues.climb(fix)
        let interpolated = extras.origin == .interpolated
        let heartRate = extras.heartRate.map { min(max($0, 0), 255) }
        let cadence = extras.cadence.map { min(max($0, 0), 255) }
        if temp != nil || speed != nil || course != nil || pressure != nil || climb != nil || extras.lap != nil || interpolated
            || extras.verdict != nil || heartRate != nil || cadence != nil || extras.powerW != nil
        {
            out.put("<extensions>")
            if temp != nil || heartRate != nil || cadence != nil {
                // TrackPointExtension v1's sequence: atemp, wtemp, depth, hr, cad, Extensions.
                out.put("<gpxtpx:TrackPointExtension>")
                if let t = temp {
                    out.put("<gpxtpx:atemp>")
                    out.decimal(t, 1)
                    out.put("</gpxtpx:atemp>")
                }
                if let h = heartRate { out.put("<gpxtpx:hr>"); out.int(Int64(h)); out.put("</gpxtpx:hr>") }
                if let c = cadence { out.put("<gpxtpx:cad>"); out.int(Int64(c)); out.put("</gpxtpx:cad>") }
                // Which sensor measured it; also what keeps GDAL, which types the element by its
                // text, from reading the whole extension as a number (and warning on each point).
                if temp != nil {
                    out.put("<gpxtpx:Extensions><cairn:sensor>barometer</cairn:sensor></gpxtpx:Extensions>")
                } else {
                    out.put("<gpxtpx:Extensions><cairn:sensor>bluetooth</cairn:sensor></gpxtpx:Extensions>")
                }
                out.put("</gpxtpx:TrackPointExtension>")
            }
            if let p = extras.powerW {
                out.put("<gpxpx:PowerInWatts xmlns:gpxpx=\"http://www.garmin.com/xmlschemas/PowerExtension/v1\">")
                out.int(Int64(max(p, 0)))
                out.put("</gpxpx:PowerInWatts>")
            }
            if let s = speed { out.put("<cairn:speed>"); out.decimal(s, 3); out.put("</cairn:speed>") }
            if let c = course { out.put("<cairn:course>"); out.decimal(c, 2); out.put("</cairn:course>") }
            if let p = pressure { out.put("<cairn:pressure>"); out.decimal(p / 100, 2); out.put("</cairn:pressure>") }
            if let c = climb { out.put("<cairn:climb>"); out.decimal(c, 3); out.put("</cairn:climb>") }
            if let l = extras.lap { out.put("<cairn:lap>"); out.int(Int64(l)); out.put("</cairn:lap>") }
            if interpolated { out.put("<cairn:interpolated>1</cairn:interpolated>") }
            if let v = extras.verdict { out.put("<cairn:verdict>"); out.write(v.name); out.put("</cairn:verdict>") }
            out.put("</extensions>")
        }
        out.put("</trkpt>\n")
    }

    public func endTrip() {
        guard inTrip else { return }
        if inSegment { out.put("    </trkseg>\n") }
        out.put("  </trk>\n")
        inTrip = false
        inSegment = false
        return
    }

    public func end() throws(OutputError) {
        endTrip()
        out.put("</gpx>\n")
        try out.finish()
    }
}

import CairnCore

/// GPX 1.1 (Topografix), streamed: one `<trk>` per trip, one `<trkseg>` per segment, `<ele>` only
/// where the height is trusted (see `Accuracy.heightIsTrusted`), `<time>` on every point.
/// Child order follows the XSD sequence: `ele, time, ..., fix`.
public final class GPXWriter: TrackExporter {
    private let out: OutputSink
    private let creator: String
    private var inTrip = false
    private var inSegment = false
    private var segmentRequested = false

    public init(sink: OutputSink, creator: String) {
        out = sink
        self.creator = creator
    }

    public func begin() {
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.write("<gpx version=\"1.1\" creator=\"\(TextFormat.xmlEscaped(creator))\" "
            + "xmlns=\"http://www.topografix.com/GPX/1/1\" "
            + "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
            + "xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n")
    }

    public func beginTrip(_ heading: TripHeading) {
        endTrip()
        out.write("  <trk>\n    <name>Trip \(heading.id)</name>\n")
        if let a = heading.activity, !a.isEmpty { out.write("    <type>\(TextFormat.xmlEscaped(a))</type>\n") }
        inTrip = true
        segmentRequested = true
    }

    /// Segments open lazily at their first point, so no empty `<trkseg>` is written.
    public func beginSegment() {
        segmentRequested = true
    }

    public func point(_ fix: Fix) {
        guard inTrip else { return }
        if segmentRequested || !inSegment {
            if inSegment { out.write("    </trkseg>\n") }
            out.write("    <trkseg>\n")
            inSegment = true
            segmentRequested = false
        }
        // GPX longitudes are in [-180, 180): 180 is written as -180.
        let lon = fix.lon >= 180 ? fix.lon - 360 : fix.lon
        var s = "      <trkpt lat=\"" + (TextFormat.trimmed(fix.lat, 7) ?? "0") + "\" lon=\"" + (TextFormat.trimmed(lon, 7) ?? "0") + "\">"
        if Accuracy.heightIsTrusted(fix), let h = fix.height, let e = TextFormat.trimmed(h, 2) {
            s += "<ele>" + e + "</ele>"
        }
        s += "<time>" + TextFormat.isoTime(ms: fix.timeMs) + "</time>"
        s += fix.mode >= 3 ? "<fix>3d</fix>" : "<fix>2d</fix>"
        s += "</trkpt>\n"
        out.write(s)
    }

    public func endTrip() {
        guard inTrip else { return }
        if inSegment { out.write("    </trkseg>\n") }
        out.write("  </trk>\n")
        inTrip = false
        inSegment = false
    }

    public func end() -> String? {
        endTrip()
        out.write("</gpx>\n")
        return out.finish()
    }
}

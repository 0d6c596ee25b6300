import CairnCore

/// KML 2.2 with Google's `gx` extension, streamed; valid against the OGC schema plus gx.
///
/// The ride is written once, as timed `gx:Track`s (gpsbabel reads every LineString and every
/// gx:Track as a track, so writing both would count each point twice):
/// - plain: one Placemark per trip holding a `gx:MultiTrack`, one `gx:Track` per segment;
/// - speed-coloured (`bands`): one Folder per trip, one Placemark per run of points in one speed
///   band, each a `gx:Track` in its band's colour; neighbouring runs share their boundary point.
/// The trip's figures go into the description and `ExtendedData`. Heights, as in GeoJSON: every
/// `gx:coord` is "lon lat alt" when every point of the trip has a trusted height, else all are
/// "lon lat" (GDAL gives a coordinate without a height z = 0 in a track with heights) and the
/// trusted heights go into the track's `gx:SimpleArrayData name="height"` (empty where none).
/// A `gx:Track` holds all its `<when>`s before all its `<gx:coord>`s, so the coordinates wait
/// in a spool (a temporary file past 64 KiB), the heights in another.
public final class KMLWriter: TrackExporter {
    private let out: OutputSink
    private let creator: String
    private let colouring: GeoJSONWriter.Colouring
    private let coords = Spool()
    private let heights = Spool()
    /// Every point of the trip has a trusted height: 3-D coordinates.
    private var threeD = false
    /// Some have: their heights in the per-point array.
    private var heightsListed = false
    private var trips = 0

    private var heading = TripHeading(id: 0, activity: nil)
    private var inTrip = false
    private var altitudeMode = "clampToGround"
    private var segmentRequested = false
    private var trackOpen = false
    private var multiTrackOpen = false
    private var segments = 0
    private var runner: BandRunner?

    public init(sink: OutputSink, creator: String, colouring: GeoJSONWriter.Colouring = .none) {
        out = sink
        self.creator = creator
        self.colouring = colouring
    }

    public var wantsSummaryFirst: Bool { true }

    public func begin() {
        out.put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.put("<kml xmlns=\"http://www.opengis.net/kml/2.2\" xmlns:gx=\"http://www.google.com/kml/ext/2.2\">\n<Document>\n")
        out.write("<name>\(TextFormat.xmlEscaped(creator))</name>\n")
        out.put("<Style id=\"track\"><LineStyle><color>ff1c19d7</color><width>4</width></LineStyle></Style>\n")
        out.put(
            "<Schema id=\"cairn-point\"><gx:SimpleArrayField name=\"height\" type=\"float\"><displayName>height (m)</displayName></gx:SimpleArrayField></Schema>\n"
        )
    }

    private func figures(_ s: TripSummary?) {
        if let s {
            out.write("<description>\(TextFormat.xmlEscaped(TripFigures.line(s)))</description>\n")
        }
    }

    private func extendedData(_ fields: [(String, String)]) {
        out.put("<ExtendedData>")
        for (k, v) in fields {
            out.write("<Data name=\"\(k)\"><value>\(TextFormat.xmlEscaped(v))</value></Data>")
        }
        out.put("</ExtendedData>\n")
    }

    public func beginTrip(_ heading: TripHeading) {
        endTrip()
        self.heading = heading
        trips += 1
        inTrip = true
        segments = 0
        segmentRequested = true
        let st = heading.summary?.stats
        threeD = st.map { $0.points > 0 && $0.pointsWithHeight == $0.points } ?? false
        heightsListed = !threeD && (st?.pointsWithHeight ?? 1) > 0
        // Heights are absolute (above sea level) when the coordinates carry them.
        altitudeMode = threeD ? "absolute" : "clampToGround"
        let name = "<name>Trip \(heading.id)\(heading.activity.map { " (" + TextFormat.xmlEscaped($0) + ")" } ?? "")</name>\n"
        switch colouring {
        case .none: runner = nil
        case .auto: runner = BandRunner(bands: SpeedBands.defaults(activity: heading.activity ?? heading.summary?.activity))
        case .bands(let b): runner = BandRunner(bands: b)
        }
        if let r = runner {
            out.write("<Folder>\n" + name)
            figures(heading.summary)
            for b in 0..<r.bands.count {
                out.write("<Style id=\"t\(trips)-b\(b)\"><LineStyle><color>\(r.bands.kmlColour(b))</color><width>4</width></LineStyle></Style>\n")
            }
            if var s = heading.summary {
                s.board = heading.board  // the log's, else the one given for logs without
                extendedData(TripFigures.plain(s))
            }
        } else {
            out.write("<Placemark>\n" + name)
            figures(heading.summary)
            out.put("<styleUrl>#track</styleUrl>\n")
            if var s = heading.summary {
                s.board = heading.board  // the log's, else the one given for logs without
                extendedData(TripFigures.plain(s))
            }
            if heading.summary?.stats.points != 0 {
                out.put("<gx:MultiTrack><gx:interpolate>0</gx:interpolate>\n")
                multiTrackOpen = true
            }
        }
    }

    public func beginSegment(_ reason: SegmentReason) {
        guard inTrip else { return }
        if runner != nil { endRuns() }
        segmentRequested = true
    }

    public func point(_ fix: Fix, _ extras: PointExtras) {
        guard PointValues.isWritable(fix) else { return }
        guard inTrip else { return }
        if segmentRequested {
            segments += 1
            segmentRequested = false
            if runner == nil {
                closeTrack()
                if !multiTrackOpen {
                    out.put("<gx:MultiTrack><gx:interpolate>0</gx:interpolate>\n")
                    multiTrackOpen = true
                }
                openTrack()
            }
        }
        guard var r = runner else {
            position(fix)
            return
        }
        let step = r.add(fix)
        runner = r
        switch step {
        case .hold:
            break
        case .extend:
            position(fix)
        case .open(let band, let from, let closedKmh):
            if closedKmh != nil { closeRun() }
            openRun(band)
            position(from)
            position(fix)
        }
    }

    private func endRuns() {
        guard var r = runner else { return }
        if r.runIsOpen {
            closeRun()
            _ = r.endSegment()
        } else if let lone = r.endSegment() {
            openRun(lone.band)
            position(lone.fix)
            closeRun()
        }
        runner = r
    }

    private func openRun(_ band: Int) {
        guard let r = runner else { return }
        out.write("<Placemark><name>Trip \(heading.id): \(TextFormat.xmlEscaped(r.bands.label(band)))</name>")
        out.write("<styleUrl>#t\(trips)-b\(band)</styleUrl>")
        extendedData([("segment", String(segments)), ("speed_band", String(band)), ("speed_band_label", r.bands.label(band))])
        openTrack()
    }

    private func closeRun() {
        closeTrack()
        out.put("</Placemark>\n")
    }

    private func openTrack() {
        out.write("<gx:Track><altitudeMode>\(altitudeMode)</altitudeMode>\n")
        trackOpen = true
    }

    private func closeTrack() {
        guard trackOpen else { return }
        coords.drain(into: out)
        if heightsListed {
            out.put("<ExtendedData><SchemaData schemaUrl=\"#cairn-point\"><gx:SimpleArrayData name=\"height\">")
            heights.drain(into: out)
            out.put("</gx:SimpleArrayData></SchemaData></ExtendedData>\n")
        }
        out.put("</gx:Track>\n")
        trackOpen = false
    }

    private func position(_ fix: Fix) {
        out.put("<when>")
        out.isoTime(ms: fix.timeMs)
        out.put("</when>\n")
        let c = coords.out
        c.put("<gx:coord>")
        c.decimal(TextFormat.longitude(fix.lon, decimals: 7), 7)
        c.byte(UInt8(ascii: " "))
        c.decimal(TextFormat.latitude(fix.lat), 7)
        let h = PointValues.height(fix)
        if threeD, let h {
            c.byte(UInt8(ascii: " "))
            c.decimal(h, 2)
        }
        c.put("</gx:coord>\n")
        if heightsListed {
            let o = heights.out
            if let h { o.put("<gx:value>"); o.decimal(h, 2); o.put("</gx:value>") } else { o.put("<gx:value/>") }
        }
    }

    public func endTrip() {
        guard inTrip else { return }
        inTrip = false
        if runner != nil {
            endRuns()
            out.put("</Folder>\n")
            return
        }
        closeTrack()
        if multiTrackOpen { out.put("</gx:MultiTrack>\n") }
        multiTrackOpen = false
        out.put("</Placemark>\n")
        return
    }

    public func end() throws(OutputError) {
        endTrip()
        out.put("</Document>\n</kml>\n")
        try out.finish()
        if let e = coords.error ?? heights.error { throw e }
    }
}

import CairnCore

/// GeoJSON (RFC 7946), streamed: a FeatureCollection, positions `[lon, lat(, ele)]` with 6
/// decimals (about 0.1 m), the height only where it is trusted, no `crs` member, lines split at
/// the antimeridian (§3.1.9).
///
/// Plain: one Feature per trip, a MultiLineString with one LineString per segment, the trip's
/// figures (the keys of `cairn list --json`) in `properties`, and per-point times (ISO 8601) and
/// speeds (m/s, null where the receiver sent none) in `properties.coordinateProperties`, nested
/// like the coordinates (the togeojson convention).
///
/// Speed-coloured (`bands`): per trip, a Feature without geometry holding the figures, then one
/// LineString Feature per run of points in one speed band, neighbouring runs sharing their
/// boundary point, styled with simplestyle-spec 1.1.0 (`stroke`, `stroke-width`,
/// `stroke-opacity`, `title`) plus `speed_band`, `speed_band_label`, `speed_kmh_avg`.
///
/// A LineString needs two positions: a segment of one point is written as that point twice.
/// Properties follow the geometry, so the times and speeds wait in spools (temporary files past
/// 64 KiB), never in memory.
public final class GeoJSONWriter: TrackExporter {
    public enum Colouring {
        case none
        /// Bands for the trip's activity (`SpeedBands.defaults`).
        case auto
        case bands(SpeedBands)
    }

    private let out: OutputSink
    private let colouring: Colouring
    private let times = Spool()
    private let speeds = Spool()
    private var features = 0

    // The trip.
    private var heading = TripHeading(id: 0, activity: nil)
    private var inTrip = false
    private var geometryOpen = false
    private var segments = 0
    private var segmentRequested = false
    // The open line (a LineString of the MultiLineString, or a run's LineString).
    private var lineOpen = false
    private var linesInGeometry = 0
    private var lineFirst: (Fix, Double?)?
    private var linePoints = 0
    private var lastWritten: Fix?
    // Speed colouring.
    private var runner: BandRunner?
    private var runBand = 0

    public init(sink: OutputSink, colouring: Colouring = .none) {
        out = sink
        self.colouring = colouring
    }

    public var wantsSummaryFirst: Bool { true }

    public func begin() {
        out.put("{\"type\":\"FeatureCollection\",\"features\":[\n")
    }

    private func startFeature() {
        if features > 0 { out.put(",\n") }
        features += 1
    }

    private func properties(_ s: TripSummary?, title: String? = nil, extra: [(String, String)] = []) {
        var fields = s.map(TripFigures.json) ?? [("trip", String(heading.id)), ("activity", heading.activity.map(TextFormat.jsonString) ?? "null")]
        fields.append(("title", TextFormat.jsonString(title ?? "Trip \(heading.id)")))
        fields += extra
        out.put("\"properties\":{")
        var first = true
        for (k, v) in fields {
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.write(TextFormat.jsonString(k))
            out.byte(UInt8(ascii: ":"))
            out.write(v)
        }
    }

    public func beginTrip(_ heading: TripHeading) {
        endTrip()
        self.heading = heading
        inTrip = true
        segments = 0
        segmentRequested = true
        linesInGeometry = 0
        switch colouring {
        case .none:
            runner = nil
            startFeature()
            out.put("{\"type\":\"Feature\",\"geometry\":")
            if let s = heading.summary, s.stats.points == 0 {
                out.put("null,")
                properties(s)
                out.put("}}")
                inTrip = false
            } else {
                out.put("{\"type\":\"MultiLineString\",\"coordinates\":[")
                geometryOpen = true
            }
        case .auto:
            runner = BandRunner(bands: SpeedBands.defaults(activity: heading.activity ?? heading.summary?.activity))
        case .bands(let b):
            runner = BandRunner(bands: b)
        }
        if runner != nil {
            // The trip's figures, once, in a feature of their own.
            startFeature()
            out.put("{\"type\":\"Feature\",\"geometry\":null,")
            properties(heading.summary)
            out.put("}}")
        }
    }

    public func beginSegment(_ reason: SegmentReason) {
        guard inTrip else { return }
        if runner != nil { endRuns() } else { segmentRequested = true }
    }

    public func point(_ fix: Fix, _ extras: PointExtras) {
        guard PointValues.isWritable(fix) else { return }
        guard inTrip else { return }
        if segmentRequested && runner == nil {
            closeLine()
            openLine()
            segments += 1
            segmentRequested = false
        } else if segmentRequested {
            segments += 1
            segmentRequested = false
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
            if let k = closedKmh { closeRun(kmh: k) }
            openRun(band)
            position(from)
            position(fix)
        }
    }

    /// Ends the segment's runs in colour mode (a lone point becomes a run of itself twice).
    private func endRuns() {
        guard var r = runner else { return }
        if r.runIsOpen {
            closeRun()
            _ = r.endSegment()
        } else if let lone = r.endSegment() {
            openRun(lone.band)
            position(lone.fix)
            runner = r
            closeRun(kmh: lone.kmh)
        }
        runner = r
        segmentRequested = true
    }

    private func openRun(_ band: Int) {
        startFeature()
        runBand = band
        out.put("{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":")
        linesInGeometry = 0
        openLine()
    }

    private func closeRun(kmh: Double? = nil) {
        guard let r = runner else { return }
        closeLine()
        out.put("},")
        let bands = r.bands
        let label = bands.label(runBand)
        properties(nil, title: "Trip \(heading.id): \(label)", extra: [
            ("segment", String(segments)),
            ("speed_band", String(runBand)),
            ("speed_band_label", TextFormat.jsonString(label)),
            ("speed_kmh_avg", TextFormat.trimmed(kmh ?? r.runAverageKmh, 1) ?? "null"),
            ("stroke", TextFormat.jsonString(bands.cssColour(runBand))),
            ("stroke-width", "4"),
            ("stroke-opacity", "1"),
        ])
        out.put(",\"coordinateProperties\":{\"times\":")
        times.drain(into: out)
        out.put(",\"speeds\":")
        speeds.drain(into: out)
        out.put("}}}")
    }

    private func openLine() {
        if linesInGeometry > 0 {
            out.byte(UInt8(ascii: ","))
            times.out.byte(UInt8(ascii: ","))
            speeds.out.byte(UInt8(ascii: ","))
        }
        linesInGeometry += 1
        out.byte(UInt8(ascii: "["))
        times.out.byte(UInt8(ascii: "["))
        speeds.out.byte(UInt8(ascii: "["))
        lineOpen = true
        linePoints = 0
        lineFirst = nil
        lastWritten = nil
    }

    private func closeLine() {
        guard lineOpen else { return }
        if linePoints == 1, let (f, _) = lineFirst { position(f, checkCrossing: false) }
        out.byte(UInt8(ascii: "]"))
        times.out.byte(UInt8(ascii: "]"))
        speeds.out.byte(UInt8(ascii: "]"))
        lineOpen = false
    }

    /// Writes one position (and its time and speed), splitting the line where it crosses the
    /// antimeridian.
    private func position(_ fix: Fix, checkCrossing: Bool = true) {
        if checkCrossing, let a = lastWritten, let x = Self.crossing(a, fix) {
            raw(lon: x.edge, lat: x.lat, ele: nil, timeMs: x.timeMs, speed: nil)
            if runner != nil {
                closeRun()
                openRun(runBand)
            } else {
                closeLine()
                openLine()
            }
            raw(lon: -x.edge, lat: x.lat, ele: nil, timeMs: x.timeMs, speed: nil)
            linePoints = 2  // never duplicated: the line has its two positions
        }
        raw(lon: fix.lon, lat: fix.lat, ele: PointValues.height(fix), timeMs: fix.timeMs, speed: PointValues.finite(fix.speed))
        if lineFirst == nil { lineFirst = (fix, nil) }
        lastWritten = fix
    }

    private func raw(lon: Double, lat: Double, ele: Double?, timeMs: Int64, speed: Double?) {
        if linePoints > 0 {
            out.byte(UInt8(ascii: ","))
            times.out.byte(UInt8(ascii: ","))
            speeds.out.byte(UInt8(ascii: ","))
        }
        linePoints += 1
        out.byte(UInt8(ascii: "["))
        out.decimal(lon, 6)
        out.byte(UInt8(ascii: ","))
        out.decimal(lat, 6)
        if let e = ele, e.isFinite {
            out.byte(UInt8(ascii: ","))
            out.decimal(e, 2)
        }
        out.byte(UInt8(ascii: "]"))
        let t = times.out
        t.byte(UInt8(ascii: "\""))
        t.isoTime(ms: timeMs)
        t.byte(UInt8(ascii: "\""))
        if let s = speed { speeds.out.decimal(s, 3) } else { speeds.out.put("null") }
    }

    /// Where the straight step from `a` to `b` crosses ±180°, if it does (a step of more than
    /// 180° of longitude is taken to go the short way, across the antimeridian).
    static func crossing(_ a: Fix, _ b: Fix) -> (edge: Double, lat: Double, timeMs: Int64)? {
        let d = b.lon - a.lon
        guard abs(d) > 180 else { return nil }
        let unwrapped = d > 0 ? b.lon - 360 : b.lon + 360
        let edge: Double = a.lon >= 0 ? 180 : -180
        let span = unwrapped - a.lon
        let f = span == 0 ? 0 : min(max((edge - a.lon) / span, 0), 1)
        let lat = a.lat + f * (b.lat - a.lat)
        // In doubles: no pair of times can overflow (the result lies between the two).
        let t = a.timeMs &+ Int64((f * (Double(b.timeMs) - Double(a.timeMs))).rounded().clamped(-9.0e18, 9.0e18))
        return (edge, lat, t)
    }

    @discardableResult
    public func endTrip() -> String? {
        guard inTrip else { return nil }
        inTrip = false
        if runner != nil {
            endRuns()
            return nil
        }
        closeLine()
        out.put("]},")
        geometryOpen = false
        properties(heading.summary)
        out.put(",\"coordinateProperties\":{\"times\":[")
        times.drain(into: out)
        out.put("],\"speeds\":[")
        speeds.drain(into: out)
        out.put("]}}}")
        return nil
    }

    public func end() -> String? {
        endTrip()
        out.put("\n]}\n")
        let e = out.finish()
        return e ?? times.error ?? speeds.error
    }
}

import CairnCore

/// GeoJSON (RFC 7946), streamed: a FeatureCollection, positions with 6 decimals (about 0.1 m),
/// no `crs` member, lines split at the antimeridian (§3.1.9).
///
/// Heights: a trip's positions are `[lon, lat, ele]` when every one of its points has a trusted
/// height, else all `[lon, lat]`, with the heights in `coordinateProperties.heights` (null where
/// none is trusted). Never both in one geometry: GDAL (so QGIS) takes a geometry with one 3-D
/// position as 3-D and gives every 2-D position a height of 0.
///
/// Plain: one Feature per trip, a MultiLineString with one LineString per segment, the trip's
/// figures (the keys of `cairn list --json`) in `properties`, and per-point times (ISO 8601),
/// speeds (m/s, null where the receiver sent none) and temperatures (°C, null where none was
/// measured) in `properties.coordinateProperties`, nested like the coordinates (the togeojson
/// convention). A segment of one point is no line: it follows its trip's Feature as a Point
/// Feature of its own (`trip`, `segment`, `time`, `speed`, `height`, `temperature`, and `lap`
/// with laps); a trip whose
/// segments all have one point is a Point (one) or MultiPoint Feature.
///
/// Speed-coloured (`bands`): per trip, a Feature without geometry holding the figures, then one
/// LineString Feature per run of points in one speed band, neighbouring runs sharing their
/// boundary point, styled with simplestyle-spec 1.1.0 (`stroke`, `stroke-width`,
/// `stroke-opacity`, `title`) plus `speed_band`, `speed_band_label`, `speed_kmh_avg`.
///
/// With laps (`convert --laps`), each position's lap (from 1 within each trip) is in
/// `coordinateProperties.laps`; a position added where a line crosses the antimeridian has the
/// lap of the point it leads to.
/// With `convert --fill-gaps`, `coordinateProperties.interpolated` says for each position whether
/// the filler made it up (true) or it was recorded (false); the figures then also name
/// `filled_gaps` and `interpolated_points` (and `smoothed` with `--smooth`).
///
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
    private let heights = Spool()
    private let temperatures = Spool()
    private let laps = Spool()
    /// `coordinateProperties.laps` is written (the points carry `PointExtras.lap`).
    private let lapsListed: Bool
    private let interpolated = Spool()
    /// The sensors' values (`PointExtras`): heart rate (bpm), cadence (rpm), power (W).
    private let heartRates = Spool()
    private let cadences = Spool()
    private let powers = Spool()
    /// `coordinateProperties.heartRates`, `cadences` and `powers` are written (the trip's log
    /// holds sensor values).
    private var sensorsListed = false
    /// Point Features of the trip's one-point segments, written after the trip's Feature.
    private let lonePoints = Spool()
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
    private var linePoints = 0
    /// A line's first point waits here until a second one makes it a line.
    private var pendingFirst: (Fix, PointExtras)?
    /// Positions `[lon, lat, ele]` (every point of the trip has a trusted height).
    private var threeD = false
    /// Heights go into `coordinateProperties.heights` (2-D positions, some heights trusted).
    private var heightsListed = false
    /// `coordinateProperties.interpolated` is written (the trip's points went through the gap filler).
    private var originsListed = false
    /// The trip's geometry: 0 lines (MultiLineString), 1 a Point, 2 a MultiPoint.
    private var pointGeometry = 0
    private var lastWritten: Fix?
    // Speed colouring.
    private var lastExtras: (timeMs: Int64, extras: PointExtras) = (Int64.min, .none)
    private var runner: BandRunner?
    private var runBand = 0

    public init(sink: OutputSink, colouring: Colouring = .none, laps: Bool = false) {
        out = sink
        self.colouring = colouring
        lapsListed = laps
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
        // The board as the export knows it: the log's, else the one given for logs without.
        var fields: [(String, String)]
        if var t = s {
            t.board = heading.board
            fields = TripFigures.json(t)
        } else {
            fields = [("trip", String(heading.id)), ("activity", heading.activity.map(TextFormat.jsonString) ?? "null")]
            if let b = heading.board { fields.append(("board", TextFormat.jsonString(b))) }
        }
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
        linePoints = 0
        pendingFirst = nil
        let st = heading.summary?.stats
        threeD = st.map { $0.points > 0 && $0.pointsWithHeight == $0.points } ?? false
        heightsListed = !threeD && (st?.pointsWithHeight ?? 1) > 0
        originsListed = heading.summary?.interpolatedPoints != nil
        sensorsListed = heading.hasSensors
        pointGeometry = 0
        if let st, st.points > 0, st.points == st.segments { pointGeometry = st.points == 1 ? 1 : 2 }
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
            } else if pointGeometry == 1 {
                out.put("{\"type\":\"Point\",\"coordinates\":")
                geometryOpen = true
            } else if pointGeometry == 2 {
                out.put("{\"type\":\"MultiPoint\",\"coordinates\":[")
                geometryOpen = true
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
            segments += 1
            segmentRequested = false
        } else if segmentRequested {
            segments += 1
            segmentRequested = false
        }
        guard var r = runner else {
            if pointGeometry != 0 {
                raw(fix, extras)
            } else if lineOpen {
                position(fix, extras)
            } else if let (first, e) = pendingFirst {
                // The segment's second point: now it is a line.
                pendingFirst = nil
                openLine()
                position(first, e)
                position(fix, extras)
            } else {
                pendingFirst = (fix, extras)
            }
            return
        }
        let step = r.add(fix)
        runner = r
        switch step {
        case .hold:
            break
        case .extend:
            position(fix, extras)
        case .open(let band, let from, let closedKmh):
            if let k = closedKmh { closeRun(kmh: k) }
            openRun(band)
            // The boundary point's extras are not kept by the runner: its own values, not invented ones.
            position(from, from.timeMs == lastExtras.timeMs ? lastExtras.extras : PointExtras(from))
            position(fix, extras)
        }
        lastExtras = (fix.timeMs, extras)
    }

    /// Ends the segment's runs in colour mode (a lone point becomes a Point Feature of its band).
    private func endRuns() {
        guard var r = runner else { return }
        if r.runIsOpen {
            closeRun()
            _ = r.endSegment()
        } else if let lone = r.endSegment() {
            startFeature()
            runBand = lone.band
            out.put("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":")
            linePoints = 0
            raw(lone.fix, lone.fix.timeMs == lastExtras.timeMs ? lastExtras.extras : PointExtras(lone.fix))
            runner = r
            closeRun(kmh: lone.kmh, point: true)
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

    private func closeRun(kmh: Double? = nil, point: Bool = false) {
        guard let r = runner else { return }
        if !point { closeLine() }
        out.put("},")
        let bands = r.bands
        let label = bands.label(runBand)
        properties(
            nil, title: "Trip \(heading.id): \(label)",
            extra: [
                ("segment", String(segments)),
                ("speed_band", String(runBand)),
                ("speed_band_label", TextFormat.jsonString(label)),
                ("speed_kmh_avg", Self.plausibleKmh(kmh ?? r.runAverageKmh).flatMap { TextFormat.trimmed($0, 1) } ?? "null"),
                ("stroke", TextFormat.jsonString(bands.cssColour(runBand))),
                ("stroke-width", "4"),
                ("stroke-opacity", "1")
            ])
        coordinateProperties(outer: false)
        out.put("}}")
    }

    /// `"coordinateProperties":{...}` from the spools, each wrapped in `[` `]` when `outer`.
    private func coordinateProperties(outer: Bool) {
        func list(_ name: String, _ spool: Spool, first: Bool = false) {
            out.put(first ? ",\"coordinateProperties\":{\"" : ",\"")
            out.write(name)
            out.put(outer ? "\":[" : "\":")
            spool.drain(into: out)
            if outer { out.byte(UInt8(ascii: "]")) }
        }
        list("times", times, first: true)
        list("speeds", speeds)
        if heightsListed { list("heights", heights) }
        list("temperatures", temperatures)
        if lapsListed { list("laps", laps) }
        if originsListed { list("interpolated", interpolated) }
        if sensorsListed {
            list("heartRates", heartRates)
            list("cadences", cadences)
            list("powers", powers)
        }
        out.byte(UInt8(ascii: "}"))
    }

    /// The sinks that hold one entry per position, nested like the coordinates.
    private func eachList(_ body: (OutputSink) -> Void) {
        body(out); body(times.out); body(speeds.out); body(temperatures.out)
        if heightsListed { body(heights.out) }
        if lapsListed { body(laps.out) }
        if originsListed { body(interpolated.out) }
        if sensorsListed { body(heartRates.out); body(cadences.out); body(powers.out) }
    }

    private func openLine() {
        if linesInGeometry > 0 { eachList { $0.byte(UInt8(ascii: ",")) } }
        linesInGeometry += 1
        eachList { $0.byte(UInt8(ascii: "[")) }
        lineOpen = true
        linePoints = 0
        lastWritten = nil
    }

    private func closeLine() {
        if let (f, e) = pendingFirst {
            pendingFirst = nil
            lonePoint(f, e)
        }
        guard lineOpen else { return }
        eachList { $0.byte(UInt8(ascii: "]")) }
        lineOpen = false
    }

    /// A segment of one point, as a Point Feature (spooled: it follows the trip's Feature).
    private func lonePoint(_ fix: Fix, _ extras: PointExtras) {
        let o = lonePoints.out
        o.put(",\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
        o.decimal(fix.lon, 6)
        o.byte(UInt8(ascii: ","))
        o.decimal(fix.lat, 6)
        let h = PointValues.height(fix)
        if threeD, let h { o.byte(UInt8(ascii: ",")); o.decimal(h, 2) }
        o.write("]},\"properties\":{\"trip\":\(heading.id),\"segment\":\(segments),\"title\":")
        o.write(TextFormat.jsonString("Trip \(heading.id): segment \(segments), one point"))
        o.put(",\"time\":\"")
        o.isoTime(ms: fix.timeMs)
        o.put("\",\"speed\":")
        if let v = Self.speed(fix) { o.decimal(v, 3) } else { o.put("null") }
        o.put(",\"height\":")
        if let h { o.decimal(h, 2) } else { o.put("null") }
        o.put(",\"temperature\":")
        if let t = PointValues.finite(extras.temperatureC) { o.decimal(t, 1) } else { o.put("null") }
        if lapsListed {
            o.put(",\"lap\":")
            if let l = extras.lap { o.int(Int64(l)) } else { o.put("null") }
        }
        if originsListed { o.put(extras.origin == .interpolated ? ",\"interpolated\":true" : ",\"interpolated\":false") }
        if sensorsListed {
            o.put(",\"heartRate\":")
            if let v = extras.heartRate { o.int(Int64(v)) } else { o.put("null") }
            o.put(",\"cadence\":")
            if let v = extras.cadence { o.int(Int64(v)) } else { o.put("null") }
            o.put(",\"power\":")
            if let v = extras.powerW { o.int(Int64(v)) } else { o.put("null") }
        }
        o.put("}}")
        features += 1
    }

    /// Writes one position (and its time and speed), splitting the line where it crosses the
    /// antimeridian.
    private func position(_ fix: Fix, _ extras: PointExtras) {
        if let a = lastWritten, let x = Self.crossing(a, fix) {
            // The edge's height on the straight step (both ends have one when positions are 3-D).
            var ele: Double?
            if let ha = PointValues.height(a), let hb = PointValues.height(fix), fix.timeMs != a.timeMs {
                ele = ha + (hb - ha) * (Double(x.timeMs) - Double(a.timeMs)) / (Double(fix.timeMs) - Double(a.timeMs))
            }
            raw(
                lon: x.edge, lat: x.lat, ele: ele, timeMs: x.timeMs, speed: nil, temperature: nil, lap: extras.lap, interpolated: false,
                sensors: nil)
            if runner != nil {
                closeRun()
                openRun(runBand)
            } else {
                closeLine()
                openLine()
            }
            raw(
                lon: -x.edge, lat: x.lat, ele: ele, timeMs: x.timeMs, speed: nil, temperature: nil, lap: extras.lap, interpolated: false,
                sensors: nil)
        }
        raw(fix, extras)
        lastWritten = fix
    }

    private func raw(_ fix: Fix, _ extras: PointExtras) {
        raw(
            lon: fix.lon, lat: fix.lat, ele: PointValues.height(fix), timeMs: fix.timeMs,
            speed: Self.speed(fix), temperature: PointValues.finite(extras.temperatureC), lap: extras.lap,
            interpolated: extras.origin == .interpolated, sensors: extras)
    }

    static func plausibleKmh(_ v: Double) -> Double? { abs(v) < 6_000 * 3.6 ? v : nil }

    /// The measured speed, left out when no vehicle could have it (above the speed of sound in
    /// steel): JSON readers take its digits for an integer out of range (GDAL warns and clamps).
    static func speed(_ fix: Fix) -> Double? {
        guard let v = PointValues.finite(fix.speed), abs(v) < 6_000 else { return nil }
        return v
    }

    private func raw(
        lon: Double, lat: Double, ele: Double?, timeMs: Int64, speed: Double?, temperature: Double?, lap: Int?,
        interpolated made: Bool, sensors: PointExtras?
    ) {
        if linePoints > 0 { eachList { $0.byte(UInt8(ascii: ",")) } }
        linePoints += 1
        out.byte(UInt8(ascii: "["))
        out.decimal(lon, 6)
        out.byte(UInt8(ascii: ","))
        out.decimal(lat, 6)
        if threeD {
            // Every point has a trusted height here; an edge point without one gets none.
            if let e = ele, e.isFinite {
                out.byte(UInt8(ascii: ","))
                out.decimal(e, 2)
            }
        }
        out.byte(UInt8(ascii: "]"))
        let t = times.out
        t.byte(UInt8(ascii: "\""))
        t.isoTime(ms: timeMs)
        t.byte(UInt8(ascii: "\""))
        if let s = speed { speeds.out.decimal(s, 3) } else { speeds.out.put("null") }
        if let c = temperature { temperatures.out.decimal(c, 1) } else { temperatures.out.put("null") }
        if heightsListed {
            if let e = ele, e.isFinite { heights.out.decimal(e, 2) } else { heights.out.put("null") }
        }
        if lapsListed {
            if let l = lap { laps.out.int(Int64(l)) } else { laps.out.put("null") }
        }
        if originsListed { interpolated.out.put(made ? "true" : "false") }
        if sensorsListed {
            // A position added at the antimeridian has none (nothing measured there).
            for (v, spool) in [(sensors?.heartRate, heartRates), (sensors?.cadence, cadences), (sensors?.powerW, powers)] {
                if let v { spool.out.int(Int64(v)) } else { spool.out.put("null") }
            }
        }
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

    public func endTrip() {
        guard inTrip else { return }
        inTrip = false
        if runner != nil {
            endRuns()
            return
        }
        closeLine()
        out.put(pointGeometry == 1 ? "}," : "]},")
        geometryOpen = false
        properties(heading.summary)
        coordinateProperties(outer: pointGeometry != 1)
        out.put("}}")
        lonePoints.drain(into: out)
        return
    }

    public func end() throws(OutputError) {
        endTrip()
        out.put("\n]}\n")
        try out.finish()
        // The first spool that failed, in order; a loop, not one ?? chain: Swift 6.0.3 (the
        // aarch64 build) gives up type-checking a chain this long.
        let errors: [OutputError?] = [
            times.error, speeds.error, heights.error, temperatures.error, laps.error, interpolated.error, heartRates.error,
            cadences.error, powers.error, lonePoints.error
        ]
        if let e = errors.first(where: { $0 != nil }) ?? nil { throw e }
    }
}

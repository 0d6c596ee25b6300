#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore

/// `cairn render`: an SVG picture of one trip, drawn from the log alone (no map tiles, no
/// network). The track is coloured by speed band, its height profile drawn below it, stops,
/// pauses, start and finish marked, a summary line above, and optionally the explored cells
/// behind. Two streamed passes over the log: the first for the extent, the heights' range and
/// the marks, the second draws; memory is bounded by the marks, the profile's pixel columns and
/// one simplification chunk, never by the trip's length. Lines are simplified in screen space
/// (Douglas–Peucker, half a pixel) so a 6-hour ride stays a small file.
public enum TrackPicture {
    public struct Options {
        public var bands: SpeedBands
        /// The picture's colour for each band (`#rrggbb`).
        public var colours: [String]
        /// Explored cells to draw behind the track, at `cellPrecision`.
        public var cells: [ExploredCell] = []
        public var cellPrecision = Geohash.finest
        public var width = 1000.0
        /// Privacy zones' cut for this trip: no point, mark or line inside it is drawn, and the
        /// figures count what is drawn. (The caller leaves out the cells that touch a zone.)
        public var privacy: PrivacyWindow?
        /// For the page (`PageBuilder`): drawn to be shown at about its own width on a phone
        /// (320 px), so its 11 px labels stay 11 px there: a short summary line, a map at most
        /// as tall as wide, a lower profile, the legend wrapped, no file name.
        public var compact = false

        public init(bands: SpeedBands, colours: [String]) {
            self.bands = bands
            self.colours = colours
        }

        /// The activity's bands and colours. A drive gets the car bands in traffic-light
        /// colours (green < 50, yellow 50–90, orange 90–110, red > 110 km/h); other
        /// activities the bands and colours of the coloured exports.
        public static func defaults(activity: String?) -> Options {
            let b = SpeedBands.defaults(activity: activity)
            if Activity(name: activity) == .drive { return Options(bands: b, colours: carColours) }
            return Options(bands: b, colours: (0..<b.count).map { b.cssColour($0) })
        }

        public static let carColours = ["#1a9641", "#f4d03f", "#f39c12", "#d7191c"]
    }

    /// A mark on the map: a stop (standing still inside a segment) or a pause (the recorder
    /// started a new segment after a standstill), with its length.
    struct Mark {
        var lat: Double, lon: Double
        var seconds: Int64
        var pause: Bool
    }

    /// The most marks drawn (the longest are kept).
    static let maxMarks = 200
    /// A step this long at under the moving speed is a stop.
    static let stopMs: Int64 = 60_000
    static let profileHeight = 150.0
    static let margin = 20.0
    static let maxMapHeight = 700.0
    /// Room for "finish" in bold at 13 px (a little more than it takes).
    static let labelWidth = 46.0

    /// The picture's measures for `options`: the map's greatest height, the profile's height.
    static func maxMapHeight(width: Double, compact: Bool) -> Double { compact ? width - 2 * margin : maxMapHeight }
    static func profileHeight(compact: Bool) -> Double { compact ? 90 : profileHeight }

    /// What the drawing found besides the summary: the written points' temperatures (°C, the
    /// barometer's sensor), lowest and highest, when any carried one.
    public struct Drawn: Sendable {
        public var summary: TripSummary
        public var temperatureC: (min: Double, max: Double)?
        /// The picture's size in pixels.
        public var width: Int
        public var height: Int
    }

    /// What the first pass learns.
    struct Survey {
        var minLat = Double.infinity, maxLat = -Double.infinity
        var minLon = Double.infinity, maxLon = -Double.infinity
        var distanceM = 0.0
        var gpsRange: (Double, Double)?
        var baroRange: (Double, Double)?
        var marks: [Mark] = []
        var first: Fix?, last: Fix?

        static func widen(_ r: (Double, Double)?, _ v: Double) -> (Double, Double) {
            r.map { (min($0.0, v), max($0.1, v)) } ?? (v, v)
        }

        mutating func mark(_ m: Mark) {
            marks.append(m)
            if marks.count > 2 * maxMarks {
                marks.sort { $0.seconds > $1.seconds }
                marks.removeLast(marks.count - maxMarks)
            }
        }
    }

    /// The heights the profile shows: the barometer's (weather drift taken out, as climb counts
    /// them) when the trip has pressures, else the trusted GPS heights. The same sequence on both
    /// passes.
    struct Heights {
        var altimeter = BaroAltimeter()
        mutating func next(_ f: Fix) -> (baro: Double?, gps: Double?) {
            let trusted = Accuracy.heightIsTrusted(f)
            var baro: Double?
            if let p = f.pressurePa, p.isFinite {
                baro = altimeter.climbAltitude(pressurePa: p)
                if let h = f.height { altimeter.addGPS(height: h, trusted: trusted, timeMs: f.timeMs) }
            }
            let gps = trusted ? f.height.flatMap { $0.isFinite ? $0 : nil } : nil
            return (baro, gps)
        }
    }

    /// Renders `trip` to `out`. Throws what reading the log throws; a trip without a point is an
    /// `ExportError` naming its files.
    @discardableResult
    public static func render(_ trip: TripRef, options: Options, to out: OutputSink) throws -> TripSummary {
        try draw(trip, options: options, to: out).summary
    }

    /// `render`, with what else the drawing found.
    public static func draw(_ trip: TripRef, options: Options, to out: OutputSink) throws -> Drawn {
        // Pass 1: the extent, the heights' range, the marks.
        var survey = Survey()
        var heights = Heights()
        var prev: Fix?
        var pendingPause = false
        // The rider's end press: the picture ends where every export does (`EndCut`).
        let endPressMs = try TripMarks.read(trip).endMs
        let wheel = endPressMs == nil ? nil : try WheelTrack.read(trip)
        var pass1 = PrivacyFilter(window: options.privacy, endPressMs: endPressMs, wheel: wheel)
        var shown = TripStats()
        var temperature: (Double, Double)?
        var summary = try TripCatalog.read(trip) { e in
            pass1.pass(e) { event in
                switch event {
                case .segment(let reason):
                    if reason == .pause { pendingPause = true }
                    if reason == .hidden { prev = nil }  // no stop or pause across a left-out stretch
                    shown.startSegment(reason)
                case .point(let f):
                    shown.add(f)
                    if let t = f.temperatureC, t.isFinite { temperature = temperature.map { (min($0.0, t), max($0.1, t)) } ?? (t, t) }
                    guard f.lat.isFinite, f.lon.isFinite else { return }
                    if survey.first == nil { survey.first = f }
                    let lon = unwrap(f.lon, around: survey.first!.lon)
                    survey.minLat = min(survey.minLat, f.lat); survey.maxLat = max(survey.maxLat, f.lat)
                    survey.minLon = min(survey.minLon, lon); survey.maxLon = max(survey.maxLon, lon)
                    survey.last = f
                    let h = heights.next(f)
                    if let b = h.baro { survey.baroRange = Survey.widen(survey.baroRange, b) }
                    if let g = h.gps { survey.gpsRange = Survey.widen(survey.gpsRange, g) }
                    if let p = prev {
                        let d = Geodesy.distance(p, f), dt = f.timeMs - p.timeMs
                        if pendingPause {
                            survey.mark(Mark(lat: p.lat, lon: p.lon, seconds: dt / 1000, pause: true))
                        } else if dt >= stopMs, d / (Double(dt) / 1000) < TripStats.movingSpeedMps {
                            survey.mark(Mark(lat: p.lat, lon: p.lon, seconds: dt / 1000, pause: false))
                        }
                    }
                    pendingPause = false
                    prev = f
                case .raw: break  // not asked for
                }
            }
        }
        // (Before the figures are cut: whether the trip has positions at all.)
        let noPositions = summary.hasNoPositions
        if options.privacy != nil || pass1.endCut.after > 0 { summary.stats = shown }
        // The profile's axis counts the distance as the figures do (`TripStats`: nothing across
        // a pause or a left-out stretch), so it reads the headline's kilometres.
        survey.distanceM = shown.distanceM
        guard let first = survey.first, let last = survey.last else {
            if pass1.leftOut > 0 {
                throw ExportError(
                    "trip \(trip.id) (\(trip.files.map(\.path).joined(separator: ", "))): every point is inside a privacy zone; nothing to draw")
            }
            // A trainer's ride, or one its rider ended before the first fix, is no empty trip
            // (LOG_FORMAT 7d): say what it is (attack-r23 case 2).
            let files = trip.files.map(\.path).joined(separator: ", ")
            if noPositions {
                throw ExportError("trip \(trip.id) (\(files)): no positions (a trainer's ride: the wheel's records only); nothing to draw")
            }
            if pass1.endCut.after > 0 {
                throw ExportError(
                    "trip \(trip.id) (\(files)): its \(pass1.endCut.after) points all come after the rider's end press (made before the first fix); nothing to draw"
                )
            }
            throw ExportError("trip \(trip.id) (\(files)): no points (an empty or unfinished trip); nothing to draw")
        }
        survey.marks.sort { $0.seconds > $1.seconds }
        if survey.marks.count > maxMarks { survey.marks.removeLast(survey.marks.count - maxMarks) }

        // The map: equirectangular at the middle latitude, fitted to the width.
        let width = options.width
        let inner = width - 2 * margin
        let midLat = (survey.minLat + survey.maxLat) / 2
        let cosLat = max(cos(midLat * .pi / 180), 0.01)
        let spanLon = max(survey.maxLon - survey.minLon, 0.0005), spanLat = max(survey.maxLat - survey.minLat, 0.0005)
        let scale = min(inner / (spanLon * cosLat), maxMapHeight(width: width, compact: options.compact) / spanLat)
        let mapW = spanLon * cosLat * scale, mapH = spanLat * scale
        let mapTop = 44.0
        let ox = margin + (inner - mapW) / 2
        let centreLon = (survey.minLon + survey.maxLon) / 2, centreLat = (survey.minLat + survey.maxLat) / 2
        // Longitudes as the first point's neighbours (`unwrap`): a trip across ±180° is drawn
        // the short way, as the rider went, not stretched round the world.
        func projectUnwrapped(_ lat: Double, _ lon: Double) -> Simplify.Point {
            Simplify.Point(ox + mapW / 2 + (lon - centreLon) * cosLat * scale, mapTop + mapH / 2 - (lat - centreLat) * scale)
        }
        func project(_ lat: Double, _ lon: Double) -> Simplify.Point { projectUnwrapped(lat, unwrap(lon, around: first.lon)) }
        let profileHeight = Self.profileHeight(compact: options.compact)
        let profileTop = mapTop + mapH + 36
        let legendTop = profileTop + profileHeight + 24
        let legend = legendLayout(options, width: width)
        let height = legendTop + 24 + 18 * Double(legend.rows - 1)

        out.put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.write(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fmt(width))\" height=\"\(fmt(height))\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" font-family=\"sans-serif\" font-size=\"13\">\n"
        )
        out.write("<title>\(TextFormat.xmlEscaped("cairn trip \(trip.id)"))</title>\n")
        out.put("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        out.write(
            "<text x=\"\(fmt(margin))\" y=\"26\" font-size=\"15\" fill=\"#222222\">\(TextFormat.xmlEscaped(options.compact ? shortLine(summary) : summaryLine(summary)))</text>\n"
        )

        // Explored cells behind the track.
        if !options.cells.isEmpty {
            out.put("<g fill=\"#dfe7ef\" stroke=\"#c9d4df\" stroke-width=\"0.5\">\n")
            let pad = 0.5 / scale
            // Cells are clipped to the map and a little around it: a ride along a parallel has a
            // map thinner than one cell, whose rectangles would cover the summary line and the
            // profile.
            let left = margin, right = margin + inner, top = mapTop - 8, bottom = mapTop + mapH + 8
            for c in options.cells {
                let b = Geohash.bounds(c.cell, precision: options.cellPrecision)
                let west = unwrap(b.west, around: first.lon), east = west + (b.east - b.west)
                guard b.north >= survey.minLat - pad, b.south <= survey.maxLat + pad,
                    east >= survey.minLon - pad, west <= survey.maxLon + pad
                else { continue }
                let nw = projectUnwrapped(b.north, west), se = projectUnwrapped(b.south, east)
                let x0 = max(nw.x, left), x1 = min(se.x, right), y0 = max(nw.y, top), y1 = min(se.y, bottom)
                guard x1 > x0, y1 > y0 else { continue }
                out.write("<rect x=\"\(fmt(x0))\" y=\"\(fmt(y0))\" width=\"\(fmt(x1 - x0))\" height=\"\(fmt(y1 - y0))\"/>\n")
            }
            out.put("</g>\n")
        }

        // Pass 2: the track, one path per run of one band; each run starts at the previous
        // run's last point, so neighbouring pieces overlap by one point and leave no hole.
        out.put("<g fill=\"none\" stroke-width=\"3\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n")
        var runner = BandRunner(bands: options.bands)
        var stream = Simplify.Stream(tolerance: 0.5)
        var pathOpen = false
        var bridgeFrom: Fix?
        var lastPoint: Fix?
        var profile = Profile(columns: Int(inner), barometric: survey.baroRange != nil)
        var profileHeights = Heights()
        var alongStats = TripStats()
        func colour(_ band: Int) -> String { options.colours[min(max(band, 0), options.colours.count - 1)] }
        func emit(_ pts: [Simplify.Point]) {
            for p in pts { out.put(" "); _ = out.decimal(p.x, 1); out.put(","); _ = out.decimal(p.y, 1) }
        }
        func closePath() {
            guard pathOpen else { return }
            emit(stream.finish())
            out.put("\"/>\n")
            pathOpen = false
        }
        func openPath(_ band: Int, _ from: Fix) {
            closePath()
            out.write("<polyline stroke=\"\(colour(band))\" points=\"")
            pathOpen = true
            emit(stream.add(project(from.lat, from.lon)))
        }
        func endSegment() {
            closePath()
            if let lone = runner.endSegment() {
                let p = project(lone.fix.lat, lone.fix.lon)
                out.write("<circle cx=\"\(fmt(p.x))\" cy=\"\(fmt(p.y))\" r=\"2\" fill=\"\(colour(lone.band))\" stroke=\"none\"/>\n")
            }
        }
        var pass2 = PrivacyFilter(window: options.privacy, endPressMs: endPressMs, wheel: wheel)
        _ = try TripCatalog.read(trip) { e in
            pass2.pass(e) { event in
                switch event {
                case .segment(let reason):
                    alongStats.startSegment(reason)
                    endSegment()
                    // Across a dropout the rider went on: a thin dashed line, not a coloured one.
                    bridgeFrom = (reason == .gap || reason == .reconnect || reason == .resume) ? lastPoint : nil
                    if reason == .hidden { lastPoint = nil }  // as pass 1: no distance across
                case .point(let f):
                    guard f.lat.isFinite, f.lon.isFinite else { return }
                    if let b = bridgeFrom {
                        let a = project(b.lat, b.lon), c = project(f.lat, f.lon)
                        out.write(
                            "<line x1=\"\(fmt(a.x))\" y1=\"\(fmt(a.y))\" x2=\"\(fmt(c.x))\" y2=\"\(fmt(c.y))\" stroke=\"#888888\" stroke-width=\"1.5\" stroke-dasharray=\"4 4\"/>\n"
                        )
                        bridgeFrom = nil
                    }
                    switch runner.add(f) {
                    case .hold: break
                    case .extend: emit(stream.add(project(f.lat, f.lon)))
                    case .open(let band, let from, _):
                        openPath(band, from)
                        emit(stream.add(project(f.lat, f.lon)))
                    }
                    alongStats.add(f)
                    let h = profileHeights.next(f)
                    if let v = profile.barometric ? h.baro : h.gps {
                        profile.add(along: alongStats.distanceM, total: survey.distanceM, height: v)
                    }
                    lastPoint = f
                case .raw: break  // not asked for
                }
            }
        }
        endSegment()
        out.put("</g>\n")

        // Marks: stops and pauses (a ring with the minutes), start and finish.
        out.put("<g font-size=\"11\" fill=\"#333333\">\n")
        for m in survey.marks {
            let p = project(m.lat, m.lon)
            let minutes = max(1, (m.seconds + 30) / 60)
            out.write(
                "<circle class=\"\(m.pause ? "pause" : "stop")\" cx=\"\(fmt(p.x))\" cy=\"\(fmt(p.y))\" r=\"5\" fill=\"#ffffff\" stroke=\"\(m.pause ? "#6a3d9a" : "#555555")\" stroke-width=\"2\"/>"
            )
            out.write("<text x=\"\(fmt(p.x + 7))\" y=\"\(fmt(p.y - 6))\">\(m.pause ? "pause" : "stop") \(minutes) min</text>\n")
        }
        let s = project(first.lat, first.lon), e = project(last.lat, last.lon)
        out.write("<circle class=\"start\" cx=\"\(fmt(s.x))\" cy=\"\(fmt(s.y))\" r=\"7\" fill=\"#2ca02c\" stroke=\"#ffffff\" stroke-width=\"2\"/>\n")
        out.write(
            "<rect class=\"finish\" x=\"\(fmt(e.x - 6))\" y=\"\(fmt(e.y - 6))\" width=\"12\" height=\"12\" fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"2\"/>\n"
        )
        // Start to the left and finish to the right: a round trip's two marks lie on each other.
        // A label that would leave the picture goes to the other side, above the start's mark
        // or below the finish's, so the two never meet.
        if s.x - 10 - labelWidth >= 0 {
            out.write("<text x=\"\(fmt(s.x - 10))\" y=\"\(fmt(s.y + 4))\" font-weight=\"bold\" text-anchor=\"end\">start</text>\n")
        } else {
            out.write("<text x=\"\(fmt(s.x + 10))\" y=\"\(fmt(s.y - 8))\" font-weight=\"bold\">start</text>\n")
        }
        if e.x + 10 + labelWidth <= width {
            out.write("<text x=\"\(fmt(e.x + 10))\" y=\"\(fmt(e.y + 4))\" font-weight=\"bold\">finish</text>\n")
        } else {
            out.write("<text x=\"\(fmt(e.x - 10))\" y=\"\(fmt(e.y + 18))\" font-weight=\"bold\" text-anchor=\"end\">finish</text>\n")
        }
        out.put("</g>\n")

        // The height profile against distance.
        let range = profile.barometric ? survey.baroRange : survey.gpsRange
        out.write(
            "<g class=\"profile\"><rect x=\"\(fmt(margin))\" y=\"\(fmt(profileTop))\" width=\"\(fmt(inner))\" height=\"\(fmt(profileHeight))\" fill=\"#f6f6f6\" stroke=\"#cccccc\"/>\n"
        )
        if let (lo, hi) = range {
            let span = max(hi - lo, 10)
            let base = lo - (span - (hi - lo)) / 2
            func y(_ h: Double) -> Double { profileTop + profileHeight - 6 - (h - base) / span * (profileHeight - 12) }
            let cols = profile.columns
            var pts: [String] = []
            for (i, c) in cols.enumerated() where c.count > 0 {
                let x = margin + Double(i) + 0.5
                pts.append("\(fmt(x)),\(fmt(y(c.max)))")
                if c.min < c.max - 0.5 { pts.append("\(fmt(x)),\(fmt(y(c.min)))") }
            }
            if !pts.isEmpty {
                out.write("<polyline fill=\"none\" stroke=\"#7f6a4f\" stroke-width=\"1.5\" points=\"\(pts.joined(separator: " "))\"/>\n")
            }
            let source = profile.barometric ? "barometer" : "GPS"
            out.write(
                "<text x=\"\(fmt(margin + 4))\" y=\"\(fmt(profileTop + 14))\" font-size=\"11\" fill=\"#555555\">\(fmt0(hi)) m (\(source))</text>\n")
            out.write(
                "<text x=\"\(fmt(margin + 4))\" y=\"\(fmt(profileTop + profileHeight - 4))\" font-size=\"11\" fill=\"#555555\">\(fmt0(lo)) m</text>\n"
            )
        } else {
            out.write(
                "<text x=\"\(fmt(margin + 4))\" y=\"\(fmt(profileTop + profileHeight / 2))\" font-size=\"11\" fill=\"#555555\">no trusted height: no profile</text>\n"
            )
        }
        out.write(
            "<text x=\"\(fmt(margin + inner - 4))\" y=\"\(fmt(profileTop + profileHeight + 14))\" font-size=\"11\" fill=\"#555555\" text-anchor=\"end\">\(TextFormat.fixed(survey.distanceM / 1000, 1) ?? "?") km</text>\n"
        )
        out.put("</g>\n")

        // The legend.
        out.put("<g class=\"legend\" font-size=\"11\" fill=\"#333333\">\n")
        for (b, place) in legend.places.enumerated() {
            let x = place.x, y = legendTop + 18 * Double(place.row)
            out.write("<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"18\" height=\"8\" fill=\"\(colour(b))\"/>")
            let label = TextFormat.xmlEscaped(options.bands.label(b))
            out.write("<text x=\"\(fmt(x + 22))\" y=\"\(fmt(y + 8))\">\(label)</text>\n")
        }
        if !options.compact {
            out.write(
                "<text x=\"\(fmt(margin + inner))\" y=\"\(fmt(legendTop + 8))\" text-anchor=\"end\" fill=\"#888888\">cairn \(TextFormat.xmlEscaped(trip.files.first.map { basename($0.path) } ?? ""))</text>\n"
            )
        }
        out.put("</g>\n</svg>\n")
        return Drawn(
            summary: summary, temperatureC: temperature.map { (min: $0.0, max: $0.1) }, width: Int(width.rounded(.up)),
            height: Int(height.rounded(.up)))
    }

    /// Where each band's key goes: left to right, on a new row when the next would leave the
    /// picture (compact pictures only; the wide one keeps one row, its file name at the right).
    static func legendLayout(_ options: Options, width: Double) -> (places: [(x: Double, row: Int)], rows: Int) {
        var places: [(x: Double, row: Int)] = []
        var x = margin, row = 0
        for b in 0..<options.bands.count {
            let w = 22 + Double(TextFormat.xmlEscaped(options.bands.label(b)).count) * 6.5
            if options.compact && x > margin && x + w > width - margin {
                x = margin
                row += 1
            }
            places.append((x, row))
            x += w + 8
        }
        return (places, row + 1)
    }

    /// "41.36 km · moving 1:17:12": the compact picture's line (the page shows the rest).
    public static func shortLine(_ s: TripSummary) -> String {
        let st = s.stats
        let d = st.distanceM >= 1000 ? (TextFormat.fixed(st.distanceM / 1000, 2) ?? "?") + " km" : (TextFormat.fixed(st.distanceM, 0) ?? "?") + " m"
        return d + " · moving " + TripFigures.duration(st.movingTimeMs)
    }

    /// "Trip 3 · ride · 2026-06-01 08:00 UTC · 41.36 km · moving 1:17:12 · climb +320 m"
    public static func summaryLine(_ s: TripSummary) -> String {
        let st = s.stats
        var parts = ["Trip \(s.id)"]
        if let a = s.activity { parts.append(a) }
        if let t = st.firstTimeMs { parts.append(String(TextFormat.isoTime(ms: t).prefix(16)).replacingT() + " UTC") }
        parts.append(
            st.distanceM >= 1000 ? (TextFormat.fixed(st.distanceM / 1000, 2) ?? "?") + " km" : (TextFormat.fixed(st.distanceM, 0) ?? "?") + " m")
        parts.append("moving " + TripFigures.duration(st.movingTimeMs))
        parts.append("climb " + (st.ascentM.map { "+" + (TextFormat.fixed($0, 0) ?? "?") + " m" } ?? "-"))
        return parts.joined(separator: " · ")
    }

    /// The profile as the highest and lowest height in each pixel column: bounded by the width.
    struct Profile {
        struct Column { var min = Double.infinity, max = -Double.infinity, count = 0 }
        var columns: [Column]
        let barometric: Bool
        init(columns n: Int, barometric: Bool) {
            columns = Array(repeating: Column(), count: max(n, 1))
            self.barometric = barometric
        }
        mutating func add(along: Double, total: Double, height: Double) {
            let i = total > 0 ? Int(along / total * Double(columns.count - 1)) : 0
            let k = min(max(i, 0), columns.count - 1)
            columns[k].min = min(columns[k].min, height)
            columns[k].max = max(columns[k].max, height)
            columns[k].count += 1
        }
    }

    /// `lon` moved by whole turns to within 180° of `ref` (east of it up to +180°).
    static func unwrap(_ lon: Double, around ref: Double) -> Double {
        let d = (lon - ref).truncatingRemainder(dividingBy: 360)
        return ref + (d > 180 ? d - 360 : (d <= -180 ? d + 360 : d))
    }

    static func fmt(_ v: Double) -> String { TextFormat.trimmed(v, 1) ?? "0" }
    static func fmt0(_ v: Double) -> String { TextFormat.fixed(v, 0) ?? "?" }
    static func basename(_ p: String) -> String { p.split(separator: "/").last.map(String.init) ?? p }
}

extension String {
    fileprivate func replacingT() -> String { String(map { $0 == "T" ? " " : $0 }) }
}

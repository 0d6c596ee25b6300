import CairnCore

/// A trip's figures as the text exports name them: the same keys and units as `cairn list --json`.
public enum TripFigures {
    /// (key, JSON value) pairs, in `list --json` order (files and drop counts left out).
    public static func json(_ s: TripSummary) -> [(String, String)] {
        func num(_ v: Double?, _ d: Int) -> String { v.flatMap { TextFormat.trimmed($0, d) } ?? "null" }
        func time(_ v: Int64?) -> String { v.map { TextFormat.jsonString(TextFormat.isoTime(ms: $0)) } ?? "null" }
        var fields = [
            ("trip", String(s.id)),
            ("activity", s.activity.map(TextFormat.jsonString) ?? "null"),
            ("start", time(s.stats.firstTimeMs)),
            ("end", time(s.stats.lastTimeMs)),
            ("points", String(s.stats.points)),
            // A trainer's segments are the wheel's (`TripSummary.wheelSegments`), as `info` says.
            ("segments", String(s.hasNoPositions ? s.wheelSegments : s.stats.segments)),
            ("distance_m", num(s.stats.distanceM, 1)),
            ("moving_time_s", num(Double(s.stats.movingTimeMs) / 1000, 1)),
            ("elapsed_s", num(Double(s.stats.elapsedMs) / 1000, 1)),
            ("ascent_m", num(s.stats.ascentM, 1)),
            ("descent_m", num(s.stats.descentM, 1)),
            ("max_speed_mps", num(s.stats.maxSpeedMps, 2)),
            ("status", TextFormat.jsonString(s.status.name))
        ]
        // Only when known: an export of a log without one reads as it did before ids.
        if let b = s.board { fields.insert(("board", TextFormat.jsonString(b)), at: 2) }
        // Only in conversions that changed the points: the figures are the exported track's.
        if s.smoothed { fields.append(("smoothed", "true")) }
        if let g = s.filledGaps { fields.append(("filled_gaps", String(g))) }
        if let p = s.interpolatedPoints { fields.append(("interpolated_points", String(p))) }
        return fields
    }

    /// The same figures as plain text values (empty where unknown), for KML `ExtendedData`.
    public static func plain(_ s: TripSummary) -> [(String, String)] {
        json(s).map { k, v in
            var t = v
            if t == "null" { t = "" }
            if t.hasPrefix("\"") && t.hasSuffix("\"") && t.count >= 2 { t = String(t.dropFirst().dropLast()) }
            return (k, t)
        }
    }

    /// One line for people: "12.34 km, moving 0:45:12 of 0:50:00, avg 16.4 km/h, max 35.2 km/h, +320 m / -318 m".
    public static func line(_ s: TripSummary) -> String {
        let st = s.stats
        var parts: [String] = []
        parts.append(
            st.distanceM >= 1000 ? (TextFormat.fixed(st.distanceM / 1000, 2) ?? "?") + " km" : (TextFormat.fixed(st.distanceM, 0) ?? "?") + " m")
        parts.append("moving \(duration(st.movingTimeMs)) of \(duration(st.elapsedMs))")
        if st.movingTimeMs > 0, let a = TextFormat.fixed(st.distanceM / (Double(st.movingTimeMs) / 1000) * 3.6, 1) { parts.append("avg \(a) km/h") }
        if let m = st.maxSpeedMps, let t = TextFormat.fixed(m * 3.6, 1) { parts.append("max \(t) km/h") }
        if let up = st.ascentM, let down = st.descentM {
            parts.append("+\(TextFormat.fixed(up, 0) ?? "?") m / -\(TextFormat.fixed(down, 0) ?? "?") m")
        }
        parts.append("\(st.points) points in \(st.segments) segment\(st.segments == 1 ? "" : "s")")
        if s.smoothed { parts.append("smoothed") }
        if let g = s.filledGaps, let p = s.interpolatedPoints {
            parts.append("\(g) gap\(g == 1 ? "" : "s") filled with \(p) interpolated point\(p == 1 ? "" : "s")")
        }
        parts.append(s.status.name)
        return parts.joined(separator: ", ")
    }

    static func duration(_ ms: Int64) -> String { TextFormat.clock(ms: ms) }
}

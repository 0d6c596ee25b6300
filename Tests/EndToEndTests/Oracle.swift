import Foundation

/// What the recorder should keep from a fixture, worked out independently from gpsd's own
/// expected output for that log (`Tests/Fixtures/gpsd/expected/*.tpv.json`): one point per
/// distinct time (the most complete report; the later on a tie), only fixes with mode ≥ 2, a
/// time and a position, a 68 % horizontal error within 50 m (eph ≤ 81 m as gpsd reports it),
/// never going back in time and never more than 60 s older than the newest fix seen.
enum Oracle {
    struct Point { var t: Double; var lat: Double; var lon: Double }

    static func keptPoints(_ log: String, maxEph: Double = .infinity) throws -> [Point] {
        let path = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/gpsd/expected/\(log.replacingOccurrences(of: ".log", with: "")).tpv.json")
            .path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let isoPlain = ISO8601DateFormatter()
        var epochs: [(t: Double, o: [String: Any], score: Int)] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                o["class"] as? String == "TPV", let mode = o["mode"] as? Int, mode >= 2,
                let ts = o["time"] as? String, o["lat"] != nil, o["lon"] != nil,
                let date = iso.date(from: ts) ?? isoPlain.date(from: ts)
            else { continue }
            let t = date.timeIntervalSince1970
            let score = mode * 100 + ["altHAE", "altMSL", "eph", "epx", "epy", "epv", "speed", "track", "climb"].filter { o[$0] != nil }.count
            if let last = epochs.last, last.t == t {
                if score >= last.score { epochs[epochs.count - 1] = (t, o, score) }
            } else {
                epochs.append((t, o, score))
            }
        }
        // The gates that need no judgement: a position, a time, not rough (a DOP guess of gpsd's,
        // eph = HDOP × 19, over 50 m at 68 % by Accuracy's 3.5 m range error). Which way a
        // receiver's time went is the rules' to judge (rule 12), so time order is not a gate here.
        var kept: [Point] = []
        for e in epochs {
            if let eph = e.o["eph"] as? Double, eph / 19 * 3.5 > 50 || eph > maxEph { continue }
            kept.append(Point(t: e.t, lat: e.o["lat"] as! Double, lon: e.o["lon"] as! Double))
        }
        return kept
    }

    /// Sum of great-circle steps between consecutive points (the recorder bridges gaps once).
    static func distance(_ ps: [Point]) -> Double {
        var d = 0.0
        for (a, b) in zip(ps, ps.dropFirst()) {
            let p1 = a.lat * .pi / 180, p2 = b.lat * .pi / 180
            let s1 = sin((p2 - p1) / 2), s2 = sin((b.lon - a.lon) * .pi / 360)
            d += 2 * 6_371_008.8 * asin(min(1, (s1 * s1 + cos(p1) * cos(p2) * s2 * s2).squareRoot()))
        }
        return d
    }
}

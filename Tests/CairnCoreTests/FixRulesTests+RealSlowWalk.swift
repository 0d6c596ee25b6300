import XCTest
@testable import CairnCore

/// The rules on a real slow walk: gpsd's haicom-305N regression log (a minute at 1-1.3 m/s by
/// its doppler, eph 21-143 m), as gpsd decoded it (`Tests/Fixtures/gpsd/expected`). The
/// end-to-end test (`RecordEndToEndTests.testMovingRideIsRecordedAndConverts`) holds the same
/// walk through gpsd; this one holds it in the unit tier, where the slow movers' rules are tuned.
extension FixRulesTests {
    /// The log's fixes, one per time (gpsd sends two TPVs per time here; the last is taken).
    static func haicomWalk() throws -> [Fix] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/gpsd/expected/haicom-305N.tpv.json")
        var byTime: [String: Fix] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline) {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                o["class"] as? String == "TPV", let t = o["time"] as? String,
                let lat = o["lat"] as? Double, let lon = o["lon"] as? Double, let mode = o["mode"] as? Int
            else { continue }
            // 2026-11-29T09:53:05.000Z: seconds of the day are enough for one minute's walk.
            let hms = t.dropFirst(11).prefix(8).split(separator: ":").compactMap { Double($0) }
            let frac = Double("0" + t.dropFirst(19).prefix(4)) ?? 0
            let s = hms[0] * 3600 + hms[1] * 60 + hms[2] + frac
            byTime[t] = Fix(
                timeMs: 1_780_000_000_000 + Int64((s * 1000).rounded()), lat: lat, lon: lon, mode: mode,
                altHAE: o["altHAE"] as? Double, altMSL: o["altMSL"] as? Double,
                eph: o["eph"] as? Double, epx: o["epx"] as? Double, epy: o["epy"] as? Double, epv: o["epv"] as? Double,
                speed: o["speed"] as? Double, track: o["track"] as? Double, climb: o["climb"] as? Double)
        }
        return byTime.keys.sorted().map { byTime[$0]! }
    }

    func testRealSlowWalkHonestLargeClaimsDoNotHalveIt() throws {
        let fixes = try Self.haicomWalk()
        XCTAssertEqual(fixes.count, 67)
        let r = run(fixes)
        let kept = zip(r.kept, r.kept.dropFirst()).map { Geodesy.distance($0, $1) }.reduce(0, +)
        // Through the 37 fixes with eph up to 80 m: 45.4 m; the doppler integrated over the walk:
        // 69 m. slow-39b's corner tolerance, twice the noise learnt under the first minute's
        // 26 m claims, kept 24.7 m of it (4-5 m claims by then).
        let better = fixes.filter { ($0.eph ?? .infinity) <= 80 }
        let reference = zip(better, better.dropFirst()).map { Geodesy.distance($0, $1) }.reduce(0, +)
        XCTAssertEqual(reference, 45.4, accuracy: 0.1)
        XCTAssertEqual(kept, reference, accuracy: reference * 0.25, "\(r.kept.count) points kept")
    }
}

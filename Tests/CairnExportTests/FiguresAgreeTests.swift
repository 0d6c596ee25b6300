import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// One definition of moving time and top speed (issue 40/41 item 2): `info`'s figures
/// (`TripCatalog.read`), FIT's session and laps (both FIT readers) and CSV agree on short and
/// phantom trips, where a few points, no measured speed and a receiver's wander make them drift
/// apart; a lap's average is never above the session's top speed.
final class FiguresAgreeTests: XCTestCase {
    var dir = ""
    var out = ""
    static let start: Int64 = 1_748_764_800_000

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// A receiver standing under a wander (σ `sigmaM`), its points `everyS` apart, speeds
    /// measured (`speed`) or not; then, optionally, a short ride.
    static func phantom(seed: UInt64, points: Int, everyS: Int, sigmaM: Double, speed: Bool, rideAfter: Int) -> [Fix] {
        var rng = SplitMix64(state: seed)
        var out: [Fix] = []
        let lat = 47.3769, lon = 8.5417
        var t = start
        for _ in 0..<points {
            let f = Fix(
                timeMs: t, lat: lat + rng.gauss(sigmaM) / 111_195, lon: lon + rng.gauss(sigmaM) / 75_000, mode: 3,
                speed: speed ? abs(rng.gauss(0.6)) : nil)
            out.append(f)
            t += Int64(everyS) * 1000
        }
        if rideAfter > 0 { out += ExportSupport.ride(rideAfter, seed: seed, startMs: t, lat: lat, lon: lon) }
        return out
    }

    func write(_ fixes: [Fix]) throws {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0070))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        for i in stride(from: 0, to: fixes.count, by: 5) { try w.append(.points(Array(fixes[i..<min(fixes.count, i + 5)]))) }
        _ = try w.sync()
        w.close()
    }

    func trip() throws -> TripRef { try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first) }

    func fit(laps: LapRule) throws -> [String: Any] {
        let path = out + "/t.fit"
        var settings = ExportFormat.Settings(version: "1.0.0")
        var stages = TripConversion.Stages()
        (settings.laps, stages.laps) = (laps, laps)
        let writer = ExportFormat.fit.makeWriter(.fitFiles(.file(path), force: true, atomic: false), settings)
        let c = TripConversion(writer: writer, stages: stages) { _ in }
        XCTAssertTrue(c.convert(try trip()).converted)
        try c.finish()
        return try ExportSupport.check("fit", path)
    }

    func testShortAndPhantomTripsAgree() throws {
        var cases: [(String, [Fix])] = []
        for seed in UInt64(1)...4 {
            cases.append(
                ("phantom 5 s σ 8 m no speed \(seed)", Self.phantom(seed: seed, points: 120, everyS: 5, sigmaM: 8, speed: false, rideAfter: 0)))
            cases.append(("phantom 1 s σ 4 m speed \(seed)", Self.phantom(seed: seed, points: 300, everyS: 1, sigmaM: 4, speed: true, rideAfter: 0)))
            cases.append(
                ("phantom 15 s σ 20 m no speed \(seed)", Self.phantom(seed: seed, points: 40, everyS: 15, sigmaM: 20, speed: false, rideAfter: 0)))
            cases.append(("stand then short ride \(seed)", Self.phantom(seed: seed, points: 60, everyS: 3, sigmaM: 6, speed: false, rideAfter: 40)))
        }
        for (name, fixes) in cases {
            try? FileManager.default.removeItem(atPath: dir)
            dir = ExportSupport.tempDir()
            try write(fixes)
            let st = try TripCatalog.read(trip()).stats
            for laps in [LapRule.none, .distance(100)] {
                let seen = try fit(laps: laps)
                let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
                let timer = try XCTUnwrap(session["total_timer_time"] as? Double)
                let moving = (Double(st.movingTimeMs) / 100).rounded() / 10
                XCTAssertEqual(timer, moving, accuracy: 0.05, "\(name) \(laps): FIT timer vs info's moving time")
                let top = try XCTUnwrap(session["enhanced_max_speed"] as? Double, "\(name) \(laps)")
                XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), st.distanceM, accuracy: 0.06, "\(name) \(laps)")
                let lapSpeeds = (seen["lap_speeds"] as? [[Any]]) ?? []
                var fastestAverage = 0.0
                for (i, l) in lapSpeeds.enumerated() {
                    let avg = l[0] as? Double ?? 0
                    fastestAverage = max(fastestAverage, avg)
                    XCTAssertLessThanOrEqual(avg, top + 0.0005, "\(name) \(laps): lap \(i)'s average above the session's top")
                    XCTAssertLessThanOrEqual(l[1] as? Double ?? 0, top + 0.0005, "\(name) \(laps): lap \(i)'s top above the session's")
                }
                // The session's top is `info`'s; only a lap that covered its distance faster than
                // that over its whole elapsed time (a receiver's wander) raises it, to its average.
                let v = try XCTUnwrap(st.maxSpeedMps)
                if top > v + 0.002 {
                    XCTAssertEqual(top, fastestAverage, accuracy: 0.0005, "\(name) \(laps): FIT top \(top) vs info's \(v)")
                } else {
                    XCTAssertEqual(top, v, accuracy: 0.002, "\(name) \(laps): FIT top vs info's")
                }
            }
        }
    }
}

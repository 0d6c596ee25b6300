import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// A noisy walk (attack F5, round 25): a receiver that draws a random course on every fix, with
/// honest speeds and ~20 m of position noise. FIT's timer events (start/stop pairs) added up to
/// 794 s while the session's `total_timer_time` said 907 s: Garmin Connect and Strava read one
/// or the other. The time the timer runs must be the session's, by both readers.
final class NoisyWalkTimerTests: XCTestCase {
    var dir = ""
    var out = ""

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// A walk north at `mps` (1 Hz), its doppler honest, its course random on every fix, its
    /// positions `sigmaM` off the true line (Gaussian, each axis).
    static func walk(seconds: Int, mps: Double, sigmaM: Double, seed: UInt64) -> [Fix] {
        var rng = SplitMix64(state: seed)
        var lat = 47.3769
        let lon = 8.5417
        let mPerDegLon = 111_195 * cos(lat * .pi / 180)
        return (0..<seconds).map { s in
            lat += mps / 111_195
            return Fix(
                timeMs: 1_748_764_800_000 + Int64(s) * 1000, lat: lat + rng.gauss(sigmaM) / 111_195,
                lon: lon + rng.gauss(sigmaM) / mPerDegLon, mode: 3, eph: 8, epx: 5, epy: 5,
                speed: max(0, mps + rng.gauss(0.15)), track: 360 * rng.uniform())
        }
    }

    func fit(_ laps: LapRule) throws -> [String: Any] {
        let path = out + "/t.fit"
        var settings = ExportFormat.Settings(version: "1.0.0")
        var stages = TripConversion.Stages()
        (settings.laps, stages.laps) = (laps, laps)
        let writer = ExportFormat.fit.makeWriter(.fitFiles(.file(path), force: true, atomic: false), settings)
        let trip = try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first)
        let c = TripConversion(writer: writer, stages: stages) { _ in }
        XCTAssertTrue(c.convert(trip).converted)
        try c.finish()
        return try ExportSupport.check("fit", path)
    }

    func testTheTimerEventsAddUpToTheSessionsTimerOnANoisyWalk() throws {
        var runOn = 0
        for (sigma, seed) in [(10.0, 1), (10.0, 3), (14.0, 2), (14.0, 3), (14.0, 5)] as [(Double, UInt64)] {
            try? FileManager.default.removeItem(atPath: dir)
            dir = ExportSupport.tempDir()
            let fixes = Self.walk(seconds: 1200, mps: 1.4, sigmaM: sigma, seed: seed)
            // Through the recorder's rules, as `cairn record` logs it.
            try RefilterTests.record(fixes, dir: dir, profile: .walk)
            let trip = try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first, "σ \(sigma) seed \(seed)")
            let st = try TripCatalog.read(trip).stats
            // The case: the moving time is the distance at the top speed, above the steps' own.
            if st.movingTimeMs >= st.countedMovingMs + 2000 { runOn += 1 }
            for laps in [LapRule.none, .pause, .distance(500)] {
                let seen = try fit(laps)
                let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
                let timer = try XCTUnwrap(session["total_timer_time"] as? Double)
                let what = "σ \(sigma) seed \(seed) \(laps)"
                XCTAssertEqual(timer, (Double(st.movingTimeMs) / 100).rounded() / 10, accuracy: 0.05, "\(what): info's moving time")
                let sums = try XCTUnwrap(seen["lap_sums"] as? [String: Any])
                XCTAssertEqual(try XCTUnwrap(sums["total_timer_time"] as? Double), timer, accuracy: 0.05, "\(what): the laps")
                // FIT's events are whole seconds.
                XCTAssertEqual(try XCTUnwrap(seen["timer_running_s"] as? Double), timer, accuracy: 1, "\(what): SDK's spans")
                XCTAssertEqual(try XCTUnwrap(seen["fitdecode_timer_running_s"] as? Double), timer, accuracy: 1, "\(what): fitdecode's")
            }
        }
        XCTAssertGreaterThan(runOn, 0, "no walk whose moving time is above its steps': the case is not tested")
    }
}

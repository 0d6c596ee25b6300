import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// A rider standing inside a trip (issue 40/41): a stand shorter than the pause that breaks the
/// line is left out of the moving time, so FIT's timer stops over it (event timer, stop_all, then
/// start, as a device's auto pause writes): the time the timer runs is `info`'s moving time and
/// the session's `total_timer_time`, read by both FIT readers, and no record is faster than the
/// session's top speed.
final class StandTimerTests: XCTestCase {
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

    /// Riding north at `mps` (doppler measured, 1 Hz), standing `stands` (start second, length
    /// in seconds) with speed 0 and the position still; at `spikes` seconds the doppler reads
    /// `spikeMps` (a glitch the positions do not follow).
    static func ride(seconds: Int, mps: Double, stands: [(Int, Int)], spikes: [Int] = [], spikeMps: Double = 0) -> [Fix] {
        var fixes: [Fix] = []
        var lat = 47.3769
        for s in 0..<seconds {
            let standing = stands.contains { s > $0.0 && s <= $0.0 + $0.1 }
            if !standing { lat += mps / 111_195 }
            fixes.append(
                Fix(
                    timeMs: start + Int64(s) * 1000, lat: lat, lon: 8.5417, mode: 3, eph: 4, epx: 3, epy: 3,
                    speed: standing ? 0 : spikes.contains(s) ? spikeMps : mps))
        }
        return fixes
    }

    func write(_ fixes: [Fix], endPressMs: Int64? = nil) throws {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0071))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        for i in stride(from: 0, to: fixes.count, by: 5) { try w.append(.points(Array(fixes[i..<min(fixes.count, i + 5)]))) }
        if let t = endPressMs { try w.append(.riderMark(RiderMark(kind: .end, timeMs: t))) }
        _ = try w.sync()
        w.close()
    }

    func fit(laps: LapRule) throws -> [String: Any] {
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

    func testTheTimerStopsOverAStandInsideATrip() throws {
        // Stands of 90 s and 75 s (under the 2-min pause) and one of 20 s; then still at the end.
        let stands = [(200, 90), (500, 75), (800, 20), (1000, 30)]
        try write(Self.ride(seconds: 1031, mps: 6, stands: stands, spikes: [100, 650], spikeMps: 19))
        let trip = try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first)
        let st = try TripCatalog.read(trip).stats
        XCTAssertEqual(st.segments, 1, "no stand breaks the line")
        XCTAssertEqual(Double(st.movingTimeMs) / 1000, 1030 - 215, accuracy: 1, "info leaves the stands out")
        for laps in [LapRule.none, .distance(1000)] {
            let seen = try fit(laps: laps)
            let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
            let timer = try XCTUnwrap(session["total_timer_time"] as? Double)
            let moving = (Double(st.movingTimeMs) / 100).rounded() / 10
            XCTAssertEqual(timer, moving, accuracy: 0.05, "\(laps): the session's timer is info's moving time")
            XCTAssertEqual(try XCTUnwrap(seen["timer_running_s"] as? Double), timer, accuracy: 1, "\(laps): SDK's timer spans")
            XCTAssertEqual(try XCTUnwrap(seen["fitdecode_timer_running_s"] as? Double), timer, accuracy: 1, "\(laps): fitdecode's")
            let events = try XCTUnwrap(seen["events"] as? [[String: Any]]).filter { $0["event"] as? String == "timer" }
            let fitStart = Double(Self.start / 1000 - 631_065_600)
            let times = events.map { (($0["timestamp"] as? Double) ?? -1) - fitStart }
            let kinds = events.map { $0["event_type"] as? String ?? "" }
            // Start; stop and start around each stand inside; the last stand's stop is the end.
            XCTAssertEqual(times, [0, 200, 290, 500, 575, 800, 820, 1000], "\(laps)")
            XCTAssertEqual(kinds, ["start", "stop_all", "start", "stop_all", "start", "stop_all", "start", "stop_all"], "\(laps)")
            let top = try XCTUnwrap(session["enhanced_max_speed"] as? Double)
            for k in ["max_record_speed", "fitdecode_max_record_speed"] {
                XCTAssertLessThanOrEqual(try XCTUnwrap(seen[k] as? Double), top + 0.0005, "\(laps): \(k) above the session's top")
            }
        }
    }

    /// A rider who stands at the end and then presses stop: the stand's stop, then the press's
    /// (timer stop_all, manual) after a start that runs no time, so the timer never stops twice.
    func testAStandBeforeTheRidersStopPressKeepsThePress() throws {
        let fixes = Self.ride(seconds: 341, mps: 6, stands: [(300, 40)])
        try write(fixes, endPressMs: fixes.last!.timeMs)
        let trip = try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first)
        let st = try TripCatalog.read(trip).stats
        let seen = try fit(laps: .none)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        let timer = try XCTUnwrap(session["total_timer_time"] as? Double)
        XCTAssertEqual(timer, (Double(st.movingTimeMs) / 100).rounded() / 10, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(seen["timer_running_s"] as? Double), timer, accuracy: 1)
        XCTAssertEqual(try XCTUnwrap(seen["fitdecode_timer_running_s"] as? Double), timer, accuracy: 1)
        let events = try XCTUnwrap(seen["events"] as? [[String: Any]]).filter { $0["event"] as? String == "timer" }
        let fitStart = Double(Self.start / 1000 - 631_065_600)
        XCTAssertEqual(events.map { (($0["timestamp"] as? Double) ?? -1) - fitStart }, [0, 300, 340, 340])
        XCTAssertEqual(events.map { $0["event_type"] as? String ?? "" }, ["start", "stop_all", "start", "stop_all"])
        XCTAssertEqual(events.last?["timer_trigger"] as? String, "manual")
    }
}

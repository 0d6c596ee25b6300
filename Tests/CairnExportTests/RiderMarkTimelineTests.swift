import CairnCore
import XCTest

@testable import CairnExport
@testable import CairnLog

/// The rider's marks (record type 10) in `info --why`'s timeline: told in time order among the
/// fixes, though the raw fixes before them reach the log at the next sync, after them.
final class RiderMarkTimelineTests: XCTestCase {
    func testMarksAreToldAmongTheFixesAndBeforeTheEnd() throws {
        let dir = ExportSupport.tempDir()
        let t0: Int64 = 1_748_764_800_000
        let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)
        func raw(_ i: Int) -> RawFix {
            RawFix(
                fix: Fix(timeMs: t0 + Int64(i) * 1000, lat: 47.5 + Double(i) * 1e-4, lon: 8.5, mode: 3, speed: 8),
                arrivalMs: t0 + Int64(i) * 1000, verdict: .kept, settings: settings)
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 7))
        try w.append(.tripStart(activity: "ride", software: "test"))
        try w.append(.segmentStart(.start, timeMs: t0))
        try w.append(.points((0..<10).map { raw($0).fix }))
        // The lap at fix 5 is written before the raw fixes around it (they wait for the sync).
        try w.append(.riderMark(RiderMark(kind: .lap, timeMs: t0 + 5_500)))
        try w.append(.rawFixes(RawBatch(activity: "ride", fixes: (0..<10).map(raw))))
        try w.append(.riderMark(RiderMark(kind: .end, timeMs: t0 + 9_200)))
        try w.append(.tripEnd(TripEnd(reason: .rider, points: 10, distanceM: 100, movingTimeMs: 9000, firstTimeMs: t0, lastTimeMs: t0 + 9000)))
        try w.sync()
        w.close()
        let trip = RefilterTests.trips(dir)[0]
        var events: [TimelineEvent] = []
        try TripTimeline.read(trip) { events.append($0) }
        let told = events.compactMap { e -> String? in
            switch e {
            case .started: return "started"
            case .riderMark(let k, let at): return "\(k)@\(at.map { String($0 - t0) } ?? "-")"
            case .ended(let r, _): return "ended \(r)"
            default: return nil
            }
        }
        XCTAssertEqual(told, ["started", "lap@5500", "end@9200", "ended rider"], "\(events)")
    }

    /// A press made before the clock was set (time 0: attack-laps-r20, finding 3) is told where
    /// the log holds it, with no time, and is no damage. Failed before: the reader skipped it as
    /// a damaged record, and the timeline never told it.
    func testAPressWithoutAUsableTimeIsToldWithoutOne() throws {
        let dir = ExportSupport.tempDir()
        let t0: Int64 = 1_748_764_800_000
        let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)
        func raw(_ i: Int) -> RawFix {
            RawFix(
                fix: Fix(timeMs: t0 + Int64(i) * 1000, lat: 47.5 + Double(i) * 1e-4, lon: 8.5, mode: 3, speed: 8),
                arrivalMs: t0 + Int64(i) * 1000, verdict: .kept, settings: settings)
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 7))
        try w.append(.tripStart(activity: "ride", software: "test"))
        try w.append(.segmentStart(.start, timeMs: t0))
        try w.append(.points((0..<10).map { raw($0).fix }))
        try w.append(.rawFixes(RawBatch(activity: "ride", fixes: (0..<10).map(raw))))
        try w.append(.riderMark(RiderMark(kind: .lap, timeMs: 0)))
        try w.append(.riderMark(RiderMark(kind: .lap, timeMs: t0 + 5_500)))
        try w.sync()
        w.close()
        let trip = RefilterTests.trips(dir)[0]
        XCTAssertTrue(try LogReader(path: trip.files[0].path).scan().isClean, "no damage")
        var events: [TimelineEvent] = []
        try TripTimeline.read(trip) { events.append($0) }
        let marks = events.compactMap { e -> String? in
            guard case .riderMark(let k, let at) = e else { return nil }
            return "\(k)@\(at.map { String($0 - t0) } ?? "-")"
        }
        XCTAssertEqual(marks, ["lap@-", "lap@5500"], "\(events)")
        XCTAssertEqual(try TripMarks.read(trip), TripMarks(lapTimesMs: [t0 + 5_500], untimed: 1))
    }
}

import XCTest

@testable import CairnExport
@testable import cairn

/// `cairn info` lists the rider's presses (issue 41): the laps the exports make of them, when
/// each was pressed, and a long press's end; nothing for a trip without presses.
final class RiderLapsInfoTests: XCTestCase {
    func testInfoListsTheRidersLaps() {
        let t0: Int64 = 1_748_764_800_000  // 2025-06-01T08:00:00Z
        let s = TripSummary(id: 7, files: ["/x/00000007.cairn"])
        let two = InfoCommand.describe(s, marks: TripMarks(lapTimesMs: [t0 + 65_000, t0 + 3_600_000], endMs: t0 + 4_000_000))
        XCTAssertTrue(two.contains("  laps:       3 (the rider's button: a lap from 08:01:05Z, 09:00:00Z; ended at 09:06:40Z)"), two)
        let ended = InfoCommand.describe(s, marks: TripMarks(endMs: t0))
        XCTAssertTrue(ended.contains("  laps:       1 (the rider's button: ended at 08:00:00Z)"), ended)
        let many = InfoCommand.describe(s, marks: TripMarks(lapTimesMs: (1...12).map { t0 + Int64($0) * 1000 }))
        XCTAssertTrue(many.contains("08:00:10Z and 2 more)"), many)
        XCTAssertFalse(InfoCommand.describe(s).contains("laps:"))
        let zoned = InfoCommand.describe(s, published: true, marks: TripMarks(lapTimesMs: [t0 + 65_000]))
        XCTAssertTrue(zoned.contains("  laps:       2 (the rider's button; no times with privacy zones)"), zoned)
    }
}

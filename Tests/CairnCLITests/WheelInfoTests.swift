import CairnCore
import XCTest

@testable import CairnExport
@testable import cairn

/// `cairn info`'s distance line over gaps the wheel measured (issue 40): the wheel may measure
/// less than the straight lines (down to 0.8 of them), which is said as less, not as "-1 m more"
/// (attack-r22 case 20).
final class WheelInfoTests: XCTestCase {
    func testTheWheelsDifferenceIsSaidAsMoreOrLess() {
        var s = TripSummary(id: 3, files: ["/x/00000003.cairn"])
        s.stats.add(Fix(timeMs: 1_748_764_800_000, lat: 47.0, lon: 8.0, mode: 3))
        s.wheelGaps = 1
        s.wheelDistanceM = -1
        let less = InfoCommand.describe(s)
        XCTAssertTrue(less.contains("(1 m less than the straight lines over 1 gap, from the wheel)"), less)
        s.wheelDistanceM = 208
        s.wheelGaps = 2
        let more = InfoCommand.describe(s)
        XCTAssertTrue(more.contains("(208 m more than the straight lines over 2 gaps, from the wheel)"), more)
    }
}

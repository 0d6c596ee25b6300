import XCTest
@testable import CairnCore

final class ClimbCounterTests: XCTestCase {
    func testHysteresis() {
        let cases: [([Double], Double, Double, String)] = [
            ([100, 102, 98, 101, 99, 103, 100], 0, 0, "noise within 5 m never counts"),
            ([100, 110, 120, 130], 30, 0, "steady climb"),
            ([100, 130, 100], 30, 30, "up and down"),
            ([100, 104, 108, 104, 112], 12, 0, "a 4 m dip inside a climb is not a descent"),
            ([200, 150, 154, 140], 0, 60, "descent with a 4 m rise inside"),
            ([200, 150, 160, 140], 10, 70, "a 10 m rise inside a descent counts both ways")
        ]
        for (hs, up, down, why) in cases {
            var c = ClimbCounter(threshold: 5)
            for h in hs { c.add(height: h) }
            XCTAssertEqual(c.ascent, up, accuracy: 1e-9, why)
            XCTAssertEqual(c.descent, down, accuracy: 1e-9, why)
        }
    }

    func testNoHeightIsADash() {
        var c = ClimbCounter(threshold: 5)
        XCTAssertFalse(c.hasHeight)
        c.add(height: .nan)
        XCTAssertFalse(c.hasHeight)
        c.add(height: 10)
        XCTAssertTrue(c.hasHeight)
    }
}

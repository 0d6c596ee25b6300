import XCTest
@testable import CairnCore

/// `SpeedScale` alone (rule 6): twenty straight windows in one ratio under 0.70 scale the speeds.
final class SpeedScaleTests: XCTestCase {
    /// A window going straight north: displacement `d` against a path of 100 m with a course.
    private func window(_ s: inout SpeedScale, d: Double) {
        s.learn(d: d, de: 0, dn: d, p: 100, pd: 100, pe: 0, pn: 100, floor: 20)
    }

    func testKnotsAsMetresPerSecondAreScaledAfterTwentyWindows() {
        var s = SpeedScale()
        for _ in 0..<19 { window(&s, d: 51.5) }
        XCTAssertEqual(s.factor, 1, "nineteen windows are not enough")
        window(&s, d: 51.5)
        XCTAssertEqual(s.factor, 0.515, accuracy: 1e-9)
    }

    func testARatioOverSeventyPercentOrOneThatVariesScalesNothing() {
        var s = SpeedScale()
        for _ in 0..<20 { window(&s, d: 75) }
        XCTAssertEqual(s.factor, 1)
        for i in 0..<20 { window(&s, d: i % 2 == 0 ? 40 : 60) }
        XCTAssertEqual(s.factor, 1, "the ratio must hold within 5 %")
    }

    func testABendOrAShortWindowBreaksTheRun() {
        var s = SpeedScale()
        for _ in 0..<10 { window(&s, d: 51.5) }
        window(&s, d: 10)  // under the floor
        for _ in 0..<19 { window(&s, d: 51.5) }
        XCTAssertEqual(s.factor, 1)
        window(&s, d: 51.5)
        XCTAssertEqual(s.factor, 0.515, accuracy: 1e-9)
    }
}

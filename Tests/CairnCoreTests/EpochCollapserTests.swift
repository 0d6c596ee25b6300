import XCTest
@testable import CairnCore

final class EpochCollapserTests: XCTestCase {
    func testKeepsMostCompleteReportPerEpoch() {
        var c = EpochCollapser()
        var noAlt = fix(0, alt: nil)
        noAlt.lat += 0.0001
        XCTAssertNil(c.offer(fix(0)))
        XCTAssertNil(c.offer(noAlt))  // less complete: the earlier one stays
        let later = fix(0, north: 1)
        XCTAssertNil(c.offer(later))  // as complete: the later one wins
        XCTAssertEqual(c.offer(fix(1)), later)  // a new time releases the epoch
        XCTAssertEqual(c.collapsed, 2)
        XCTAssertEqual(c.flush(), fix(1))
        XCTAssertNil(c.flush())
    }

    func testNineteenReportsForOneTime() {
        var c = EpochCollapser()
        for i in 0..<19 { XCTAssertNil(c.offer(fix(5, north: Double(i)))) }
        XCTAssertEqual(c.flush()?.lat, fix(5, north: 18).lat)
        XCTAssertEqual(c.collapsed, 18)
    }
}

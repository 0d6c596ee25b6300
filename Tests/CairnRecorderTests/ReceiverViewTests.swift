import CairnCore
import XCTest

@testable import CairnRecorder

final class ReceiverViewTests: XCTestCase {
    func testTheStatusShowsTheNewestFixUntilItIsStale() {
        var v = ReceiverView()
        var live = LiveStatus()
        v.fill(&live, mono: 0, tripOpen: true, standing: false, pauseAfterMs: 60_000)
        XCTAssertEqual(live.state, "gap")  // no usable fix yet
        XCTAssertNil(live.speedMps)
        var f = Fix(timeMs: 1_700_000_000_000, lat: 1, lon: 2, mode: 3)
        f.speed = 5
        v.saw(f, arrivedMono: 1000)
        v.fill(&live, mono: 3000, tripOpen: true, standing: false, pauseAfterMs: 60_000)
        XCTAssertEqual(live.state, "recording")
        XCTAssertEqual(live.fixMode, 3)
        XCTAssertEqual(live.fixAgeS, 2)
        XCTAssertEqual(live.speedMps, 5)
        v.fill(&live, mono: 1000 + LiveStatus.speedStaleMs, tripOpen: true, standing: false, pauseAfterMs: 60_000)
        XCTAssertNil(live.speedMps, "a stale fix's speed is a dash")
        v.standing(true, mono: 4000)
        v.standing(true, mono: 5000)  // still counted from the first
        v.fill(&live, mono: 64_000, tripOpen: true, standing: true, pauseAfterMs: 60_000)
        XCTAssertEqual(live.state, "gap")  // 63 s since the last usable fix
        v.saw(f, arrivedMono: 64_000)
        v.fill(&live, mono: 64_000, tripOpen: true, standing: true, pauseAfterMs: 60_000)
        XCTAssertEqual(live.state, "paused")
        XCTAssertNil(live.speedMps, "standing: a dash")
        v.sawNoFix()
        v.fill(&live, mono: 64_000, tripOpen: false, standing: false, pauseAfterMs: 60_000)
        XCTAssertEqual(live.state, "waiting")
        XCTAssertEqual(live.fixMode, 0)
        XCTAssertNil(live.accuracyM)
    }
}

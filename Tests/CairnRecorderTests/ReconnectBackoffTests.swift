import XCTest

@testable import CairnRecorder

final class ReconnectBackoffTests: XCTestCase {
    func testWaitsDoubleUpToEightSecondsAndStartOverOnceConnected() {
        var b = ReconnectBackoff()
        XCTAssertEqual((0..<8).map { _ in b.nextDelayMs() }, [250, 500, 1000, 2000, 4000, 8000, 8000, 8000])
        b.reportedDown = true
        b.connected()
        XCTAssertFalse(b.reportedDown)
        XCTAssertEqual(b.nextDelayMs(), 250)
    }
}

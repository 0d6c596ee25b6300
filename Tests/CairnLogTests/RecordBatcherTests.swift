import CairnCore
import XCTest
@testable import CairnLog

final class RecordBatcherTests: XCTestCase {
    func fix(_ i: Int) -> Fix { Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 1 + Double(i) * 1e-4, lon: 2, mode: 3) }

    func testBatchesFillAndAcknowledgementForgets() {
        var b = RecordBatcher()
        var frames = FrameEncoder(salt: 3)
        for i in 0..<(RecordBatcher.pointsBatchCapacity - 1) { XCTAssertFalse(b.add(point: fix(i))) }
        XCTAssertTrue(b.add(point: fix(255)), "the 256th point fills the batch")
        XCTAssertEqual(b.unacknowledged, [.points((0..<256).map(fix))], "pending points count as unacknowledged")
        b.framePendingPoints(into: &frames)
        XCTAssertTrue(b.pendingPoints.isEmpty)
        XCTAssertEqual(frames.lastSeq, 1)
        b.didFrame(.note("n"))
        _ = b.add(point: fix(300))
        b.accepted(weight: 258)
        XCTAssertEqual(b.weight, 258)
        XCTAssertEqual(b.unacknowledged, [.points((0..<256).map(fix)), .note("n"), .points([fix(300)])])
        XCTAssertNotNil(b.pendingPointsBodyCount)
        b.framePendingPoints(into: &frames)
        b.acknowledge()
        XCTAssertEqual(b.unacknowledged, [])
        XCTAssertEqual(b.weight, 0)
        XCTAssertNil(b.pendingPointsBodyCount)
    }
}

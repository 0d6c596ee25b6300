import CairnCore
import XCTest

@testable import CairnLog

/// The writer's parts on their own: the frame encoder (pure) and the batcher's bookkeeping.
final class FrameEncoderTests: XCTestCase {
    func testFramesMatchTheSpecAndNumberInOrder() {
        var e = FrameEncoder(salt: 0xABCD_0123)
        XCTAssertEqual(e.lastSeq, 0)
        XCTAssertTrue(e.frame(type: 9) { $0 += [1, 2, 3] })
        XCTAssertTrue(e.frame(type: 9) { $0 += [4] })
        XCTAssertEqual(e.lastSeq, 2)
        XCTAssertEqual(e.bytes, LogTestCase.handFrame(salt: 0xABCD_0123, type: 9, payload: LogTestCase.varint(1) + [1, 2, 3])
                                + LogTestCase.handFrame(salt: 0xABCD_0123, type: 9, payload: LogTestCase.varint(2) + [4]))
    }

    func testAnOversizedBodyLeavesNoTrace() {
        var e = FrameEncoder(salt: 1)
        XCTAssertTrue(e.frame(type: 9) { $0 += [7] })
        let before = e.bytes
        XCTAssertFalse(e.frame(type: 9) { $0 += [UInt8](repeating: 1, count: FrameFormat.maxPayload) })
        XCTAssertEqual(e.bytes, before)
        XCTAssertEqual(e.lastSeq, 1, "the refused frame took no sequence number")
    }

    func testPaddingEndsOnTheBoundaryFromEveryOffset() {
        for padding in [64, 512, 4096] {
            for end in [0, 1, 7, 8, 9, 63, 64, 65, 500, 511, 512, 513, 4095, 4096, 10_000] {
                var e = FrameEncoder(salt: 5)
                let gap = e.pad(fileEnd: end, to: padding)
                XCTAssertEqual((end + e.bytes.count) % padding, 0, "padding \(padding), end \(end)")
                XCTAssertEqual(gap, e.bytes.count)
                XCTAssertEqual(e.lastSeq, gap == 0 ? 0 : 1)
                if gap > 0 { XCTAssertEqual(e.bytes[6], FrameFormat.RecordType.padding) }
            }
        }
    }
}

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

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
        XCTAssertEqual(
            e.bytes,
            LogTestCase.handFrame(salt: 0xABCD_0123, type: 9, payload: LogTestCase.varint(1) + [1, 2, 3])
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

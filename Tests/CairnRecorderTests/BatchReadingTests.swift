import XCTest

@testable import CairnRecorder

final class BatchReadingTests: XCTestCase {
    func testTheGridKeepsItsStepWhateverABatchTook() {
        var b = BatchReading(everyMs: 5000)
        b.on = true
        b.start(atMono: 1000)
        XCTAssertEqual(b.nextMono, 1000)
        b.advance(nowMono: 1200)  // a batch taken on time
        XCTAssertEqual(b.nextMono, 6000)
        XCTAssertEqual(b.gridMono, 1000)
        b.advance(nowMono: 17_500)  // a long drain: the batches missed are skipped, on the grid
        XCTAssertEqual(b.nextMono, 21_000)
        XCTAssertEqual(b.gridMono, 16_000)
        b.advance(nowMono: 20_000)  // an early batch (16 KiB queued) keeps the grid
        XCTAssertEqual(b.nextMono, 21_000)
    }

    func testABatchIsTakenAThousandReportsAtATime() {
        var b = BatchReading(everyMs: 1000)
        b.on = true
        for _ in 0..<999 { b.took() }
        XCTAssertTrue(b.draining)
        XCTAssertTrue(b.inBatch)
        b.took()
        XCTAssertFalse(b.draining, "the housekeeping runs between")
        b.took()
        XCTAssertTrue(b.draining)
        b.foundEmpty(lastReportMono: 0)
        XCTAssertFalse(b.draining)
        XCTAssertFalse(b.inBatch)
    }

    func testReadingLiveTakesNoBatch() {
        var b = BatchReading(everyMs: 0)
        b.took()
        XCTAssertFalse(b.inBatch)
        XCTAssertFalse(b.draining)
    }
}

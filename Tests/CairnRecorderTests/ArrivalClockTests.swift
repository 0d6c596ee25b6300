import XCTest
@testable import CairnRecorder

final class ArrivalClockTests: XCTestCase {
    /// Fixes read in 5 s batches at 1 Hz: each gets back (within a second) the moment it
    /// arrived; a replay 20 times faster than real time, and a GPS clock that jumps, stay in
    /// order between the batches' reads.
    func testArrivalClockForBatchedReports() {
        var c = ArrivalClock()
        let offset: Int64 = 1_700_000_000_000  // GPS time − monotonic time
        var worst: Int64 = 0
        var t: Int64 = 0
        for batch in 1...20 {
            let read = Int64(batch) * 5000 + 300  // the batch is read a little after its last report
            while t <= read - 300 {
                let got = c.arrival(fixTimeMs: offset + t, readMonoMs: read)
                if batch > 1 { worst = max(worst, abs(got - t)) }
                XCTAssertLessThanOrEqual(got, read)
                t += 1000
            }
            c.endBatch(monoMs: read)
        }
        XCTAssertLessThanOrEqual(worst, 1000, "within a second of the arrival")

        // 20 epochs a second of ride time: a batch of 100 fixes read every 5 s. Arrivals stay
        // between the previous read and this one, and never go back.
        var fast = ArrivalClock()
        var last: Int64 = .min
        var fixTime: Int64 = 0
        for batch in 1...5 {
            let read = Int64(batch) * 5000
            for _ in 0..<100 {
                fixTime += 1000
                let got = fast.arrival(fixTimeMs: fixTime, readMonoMs: read)
                XCTAssertGreaterThanOrEqual(got, last)
                XCTAssertLessThanOrEqual(got, read)
                if batch > 1 { XCTAssertGreaterThanOrEqual(got, read - 5000) }
                last = got
            }
            fast.endBatch(monoMs: read)
        }

        // The GPS clock jumps back an hour: the next fixes land at the previous read, not before.
        var jump = ArrivalClock()
        _ = jump.arrival(fixTimeMs: offset + 4000, readMonoMs: 5000)
        jump.endBatch(monoMs: 5000)
        XCTAssertEqual(jump.arrival(fixTimeMs: offset + 5000 - 3_600_000, readMonoMs: 10_000), 5000)
    }
}

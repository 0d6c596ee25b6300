import XCTest

@testable import CairnCore

final class HeldQueueTests: XCTestCase {
    /// Appends and takes in bursts of every size around the compaction point: the items come out
    /// in the order they went in, and the array never keeps more than `compactAfter` + 1 taken.
    func testTakesInOrderAndDropsTheTakenFront() {
        let limit = HeldQueue<Int>.compactAfter
        for burst in [1, 2, 7, limit - 1, limit, limit + 1, limit + 2, 3 * limit] {
            var q = HeldQueue<Int>()
            var expected: [Int] = []
            var next = 0, taken = 0
            for round in 0..<6 {
                for _ in 0..<burst {
                    q.append(next)
                    expected.append(next)
                    next += 1
                }
                // Leave some waiting on even rounds, take all on odd ones.
                let take = round % 2 == 0 ? burst / 2 + 1 : q.count
                for _ in 0..<take {
                    XCTAssertEqual(q.first, expected[taken], "burst \(burst)")
                    XCTAssertEqual(q.popFirst(), expected[taken], "burst \(burst)")
                    taken += 1
                    XCTAssertLessThanOrEqual(q.storedCount - q.count, limit + 1, "burst \(burst)")
                }
                XCTAssertEqual(q.count, next - taken, "burst \(burst)")
                XCTAssertEqual(q.isEmpty, next == taken, "burst \(burst)")
            }
        }
    }

    /// An emptied queue keeps nothing taken; popping an empty one gives nil.
    func testEmptyingDropsEverything() {
        var q = HeldQueue<String>()
        XCTAssertNil(q.popFirst())
        XCTAssertNil(q.first)
        q.append("a")
        q.append("b")
        XCTAssertEqual(q.popFirst(), "a")
        XCTAssertEqual(q.storedCount, 2)
        XCTAssertEqual(q.popFirst(), "b")
        XCTAssertEqual(q.storedCount, 0)
        XCTAssertTrue(q.isEmpty)
        XCTAssertNil(q.popFirst())
    }

    /// `removeAll` forgets what waits; the queue takes new items after it.
    func testRemoveAll() {
        var q = HeldQueue<Int>()
        for i in 0..<10 { q.append(i) }
        q.popFirst()
        q.removeAll()
        XCTAssertTrue(q.isEmpty)
        XCTAssertEqual(q.storedCount, 0)
        q.append(42)
        XCTAssertEqual(q.popFirst(), 42)
    }
}

import XCTest
@testable import CairnCore

final class RingBufferTests: XCTestCase {
    /// Every wrap-around layout: each start slot × each count, for several capacities.
    func testEveryLayout() {
        for capacity in [1, 2, 3, 5, 10] {
            for start in 0..<capacity {
                for count in 0...capacity {
                    var r = RingBuffer<Int>(capacity: capacity)
                    for i in 0..<start { r.append(-i) }
                    for _ in 0..<start { r.popFirst() }
                    for i in 0..<count { r.append(i) }
                    XCTAssertEqual(r.count, count)
                    for i in 0..<count { XCTAssertEqual(r[i], i) }
                    XCTAssertEqual(r.first, count > 0 ? 0 : nil)
                    XCTAssertEqual(r.last, count > 0 ? count - 1 : nil)
                    // Appending to a full ring overwrites the oldest.
                    if count == capacity {
                        r.append(99)
                        XCTAssertEqual(r.count, capacity)
                        XCTAssertEqual(r.last, 99)
                        XCTAssertEqual(r.overwritten, 1)
                        XCTAssertEqual(r.first, capacity > 1 ? 1 : 99)
                    }
                }
            }
        }
    }

    func testPopDrains() {
        var r = RingBuffer<String>(capacity: 3)
        for s in ["a", "b", "c", "d"] { r.append(s) }
        XCTAssertEqual([r.popFirst(), r.popFirst(), r.popFirst(), r.popFirst()], ["b", "c", "d", nil])
        XCTAssertTrue(r.isEmpty)
    }
}

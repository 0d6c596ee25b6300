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

    /// Storage follows what the ring holds at once, not its capacity: a 4,096-record ring that
    /// holds three costs four slots (it allocated and wrote all 4,096 at its creation), and
    /// grows, in order, up to the capacity and no further.
    func testStorageGrowsWithWhatItHoldsUpToTheCapacity() {
        var r = RingBuffer<Int>(capacity: 4096)
        XCTAssertEqual(r.storageSize, 0)
        for round in 0..<1000 {
            for i in 0..<3 { r.append(round * 3 + i) }
            for i in 0..<3 { XCTAssertEqual(r.popFirst(), round * 3 + i) }
        }
        XCTAssertEqual(r.storageSize, 4)
        // Wrapped, then grown: the order stays.
        var small = RingBuffer<Int>(capacity: 10)
        for i in 0..<3 { small.append(i) }
        XCTAssertEqual(small.popFirst(), 0)
        for i in 3..<9 { small.append(i) }
        XCTAssertEqual(small.storageSize, 8)
        for i in 9..<15 { small.append(i) }
        XCTAssertEqual(small.storageSize, 10)
        XCTAssertEqual(small.overwritten, 4)
        XCTAssertEqual((0..<small.count).map { small[$0] }, Array(5..<15))
    }
}

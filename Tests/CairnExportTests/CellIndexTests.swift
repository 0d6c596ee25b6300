import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class CellIndexTests: XCTestCase {
    func sample() -> CellIndex {
        var rng = SplitMix64(state: 3)
        let files = (1...4).map { n -> CellIndex.FileEntry in
            let cells = (0..<50).map { _ -> (cell: UInt64, visit: CellVisit) in
                let t = 1_748_764_800_000 + Int64(rng.next() % 10_000_000)
                return (rng.next() >> 29, CellVisit(firstMs: t, lastMs: t + Int64(rng.next() % 100_000)))
            }
            return CellIndex.FileEntry(
                name: LogDirectory.fileName(number: UInt32(n)), size: Int64(1000 * n), mtimeNs: 1_700_000_000_123_456_789,
                inode: UInt64(n) + 100, tripId: UInt64(n), part: 0, points: 10 * n, cells: cells)
        }
        return CellIndex(files: files)
    }

    func testRoundTrip() throws {
        let i = sample()
        XCTAssertEqual(try CellIndex.decode(i.encode()), i)
        XCTAssertEqual(try CellIndex.decode(CellIndex().encode()), CellIndex())
    }

    /// Any one byte changed, and any truncation, is found: the index is rebuilt, never trusted.
    func testDamageIsAlwaysFound() {
        let bytes = sample().encode()
        for i in stride(from: 0, to: bytes.count, by: 1) {
            var b = bytes
            b[i] ^= 0x40
            XCTAssertThrowsError(try CellIndex.decode(b), "byte \(i) changed")
        }
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try CellIndex.decode(Array(bytes[0..<n])), "cut at \(n)")
        }
        XCTAssertThrowsError(try CellIndex.decode(bytes + [0]))
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class CellsConcurrencyAttackTests: XCTestCase {
    /// Two `cells` at once on one directory: both used the one temporary name, so each removed
    /// the other's file as a leftover and one rename found nothing ("cannot save the index"),
    /// or put a file still being written in place. Each now writes its own, and every index
    /// left is complete.
    func testTwoRunsAtOnceEachSaveACompleteIndex() throws {
        let dir = ExportSupport.tempDir()
        for n in 1...12 {
            try ExportSupport.writeLog(
                TripSpec(id: UInt64(n), segments: [(.start, ExportSupport.ride(300, seed: UInt64(n), lat: 40 + Double(n) / 10))]),
                dir: dir, number: UInt32(n))
        }
        let index = ExploredCells.indexPath(dir)
        let notes = Box<[String]>([])
        for _ in 0..<25 {
            unlink(index)
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    let r = ExploredCells.collect(
                        paths: [dir], precision: 7, prefix: nil, settleNs: 0, problem: { _ in }, note: { n in notes.update { $0.append(n) } })
                    XCTAssertFalse(r.cells.isEmpty)
                    group.leave()
                }
            }
            group.wait()
            guard case .loaded(let i) = ExploredCells.loadIndex(index) else { return XCTFail("the index left is not complete") }
            XCTAssertEqual(i.files.count, 12)
        }
        XCTAssertEqual(notes.get(), [], "no run failed to save its index")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".part") }
        XCTAssertEqual(leftovers, [])
    }
}

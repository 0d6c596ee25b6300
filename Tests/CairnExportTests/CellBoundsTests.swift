import CairnCore
import XCTest

@testable import CairnExport

/// Issue 27, findings 7 and 10: what one walk and one index entry may hold.
final class CellBoundsTests: XCTestCase {
    func testAWalkOfZigzagStepsStaysWithinItsBudget() {
        var walk = CellWalk()
        let row = 180.0 / Double(1 << 17)
        for i in 0..<230 {
            walk.add(lat: 10 + Double(i) * row, lon: i % 2 == 0 ? 8.5 : 13.9, timeMs: Int64(i) * 1000)
        }
        XCTAssertLessThanOrEqual(walk.cells.count, CellWalk.maxCells(points: 230))
        XCTAssertGreaterThan(walk.stepsCut, 200)
    }

    func testAnOrdinaryRideIsNotCut() {
        var walk = CellWalk()
        for f in ExportSupport.ride(3600) { walk.add(lat: f.lat, lon: f.lon, timeMs: f.timeMs) }
        XCTAssertEqual(walk.stepsCut, 0)
        XCTAssertEqual(walk.cellsLeftOut, 0)
    }

    func testAnIndexEntryWithMoreCellsThanItsPointsCanCrossIsDamage() {
        let cells = (0..<(CellWalk.maxCells(points: 1) + 1)).map { (cell: UInt64($0), visit: CellVisit(firstMs: 0, lastMs: 0)) }
        let entry = CellIndex.FileEntry(name: "00000001.cairn", size: 100, mtimeNs: 0, inode: 1, tripId: 1, part: 0, points: 1, cells: cells)
        XCTAssertThrowsError(try CellIndex.decode(CellIndex(files: [entry]).encode())) { e in
            XCTAssertTrue("\(e)".contains("more than 1 points can cross"), "\(e)")
        }
    }

    func testTheIndexBoundFollowsTheLogs() {
        XCTAssertEqual(CellIndex.maxBytes(logSizes: []), 42)
        XCTAssertLessThan(CellIndex.maxBytes(logSizes: [1000]), 3_000_000)
        XCTAssertGreaterThan(CellIndex.maxBytes(logSizes: [1000, 1000]), CellIndex.maxBytes(logSizes: [1000]))
    }
}

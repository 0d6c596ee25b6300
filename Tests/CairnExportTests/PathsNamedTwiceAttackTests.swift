import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class PathsNamedTwiceAttackTests: XCTestCase {
    /// `cairn cells d d/` (or `d d/00000001.cairn`, `list d ./d`): each path was read as its own,
    /// so one ride was 2 or 3 trips in every cell it touched, listed and converted twice.
    func testALogNamedTwiceIsReadOnce() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(200))]), dir: dir, number: 1)
        try ExportSupport.writeLog(TripSpec(id: 2, segments: [(.start, ExportSupport.ride(200, seed: 3, lat: 46.2, lon: 6.1))]), dir: dir, number: 2)
        let paths = [dir, dir + "/", dir + "/./", dir + "/00000001.cairn"]
        let r = ExploredCells.collect(paths: paths, precision: 7, prefix: nil, settleNs: 0, problem: { XCTFail($0) }, note: { _ in })
        XCTAssertFalse(r.cells.isEmpty)
        XCTAssertEqual(r.cells.map(\.trips).max(), 1, "one ride is one trip in its cells")
        let once = ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, settleNs: 0, problem: { XCTFail($0) }, note: { _ in })
        XCTAssertEqual(r.cells, once.cells)
        let files = TripCatalog.files(paths) { XCTFail($0) }
        XCTAssertEqual(files.count, 2)
        XCTAssertEqual(TripCatalog.trips(files).map(\.id), [1, 2])
    }
}

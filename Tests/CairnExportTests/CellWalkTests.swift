import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class CellWalkTests: XCTestCase {
    /// Every point along a step lies in a cell the walk marked, and it marks no more cells than
    /// the grid lines the step crosses.
    func testEveryCellAlongAStepIsMarked() {
        var rng = SplitMix64(state: 11)
        for _ in 0..<300 {
            let lat = rng.uniform() * 150 - 75, lon = rng.uniform() * 350 - 175
            let dLat = (rng.uniform() - 0.5) * 0.05, dLon = (rng.uniform() - 0.5) * 0.05
            var walk = CellWalk()
            walk.add(lat: lat, lon: lon, timeMs: 0)
            walk.add(lat: lat + dLat, lon: lon + dLon, timeMs: 100_000)
            let g = walk.grid
            for k in 0...400 {
                let s = Double(k) / 400
                let c = Geohash.cell(lat: lat + s * dLat, lon: lon + s * dLon)
                XCTAssertNotNil(walk.cells[c], "a point of the step at \(s) is in an unmarked cell")
            }
            let crossings = abs(floor(g.x(lon: lon + dLon)) - floor(g.x(lon: lon))) + abs(floor(g.y(lat: lat + dLat)) - floor(g.y(lat: lat)))
            XCTAssertLessThanOrEqual(Double(walk.cells.count), crossings + 1)
        }
    }

    func testTimesAreInterpolatedAlongTheStep() {
        var walk = CellWalk()
        // Due east along one row, 20 cells of ~0.00137° each.
        let w = 360 / Double(1 << 18)
        let west = -180 + (188 / w).rounded(.down) * w  // a cell's west edge near 8° E
        walk.add(lat: 47.0001, lon: west + w / 2, timeMs: 0)
        walk.add(lat: 47.0001, lon: west + 20.5 * w, timeMs: 20_000)
        XCTAssertEqual(walk.cells.count, 21)
        // West to east: along one row the cell number grows with the column (times to the
        // second tie, and the dictionary's order decided between equal times).
        let ordered = walk.cells.sorted { $0.key < $1.key }
        // Cell i is entered at i - 0.5 s, and said to the second.
        for (i, c) in ordered.enumerated() {
            XCTAssertEqual(c.value.firstMs % 1000, 0)
            XCTAssertEqual(Double(c.value.firstMs), max(0, Double(i) * 1000 - 500), accuracy: 500)
            XCTAssertEqual(Double(c.value.lastMs), min(20_000, Double(i) * 1000 + 500), accuracy: 500)
        }
    }

    func testAntimeridianTakesTheShortWay() {
        var walk = CellWalk()
        walk.add(lat: 10, lon: 179.9990, timeMs: 0)
        walk.add(lat: 10, lon: -179.9990, timeMs: 1000)
        XCTAssertLessThanOrEqual(walk.cells.count, 3)
        XCTAssertTrue(walk.cells.keys.contains(Geohash.cell(lat: 10, lon: 179.9999)))
        XCTAssertTrue(walk.cells.keys.contains(Geohash.cell(lat: 10, lon: -179.9999)))
    }

    func testAJumpAcrossTheWorldMarksItsEndsOnly() {
        var walk = CellWalk()
        walk.add(lat: 47, lon: 8, timeMs: 0)
        walk.add(lat: -33, lon: 151, timeMs: 1000)
        XCTAssertEqual(walk.cells.count, 2)
    }

    func testABrokenLineIsNotJoined() {
        var walk = CellWalk()
        walk.add(lat: 47, lon: 8, timeMs: 0)
        walk.breakLine()
        walk.add(lat: 47, lon: 8.1, timeMs: 1000)
        XCTAssertEqual(walk.cells.count, 2)
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class SimplifyTests: XCTestCase {
    func testStraightLineAndCorner() {
        let line = (0...100).map { Simplify.Point(Double($0), 0.1 * Double($0 % 2)) }
        XCTAssertEqual(Simplify.douglasPeucker(line, tolerance: 0.5), [0, 100])
        let corner = (0...50).map { Simplify.Point(Double($0), 0) } + (1...50).map { Simplify.Point(50, Double($0)) }
        XCTAssertEqual(Simplify.douglasPeucker(corner, tolerance: 0.5), [0, 50, 100])
    }

    /// Every input point stays within the tolerance of the drawn line, chunk after chunk.
    func testStreamStaysWithinTolerance() {
        var rng = SplitMix64(state: 2)
        var pts: [Simplify.Point] = []
        var x = 0.0, y = 0.0
        for _ in 0..<5000 { x += rng.uniform(); y += rng.gauss(1); pts.append(Simplify.Point(x, y)) }
        var s = Simplify.Stream(tolerance: 0.5, chunk: 256)
        var out: [Simplify.Point] = []
        for p in pts { out += s.add(p) }
        out += s.finish()
        XCTAssertLessThan(out.count, pts.count)
        XCTAssertEqual(out.first, pts.first)
        XCTAssertEqual(out.last, pts.last)
        var j = 0
        for p in pts {
            // The output is in order: the nearest drawn piece is at or after the last one used.
            var best = Double.infinity, at = j
            for k in j..<min(j + 40, out.count - 1) {
                let d = Simplify.distanceSquared(p, out[k], out[k + 1])
                if d < best { best = d; at = k }
            }
            XCTAssertLessThanOrEqual(best.squareRoot(), 0.5 + 0.05 + 1e-9)
            j = at
        }
    }
}

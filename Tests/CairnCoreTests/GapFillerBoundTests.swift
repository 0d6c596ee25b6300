import XCTest

@testable import CairnCore

/// Issue 27, finding 9: `--fill-gaps` is bounded per gap and per trip, and says what it left out.
final class GapFillerBoundTests: XCTestCase {
    func moving(_ t: Int64, lat: Double, lon: Double = 8.5) -> Fix {
        var f = Fix(timeMs: t, lat: lat, lon: lon, mode: 3)
        f.speed = 6
        f.track = 0
        return f
    }

    func testAMonthLongGapIsNotFilled() {
        var filler = GapFiller()
        var made = 0
        let t0: Int64 = 1_748_764_800_000
        filler.push(.segment(.start)) { _ in }
        filler.push(.point(moving(t0, lat: 47), .measured)) { _ in }
        filler.push(.point(moving(t0 + 30 * 86_400_000, lat: 47.01), .measured)) { if case .point(_, .interpolated) = $0 { made += 1 } }
        XCTAssertEqual(made, 0)
        XCTAssertEqual(filler.tooLong, 1)
        XCTAssertEqual(filler.gaps, 0)
        XCTAssertTrue(GapFiller.unfilledNote(tooLong: 1, overBudget: 0).contains("1 gap longer than 10 min"))
    }

    func testATunnelOfFiveMinutesIsStillFilled() {
        var filler = GapFiller()
        var made = 0
        let t0: Int64 = 1_748_764_800_000
        filler.push(.point(moving(t0, lat: 47), .measured)) { _ in }
        filler.push(.point(moving(t0 + 300_000, lat: 47.0162), .measured)) { if case .point(_, .interpolated) = $0 { made += 1 } }
        XCTAssertEqual(made, 299)
        XCTAssertEqual(filler.tooLong + filler.overBudget, 0)
    }

    func testATripGetsAtMostItsBudgetOfMadeUpPoints() {
        var filler = GapFiller()
        var made = 0
        var t: Int64 = 1_748_764_800_000
        var lat = 47.0
        filler.push(.point(moving(t, lat: lat), .measured)) { _ in }
        // Twenty gaps of 9 minutes: 10,780 points unbounded.
        for _ in 0..<20 {
            t += 540_000
            lat += 0.03
            filler.push(.point(moving(t, lat: lat), .measured)) { if case .point(_, .interpolated) = $0 { made += 1 } }
            t += 1000
            lat += 0.00005
            filler.push(.point(moving(t, lat: lat), .measured)) { _ in }
        }
        XCTAssertLessThanOrEqual(made, GapFiller.maxPointsPerTrip)
        XCTAssertEqual(made, 6 * 539)
        XCTAssertEqual(filler.gaps, 6)
        XCTAssertEqual(filler.overBudget, 14)
    }
}

import XCTest
@testable import CairnCore

/// `TimeLine` alone (rule 12): what it holds, drops and hands back.
final class TimeLineTests: XCTestCase {
    private let hourAndMore = 3_700.0

    private func judge(_ line: inout TimeLine, _ f: Fix, drops: inout [DropReason]) -> TimeLine.Verdict {
        line.judge(f, nowMs: f.timeMs, arrivalMs: nil, gapMs: 10_000, limits: RuleLimits()) {
            if case .drop(let r, _) = $0 { drops.append(r) }
        }
    }

    func testATimeThatMovedIsConfirmedByTwoSuccessors() {
        var line = TimeLine()
        var drops: [DropReason] = []
        for t in 0..<3 { XCTAssertEqual(judge(&line, fix(Double(t)), drops: &drops), .onLine) }
        XCTAssertEqual(judge(&line, fix(hourAndMore), drops: &drops), .held)
        XCTAssertEqual(judge(&line, fix(hourAndMore + 1), drops: &drops), .held)
        XCTAssertEqual(judge(&line, fix(hourAndMore + 2), drops: &drops), .jumpConfirmed)
        XCTAssertEqual(line.takeSuspects().map(\.fix.timeMs), [0, 1, 2].map { fix(hourAndMore + Double($0)).timeMs })
        XCTAssertEqual(drops, [])
    }

    func testAnOutlierIsDroppedWhenTheLineGoesOn() {
        var line = TimeLine()
        var drops: [DropReason] = []
        for t in 0..<3 { XCTAssertEqual(judge(&line, fix(Double(t)), drops: &drops), .onLine) }
        XCTAssertEqual(judge(&line, fix(hourAndMore), drops: &drops), .held)
        XCTAssertEqual(judge(&line, fix(3), drops: &drops), .onLine)
        XCTAssertEqual(drops, [.timeJump])
        XCTAssertEqual(judge(&line, fix(3), drops: &drops), .held, "not after the newest")
        XCTAssertEqual(drops, [.timeJump, .timeNotAfter])
    }

    func testASilenceAheadOfTheArrivalClockIsConfirmedAsAGap() {
        var line = TimeLine()
        var drops: [DropReason] = []
        XCTAssertEqual(judge(&line, fix(0), drops: &drops), .onLine)
        XCTAssertEqual(judge(&line, fix(60), drops: &drops), .held, "a minute ahead of no elapsed arrival time")
        XCTAssertEqual(judge(&line, fix(61), drops: &drops), .held)
        XCTAssertEqual(judge(&line, fix(62), drops: &drops), .gapConfirmed)
        XCTAssertEqual(drops, [])
    }
}

import XCTest

@testable import CairnDevice

/// The rate limit on what is said of a sensor's link going down and up.
final class LinkLinesTests: XCTestCase {
    /// (time in s, up, exempt, the line said or nil), in order; `due` is asked before each.
    typealias Step = (t: Int64, up: Bool, exempt: Bool, said: String?, dueSaid: String?)

    func run(_ steps: [Step], file: StaticString = #filePath, line: UInt = #line) {
        var l = LinkLines()
        for (i, s) in steps.enumerated() {
            XCTAssertEqual(l.due(monoMs: s.t * 1000), s.dueSaid, "step \(i) (due)", file: file, line: line)
            XCTAssertEqual(
                l.change(up: s.up, s.up ? "up" : "down", monoMs: s.t * 1000, exempt: s.exempt), s.said, "step \(i)", file: file,
                line: line)
        }
    }

    func testABurstThenOneLinePerFiveMinutes() {
        run([
            (0, true, false, "up", nil), (1, false, false, "down", nil), (2, true, false, "up", nil), (3, false, false, "down", nil),
            (4, true, false, "up", nil), (5, false, false, "down", nil),
            // The bucket is empty: held back; the journal put right when the next token comes.
            (6, true, false, nil, nil), (7, false, false, nil, nil), (8, true, false, nil, nil),
            (306, false, false, nil, "up (after 2 changes not said one by one)"),
            (607, true, false, nil, "down"),
            // Down and up again while held back: the state the journal shows, and how often.
            (608, false, false, nil, nil), (1000, true, false, nil, "down (up and down again 1 times, not said one by one)")
        ])
    }

    /// Six changes a second apart, up first: the bucket used up.
    static let burst: [Step] = [
        (0, true, false, "up", nil), (1, false, false, "down", nil), (2, true, false, "up", nil), (3, false, false, "down", nil),
        (4, true, false, "up", nil), (5, false, false, "down", nil)
    ]

    func testAChangeAfterAQuietSpellIsAlwaysSaid() {
        var steps = Self.burst
        steps.append((301, true, false, "up", nil))
        steps.append((3000, false, false, "down", nil))
        run(steps)
    }

    func testTheAdaptersLinesAreAlwaysSaidAndPutTheJournalRight() {
        var steps = Self.burst
        steps.append((7, true, false, nil, nil))
        steps.append((8, false, true, "down (up and down again 1 times, not said one by one)", nil))
        steps.append((10, true, true, "up", nil))
        steps.append((11, false, false, nil, nil))
        run(steps)
        var l = LinkLines()
        for i in 0..<6 { _ = l.change(up: i % 2 == 0, "x", monoMs: Int64(i)) }
        XCTAssertEqual(l.msUntilDue(monoMs: 10), .max, "nothing held back")
        _ = l.change(up: true, "up", monoMs: 10)
        XCTAssertEqual(l.msUntilDue(monoMs: 10), 300_000 - 10 + 5 * 0, "the next token")
    }
}

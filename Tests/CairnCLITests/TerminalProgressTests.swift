import XCTest

@testable import cairn

/// Progress on long work (issue 42, item 3): one line redrawn in place on a terminal, cleared
/// at the end and before anything else is said; nothing into a pipe or the journal, nothing for
/// one step.
final class TerminalProgressTests: XCTestCase {
    func testATerminalSeesOneLineRedrawnAndCleared() {
        var out: [String] = []
        var p = TerminalProgress(total: 3, terminal: true) { out.append($0) }
        p.step(1, "trip 4")
        p.step(2, "trip 9")
        p.clear()
        p.clear()
        XCTAssertEqual(
            out,
            [
                "\r\u{1B}[Kcairn: converting trip 4 (1 of 3)...", "\r\u{1B}[Kcairn: converting trip 9 (2 of 3)...", "\r\u{1B}[K"
            ])
    }

    func testNothingWithoutATerminalOrForOneStep() {
        var out: [String] = []
        var piped = TerminalProgress(total: 60, terminal: false) { out.append($0) }
        piped.step(1, "trip 1")
        piped.clear()
        var one = TerminalProgress(total: 1, terminal: true) { out.append($0) }
        one.step(1, "trip 1")
        one.clear()
        XCTAssertEqual(out, [])
    }
}

import XCTest
@testable import CairnCore

/// The rider's button (issue 41, item 3) as a table: the key's edges with the kernel's times in,
/// laps, trip ends and faults out, judged at the wake-ups that read them.
final class ButtonPressesTests: XCTestCase {
    typealias A = ButtonPresses.Action

    /// "d100 u400" is pressed at 100 ms and released at 400; "x900" the device went away at
    /// 900 ms; "|2000" is a wake-up at 2000 ms that takes the edges since the last one.
    private func run(_ script: String) -> [A] {
        var rule = ButtonPresses()
        var edges: [ButtonPresses.Edge] = []
        var out: [A] = []
        for word in script.split(separator: " ") {
            let t = Int64(word.dropFirst())!
            switch word.first {
            case "d": edges.append(.init(monoMs: t, down: true))
            case "u": edges.append(.init(monoMs: t, down: false))
            case "x": rule.deviceLost(atMonoMs: t)
            default:
                out += rule.take(edges, nowMonoMs: t)
                edges = []
            }
        }
        return out
    }

    func testThePressesAsATable() {
        let rows: [(String, [A], String)] = [
            ("d100 u400 |5000", [.lap(atMonoMs: 100)], "a short press marks a lap at its start"),
            ("d100 u400 |600", [], "not before the button has rested (settle)"),
            ("d100 u400 |600 |1000", [.lap(atMonoMs: 100)], "then at the next wake-up, with the press's own time"),
            ("d100 u2100 |5000", [.endTrip(atMonoMs: 100)], "held 2 s: the trip ends"),
            ("d100 u2099 |5000", [.lap(atMonoMs: 100)], "held just under 2 s: a lap"),
            ("d100 |1000 u3000 |5000", [.endTrip(atMonoMs: 100)], "a long press read across wake-ups"),
            ("d100 |1000 |2500 |3000", [], "held, not released: nothing yet (a press acts on release)"),
            ("d100 u110 |5000", [], "10 ms: a bounce, no press"),
            ("d100 u300 d310 u500 |5000", [.lap(atMonoMs: 100)], "a bounce on release: one lap"),
            ("d100 u105 d110 u400 |5000", [.lap(atMonoMs: 110)], "a bounce on press: one lap, at the real press"),
            ("d100 u300 d500 u700 |5000", [.lap(atMonoMs: 100)], "a double press before rest: one lap"),
            ("d100 u300 d500 u2600 |5000", [.endTrip(atMonoMs: 100)], "a tap then a long press: the end"),
            ("d100 u300 |1000 d2000 u2200 |5000", [.lap(atMonoMs: 100), .lap(atMonoMs: 2000)], "two presses with rest: two laps"),
            ("d100 u300 d2000 u2200 |5000", [.lap(atMonoMs: 100), .lap(atMonoMs: 2000)], "two laps read at one wake-up"),
            ("d100 |20000", [.stuck(sinceMonoMs: 100)], "held 15 s: stuck, said once"),
            ("d100 |20000 |25000", [.stuck(sinceMonoMs: 100)], "and not again"),
            ("d100 u16000 |17000", [.stuck(sinceMonoMs: 100)], "a stuck press seen only at its release is stuck too, no end"),
            ("d100 |20000 u21000 |25000 d30000 u30200 |40000", [.stuck(sinceMonoMs: 100)], "a press 9 s after release: still ignored"),
            (
                "d100 |20000 u21000 |32000 d33000 u33200 |40000",
                [.stuck(sinceMonoMs: 100), .recovered(atMonoMs: 31000), .lap(atMonoMs: 33000)], "rested 10 s: presses count again"
            ),
            (
                "d0 u50 d200 u250 d400 u450 d600 u650 d800 u850 d1000 u1050 |5000",
                [.chattering(atMonoMs: 1000)], "six presses without rest: chattering, no lap"
            ),
            (
                "d0 u50 d200 u250 d400 u450 d600 u650 d800 u850 d1000 u1050 |12000 d13000 u13200 |20000",
                [.chattering(atMonoMs: 1000), .recovered(atMonoMs: 11050), .lap(atMonoMs: 13000)], "then a rest, then a lap"
            ),
            ("d0 u50 d200 u250 d400 u450 d600 u650 d800 u850 |5000", [.lap(atMonoMs: 0)], "five quick presses: one lap, not chattering"),
            ("u100 |5000", [], "a release without a press (the loop started with it down): nothing"),
            ("d100 d150 d200 u400 |5000", [.lap(atMonoMs: 100)], "auto-repeat downs change nothing")
        ]
        for (script, want, why) in rows { XCTAssertEqual(run(script), want, "\(why): \(script)") }
    }

    /// The device goes away while the key is down and comes back (attack r19, finding 13): no
    /// release is ever read; the next press is a lap, and nothing is said stuck.
    func testADeviceGoneWhileTheKeyIsDownLosesNoLap() {
        XCTAssertEqual(run("d10000 |10000 x15000 |15000 |20000 |40000 d50000 u50200 |55000 |80000"), [.lap(atMonoMs: 50000)])
        // A press made before the device went away still acts.
        XCTAssertEqual(run("d1000 u1200 x1300 |1300 |5000"), [.lap(atMonoMs: 1000)])
        // Gone with the key up: nothing changes.
        XCTAssertEqual(run("d1000 u1200 |1250 x1300 |5000"), [.lap(atMonoMs: 1000)])
    }

    func testALongPressIsTwoSecondsByDefault() {
        let r = ButtonPresses()
        XCTAssertEqual(r.longMs, 2000)
        XCTAssertLessThan(r.settleMs, r.longMs)
        XCTAssertLessThan(r.longMs, r.stuckMs)
    }
}

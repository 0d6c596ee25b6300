import XCTest
import CairnCore
import CairnLog
@testable import CairnRecorder

/// The rider's button in the record loop (issue 41, item 3): the key's edges wait in a fake
/// kernel queue and are taken at the loop's own wake-ups; a short press marks a lap in the open
/// trip, a long one ends the trip (a mark, the trip's end, delivery's trigger); a stuck button
/// is said and noted. The loop wakes exactly as it does without a button.
final class RiderButtonLoopTests: XCTestCase {
    /// Edges queued at their times, handed over when the loop asks, through the real rule.
    final class QueuedButton: LoopButton {
        var edges: [ButtonPresses.Edge]
        var rule = ButtonPresses()
        var asked: [Int64] = []
        /// Times (mono ms) from which the device is not there, and from which it is back.
        var goneFrom: Int64 = .max, backFrom: Int64 = .max
        var now: Int64 = 0
        var isMissing: Bool { now >= goneFrom && now < backFrom }
        init(_ edges: [ButtonPresses.Edge]) { self.edges = edges }
        func actions(monoMs: Int64) -> [ButtonPresses.Action] {
            now = monoMs
            asked.append(monoMs)
            let due = edges.prefix { $0.monoMs <= monoMs }
            edges.removeFirst(due.count)
            return rule.take(Array(due), nowMonoMs: monoMs)
        }
    }

    static func press(at t: Int64, heldMs: Int64) -> [ButtonPresses.Edge] {
        [.init(monoMs: t, down: true), .init(monoMs: t + heldMs, down: false)]
    }

    func rig(readEvery: Double, button: QueuedButton?) -> RecordLoopTests.Rig {
        let r = RecordLoopTests.Rig(readEverySeconds: readEvery, notify: true, watchdogIntervalMs: 15_000, status: true)
        r.gpsd.arrivals = RecordLoopTests.ride(seconds: 60)
        r.gpsd.stopAt = 70_000
        r.button = button
        return r
    }

    func testNoWakeUpOfItsOwn() {
        for readEvery in [5.0, 0] {
            let why = "read every \(readEvery) s"
            let plain = rig(readEvery: readEvery, button: nil)
            plain.run()
            // Pressed and released within the trip: a lap, nothing else that moves a wake-up.
            let button = QueuedButton(Self.press(at: 20_000, heldMs: 300))
            let r = rig(readEvery: readEvery, button: button)
            r.run()
            XCTAssertEqual(r.gpsd.waits.map(\.mono), plain.gpsd.waits.map(\.mono), "the same wake-ups: \(why)")
            XCTAssertEqual(r.gpsd.waits.map(\.timeoutUs), plain.gpsd.waits.map(\.timeoutUs), why)
            XCTAssertGreaterThan(button.asked.count, 10, why)
            XCTAssertEqual(r.log.marks.map(\.kind), [.lap], why)
        }
    }

    func testALapAndTheTripEndedByHand() {
        for readEvery in [5.0, 0] {
            let why = "read every \(readEvery) s"
            let button = QueuedButton(Self.press(at: 20_000, heldMs: 300) + Self.press(at: 30_000, heldMs: 2500))
            let r = rig(readEvery: readEvery, button: button)
            r.run()
            // The lap at the press's time on the fixes' clock (the fix of mono t is t + wallOffset).
            XCTAssertEqual(r.log.marks.map(\.kind), [.lap, .end], why)
            if r.log.marks.count == 2 {
                XCTAssertLessThanOrEqual(abs(r.log.marks[0].timeMs - (20_000 + FakeClock.wallOffset)), 1500, why)
                XCTAssertLessThanOrEqual(abs(r.log.marks[1].timeMs - (30_000 + FakeClock.wallOffset)), 1500, why)
            }
            // The first trip ended by the rider, its end after the mark; the ride goes on in a
            // new trip, closed at the stop.
            XCTAssertEqual(r.log.closes.map(\.reason), [.rider, .shutdown], why)
            XCTAssertEqual(r.log.tripOpens.count, 2, why)
            XCTAssertGreaterThanOrEqual(r.afterTripClosed, 1, "delivery's trigger: \(why)")
            XCTAssertTrue(r.said.contains { $0.hasPrefix("button: trip ended by the rider") }, "\(why): \(r.said)")
            let first = r.log.closes.first.flatMap(\.lastTimeMs) ?? 0
            // Its points end where the loop learnt of the press: within a batch of the release.
            XCTAssertLessThanOrEqual(first, 32_500 + 5300 + FakeClock.wallOffset, "points after the end: \(why)")
        }
    }

    func testAStuckButtonIsSaidAndNotedAndActsOnNothing() {
        let button = QueuedButton([.init(monoMs: 10_000, down: true), .init(monoMs: 40_000, down: false)])
        let r = rig(readEvery: 5, button: button)
        r.run()
        XCTAssertEqual(r.log.marks, [])
        XCTAssertEqual(r.log.closes.map(\.reason), [.shutdown])
        XCTAssertEqual(r.log.notes, ["button stuck"])
        XCTAssertEqual(r.said.filter { $0.contains("stuck") }.count, 1, "\(r.said)")
        // The status says it while it lasts: stuck from 25 s (held 15 s), ok again 10 s after
        // the release at 40 s.
        let states = r.status!.written.map { ($0.mono, $0.status.button) }
        XCTAssertEqual(states.first?.1, "ok", "a configured button is ok from the first write")
        XCTAssertTrue(states.contains { $0.0 >= 26_000 && $0.0 < 40_000 && $0.1 == "stuck" }, "\(states)")
        XCTAssertFalse(states.contains { $0.0 < 25_000 && $0.1 == "stuck" }, "\(states)")
        XCTAssertEqual(states.last?.1, "ok", "rested")
        XCTAssertTrue(rig(readEvery: 5, button: nil).runAndStatus().allSatisfy { $0.status.button == nil }, "no button, no field")
    }

    /// attack-r20b: a button whose device is not there read `ok` in the status while the
    /// journal said it was looked for; now `missing` while it is gone, `ok` once it is back.
    func testAMissingDeviceIsMissingInTheStatus() {
        let button = QueuedButton([])
        button.goneFrom = 0
        button.backFrom = 40_000
        let r = rig(readEvery: 5, button: button)
        r.run()
        let states = r.status!.written.map { ($0.mono, $0.status.button) }
        XCTAssertEqual(states.first?.1, "missing", "\(states)")
        XCTAssertFalse(states.contains { $0.0 < 40_000 && $0.1 == "ok" }, "\(states)")
        XCTAssertEqual(states.last?.1, "ok", "\(states)")
    }

    /// A chattering contact: ten presses 150 ms apart mark nothing, are said and noted once;
    /// after 10 s of rest a press counts again (a lap), and the rest was said.
    func testAChatteringButtonIsSaidAndIgnoredUntilItRests() {
        let chatter = (0..<10).flatMap { Self.press(at: 15_000 + Int64($0) * 150, heldMs: 60) }
        let button = QueuedButton(chatter + Self.press(at: 35_000, heldMs: 300))
        let r = rig(readEvery: 5, button: button)
        r.run()
        XCTAssertEqual(r.log.marks.map(\.kind), [.lap], "only the press after the rest")
        XCTAssertGreaterThanOrEqual(r.log.marks.first?.timeMs ?? 0, 35_000 + FakeClock.wallOffset - 1500)
        XCTAssertEqual(r.log.notes, ["button chattering"])
        XCTAssertEqual(r.said.filter { $0.contains("chattering") }.count, 1, "\(r.said)")
        XCTAssertTrue(r.said.contains("button: rested; presses count again"), "\(r.said)")
        XCTAssertEqual(r.log.closes.map(\.reason), [.shutdown])
        XCTAssertTrue(r.status!.written.contains { $0.status.button == "chattering" })
        XCTAssertEqual(r.status!.written.last?.status.button, "ok")
    }

    func testAPressWithNoTripOpenMarksNothing() {
        let button = QueuedButton(Self.press(at: 500, heldMs: 200))
        let r = RecordLoopTests.Rig(readEverySeconds: 5)
        r.gpsd.arrivals = []
        r.gpsd.stopAt = 10_000
        r.button = button
        r.run()
        XCTAssertEqual(r.log.marks, [])
        XCTAssertTrue(r.said.contains("button: a lap with no trip open; nothing marked"), "\(r.said)")
    }
}

extension RecordLoopTests.Rig {
    /// Runs the loop; what the status file was given.
    func runAndStatus() -> [(mono: Int64, status: LiveStatus)] {
        run()
        return status?.written ?? []
    }
}

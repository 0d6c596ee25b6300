import XCTest
@testable import CairnCore

final class TripRecorderTests: XCTestCase {
    typealias Recorder = TripRecorder<FixRules>

    func run(_ reports: [Report], lost: Set<Int> = [], resume: Fix? = nil) -> (Recorder, [RecorderAction]) {
        var c = Recorder.Config()
        c.clockIsFix = true
        var r = Recorder(filter: FixRules(), config: c)
        r.resumeCandidate = resume
        var actions: [RecorderAction] = []
        for (i, rep) in reports.enumerated() {
            if lost.contains(i) { r.connectionLost(wallClockMs: 0) { actions.append($0) } }
            r.report(rep, wallClockMs: 0) { actions.append($0) }
        }
        r.finish(wallClockMs: 0) { actions.append($0) }
        return (r, actions)
    }

    /// A straight ride north at 8 m/s, one fix a second (steps above the distance filter); the
    /// doppler wobbles by a few cm/s, as a receiver's does.
    func ride(_ range: ClosedRange<Int>, from north: Double = 0, at t0: Double = 0) -> [Report] {
        range.map { i in .fix(fix(t0 + Double(i), north: north + 8 * Double(i), eph: 5, speed: 8 + 0.03 * sin(Double(i) * 1.7))) }
    }

    func kept(_ a: [RecorderAction]) -> [Fix] {
        a.compactMap {
            if case .keep(let f) = $0 { return f }; return nil
        }
    }
    func segments(_ a: [RecorderAction]) -> [SegmentReason] {
        a.compactMap {
            if case .startSegment(let r, _) = $0 { return r }; return nil
        }
    }

    func testOpensTripAtFirstKeptFixAndCollapsesEpochs() {
        let (r, actions) = run([.noFix, .noTime, .fix(fix(0)), .fix(fix(0, north: 1))] + ride(1...10))
        guard case .openTrip(resume: false) = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(segments(actions), [.start])
        XCTAssertEqual(kept(actions).count, 11)
        XCTAssertEqual(r.drops[.noFix], 1)
        XCTAssertEqual(r.drops[.noTime], 1)
        XCTAssertEqual(r.drops[.duplicate], 1)
        XCTAssertEqual(r.stats.distanceM, 79, accuracy: 0.01)
    }

    func testNothingWithoutTimeIsRecorded() {
        let (r, actions) = run(Array(repeating: .noTime, count: 121))
        XCTAssertTrue(actions.isEmpty)
        XCTAssertFalse(r.tripOpen)
        XCTAssertEqual(r.drops[.noTime], 121)
    }

    func testDropoutKeepsTheLineAndCountsOnce() {
        let (r, actions) = run(ride(0...5) + ride(25...30))
        XCTAssertEqual(segments(actions), [.start], "a dropout while moving is no new segment")
        XCTAssertEqual(r.stats.segments, 1)
        XCTAssertEqual(r.stats.distanceM, 240, accuracy: 0.1, "the line across a dropout counts once")
        XCTAssertEqual(r.stats.movingTimeMs, 30_000, "and its time is moving time")
        // Two minutes in a tunnel at a steady 8 m/s: the same, once the doppler and the positions agree.
        let (long, _) = run(ride(0...5) + ride(125...150))
        XCTAssertEqual(long.stats.segments, 1)
        XCTAssertEqual(long.stats.movingTimeMs, long.stats.elapsedMs)
    }

    func testReconnectKeepsTheLine() {
        let (_, actions) = run(ride(0...6), lost: [3])
        XCTAssertEqual(segments(actions), [.start], "a gpsd restart is a dropout like any other")
    }

    func testTimeGoingBackIsDropped() {
        var reports = ride(0...5)
        reports.insert(.fix(fix(-2, north: 9, speed: 8)), at: 3)
        let (r, _) = run(reports)
        XCTAssertEqual(r.stats.points, 6)
        XCTAssertEqual(r.drops[.timeNotAfter], 1)
    }

    func testEpochBeforeADropoutIsNotStaleWithFixClock() {
        // The last epoch before a 5-minute dropout is released by the first report after it;
        // with --clock fix it must be judged by the time it was complete, not as 300 s old.
        // (After an outage that long the first 8 s are held to the doppler: rule 13.)
        let (r, actions) = run(ride(0...3) + ride(301...320, from: 0))
        XCTAssertEqual(r.drops[.stale], 0)
        XCTAssertEqual(r.drops[.converging], 8)
        XCTAssertTrue(kept(actions).contains { $0.timeMs == fix(3).timeMs }, "the epoch before the dropout")
        XCTAssertEqual(r.stats.points, 4 + 12)
    }

    func testResumesPreviousTripWithinWindow() {
        let (_, actions) = run(ride(0...3), resume: fix(-30))
        guard case .openTrip(resume: true) = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(segments(actions), [.resume])
        let (_, later) = run(ride(0...3), resume: fix(-3600))
        guard case .openTrip(resume: false) = later.first else { return XCTFail("an hour later is a new trip") }
    }

    func testLongStandstillClosesTripAndNextMovementOpensANewOne() {
        var reports = ride(0...10)
        // 40 minutes parked at the last position, doppler ~0.
        for i in 11...2410 { reports.append(.fix(fix(Double(i), north: 80, speed: 0.05))) }
        reports += ride(2411...2420, from: 80 - 8 * 2411)
        let (_, actions) = run(reports)
        let opens = actions.filter {
            if case .openTrip = $0 { return true }; return false
        }.count
        let closes = actions.compactMap {
            if case .closeTrip(let t) = $0 { return t }; return nil
        }
        XCTAssertEqual(opens, 2)
        XCTAssertEqual(closes.count, 1)
        XCTAssertEqual(closes.first?.stats.points, 11, "the stop fix on top of the last point adds nothing")
        XCTAssertLessThan(closes.first?.stats.distanceM ?? 99, 81)
    }
}

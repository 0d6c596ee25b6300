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

/// Rule 12: time that cannot poison a ride.
final class HostileTimeTests: XCTestCase {
    typealias Recorder = TripRecorder<FixRules>
    static let week: Double = 7 * 86_400

    /// Reports at one a second of arrival (`clock` is the system clock at the first), the fix
    /// times as given.
    func run(_ times: [Double], clockIsFix: Bool, clock: Int64 = 1_780_000_000_000) -> (Recorder, [RecorderAction]) {
        var c = Recorder.Config()
        c.clockIsFix = clockIsFix
        var r = Recorder(filter: FixRules(), config: c)
        var actions: [RecorderAction] = []
        var north = 0.0
        for (i, t) in times.enumerated() {
            north += 8
            let f = fix(t, north: north, eph: 5, speed: 8 + 0.03 * sin(Double(i) * 1.7))
            r.report(.fix(f), wallClockMs: clock + Int64(i) * 1000) { actions.append($0) }
        }
        r.finish(wallClockMs: clock + Int64(times.count) * 1000) { actions.append($0) }
        return (r, actions)
    }

    func kept(_ a: [RecorderAction]) -> Int {
        a.filter {
            if case .keep = $0 { return true }; return false
        }.count
    }

    func testOneFixTenYearsAheadIsDroppedAndTheRideGoesOn() {
        for clockIsFix in [false, true] {
            var times = (0..<60).map(Double.init)
            times[20] += 10 * 365 * 86_400
            let (r, actions) = run(times, clockIsFix: clockIsFix)
            XCTAssertEqual(r.drops[.timeJump], 1, "clock fix \(clockIsFix): \(r.drops.nonzero)")
            XCTAssertEqual(r.drops[.stale] + r.drops[.timeNotAfter], 0, "clock fix \(clockIsFix)")
            XCTAssertEqual(r.stats.lastTimeMs, fix(59).timeMs, "the trip ends with the ride, not in 2036")
            XCTAssertGreaterThan(kept(actions), 20)
        }
    }

    func testAClockSteppingBackSecondsStartsANewTripAndLosesNothing() {
        // GPS time corrected to UTC (18 s back), or 30 s: from then on the receiver's time is on
        // the new line. The ride is not cut by the seconds it repeats nor by the jump rule.
        for back in [18.0, 30.0] {
            for clockIsFix in [false, true] {
                let times = (0..<60).map(Double.init) + (60..<120).map { Double($0) - back }
                let (r, actions) = run(times, clockIsFix: clockIsFix)
                let opens = actions.filter {
                    if case .openTrip = $0 { return true }; return false
                }.count
                XCTAssertEqual(opens, 2, "back \(back), clock fix \(clockIsFix): \(r.drops.nonzero)")
                XCTAssertEqual(r.drops[.timeNotAfter] + r.drops[.jump], 0, "back \(back), clock fix \(clockIsFix)")
                XCTAssertGreaterThanOrEqual(kept(actions), 115, "back \(back), clock fix \(clockIsFix)")
            }
        }
    }

    func testTwoInterleavedTimeLinesDoNotSplitTheRide() {
        // Every third fix 40 s ahead (the first among them): whichever line wins, one trip.
        for clockIsFix in [false, true] {
            let times = (0..<120).map { Double($0) + ($0 % 3 == 0 ? 40 : 0) }
            let (r, actions) = run(times, clockIsFix: clockIsFix)
            let opens = actions.filter {
                if case .openTrip = $0 { return true }; return false
            }.count
            XCTAssertEqual(opens, 1, "clock fix \(clockIsFix): \(r.drops.nonzero)")
        }
    }

    func testOneFixMinutesAheadCostsOnlyItself() {
        // Ahead by less than the hour of a real jump: neither a minute of the ride that follows
        // (`time_not_after`) nor a second trip is the price of one bad time.
        for ahead in [30.0, 120.0, 50 * 60.0] {
            for clockIsFix in [false, true] {
                var times = (0..<60).map(Double.init)
                times[20] += ahead
                let (r, actions) = run(times, clockIsFix: clockIsFix)
                let opens = actions.filter {
                    if case .openTrip = $0 { return true }; return false
                }.count
                XCTAssertEqual(opens, 1, "ahead \(ahead), clock fix \(clockIsFix): \(r.drops.nonzero)")
                XCTAssertEqual(r.drops[.timeJump], 1, "ahead \(ahead), clock fix \(clockIsFix): \(r.drops.nonzero)")
                XCTAssertEqual(r.drops[.timeNotAfter] + r.drops[.stale], 0, "ahead \(ahead), clock fix \(clockIsFix)")
                XCTAssertEqual(r.stats.lastTimeMs, fix(59).timeMs, "ahead \(ahead), clock fix \(clockIsFix)")
                XCTAssertEqual(r.stats.segments, 1, "ahead \(ahead), clock fix \(clockIsFix)")
            }
        }
    }

    func testARealJumpBackStartsANewTripInsteadOfStopping() {
        // An hour back, and a 1024-week rollover back (gpsd fixing the week number), from then on.
        for back in [3_600.0, 1024 * Self.week] {
            for clockIsFix in [false, true] {
                let times = (0..<30).map(Double.init) + (30..<60).map { Double($0) - back }
                let (r, actions) = run(times, clockIsFix: clockIsFix)
                let opens = actions.filter {
                    if case .openTrip = $0 { return true }; return false
                }.count
                XCTAssertEqual(opens, 2, "back \(back), clock fix \(clockIsFix): \(r.drops.nonzero)")
                XCTAssertEqual(r.stats.lastTimeMs, fix(59 - back).timeMs, "recording goes on on the new time")
                XCTAssertGreaterThan(r.stats.points, 20)
            }
        }
    }

    func testSystemClockIn1970AtBoot() {
        // A board without a real-time clock: the system clock says 1970, the fixes say now.
        let (r, actions) = run((0..<40).map(Double.init), clockIsFix: false, clock: 5_000)
        XCTAssertEqual(r.drops[.stale] + r.drops[.timeJump], 0, "\(r.drops.nonzero)")
        XCTAssertGreaterThan(kept(actions), 30)
    }

    func testFirstFixFarFromASetClockWaitsForItsSuccessors() {
        // The system clock is set (a week behind, as fake-hwclock leaves it): the fixes agree
        // with each other, so the ride is recorded all the same.
        let (r, actions) = run((0..<40).map(Double.init), clockIsFix: false, clock: 1_780_000_000_000 - Int64(Self.week * 1000))
        XCTAssertEqual(r.drops[.timeJump], 0, "\(r.drops.nonzero)")
        XCTAssertGreaterThan(kept(actions), 30)
    }
}

/// Raw fixes (`Config.keepsRaw`): every fix the rules are offered comes out once, in offer
/// order, with the verdict the rules gave it, and a replay of them judges them the same way.
final class RawFixTests: XCTestCase {
    func testEveryOfferedFixGetsOneVerdictInEveryScenario() {
        for (scenario, _) in ScenarioTests.scenarios(seed: 11) {
            var config = TripRecorder<FixRules>.Config()
            config.clockIsFix = true
            config.keepsRaw = true
            var rec = TripRecorder(filter: FixRules(profile: .ride), config: config)
            var raws: [RawFix] = [], kept: [Fix] = [], segments: [SegmentReason] = []
            var drops = DropCounts()
            let handle: (RecorderAction) -> Void = { a in
                switch a {
                case .raw(let r): raws.append(r)
                case .keep(let f): kept.append(f)
                case .startSegment(let r, _): segments.append(r)
                case .closeTrip(let t): for c in t.drops.nonzero { drops.set(rule: c.rule, count: drops[rule: c.rule] + c.count) }
                case .openTrip: break
                }
            }
            for r in scenario.reports { rec.report(.fix(r.fix), wallClockMs: r.fix.timeMs + 300, emit: handle) }
            rec.finish(wallClockMs: (scenario.reports.last?.fix.timeMs ?? 0) + 300, emit: handle)
            for c in rec.drops.nonzero { drops.set(rule: c.rule, count: drops[rule: c.rule] + c.count) }
            let name = scenario.name
            XCTAssertEqual(raws.count + Int(drops[.duplicate]), scenario.reports.count, "\(name): one raw fix per epoch")
            XCTAssertFalse(raws.contains { $0.verdict == .undecided }, name)
            XCTAssertEqual(raws.filter { $0.verdict == .kept }.map(\.fix.timeMs), kept.map(\.timeMs), "\(name): kept ones")
            var counted = DropCounts()
            for r in raws { if case .dropped(let d) = r.verdict { counted.add(d) } }
            for d in DropReason.allCases where d != .duplicate {
                XCTAssertEqual(counted[d], drops[d], "\(name): \(d.name)")
            }
            // Replayed, the stored fixes make the same points and segments.
            var again = TripRecorder(filter: FixRules(profile: .ride), config: config)
            var keptAgain: [Fix] = [], segmentsAgain: [SegmentReason] = []
            let replayed: (RecorderAction) -> Void = { a in
                if case .keep(let f) = a { keptAgain.append(f) }
                if case .startSegment(let r, _) = a { segmentsAgain.append(r) }
            }
            for r in raws { again.replay(r, emit: replayed) }
            again.finish(wallClockMs: raws.last?.arrivalMs ?? 0, emit: replayed)
            XCTAssertEqual(keptAgain, kept, "\(name): replayed")
            XCTAssertEqual(segmentsAgain, segments, "\(name): replayed segments")
        }
    }
}

extension RawFixTests {
    /// A filter that keeps the first fix and then holds one fix for ever, deciding the others.
    struct HoldsOne: FixFilter {
        var n = 0
        mutating func offer(_ fix: Fix, nowMs: Int64, arrivalMs: Int64?, emit: (RuleOutput) -> Void) {
            n += 1
            if n == 1 { emit(.keep(fix)) } else if n != 2 { emit(.drop(.tooClose, fix)) }
        }
        mutating func flush(emit: (RuleOutput) -> Void) {}
        mutating func tripClosed() {}
    }

    func testAFixHeldLongerThanTheQueueIsHandedOutUndecidedAndTheRestFollow() {
        var config = TripRecorder<HoldsOne>.Config()
        config.keepsRaw = true
        var rec = TripRecorder(filter: HoldsOne(), config: config)
        var raws: [RawFix] = []
        let n = 2048 + 10
        for i in 0..<n {
            let f = Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47, lon: 8, mode: 3)
            rec.report(.fix(f), wallClockMs: f.timeMs, emit: { if case .raw(let r) = $0 { raws.append(r) } })
        }
        rec.finish(wallClockMs: 0, emit: { if case .raw(let r) = $0 { raws.append(r) } })
        // The collapser holds the newest epoch until the next; finish releases it.
        XCTAssertEqual(raws.count, n, "every fix is handed out, in order")
        XCTAssertEqual(raws.map(\.fix.timeMs), (0..<n).map { 1_748_764_800_000 + Int64($0) * 1000 })
        XCTAssertEqual(raws[0].verdict, .kept)
        XCTAssertEqual(raws[1].verdict, .undecided, "the held fix, when 2,047 newer ones waited behind it")
        XCTAssertTrue(raws[2...].allSatisfy { $0.verdict == .dropped(.tooClose) })
        XCTAssertEqual(raws[0].events, .runStart)
    }
}

import XCTest
@testable import CairnCore

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

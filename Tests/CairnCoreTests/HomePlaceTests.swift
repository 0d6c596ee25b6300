import XCTest
@testable import CairnCore

/// A trip ends at home (issue 41, item 1): the rule as a table, then the fix rules fed rides that
/// come home and stand, stop at a light near home, pass it, or stand elsewhere.
final class HomePlaceTests: XCTestCase {
    let home = HomePlace(lat: fix(0, north: 114).lat, lon: fix(0, north: 114).lon, radiusM: 100)

    func testTheRuleAsATable() {
        let thirty: Int64 = 30 * 60_000, two: Int64 = 2 * 60_000
        var long = home
        long.standMs = 45 * 60_000
        // (home, standing at m north of home, its eph, close-after) -> limit
        let rows: [(HomePlace?, Double, Double?, Int64, Int64, String)] = [
            (nil, 0, 8, thirty, thirty, "no home: close-after"),
            (home, 0, 8, thirty, two, "at the door: home's stand"),
            (home, 95, 8, thirty, two, "inside the radius"),
            (home, 130, 8, thirty, thirty, "30 m outside, a good fix: elsewhere"),
            (home, 130, 40, thirty, two, "30 m outside, a fix good to 40 m: maybe home (indoors)"),
            (home, 250, 400, thirty, thirty, "the widening stops at the radius: 250 m is never home"),
            (home, 600, 8, thirty, thirty, "a café 600 m away"),
            (home, 0, nil, thirty, two, "no error figure: the position alone"),
            (long, 0, 8, thirty, thirty, "a home stand longer than close-after: close-after"),
            (home, 0, 8, 60_000, 60_000, "close-after shorter than home's stand")
        ]
        for (h, north, eph, closeAfter, want, why) in rows {
            let f = fix(0, north: 114 + north, eph: eph, speed: 0.02)
            XCTAssertEqual(HomePlace.closeLimitMs(home: h, standingAt: f, closeAfterMs: closeAfter), want, why)
        }
    }

    /// A ride of `rideS` seconds north at 6 m/s arriving `north` metres from home (home is 114 m
    /// up the road), standing there `standS` seconds, then riding on for 30 s unless it stood for
    /// good. Returns the seconds from the stand's first second to the close (nil: not closed)
    /// and the segments begun.
    func ride(standS: Int, at north: Double = 0, rideOn: Bool = true, profile p: ActivityProfile? = nil) -> (
        closeS: Double?, segments: [SegmentReason]
    ) {
        var profile = p ?? .ride
        if p == nil { profile.home = home }
        var fixes = (0..<20).map { i in fix(Double(i), north: 114 + north - 6 * Double(19 - i), eph: 8, speed: 6 + 0.03 * sin(Double(i))) }
        for i in 0..<standS { fixes.append(fix(20 + Double(i), north: 114 + north + 0.5 * sin(Double(i) / 7), eph: 8, speed: 0.03)) }
        if rideOn {
            for i in 0..<30 {
                fixes.append(fix(20 + Double(standS + i), north: 114 + north + 6 * Double(i + 1), eph: 8, speed: 6 + 0.03 * sin(Double(i))))
            }
        }
        var rules = FixRules(profile: profile)
        var closeAt: Int64?
        var segments: [SegmentReason] = []
        var newest = Int64.min
        var current: Fix?
        let sink: (RuleOutput) -> Void = { o in
            switch o {
            case .closeTrip: if closeAt == nil { closeAt = current?.timeMs }
            case .segment(let s): segments.append(s)
            default: break
            }
        }
        for f in fixes {
            newest = max(newest, f.timeMs)
            current = f
            rules.offer(f, nowMs: newest, emit: sink)
        }
        rules.flush(emit: sink)
        return (closeAt.map { Double($0 - fix(20).timeMs) / 1000 }, segments)
    }

    func testRidesHomeAsATable() {
        // (stand s, metres from home, ride on after) -> closed how many s after the stand began
        let rows: [(Int, Double, Bool, ClosedRange<Double>?, String)] = [
            (180, 0, false, 120...125, "home, stood for good: closed at 2 minutes"),
            (150, 0, true, 120...125, "home, off again after 150 s: closed at 2 minutes"),
            (40, 0, true, nil, "a light at home's corner: not cut"),
            (100, 0, true, nil, "100 s at home (the gate, the post box): not cut"),
            (150, 600, true, nil, "150 s at a café 600 m away: a pause"),
            (0, -300, true, nil, "riding past home: not cut")
        ]
        for (standS, north, rideOn, want, why) in rows {
            let r = ride(standS: standS, at: north, rideOn: rideOn)
            if let w = want {
                XCTAssertNotNil(r.closeS, why)
                if let s = r.closeS { XCTAssertTrue(w.contains(s), "\(why): closed \(s) s after the stand began") }
            } else {
                XCTAssertNil(r.closeS, why)
            }
        }
        XCTAssertEqual(ride(standS: 150, at: 600).segments, [.pause], "a stand away from home is a pause")
        XCTAssertNil(ride(standS: 180, rideOn: false, profile: .ride).closeS, "no home: 180 s is a pause")
    }

    /// attack-r20b: a ride that reaches home, stands 20 s with a fix, then loses it (the bike
    /// wheeled indoors) stayed open for the 30 minutes without a fix. Now the recorder closes it
    /// after home's stand from the last fix, when that fix came slowly inside home; riding fast
    /// through home into a dropout, or losing the fix away from home, keeps the 30 minutes.
    func testTheFixLostAtTheDoorClosesAfterHomesStand() {
        // (last fix's metres from home, its speed, with a home) -> closed after how many s of no fix
        let rows: [(Double, Double, Bool, Int?, String)] = [
            (0, 0.03, true, 120, "stood at the door, then indoors: closed at home's 2 minutes"),
            (0, 1.2, true, 120, "wheeled in at walking pace: closed at 2 minutes"),
            (0, 8, true, 1800, "riding through home into a tunnel: the 30 minutes"),
            (600, 0.03, true, 1800, "the fix lost at a café 600 m away: the 30 minutes"),
            (0, 0.03, false, 1800, "no home: the 30 minutes")
        ]
        // attack-r21: with `clock = fix` (a board without network time) no trip closed without a
        // fix at all; the recorder's clock is then the fixes' (the newest fix's time plus the
        // time since it arrived), as the record loop passes it.
        for clockIsFix in [false, true] {
            for (north, speed, withHome, want, why) in rows {
                var profile = ActivityProfile.ride
                if withHome { profile.home = home }
                var c = TripRecorder<FixRules>.Config()
                c.closeWithoutFixMs = 30 * 60_000
                c.home = profile.home
                c.clockIsFix = clockIsFix
                var r = TripRecorder(filter: FixRules(profile: profile), config: c)
                var closedAt: Int?
                let base = clockIsFix ? fix(0, north: 0).timeMs : 0
                var clock: Int64 = base
                let sink: (RecorderAction) -> Void = { a in if case .closeTrip = a, closedAt == nil { closedAt = Int((clock - base) / 1000) } }
                // A ride north at 6 m/s arriving `north` metres from home, 20 s there at `speed`.
                var fixes = (0..<60).map { i in fix(Double(i), north: 114 + north - 6 * Double(59 - i), eph: 8, speed: 6 + 0.03 * sin(Double(i))) }
                for i in 0..<20 { fixes.append(fix(60 + Double(i), north: 114 + north + speed * Double(i), eph: 8, speed: speed)) }
                for (i, f) in fixes.enumerated() {
                    clock = base + Int64(i) * 1000
                    r.report(.fix(f), wallClockMs: clock, emit: sink)
                    r.tick(wallClockMs: clock, emit: sink)
                }
                XCTAssertTrue(r.tripOpen, why)
                let last = clock
                while closedAt == nil && clock < last + 40 * 60_000 {
                    clock += 1000
                    r.report(.noFix, wallClockMs: clock, emit: sink)
                    r.tick(wallClockMs: clock, emit: sink)
                }
                XCTAssertEqual(closedAt.map { $0 - Int((last - base) / 1000) }, want, "\(why), clock fix \(clockIsFix)")
            }
        }
    }

    /// attack-r21 U3: a trip closed by home's stand was written as any standstill, and
    /// `info --why` never said home. The close now says whether home's stand made it.
    func testACloseSaysWhetherHomesStandMadeIt() {
        // (stand s, metres from home, with a home, no fix after the stand) -> closed at home?
        let rows: [(Int, Double, Bool, Bool, Bool?, String)] = [
            (180, 0, true, false, true, "stood at home: home's stand"),
            (20, 0, true, true, true, "stood at the door, then no fix: home's stand"),
            (31 * 60, 600, true, false, false, "31 minutes at a café: the close-after time"),
            (31 * 60, 0, false, false, false, "no home: the close-after time")
        ]
        for (standS, north, withHome, lost, want, why) in rows {
            var profile = ActivityProfile.ride
            if withHome { profile.home = home }
            var c = TripRecorder<FixRules>.Config()
            c.closeWithoutFixMs = profile.closeAfterMs
            c.home = profile.home
            var r = TripRecorder(filter: FixRules(profile: profile), config: c)
            var atHome: Bool?
            let sink: (RecorderAction) -> Void = { a in if case .closeTrip(let t) = a, atHome == nil { atHome = t.atHome } }
            var fixes = (0..<60).map { i in fix(Double(i), north: 114 + north - 6 * Double(59 - i), eph: 8, speed: 6 + 0.03 * sin(Double(i))) }
            for i in 0..<standS { fixes.append(fix(60 + Double(i), north: 114 + north + 0.5 * sin(Double(i) / 7), eph: 8, speed: 0.03)) }
            var clock = fix(0).timeMs
            for f in fixes {
                clock = f.timeMs
                r.report(.fix(f), wallClockMs: clock, emit: sink)
                r.tick(wallClockMs: clock, emit: sink)
            }
            if lost {
                for _ in 0..<200 {
                    clock += 1000
                    r.report(.noFix, wallClockMs: clock, emit: sink)
                    r.tick(wallClockMs: clock, emit: sink)
                }
            }
            XCTAssertEqual(atHome, want, why)
        }
    }

    /// attack-r21 U3: after home's stand closed the trip, the next one began at a fix the rider
    /// stood still on at the door, a minute before leaving: its elapsed time held the standing.
    /// It begins at the first fix that moves. As the attack's receiver: 8 m/s north exactly
    /// (speeds the rules judge derived from positions), standing still at speed 0 at home.
    func testTheNextTripStartsWhenTheRiderLeavesHome() {
        let at = fix(0, north: 114)
        var place = HomePlace(lat: at.lat, lon: at.lon, radiusM: 100)
        place.standMs = 60_000
        var profile = ActivityProfile.ride
        profile.home = place
        var c = TripRecorder<FixRules>.Config()
        c.closeWithoutFixMs = profile.closeAfterMs
        c.home = place
        c.clockIsFix = true
        var r = TripRecorder(filter: FixRules(profile: profile), config: c)
        func f(_ t: Int, north: Double, speed: Double) -> Fix {
            var x = fix(Double(t), north: north, eph: 3, speed: speed)
            x.track = 0
            return x
        }
        // 188 s riding north to home at 8 m/s, 150 s standing still there, 120 s riding on north.
        var fixes = (0..<188).map { i in f(i, north: 114 - 8 * Double(187 - i), speed: 8) }
        for i in 0..<150 { fixes.append(f(188 + i, north: 114, speed: 0)) }
        let leave = fix(338).timeMs
        for i in 0..<120 { fixes.append(f(338 + i, north: 114 + 8 * Double(i), speed: 8)) }
        var trips: [[Fix]] = []
        var closes: [Bool] = []
        let sink: (RecorderAction) -> Void = { a in
            switch a {
            case .openTrip: trips.append([])
            case .keep(let f): trips[trips.count - 1].append(f)
            case .closeTrip(let t): closes.append(t.atHome)
            default: break
            }
        }
        for x in fixes {
            r.report(.fix(x), wallClockMs: x.timeMs, emit: sink)
            r.tick(wallClockMs: x.timeMs, emit: sink)
        }
        r.finish(wallClockMs: fixes.last!.timeMs, emit: sink)
        XCTAssertEqual(closes, [true], "closed once, at home")
        XCTAssertEqual(trips.count, 2)
        guard trips.count == 2, let first = trips[1].first else { return }
        XCTAssertGreaterThanOrEqual(first.timeMs, leave - 1000, "the next trip starts when the rider leaves, not while standing")
        XCTAssertLessThan(first.timeMs - leave, 10_000, "and not long after")
    }

    /// attack-r22 cases 05 and 04e: `record --clock fix` fed faster than real time (a replay)
    /// never closed a trip across a gap in the fixes: the ticks' clock (the newest fix's time
    /// plus the little time since it arrived) never reached home's stand or the close-after
    /// time, so the ride home and the next ride were one trip. The next fix is the clock: a
    /// replay splits as the ride did live.
    func testAReplayOnTheFixClockClosesAcrossAGapAsLive() {
        // (gap minutes, last fix's speed at home) -> closes (at home?)
        let rows: [(Int, Double, [Bool], String)] = [
            (14, 1.2, [true], "wheeled in, next ride 14 min later: home's stand"),
            (40, 1.2, [true], "wheeled in, next ride 40 min later: home's stand"),
            (14, 8, [], "through home into a 14 min tunnel: one trip"),
            (40, 8, [false], "through home into 40 min without a fix: the close-after time")
        ]
        for (gapMin, speed, want, why) in rows {
            var profile = ActivityProfile.ride
            profile.home = home
            var c = TripRecorder<FixRules>.Config()
            c.closeWithoutFixMs = 30 * 60_000
            c.home = home
            c.clockIsFix = true
            var r = TripRecorder(filter: FixRules(profile: profile), config: c)
            var closes: [Bool] = []
            var opens = 0
            let sink: (RecorderAction) -> Void = { a in
                if case .closeTrip(let t) = a { closes.append(t.atHome) }
                if case .openTrip = a { opens += 1 }
            }
            // A ride north at 6 m/s to home, 20 s there at `speed`, then after the gap 90 s north.
            var fixes = (0..<60).map { i in fix(Double(i), north: 114 - 6 * Double(59 - i), eph: 8, speed: 6 + 0.03 * sin(Double(i))) }
            for i in 0..<20 { fixes.append(fix(60 + Double(i), north: 114 + speed * Double(i), eph: 8, speed: speed)) }
            let away = 114 + speed * 20
            let t0 = 80 + Double(gapMin * 60)
            for i in 0..<90 { fixes.append(fix(t0 + Double(i), north: away + 6 * Double(i), eph: 8, speed: 6 + 0.03 * sin(Double(i)))) }
            // Fed in a moment: each tick's clock is the newest fix's time (no time passes between).
            for f in fixes {
                r.report(.fix(f), wallClockMs: f.timeMs, emit: sink)
                r.tick(wallClockMs: f.timeMs, emit: sink)
            }
            r.finish(wallClockMs: fixes.last!.timeMs, emit: sink)
            XCTAssertEqual(closes, want, why)
            XCTAssertEqual(opens, want.count + 1, why)
        }
        // One fix stamped 50 minutes ahead in a ride of over an hour is no time that passed:
        // no close, then or when the ride reaches that time.
        var c = TripRecorder<FixRules>.Config()
        c.clockIsFix = true
        var r = TripRecorder(filter: FixRules(profile: .ride), config: c)
        var opens = 0
        let sink: (RecorderAction) -> Void = { a in if case .openTrip = a { opens += 1 } }
        for i in 0..<4000 {
            let f = fix(Double(i) + (i == 20 ? 3000 : 0), north: 6 * Double(i), eph: 8, speed: 6 + 0.03 * sin(Double(i)))
            r.report(.fix(f), wallClockMs: f.timeMs, emit: sink)
        }
        XCTAssertEqual(opens, 1, "one fix ahead closes nothing")
    }
}

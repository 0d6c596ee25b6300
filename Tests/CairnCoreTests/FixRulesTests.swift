import XCTest
@testable import CairnCore

/// Each rule as a table of small scenarios: fixes in, what is kept and why the rest was dropped.
final class FixRulesTests: XCTestCase {
    struct Run {
        var kept: [Fix] = []
        var drops = DropCounts()
        var segments: [SegmentReason] = []
        var closes = 0
        var offered = 0
    }

    /// Offers `fixes` to fresh rules (clock = newest fix time) and flushes at the end.
    func run(_ fixes: [Fix], profile: ActivityProfile = .ride) -> Run {
        var rules = FixRules(profile: profile)
        var r = Run()
        var newest = Int64.min
        let sink: (RuleOutput) -> Void = { o in
            switch o {
            case .keep(let f): r.kept.append(f)
            case .drop(let d, _): r.drops.add(d)
            case .segment(let s): r.segments.append(s)
            case .closeTrip: r.closes += 1
            }
        }
        for f in fixes {
            newest = max(newest, f.timeMs)
            r.offered += 1
            rules.offer(f, nowMs: newest, emit: sink)
        }
        rules.flush(emit: sink)
        // Every offered fix is accounted for exactly once (corner fixes are kept, not dropped).
        XCTAssertEqual(r.kept.count + Int(r.drops.total), r.offered, "accounting: \(r.drops.nonzero)")
        return r
    }

    /// A ride north at `v` m/s from `t0`, one fix a second, with a good error figure. The doppler
    /// speed wobbles by a few cm/s, as a receiver's does (a speed that equals the chord speed to
    /// the mm/s, fix after fix, is gpsd's own from positions, and is not taken for doppler).
    func ride(_ n: Int, from t0: Double = 0, north n0: Double = 0, v: Double = 6, eph: Double = 8) -> [Fix] {
        (0..<n).map { i in fix(t0 + Double(i), north: n0 + v * Double(i), eph: eph, speed: v + 0.03 * sin(Double(i) * 1.7)) }
    }

    func testRule1GoodFirstFix() {
        // Poor fixes (eph 150 m, HDOP 7.9: 27.6 m at 68 %) that lead consistently to the first good
        // one are kept once it comes; a stale position 3 km away never starts the trip.
        let poorThenGood = ride(10, eph: 150) + ride(10, from: 10, north: 60)
        let r1 = run(poorThenGood)
        XCTAssertEqual(r1.kept.first?.timeMs, poorThenGood[0].timeMs, "the poor start is back-filled")
        XCTAssertEqual(r1.drops[.firstFix], 0)

        let stale = (0..<5).map { i in fix(Double(i), north: 3000, east: 2000, eph: 150, speed: 6) }
        let r2 = run(stale + ride(10, from: 5, north: 30))
        XCTAssertEqual(r2.drops[.firstFix], 5, "the stale fixes lead nowhere")
        XCTAssertTrue(r2.kept.allSatisfy { Geodesy.distance($0, fix(0)) < 200 })

        // Only poor fixes: after 30 s of trying, 50 m (68 %) is good enough.
        let patient = run(ride(40, eph: 200))
        XCTAssertGreaterThan(patient.kept.count, 0)
        XCTAssertEqual(patient.kept.first?.timeMs, fix(0).timeMs, "and what led to it is kept")
    }

    func testRule2OldAndRoughFixes() {
        var bad = fix(10); bad.lat = 91
        var nan = fix(10); nan.lon = .nan
        var y1980 = fix(10); y1980.timeMs = 315_532_800_000
        let cases: [(Fix, DropReason, String)] = [
            (bad, .invalid, "latitude 91"),
            (nan, .invalid, "NaN longitude"),
            (y1980, .invalid, "a 1980 date"),
            (fix(-61, north: -6 * 71), .stale, "older than 60 s on arrival"),
            (fix(10.5, north: 63, eph: 300), .rough, "eph 300 m (HDOP 15.8) is 55 m at 68 %")
        ]
        for (x, reason, why) in cases {
            let r = run(ride(10) + [x] + ride(3, from: 11, north: 66))
            XCTAssertEqual(r.drops[reason], 1, why)
        }
        let back = run(ride(5) + [fix(2.5, north: 15, eph: 8, speed: 6)] + ride(5, from: 5, north: 30))
        XCTAssertEqual(back.drops[.timeNotAfter], 1, "time going back")
    }

    func testRule3PositionAndHeightJudgedApart() {
        // Every one of these is a good position: kept, whatever its height is worth.
        let cases: [(Fix, Bool, String)] = [
            (fix(10, north: 60, mode: 2, eph: 8, epv: nil, alt: nil, speed: 6), false, "a 2-D fix"),
            (fix(10, north: 60, eph: 8, alt: nil, speed: 6), false, "mode 3 without a height (gpsd's first epoch after losing 3-D)"),
            (fix(10, north: 60, eph: 8, epv: 80, speed: 6), false, "epv 80 m (VDOP 3.5) is 12.2 m at 68 %"),
            (fix(10, north: 60, eph: 8, epv: 46, speed: 6), true, "epv 46 m (VDOP 2) is 7 m"),
            (fix(10, north: 60, eph: 8, epv: nil, speed: 6), false, "3-D without a vertical error: kept, never exported as trusted")
        ]
        for (x, trusted, why) in cases {
            let r = run(ride(10) + [x] + ride(5, from: 11, north: 66))
            XCTAssertTrue(r.kept.contains(x), why)
            XCTAssertEqual(r.drops[.noHeight], 0, why)
            XCTAssertEqual(Accuracy.heightIsTrusted(x), trusted, why)
        }
    }

    func testRule4ImpossibleJumps() {
        // One fix 200 m to the side: farther than 30 m/s × 1 s plus both uncertainties.
        var out = fix(10, north: 60, east: 200, eph: 8, speed: 6)
        let r = run(ride(10) + [out] + ride(5, from: 11, north: 66))
        XCTAssertFalse(r.kept.contains(out))
        XCTAssertEqual(r.drops[.jump], 1)
        // The same jump is possible for a drive at 250 km/h (69 m/s)… over 3 s.
        out = fix(12, north: 72, east: 200, eph: 8, speed: 6)
        XCTAssertEqual(run(ride(10) + [out], profile: .drive).drops[.jump], 0)

        // The receiver really is 500 m away from the last kept point (it was the bad one): five
        // fixes are dropped, then the rules accept where it is and start a new segment without a
        // line across.
        let moved = ride(12, from: 10, north: 500, v: 12)
        let r2 = run(ride(10, v: 12) + moved)
        XCTAssertEqual(r2.drops[.jump], 5)
        XCTAssertEqual(r2.segments, [.reset])
        XCTAssertEqual(Array(r2.kept.suffix(7)), Array(moved.suffix(7)), "from the sixth on, where the receiver is")
    }

    func testRule5OutAndBackSpikes() {
        // Single spikes 40-160 m to the side, with the true doppler speed: all dropped.
        for side in [40.0, 80.0, 160.0] {
            let spike = fix(10, north: 60, east: side, eph: 8, speed: 6)
            let r = run(ride(10) + [spike] + ride(5, from: 11, north: 66))
            XCTAssertFalse(r.kept.contains(spike), "\(side) m spike")
            XCTAssertEqual(r.drops[.spike] + r.drops[.jump], 1, "\(side) m spike")
        }
        // Two fixes out and back.
        let a = fix(10, north: 60, east: 45, eph: 8, speed: 6), b = fix(11, north: 66, east: 47, eph: 8, speed: 6)
        let r2 = run(ride(10) + [a, b] + ride(5, from: 12, north: 72))
        XCTAssertFalse(r2.kept.contains(a) || r2.kept.contains(b))
        XCTAssertEqual(r2.drops[.spike], 2)
        // A real sharp turn (90° right at 6 m/s) is not a spike.
        let turn = ride(10) + (1...6).map { i in fix(9 + Double(i), north: 54, east: 6 * Double(i), eph: 8, speed: 6) }
        XCTAssertEqual(run(turn).drops[.spike], 0)
    }

    func testRule6HalfSecondBlipsAt10HzDoNotLeaveTheStop() {
        // A 10 Hz receiver rides in, stands ten minutes (speed ~0, position still), with a
        // half-second doppler blip (five fixes at 1.3 m/s, one course) every minute, and rides on.
        // At 1 Hz such a blip is one fix; at 10 Hz it must not be "four in a row" either.
        var fixes: [Fix] = []
        var t = 0.0
        for i in 0..<300 { fixes.append(fix(t, north: 0.6 * Double(i), eph: 8, speed: 6 + 0.03 * sin(Double(i)))); t += 0.1 }
        // The position drifts as among buildings (5 m per axis, 30 s correlation).
        let stopNorth = 0.6 * 300
        var seed: UInt64 = 3
        func gauss() -> Double {
            var u = [Double]()
            for _ in 0..<2 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                u.append(Double(seed >> 11) / Double(1 << 53) + 1e-12)
            }
            return (-2 * log(u[0])).squareRoot() * cos(2 * .pi * u[1])
        }
        let a = exp(-0.1 / 30), b = 5 * (1 - a * a).squareRoot()
        var dn = 0.0, de = 0.0
        for i in 0..<6000 {
            dn = a * dn + b * gauss()
            de = a * de + b * gauss()
            let blip = i % 600 >= 300 && i % 600 < 305
            var f = fix(t, north: stopNorth + dn, east: de, eph: 15, speed: blip ? 1.3 : 0.02 + 0.01 * sin(Double(i)))
            f.track = blip ? Double(i / 600 * 97 % 360) : Double(i * 37 % 360)
            fixes.append(f)
            t += 0.1
        }
        let r = run(fixes)
        let standing = r.kept.filter { $0.timeMs > fix(30.5).timeMs }
        XCTAssertLessThanOrEqual(standing.count, 1, "kept while standing: \(standing.count), segments \(r.segments)")
        XCTAssertEqual(r.segments, [], "never left: no segment")
    }

    func testRule6NothingWhileStandingStill() {
        // 25 minutes at a café: drift, small doppler speeds, blips; then riding on.
        var cafe = ride(20)
        let stopT = 20.0, stopN = 6.0 * 19
        for i in 0..<1500 {
            let blip = i % 97 == 0 ? 1.3 : 0.05
            cafe.append(fix(stopT + Double(i), north: stopN + 1.5 * sin(Double(i) / 40), east: 1.2 * cos(Double(i) / 55), eph: 8, speed: blip))
        }
        cafe += ride(20, from: stopT + 1500, north: stopN)
        let r = run(cafe)
        let during = r.kept.filter { $0.timeMs > fix(stopT).timeMs && $0.timeMs < fix(stopT + 1499).timeMs }
        XCTAssertLessThanOrEqual(during.count, 2, "the stop fix, and where the rider sets off from")
        XCTAssertEqual(r.segments, [.pause], "a stop over 2 minutes is a pause: a new segment")
        XCTAssertEqual(r.closes, 0, "25 minutes is inside the trip")
        XCTAssertGreaterThan(r.drops[.standing], 1400)

        // 35 minutes: the trip closes, and nothing more is kept until the rider moves.
        var park = ride(20)
        for i in 0..<2100 { park.append(fix(stopT + Double(i), north: stopN, eph: 8, speed: 0.03)) }
        let p = run(park)
        XCTAssertEqual(p.closes, 1)
        XCTAssertLessThanOrEqual(p.kept.count, 21)

        // Home (issue 41): a stand of 2 minutes there closes the trip; the same stand elsewhere,
        // or passing home without standing, does not.
        let homeAt = fix(0, north: stopN)
        var atHome = ActivityProfile.ride
        atHome.home = HomePlace(lat: homeAt.lat, lon: homeAt.lon, radiusM: 100)
        var home = ride(20)
        for i in 0..<150 { home.append(fix(stopT + Double(i), north: stopN + 20, eph: 8, speed: 0.03)) }
        let h = run(home, profile: atHome)
        XCTAssertEqual(h.closes, 1, "150 s standing at home")
        var short = ride(20)
        for i in 0..<100 { short.append(fix(stopT + Double(i), north: stopN + 20, eph: 8, speed: 0.03)) }
        short += ride(20, from: stopT + 100, north: stopN + 20)
        XCTAssertEqual(run(short, profile: atHome).closes, 0, "100 s at home is a stop")
        var away = ride(120)
        for i in 0..<150 { away.append(fix(120 + Double(i), north: 6.0 * 119, eph: 8, speed: 0.03)) }
        away += ride(20, from: 270, north: 6.0 * 119)
        let awayRun = run(away, profile: atHome)
        XCTAssertEqual(awayRun.closes, 0, "150 s standing 600 m from home")
        XCTAssertEqual(awayRun.segments, [.pause], "a stand away from home is a pause")
        XCTAssertEqual(run(ride(200, north: -300), profile: atHome).closes, 0, "riding through home")

        // A short stop (a light) stays in the segment.
        var light = ride(20)
        for i in 0..<40 { light.append(fix(stopT + Double(i), north: stopN, eph: 8, speed: 0.02)) }
        light += ride(20, from: stopT + 40, north: stopN)
        XCTAssertEqual(run(light).segments, [])
    }

    func testTheStopFixIsNotHeldThroughTheStop() {
        // Points held by the rules are not yet on the card: the stop fix must come out at once,
        // not when the rider leaves (a power cut at the café would lose it).
        var rules = FixRules()
        var kept: [Fix] = []
        let fixes = ride(20) + (0..<30).map { i in fix(20 + Double(i), north: 114, eph: 8, speed: 0.02) }
        for f in fixes { rules.offer(f, nowMs: f.timeMs) { if case .keep(let k) = $0 { kept.append(k) } } }
        XCTAssertEqual(kept.last?.timeMs, fix(20).timeMs, "the first fix of the stop is out before the stop ends")
    }

    func testRule7NoSpeedFixes() {
        let near = fix(10, north: 55, eph: 8, speed: nil)  // 1 m from the last, uncertainty 1.5 m
        let far = fix(11, north: 70, eph: 8, speed: nil)
        let r = run(ride(10) + [near, far] + ride(3, from: 12, north: 80))
        XCTAssertEqual(r.drops[.noSpeedNear], 1)
        XCTAssertFalse(r.kept.contains(near))
        XCTAssertTrue(r.kept.contains(far))
    }

    func testRule8DistanceFilterKeepsCorners() {
        // Walking 1.2 m/s: points about every 5 m, not every 1.2 m.
        let walk = ride(60, v: 1.2, eph: 4)
        let r = run(walk, profile: .walk)
        XCTAssertLessThan(r.kept.count, 20)
        XCTAssertGreaterThan(r.drops[.tooClose], 40)
        var stats = TripStats()
        r.kept.forEach { stats.add($0) }
        XCTAssertEqual(stats.distanceM, 1.2 * 59, accuracy: 2.5, "the distance survives the filter")

        // A right-angle corner walked slowly: the corner point survives. The doppler wobbles by a
        // few cm/s, as a receiver's does (`ride`): a speed equal to the chord's to the mm/s, fix
        // after fix, is gpsd's own from positions (`Cadence`), and such a walk opens only on
        // minutes of way (issue 39), as the one below does.
        let wobble = { (i: Int) in 1.2 + 0.03 * sin(Double(i) * 1.7) }
        let leg1 = (0..<10).map { i in fix(Double(i), north: 1.2 * Double(i), eph: 4, speed: wobble(i)) }
        let leg2 = (1..<10).map { i in fix(9 + Double(i), north: 10.8, east: 1.2 * Double(i), eph: 4, speed: wobble(9 + i)) }
        let c = run(leg1 + leg2, profile: .walk)
        XCTAssertTrue(c.kept.contains { Geodesy.distance($0, fix(9, north: 10.8)) < 1.3 }, "the corner is kept")
        var cs = TripStats()
        c.kept.forEach { cs.add($0) }
        XCTAssertEqual(cs.distanceM, 10.8 + 10.8, accuracy: 1.5, "a filter that cut the corner would measure 15.3 m")

        // The same corner at the end of a 4-minute walk from a receiver without doppler, whose
        // speeds gpsd derived from positions (exact: the chord from the fix before): the trip
        // opens on minutes of way with its start back-filled, and the corner is kept too.
        var derived = (0..<240).map { i in fix(Double(i), north: 1.2 * Double(i), eph: 4, speed: nil) }
        derived += (1..<10).map { i in fix(239 + Double(i), north: 1.2 * 239, east: 1.2 * Double(i), eph: 4, speed: nil) }
        for i in 1..<derived.count { derived[i].speed = Geodesy.shortEllipsoidDistance(derived[i - 1], derived[i]) }
        let d = run(derived, profile: .walk)
        XCTAssertEqual(d.kept.first?.timeMs, derived[0].timeMs, "the way to the start is kept")
        XCTAssertTrue(d.kept.allSatisfy { $0.speed == nil }, "gpsd's speeds are no doppler's")
        XCTAssertTrue(d.kept.contains { Geodesy.distance($0, fix(239, north: 1.2 * 239)) < 1.3 }, "the corner is kept")
        var ds = TripStats()
        d.kept.forEach { ds.add($0) }
        XCTAssertEqual(ds.distanceM, 1.2 * 239 + 10.8, accuracy: 3, "a filter that cut the corner would lose 5.4 m")
    }

    func testRule9GapsKeepTheLineUnlessAPauseOrImpossible() {
        // 60 s in a tunnel at 12 m/s, out 730 m further: the line goes on. The first 8 s out are
        // held to the doppler (rule 13) and dropped, since no window of that length came before.
        let tunnel = run(ride(10, v: 12) + ride(20, from: 70, north: 838, v: 12))
        XCTAssertEqual(tunnel.segments, [])
        XCTAssertEqual(tunnel.drops[.converging], 8, "\(tunnel.drops.nonzero)")
        XCTAssertEqual(tunnel.drops.total, 8, "\(tunnel.drops.nonzero)")
        var ts = TripStats()
        tunnel.kept.forEach { ts.add($0) }
        XCTAssertEqual(ts.distanceM, 12 * 89, accuracy: 2, "the chord counts once")
        XCTAssertEqual(ts.movingTimeMs, 89_000, accuracy: 1_000, "and so does its time")
        // Out 5 km further after 60 s (83 m/s): no ride goes that fast, so no line across.
        let far = run(ride(10, v: 12) + ride(10, from: 70, north: 5108, v: 12))
        XCTAssertEqual(far.segments, [.gap])
        XCTAssertEqual(far.drops[.jump], 0)
        // Standing before a 3-minute silence, then riding on from the same place: a pause.
        var stood = ride(10)
        stood += (0..<10).map { i in fix(10 + Double(i), north: 54, eph: 8, speed: 0.02) }
        stood += ride(20, from: 200, north: 54)
        XCTAssertEqual(run(stood).segments, [.pause])
    }

    func testRule9ScalesWithASparseReceiver() {
        // One fix every 12 s while walking (a phone logger): a trip, one segment, every fix.
        let sparse = (0..<40).map { i in fix(12 * Double(i), north: 14 * Double(i), eph: 30, speed: 1.15 + 0.03 * sin(Double(i))) }
        let r = run(sparse, profile: .walk)
        XCTAssertEqual(r.segments, [])
        XCTAssertEqual(r.drops[.firstFix] + r.drops[.jump] + r.drops[.spike] + r.drops[.converging], 0, "\(r.drops.nonzero)")
        var st = TripStats()
        r.kept.forEach { st.add($0) }
        XCTAssertEqual(st.distanceM, 14 * 39, accuracy: 14 * 39 * 0.03, "\(r.drops.nonzero)")
    }

    func testGpsdSpeedFromPositionsIsNotDoppler() {
        // A receiver without speed (GGA + RMC with the speed empty): gpsd's speed is the chord.
        var fixes: [Fix] = []
        for i in 0..<30 {
            var f = fix(Double(i), north: 7 * Double(i) + (i == 20 ? 40 : 0), eph: 8)
            if let p = fixes.last { f.speed = Geodesy.shortEllipsoidDistance(p, f) } else { f.speed = nil }
            fixes.append(f)
        }
        let r = run(fixes)
        XCTAssertTrue(r.kept.dropFirst(5).allSatisfy { $0.speed == nil }, "gpsd's speed is not kept as measured")
        var stats = TripStats()
        r.kept.forEach { stats.add($0) }
        XCTAssertLessThan(stats.maxSpeedMps ?? 0, 12, "the 40 m spike is no top speed")
    }

    /// A small deterministic wander (metres) for the standing receiver below.
    func wander(_ i: Int) -> (Double, Double) {
        let t = Double(i)
        return (9 * sin(t / 7) + 4 * sin(t * 1.3), 8 * cos(t / 9) + 4 * cos(t * 1.7))
    }

    func testRule6ADopplerThatLiesDoesNotStartATrip() {
        // Ten minutes standing under trees: the doppler says 1-3 m/s with a wandering course,
        // the positions wander 10-20 m within HDOP 1's figure. No trip, nothing kept.
        let standing = (0..<600).map { i -> Fix in
            let (e, n) = wander(i)
            var f = fix(Double(i), north: n, east: e, eph: 19, speed: 2 + sin(Double(i) / 5))
            f.track = (Double(i) * 37).truncatingRemainder(dividingBy: 360)
            return f
        }
        let r = run(standing)
        XCTAssertEqual(r.kept.count, 0, "\(r.drops.nonzero)")
        // The same receiver riding off afterwards: the trip starts, and the ride is all there.
        let off = ride(30, from: 600, north: 10, eph: 19)
        let r2 = run(standing + off)
        XCTAssertTrue(r2.kept.allSatisfy { $0.timeMs >= fix(598).timeMs }, "nothing from the stand")
        var st = TripStats()
        r2.kept.forEach { st.add($0) }
        XCTAssertEqual(st.distanceM, 6 * 29, accuracy: 20, "\(r2.drops.nonzero)")
    }

    func testRule6ALyingStopInsideATripAddsNothing() {
        // A ride, then ten minutes standing with a lying doppler, then the ride goes on.
        var fixes = ride(60)
        fixes += (0..<600).map { i -> Fix in
            let (e, n) = wander(i)
            var f = fix(60 + Double(i), north: 360 + n, east: e, eph: 19, speed: 2 + sin(Double(i) / 5))
            f.track = (Double(i) * 37).truncatingRemainder(dividingBy: 360)
            return f
        }
        fixes += ride(60, from: 660, north: 370, eph: 19)
        let r = run(fixes)
        var st = TripStats()
        r.kept.forEach { st.add($0) }
        // (The first 20 s of the stand are ridden, by all the rules can tell: ~100 m of wander.)
        XCTAssertLessThan(st.distanceM, 354 + 16 + 354 + 120, "the stand added its wander: \(r.drops.nonzero)")
        XCTAssertGreaterThan(r.drops[.standing], 500)
    }

    func testRule6TheWayOffAShortStopKeepsItsPoints() {
        // A minute between buildings (positions wandering 10-20 m about the doppler's path, so
        // the displacement noise learnt is large), a light of 40 s, then the rider sets off
        // east, speeding up. Displacement ends the stop only some seconds after the wheels turn;
        // the metres ridden meanwhile still go through the distance filter, not dropped.
        var fixes = (0..<60).map { i -> Fix in
            let (e, n) = wander(i)
            var f = fix(Double(i), north: 6 * Double(i) + n, east: e, eph: 8, speed: 6 + 0.03 * sin(Double(i) * 1.7))
            f.track = 0
            return f
        }
        let (e0, n0) = wander(60)
        for i in 0..<40 { fixes.append(fix(60 + Double(i), north: 360 + n0, east: e0, eph: 8, speed: 0.02)) }
        var east = 0.0
        for i in 0..<40 {
            let v = min(6, 0.8 * Double(i + 1))
            east += v
            var f = fix(100 + Double(i), north: 360 + n0, east: e0 + east, eph: 8, speed: v + 0.03 * sin(Double(i) * 1.7))
            f.track = 90
            fixes.append(f)
        }
        let r = run(fixes)
        let stop = fix(60, north: 360 + n0, east: e0)
        let off = r.kept.filter { $0.timeMs > stop.timeMs }
        XCTAssertEqual(r.segments, [])
        // (Dropped with the rolling fixes, the first point was the one that ended the stop, 16 m
        // off; the distance filter's own step here is about 12 m.)
        XCTAssertLessThan(off.first.map { Geodesy.distance(stop, $0) } ?? .infinity, 14, "the first point off the stop")
        var from = stop
        for k in off {
            XCTAssertLessThan(Geodesy.distance(from, k), 14, "a step with no point, to \(k.timeMs - stop.timeMs) ms")
            from = k
        }
    }

    func testRule7APositionOnlyStretchThatCannotBePlacedIsAGap() {
        // Riding north at 6 m/s; two minutes of 2-D fixes without speed scattered ±35 m in
        // between (claiming 17 m): the chord counts, not the zig-zag.
        var fixes = ride(60)
        for i in 60..<180 {
            let s = 35.0 * sin(Double(i) * 2.3), c = 35.0 * cos(Double(i) * 3.1)
            fixes.append(fix(Double(i), north: 6 * Double(i) + c, east: s, mode: 2, eph: 90, epv: nil, alt: nil, speed: nil))
        }
        fixes += ride(60, from: 180, north: 1080)
        let r = run(fixes)
        var st = TripStats()
        r.kept.forEach { st.add($0) }
        XCTAssertEqual(st.distanceM, 6 * 239, accuracy: 6 * 239 * 0.02, "\(r.drops.nonzero)")
        XCTAssertLessThanOrEqual(r.kept.filter { $0.speed == nil }.count, 2)
        XCTAssertEqual(r.segments, [], "the line goes across")
    }

    /// A receiver whose course points anywhere but the way it goes (turning 0.37° a second
    /// whatever the road does), with speed and positions that agree: every fix of a ride is a
    /// ride, however short. A wrong course must not hold the trip at its start.
    func testRule6ACourseThatPointsElsewhereStillRecordsTheRide() {
        for n in [20, 60] {
            let fixes = (0..<n).map { i -> Fix in
                let lat = 47.0 + (900 * Double(i) + 4000 * sin(Double(i) / 50)) / 1e7
                let lon = 8.5 + (1300 * Double(i) + 3000 * cos(Double(i) / 70)) / 1e7
                return Fix(
                    timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: lat, lon: lon, mode: 3, eph: 5 + Double(i % 7) / 10, epx: 3, epy: 3.5,
                    speed: 13.5 + Double(i % 11) / 10, track: Double((i * 37) % 36_000) / 100)
            }
            let r = run(fixes)
            XCTAssertGreaterThanOrEqual(r.kept.count, n / 4, "\(n) fixes: \(r.drops.nonzero)")
            XCTAssertEqual(r.kept.first?.timeMs, 1_748_764_800_000, "the trip starts where the ride does")
        }
    }
}

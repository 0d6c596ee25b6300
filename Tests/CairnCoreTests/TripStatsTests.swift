import XCTest
@testable import CairnCore

final class TripStatsTests: XCTestCase {
    func testATenHertzReceiverWithoutSpeedHasATopSpeed() {
        // 30 m/s, a point every 0.4 s (what the distance filter keeps of 10 Hz), no speeds.
        var s = TripStats()
        s.startSegment(.start)
        for i in 0..<500 { s.add(fix(Double(i) * 0.4, north: Double(i) * 12, eph: 5, speed: nil)) }
        XCTAssertEqual(s.maxSpeedMps ?? 0, 30, accuracy: 0.1)
    }

    func testATunnelWithoutSpeedsIsMovingTime() {
        // A receiver without doppler (gpsd's derived speed is not kept) rides 6 m/s through a
        // 150 s tunnel that the rules bridged: its chord counts, and so does its time.
        var s = TripStats()
        s.startSegment(.start)
        for i in 0..<100 { s.add(fix(Double(i), north: Double(i) * 6, eph: 5, speed: nil)) }
        for i in 250..<300 { s.add(fix(Double(i), north: Double(i) * 6, eph: 5, speed: nil)) }
        XCTAssertEqual(Double(s.movingTimeMs), Double(s.elapsedMs), accuracy: 1000)
        XCTAssertEqual(s.maxSpeedMps ?? 0, 6, accuracy: 0.05)
        // Standing 90 s at a light, then 30 m on: only the riding part is moving time.
        var l = TripStats()
        l.startSegment(.start)
        for i in 0..<100 { l.add(fix(Double(i), north: Double(i) * 6, eph: 5, speed: nil)) }
        l.add(fix(190, north: 99 * 6 + 30, eph: 5, speed: nil))
        XCTAssertEqual(Double(l.movingTimeMs), 99_000 + 5_000, accuracy: 1000)
    }

    func testAverageMovingSpeedIsNeverAboveTheMaximum() {
        // The doppler reads 2 % low all ride: the positions cover more than the top measured
        // speed allows in the elapsed time.
        var s = TripStats()
        s.startSegment(.start)
        for i in 0..<60 { s.add(fix(Double(i), north: Double(i) * 6, eph: 5, speed: 5.88)) }
        let avg = s.distanceM / (Double(s.movingTimeMs) / 1000)
        XCTAssertLessThanOrEqual(avg, s.maxSpeedMps ?? 0)
        XCTAssertEqual(s.maxSpeedMps ?? 0, 6, accuracy: 0.01)
    }

    func testADopplerBlipIsNoTopSpeed() {
        // Positions move 6 m/s throughout; the receiver's speed says 80 m/s for one fix.
        var s = TripStats()
        s.startSegment(.start)
        for i in 0..<60 { s.add(fix(Double(i), north: Double(i) * 6, eph: 5, speed: i == 30 ? 80 : 6)) }
        XCTAssertEqual(s.maxSpeedMps ?? 0, 6, accuracy: 0.01)
        // A real sprint (positions keep up with the speed) is the top speed.
        var r = TripStats()
        r.startSegment(.start)
        var north = 0.0
        for i in 0..<60 {
            let v = i >= 30 && i < 35 ? 16.0 : 6.0
            north += v
            r.add(fix(Double(i), north: north, eph: 5, speed: v))
        }
        XCTAssertEqual(r.maxSpeedMps ?? 0, 16, accuracy: 0.01)
    }

    func testStatistics() {
        var s = TripStats()
        s.startSegment(.start)
        for i in 0..<11 { s.add(fix(Double(i), north: Double(i) * 5, alt: 100 + Double(i) * 2, speed: 5)) }
        XCTAssertEqual(s.points, 11)
        XCTAssertEqual(s.distanceM, 50, accuracy: 0.01)
        XCTAssertEqual(s.movingTimeMs, 10_000)
        XCTAssertNotNil(s.ascentM, "trusted heights were seen")
        XCTAssertEqual(s.maxSpeedMps ?? 0, 5, accuracy: 1e-5, "the helper's 5 m steps are 5.00004 m on the ellipsoid")
        // A pause: no distance across it.
        s.startSegment(.pause)
        s.add(fix(100, north: 500, alt: 120, speed: 5))
        XCTAssertEqual(s.distanceM, 50, accuracy: 0.01)
        XCTAssertEqual(s.segments, 2)
        XCTAssertEqual(s.elapsedMs, 100_000)
    }

    func testAscentFromGPSHeights() {
        // Two minutes up at 0.5 m/s (60 m), a minute level, a minute down 30 m: the smoothed
        // GPS heights and a 5 m hysteresis count the climb, not the wobble.
        var s = TripStats()
        var t = 0.0
        func add(_ h: Double) { s.add(fix(t, north: t * 5, alt: h + 1.5 * sin(t), speed: 5)); t += 1 }
        for i in 0..<120 { add(100 + 0.5 * Double(i)) }
        for _ in 0..<60 { add(160) }
        for i in 0..<60 { add(160 - 0.5 * Double(i)) }
        for _ in 0..<60 { add(130) }
        XCTAssertEqual(s.ascentM!, 60, accuracy: 3)
        XCTAssertEqual(s.descentM!, 30, accuracy: 3)
    }

    /// The distance filter keeps one fix in eight on this straight road; the crests of 4 m
    /// rollers between kept points are climb all the same: the barometer's climb counts every fix
    /// the rules kept or thinned out as too close (issue 39: barometric climb came out short
    /// against the true profile).
    func testBarometricClimbCountsTheThinnedFixes() {
        func withPressure(_ t: Double, _ h: Double) -> Fix {
            var f = fix(t, north: t * 7, eph: 3, epv: 2, alt: 100, speed: 7)
            f.pressurePa = 101_325 * pow(1 - h / 44_330.77, 5.25588)
            return f
        }
        var s = TripStats()
        s.startSegment(.start)
        var truth = 0.0, prev = 100.0
        for i in 0..<1200 {
            let t = Double(i), h = 100 + 4 * (1 - cos(2 * .pi * t / 24)) / 2
            if h > prev { truth += h - prev }
            prev = h
            let f = withPressure(t, h)
            if i % 8 == 0 { s.add(f) }
            s.addOfferedHeight(f)
        }
        XCTAssertEqual(truth, 200, accuracy: 0.5)
        XCTAssertTrue(s.climbFromBarometer)
        XCTAssertEqual(s.ascentM ?? 0, truth, accuracy: truth * 0.03, "every offered fix's pressure")
        XCTAssertLessThan(s.climb.ascentM ?? 0, truth * 0.8, "the kept points alone miss the crests")
        // A log without raw fixes: the kept points' figure.
        var k = TripStats()
        for i in stride(from: 0, to: 1200, by: 8) { k.add(withPressure(Double(i), 100)) }
        XCTAssertEqual(k.ascentM, 0)
    }

    func testStandingStillIsNotMovingTime() {
        var s = TripStats()
        for i in 0..<10 { s.add(fix(Double(i), north: 0.1 * Double(i % 2), speed: 0.05)) }
        XCTAssertEqual(s.movingTimeMs, 0)
    }

    func testNoTrustedHeightMeansNoAscent() {
        var s = TripStats()
        for i in 0..<5 { s.add(fix(Double(i), north: Double(i) * 5, epv: 80)) }
        XCTAssertNil(s.ascentM)
        XCTAssertNil(s.descentM)
    }

    func testTopSpeedMustHoldForSeveralSeconds() {
        // No speeds (GGA only): 8 m/s for 10 minutes, one position thrown 30 m aside and back.
        var s = TripStats()
        s.startSegment(.start)
        for i in 0..<600 { s.add(fix(Double(i), north: 8 * Double(i), east: i == 30 ? 30 : 0, eph: 5, speed: nil)) }
        XCTAssertEqual(s.maxSpeedMps ?? 0, 8, accuracy: 0.5, "one jump is no top speed")
        // A derived speed passed through as if measured: one fix says 47 m/s.
        var d = TripStats()
        d.startSegment(.start)
        for i in 0..<600 { d.add(fix(Double(i), north: 8 * Double(i) + (i == 30 ? 40 : 0), eph: 5, speed: i == 30 ? 47 : 8)) }
        XCTAssertEqual(d.maxSpeedMps ?? 0, 8, accuracy: 0.5)
    }

    func testASpeedReachedOrLeftFasterThanAVehicleCanIsNoTopSpeed() {
        // A GGA-only drive (issue 39): cruising 25 m/s, the positions run ahead along the road for
        // four seconds and come back in one; gpsd's speeds from them (88 → 140 → 166 → 150 →
        // 145 → 34 km/h) held for more than three seconds, reached and left at 2-3 g.
        var s = TripStats()
        s.startSegment(.start)
        let ahead: [Int: Double] = [30: 14, 31: 30, 32: 41, 33: 52, 34: 0]
        var previous = 0.0
        for i in 0..<120 {
            let north = 25 * Double(i) + (ahead[i] ?? 0)
            s.add(fix(Double(i), north: north, eph: 5, speed: i == 0 ? 25 : north - previous))
            previous = north
        }
        XCTAssertLessThan(s.maxSpeedMps ?? 0, 30, "an excursion and its return is no speed")
        // A car that speeds up from 20 to 40 m/s at 0.5 g and holds it: that is its top speed.
        var c = TripStats()
        c.startSegment(.start)
        var north = 0.0
        for i in 0..<120 {
            let v = min(40, max(20, 20 + 5 * Double(i - 30)))
            north += v
            c.add(fix(Double(i), north: north, eph: 5, speed: v))
        }
        XCTAssertEqual(c.maxSpeedMps ?? 0, 40, accuracy: 0.01)
    }

    /// A trainer's figures from the wheel (issue 40, attack r21 U2): before, a trip without
    /// points had no top speed (`info`: max -) while FIT had the wheel's.
    func testAWheelsTopSpeedIsTheTrainersTopSpeed() {
        var s = TripStats()
        s.addWheel(extraM: 4792, movingMs: 599_000, firstMs: 0, lastMs: 599_000, topMps: 8.4)
        XCTAssertEqual(s.maxSpeedMps ?? 0, 8.4, accuracy: 1e-9)
        XCTAssertEqual(s.movingTimeMs, 599_000)
    }

    /// The wheel's ride before the first point (a trainer's indoor part, attack r21 F3): its
    /// metres and moving time count, and the trip starts with it.
    func testTheWheelsRideBeforeTheFirstPointStartsTheTrip() {
        var s = TripStats()
        for i in 0..<11 { s.add(fix(Double(i), north: Double(i) * 8, eph: 5, speed: 8)) }
        let (points, first, moving) = (s.distanceM, s.firstTimeMs, s.movingTimeMs)
        s.addWheelLead(metres: 2400, movingMs: 300_000, fromMs: (first ?? 0) - 300_000)
        XCTAssertEqual(s.distanceM, points + 2400, accuracy: 1e-9)
        XCTAssertEqual(s.firstTimeMs, (first ?? 0) - 300_000)
        XCTAssertEqual(s.movingTimeMs, moving + 300_000)
        XCTAssertEqual(s.points, 11)
    }
}

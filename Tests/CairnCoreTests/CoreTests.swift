import XCTest
@testable import CairnCore

/// A fix at `t` seconds, `north` metres north of a fixed origin, with optional fields.
func fix(_ t: Double, north: Double = 0, east: Double = 0, mode: Int = 3, eph: Double? = 10, epv: Double? = 10,
         alt: Double? = 100, speed: Double? = 5) -> Fix {
    let lat0 = 48.0, lon0 = 11.0
    let lat = lat0 + north / 111_195.0
    let lon = lon0 + east / (111_195.0 * cos(lat0 * .pi / 180))
    return Fix(timeMs: 1_780_000_000_000 + Int64(t * 1000), lat: lat, lon: lon, mode: mode,
               altHAE: alt.map { $0 + 47 }, altMSL: alt, eph: eph, epv: epv, speed: speed)
}

final class GeodesyTests: XCTestCase {
    func testKnownDistances() {
        // One degree of latitude on the mean sphere.
        XCTAssertEqual(Geodesy.distance(lat1: 0, lon1: 0, lat2: 1, lon2: 0), 111_195, accuracy: 1)
        XCTAssertEqual(Geodesy.distance(lat1: 48, lon1: 11, lat2: 48, lon2: 11), 0)
        // Across the antimeridian the short way.
        XCTAssertEqual(Geodesy.distance(lat1: 0, lon1: 179.9995, lat2: 0, lon2: -179.9995), 111.2, accuracy: 0.2)
        XCTAssertEqual(Geodesy.distance(fix(0), fix(1, north: 100)), 100, accuracy: 0.01)
    }
}

final class AccuracyTests: XCTestCase {
    func testMappingIsOneDocumentedPlace() {
        // gpsd's DOP guesses (HDOP × 19, VDOP × 23) become DOP × 3.5 m.
        let f = fix(0, eph: 19, epv: 23)
        XCTAssertEqual(Accuracy.horizontal68(f)!, 3.5, accuracy: 1e-9)
        XCTAssertEqual(Accuracy.vertical68(f)!, 3.5, accuracy: 1e-9)
        XCTAssertEqual(Accuracy.source(f), .dopGuess)
        XCTAssertNil(Accuracy.horizontal68(fix(0, eph: nil)))
        // epx/epy from gpsd's own DOPs beside eph (ratio 0.4-1.7): still a guess.
        var g = fix(0, eph: 18.05, epv: 31.97)
        g.epx = 8.633; g.epy = 11.432
        XCTAssertEqual(Accuracy.source(g), .dopGuess)
        XCTAssertEqual(Accuracy.horizontal68(g)!, 18.05 / 19 * 3.5, accuracy: 1e-9)
        // NMEA GBS: epx/epy/epv verbatim, a fraction of gpsd's eph beside them.
        var gbs = fix(0, eph: 19, epv: 3)
        gbs.epx = 1; gbs.epy = 1
        XCTAssertEqual(Accuracy.source(gbs), .receiverAxes)
        XCTAssertEqual(Accuracy.horizontal68(gbs)!, 2.0.squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(Accuracy.vertical68(gbs)!, 3, accuracy: 1e-9)
        // u-blox hAcc/vAcc in eph/epv, with DOP-guess epx/epy beside them.
        var ubx = fix(0, eph: 2.1, epv: 3.4)
        ubx.epx = 9; ubx.epy = 11
        XCTAssertEqual(Accuracy.source(ubx), .receiverRadius)
        XCTAssertEqual(Accuracy.horizontal68(ubx)!, 2.1, accuracy: 1e-9)
        XCTAssertEqual(Accuracy.vertical68(ubx)!, 3.4, accuracy: 1e-9)
        // epx/epy alone.
        var axes = fix(0, eph: nil)
        axes.epx = 9; axes.epy = 12
        XCTAssertEqual(Accuracy.horizontal68(axes)!, 15 / 15 * 3.5, accuracy: 1e-9)
    }

    func testZeroNegativeOrAbsurdIsUnknownNeverPerfect() {
        for v in [0.0, -3, .infinity, 50_000] {
            XCTAssertNil(Accuracy.horizontal68(fix(0, eph: v)), "eph \(v)")
            XCTAssertNil(Accuracy.vertical68(fix(0, epv: v)), "epv \(v)")
            XCTAssertFalse(Accuracy.heightIsTrusted(fix(0, epv: v)), "epv \(v)")
        }
    }

    func testTrustedHeight() {
        let cases: [(Fix, Bool, String)] = [
            (fix(0, epv: 46), true, "VDOP 2 (epv 46 m) is 7 m: an ordinary open-sky receiver"),
            (fix(0, epv: 32), true, "VDOP 1.4 (epv 32 m) is 4.9 m"),
            (fix(0, epv: 55), false, "VDOP 2.4 is 8.4 m"),
            (fix(0, epv: nil), false, "no vertical error: not trusted"),
            (fix(0, mode: 2, epv: 5), false, "a 2-D fix has no height to trust"),
            (fix(0, epv: 5, alt: nil), false, "no height at all"),
        ]
        for (f, want, why) in cases { XCTAssertEqual(Accuracy.heightIsTrusted(f), want, why) }
    }
}

final class RingBufferTests: XCTestCase {
    /// Every wrap-around layout: each start slot × each count, for several capacities.
    func testEveryLayout() {
        for capacity in [1, 2, 3, 5, 10] {
            for start in 0..<capacity {
                for count in 0...capacity {
                    var r = RingBuffer<Int>(capacity: capacity)
                    for i in 0..<start { r.append(-i) }
                    for _ in 0..<start { r.popFirst() }
                    for i in 0..<count { r.append(i) }
                    XCTAssertEqual(r.count, count)
                    for i in 0..<count { XCTAssertEqual(r[i], i) }
                    XCTAssertEqual(r.first, count > 0 ? 0 : nil)
                    XCTAssertEqual(r.last, count > 0 ? count - 1 : nil)
                    // Appending to a full ring overwrites the oldest.
                    if count == capacity {
                        r.append(99)
                        XCTAssertEqual(r.count, capacity)
                        XCTAssertEqual(r.last, 99)
                        XCTAssertEqual(r.overwritten, 1)
                        XCTAssertEqual(r.first, capacity > 1 ? 1 : 99)
                    }
                }
            }
        }
    }

    func testPopDrains() {
        var r = RingBuffer<String>(capacity: 3)
        for s in ["a", "b", "c", "d"] { r.append(s) }
        XCTAssertEqual([r.popFirst(), r.popFirst(), r.popFirst(), r.popFirst()], ["b", "c", "d", nil])
        XCTAssertTrue(r.isEmpty)
    }
}

final class ClimbCounterTests: XCTestCase {
    func testHysteresis() {
        let cases: [([Double], Double, Double, String)] = [
            ([100, 102, 98, 101, 99, 103, 100], 0, 0, "noise within 5 m never counts"),
            ([100, 110, 120, 130], 30, 0, "steady climb"),
            ([100, 130, 100], 30, 30, "up and down"),
            ([100, 104, 108, 104, 112], 12, 0, "a 4 m dip inside a climb is not a descent"),
            ([200, 150, 154, 140], 0, 60, "descent with a 4 m rise inside"),
            ([200, 150, 160, 140], 10, 70, "a 10 m rise inside a descent counts both ways"),
        ]
        for (hs, up, down, why) in cases {
            var c = ClimbCounter(threshold: 5)
            for h in hs { c.add(height: h) }
            XCTAssertEqual(c.ascent, up, accuracy: 1e-9, why)
            XCTAssertEqual(c.descent, down, accuracy: 1e-9, why)
        }
    }

    func testNoHeightIsADash() {
        var c = ClimbCounter(threshold: 5)
        XCTAssertFalse(c.hasHeight)
        c.add(height: .nan)
        XCTAssertFalse(c.hasHeight)
        c.add(height: 10)
        XCTAssertTrue(c.hasHeight)
    }
}

final class EpochCollapserTests: XCTestCase {
    func testKeepsMostCompleteReportPerEpoch() {
        var c = EpochCollapser()
        var noAlt = fix(0, alt: nil)
        noAlt.lat += 0.0001
        XCTAssertNil(c.offer(fix(0)))
        XCTAssertNil(c.offer(noAlt))             // less complete: the earlier one stays
        let later = fix(0, north: 1)
        XCTAssertNil(c.offer(later))             // as complete: the later one wins
        XCTAssertEqual(c.offer(fix(1)), later)   // a new time releases the epoch
        XCTAssertEqual(c.collapsed, 2)
        XCTAssertEqual(c.flush(), fix(1))
        XCTAssertNil(c.flush())
    }

    func testNineteenReportsForOneTime() {
        var c = EpochCollapser()
        for i in 0..<19 { XCTAssertNil(c.offer(fix(5, north: Double(i)))) }
        XCTAssertEqual(c.flush()?.lat, fix(5, north: 18).lat)
        XCTAssertEqual(c.collapsed, 18)
    }
}

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
}

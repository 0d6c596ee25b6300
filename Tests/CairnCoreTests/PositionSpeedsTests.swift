import XCTest
@testable import CairnCore

/// The top speed from positions where the receiver measured none (issue 39, item 3): every offered
/// fix the rules kept or only thinned (`TripStats.addOffered`), reached and left as the activity can.
final class PositionSpeedsTests: XCTestCase {
    /// How far ahead along the road (m) a GGA-only drive's positions run at second `i`: out at
    /// 21.7 m/s over the car's 25 for 6 s, back at 15.6 m/s (gpsd's 88 → 166 → 34 → 90 km/h,
    /// within 15 s).
    static func excursion(_ i: Int, at start: Int) -> Double {
        let k = i - start
        guard k >= 0 else { return 0 }
        if k < 6 { return 21.7 * Double(k + 1) }
        return max(0, 21.7 * 6 - 15.6 * Double(k - 5))
    }

    /// Kept: what the rules keep of a drive without speeds (one point in about 150 m, and the
    /// excursion's own points); offered: every fix.
    static func drive(speedOfOffered: (Double, Double) -> Double?, profile: ActivityProfile? = .drive) -> (kept: TripStats, both: TripStats) {
        var kept = TripStats(profile: profile), both = TripStats(profile: profile)
        kept.startSegment(.start)
        both.startSegment(.start)
        var previous = 0.0
        for i in 0..<300 {
            let north = 25 * Double(i) + excursion(i, at: 100)
            let f = fix(Double(i), north: north, eph: 5, speed: speedOfOffered(north, previous))
            previous = north
            both.addOffered(f)
            // As the rules kept the Pixel 4's: 2 s before the excursion, 2 s and 6 s into it, after it.
            if (i % 6 == 0 && !(96...119).contains(i)) || [98, 102, 106, 117].contains(i) {
                var k = f
                k.speed = nil
                kept.add(k)
                both.add(k)
            }
        }
        return (kept, both)
    }

    func testAnExcursionOutAndBackIsNoTopSpeed() {
        let (kept, both) = Self.drive(speedOfOffered: { _, _ in nil })
        // The kept points alone (what a log without raw fixes gives): 8 s at 35 m/s, braked hard.
        XCTAssertGreaterThan(kept.maxSpeedMps ?? 0, 32, "the kept points cannot tell: \(kept.maxSpeedMps ?? 0)")
        XCTAssertEqual(both.maxSpeedMps ?? 0, 25, accuracy: 0.5, "an excursion and its return is no speed")
        XCTAssertEqual(both.distanceM, kept.distanceM, "the figures change, not the points")
    }

    func testAnExcursionsWayOutVouchesForNoneOfIt() {
        // A 15 m/s GGA-only drive whose positions swing out 150-250 m and back over 6 fixes (a
        // half sine, sideways and a half ahead: issue 39's attack). The way out was judged no
        // speed, but the next chords, still far out, were reached from it: 19.7-37 m/s.
        for a in [150.0, 250.0] {
            var s = TripStats(profile: .drive)
            s.startSegment(.start)
            for i in 0..<300 {
                let k = i - 150
                let out = (0..<6).contains(k) ? a * sin(Double.pi * Double(k + 1) / 7) : 0
                let f = fix(Double(i), north: 15 * Double(i) + 0.5 * out, east: out, eph: 5, speed: nil)
                s.addOffered(f)
                if i % 10 == 0 { s.add(f) }
            }
            XCTAssertLessThan(s.maxSpeedMps ?? 0, 15 * 1.2, "excursion \(a) m: \(s.maxSpeedMps ?? 0) m/s")
        }
    }

    func testSpeedsGpsdDerivedFromPositionsAreJudgedAsPositions() {
        // The raw fixes carry gpsd's speeds from positions (the rules took them off the kept points).
        let (_, both) = Self.drive(speedOfOffered: { north, previous in north - previous })
        XCTAssertEqual(both.maxSpeedMps ?? 0, 25, accuracy: 0.5)
    }

    func testASpeedReachedAndLeftAsACarCanIsTheTopSpeed() {
        // 20 → 40 m/s at 4 m/s², held 10 s, down to 20 at 8 m/s²; positions jitter ±0.5 m.
        var s = TripStats(profile: .drive)
        s.startSegment(.start)
        var north = 0.0, v = 20.0
        for i in 0..<200 {
            if i >= 50 && i < 55 { v += 4 } else if i >= 65 && i < 67 { v -= 8 } else if i == 67 { v -= 4 }
            north += v
            let f = fix(Double(i), north: north + (i % 2 == 0 ? 0.5 : -0.5), eph: 5, speed: nil)
            s.addOffered(f)
            if i % 5 == 0 { s.add(f) }
        }
        XCTAssertEqual(s.maxSpeedMps ?? 0, 40, accuracy: 2, "reached at 0.4 g and left at 0.8 g: a speed")
    }

    func testDopplerSpeedsAreNotJudgedByPositions() {
        // A receiver with a doppler (8.1 m/s throughout: never its chords' to the mm/s) whose
        // positions run ahead for 4 s: its measured speeds are the speeds, and the offered fixes' chords add nothing.
        var s = TripStats(profile: .ride), k = TripStats(profile: .ride)
        s.startSegment(.start)
        k.startSegment(.start)
        for i in 0..<120 {
            let f = fix(Double(i), north: 8 * Double(i) + (i >= 30 && i < 34 ? 30 : 0), eph: 5, speed: 8.1)
            s.addOffered(f)
            s.add(f)
            k.add(f)
        }
        XCTAssertEqual(s.maxSpeedMps, k.maxSpeedMps)
        XCTAssertNil(s.positionTopMps)
    }

    func testSpeedsDerivedOnASphereFromRoundedPositionsAreJudgedAsPositions() {
        // Eastward, speeds computed on the mean sphere (not gpsd's ellipsoid: 0.3 % apart going
        // east at 48°) from positions rounded to the log's 1e-7°, with the excursion: no doppler.
        var kept = TripStats(profile: .drive)
        kept.startSegment(.start)
        var previous: Fix?
        for i in 0..<300 {
            var f = fix(Double(i), east: 25 * Double(i) + Self.excursion(i, at: 100), eph: 5, speed: nil).atLogResolution
            f.speed = previous.map { Geodesy.distance($0, f) }
            kept.addOffered(f)
            if (i % 6 == 0 && !(96...119).contains(i)) || [98, 102, 106, 117].contains(i) {
                var k = f
                k.speed = nil
                kept.add(k)
            }
            previous = f
        }
        XCTAssertEqual(kept.maxSpeedMps ?? 0, 25, accuracy: 0.5)
    }
}

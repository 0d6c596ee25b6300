import XCTest
@testable import CairnCore

/// `Cadence` alone: the receiver's interval, "n in a row" scaled to it, and gpsd's own speeds.
final class CadenceTests: XCTestCase {
    func testTheIntervalIsTheMedianAndScalesTheVotes() {
        var c = Cadence()
        XCTAssertEqual(c.intervalMs, 1000, "a fix a second until there is one")
        for i in 0..<6 {
            var f = fix(Double(i) * 12, north: Double(i) * 60)
            c.learn(&f)
        }
        XCTAssertEqual(c.intervalMs, 12_000)
        XCTAssertEqual(c.fixes(inSeconds: 4), 4, "never fewer than n")
        var fast = Cadence()
        for i in 0..<12 {
            var f = fix(Double(i) / 10, north: Double(i) / 2)
            fast.learn(&f)
        }
        XCTAssertEqual(fast.intervalMs, 100)
        XCTAssertEqual(fast.fixes(inSeconds: 4), 40, "four seconds' worth at 10 Hz")
    }

    func testASpeedThatIsTheChordsIsTakenAway() {
        var c = Cadence()
        var previous: Fix?
        var speeds: [Double?] = []
        for i in 0..<8 {
            var f = fix(Double(i), north: Double(i) * 5)
            if let p = previous { f.speed = Geodesy.shortEllipsoidDistance(p, f) }
            previous = f
            c.learn(&f)
            speeds.append(f.speed)
        }
        XCTAssertNotNil(speeds[3], "three steps are not yet evidence")
        XCTAssertNil(speeds[4], "four steps equal to the chord: gpsd's own speed")
        XCTAssertNil(speeds[7])
    }

    func testASpeedIsTrustedOnlyOnceItHasProvedADoppler() {
        // A doppler (5.2 m/s over chords of 5 m): two moving steps unlike their chords prove it.
        var c = Cadence()
        var proved: [Bool] = []
        for i in 0..<4 {
            var f = fix(Double(i), north: Double(i) * 5, speed: 5.2)
            c.learn(&f)
            proved.append(c.speedsProved)
        }
        XCTAssertEqual(proved, [false, false, true, true])
        // gpsd's own speeds from positions never prove one, even before the score says so.
        var g = Cadence()
        var previous: Fix?
        for i in 0..<8 {
            var f = fix(Double(i), north: Double(i) * 1.3 + (i % 2 == 0 ? 4 : 0), speed: nil)
            if let p = previous { f.speed = Geodesy.shortEllipsoidDistance(p, f) }
            previous = f
            g.learn(&f)
            XCTAssertFalse(g.speedsProved, "fix \(i)")
        }
        XCTAssertTrue(g.speedsDerived)
    }

    func testGpsdsSpeedFromAFixBeforeTheLastIsRecognised() {
        // gpsd derives from its own previous fix: here every second fix is followed by a report
        // without speed 0.5 s later, a little elsewhere, that gpsd did not take for its previous
        // fix: the next speed is the chord from the fix before that report.
        var c = Cadence()
        var gpsdPrevious: Fix?
        var speeds: [Double?] = []
        for i in 0..<16 {
            var f = fix(Double(i), north: Double(i) * 3, speed: nil)
            if let p = gpsdPrevious { f.speed = Geodesy.shortEllipsoidDistance(p, f) }
            gpsdPrevious = f
            c.learn(&f)
            speeds.append(f.speed)
            if i % 2 == 1 {
                var between = fix(Double(i) + 0.5, north: Double(i) * 3 + 2, speed: nil)
                c.learn(&between)
            }
        }
        XCTAssertTrue(c.speedsDerived)
        XCTAssertFalse(c.speedsProved)
        XCTAssertNil(speeds[15])
    }

    func testGpsdsSpeedsAreRecognisedAtTheLogsResolution() {
        // A walk at 1.3 m/s under 3 m of jitter: gpsd's speeds are from its unrounded positions,
        // the rules see the positions at the log's 1e-7° (raw fixes kept), up to 1.6 cm off a
        // step. Through gpsd such speeds passed for a doppler's now and then (the score fell
        // back under 4) and the kept points carried them: a top speed of 20-37 m/s on a 15 m/s
        // GGA-only drive, a standing receiver's trip.
        var c = Cadence()
        var previous: Fix?
        var stripped = 0
        for i in 0..<200 {
            let jitter = 3 * sin(Double(i) * 2.3), side = 3 * cos(Double(i) * 1.1)
            var f = fix(Double(i), north: 1.3 * Double(i) + jitter, east: side, speed: nil)
            if let p = previous { f.speed = Geodesy.shortEllipsoidDistance(p, f) }
            previous = f
            var seen = f.atLogResolution
            c.learn(&seen)
            if i >= 10 && seen.speed == nil { stripped += 1 }
            XCTAssertFalse(c.speedsProved, "fix \(i)")
        }
        XCTAssertEqual(stripped, 190, "every speed after the first few is taken for gpsd's")
    }

    func testADopplerSpeedIsKept() {
        var c = Cadence()
        for i in 0..<8 {
            var f = fix(Double(i), north: Double(i) * 5, speed: 5.2)
            c.learn(&f)
            XCTAssertEqual(f.speed, 5.2)
        }
    }
}

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

    func testADopplerSpeedIsKept() {
        var c = Cadence()
        for i in 0..<8 {
            var f = fix(Double(i), north: Double(i) * 5, speed: 5.2)
            c.learn(&f)
            XCTAssertEqual(f.speed, 5.2)
        }
    }
}

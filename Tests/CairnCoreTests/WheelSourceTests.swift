import XCTest

@testable import CairnCore

/// Which wheel source counts (issue 40, attack r21 U11): a speed sensor and a power meter's wheel
/// data both send; one counts, and the next takes over only once the one counting went silent.
final class WheelSourceTests: XCTestCase {
    func testTheFirstCountsUntilItFallsSilentThenTheNextTakesOver() {
        var w = WheelSource()
        let speed: UInt64 = 1, power: UInt64 = 2
        XCTAssertEqual(w.reading(speed, atMs: 0), .takeOver, "the first source starts its counter")
        XCTAssertEqual(w.reading(power, atMs: 500), .ignore)
        XCTAssertEqual(w.reading(speed, atMs: 1000), .count)
        // The speed sensor's last reading at 1 s: the power meter is ignored for 10 s more ...
        XCTAssertEqual(w.reading(power, atMs: 11_000), .ignore)
        // ... then takes over (its counter afresh: the metres before are the speed sensor's).
        XCTAssertEqual(w.reading(power, atMs: 11_001), .takeOver)
        XCTAssertEqual(w.reading(power, atMs: 12_000), .count)
        // The speed sensor back (a new battery) does not count twice.
        XCTAssertEqual(w.reading(speed, atMs: 12_500), .ignore)
        XCTAssertEqual(w.current, power)
        XCTAssertEqual(w.takeOvers, 1)
    }
}

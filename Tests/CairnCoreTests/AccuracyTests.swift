import XCTest
@testable import CairnCore

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
            (fix(0, epv: 5, alt: nil), false, "no height at all")
        ]
        for (f, want, why) in cases { XCTAssertEqual(Accuracy.heightIsTrusted(f), want, why) }
    }
}

import XCTest
@testable import CairnCore
@testable import CairnExport

final class TextFormatTests: XCTestCase {
    func testFixedAndTrimmed() {
        let cases: [(Double, Int, String?, String?)] = [
            (48.1234567, 7, "48.1234567", "48.1234567"),
            (-0.00000004, 7, "0.0000000", "0"),
            (-12.5, 2, "-12.50", "-12.5"),
            (3, 2, "3.00", "3"),
            (0.005, 2, "0.01", "0.01"),
            (-179.99999995, 7, "-180.0000000", "-180"),
            (.nan, 2, nil, nil),
            (.infinity, 2, nil, nil)
        ]
        for (v, d, fixed, trimmed) in cases {
            XCTAssertEqual(TextFormat.fixed(v, d), fixed, "\(v)")
            XCTAssertEqual(TextFormat.trimmed(v, d), trimmed, "\(v)")
        }
    }

    func testIsoTime() {
        XCTAssertEqual(TextFormat.isoTime(ms: 0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(TextFormat.isoTime(ms: 1_748_764_801_250), "2025-06-01T08:00:01.250Z")
        XCTAssertEqual(TextFormat.isoTime(ms: 951_782_400_000), "2000-02-29T00:00:00Z")
        XCTAssertEqual(TextFormat.isoTime(ms: 4_107_542_400_000), "2100-03-01T00:00:00Z")
        XCTAssertEqual(TextFormat.isoTime(ms: -1), "1969-12-31T23:59:59.999Z")
    }

    func testEscaping() {
        XCTAssertEqual(TextFormat.jsonString("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"")
        XCTAssertEqual(TextFormat.xmlEscaped("<a & 'b'>\u{1}"), "&lt;a &amp; &apos;b&apos;&gt;")
    }

    /// One rounding rule for durations: the text's whole second is the `--json` and FIT tenths
    /// rounded half up (attack: `info` said 0:10:01 where `--json` and FIT said 601.6 s).
    func testClockRoundsTheTenthsTheJSONSays() {
        for ms: Int64 in [601_550, 601_600, 601_449, 601_450, 601_499, 0, 499, 500, 3_599_950, 86_399_951] {
            let tenths = TextFormat.trimmed(Double(ms) / 1000, 1).flatMap(Double.init) ?? -1
            let whole = Int64((tenths + 0.5).rounded(.down))
            let h = whole / 3600, m = whole / 60 % 60, sec = whole % 60
            let expected = "\(h):" + (m < 10 ? "0" : "") + "\(m):" + (sec < 10 ? "0" : "") + "\(sec)"
            XCTAssertEqual(TextFormat.clock(ms: ms), expected, "\(ms) ms, --json \(tenths) s")
        }
        XCTAssertEqual(TextFormat.clock(ms: 601_600), "0:10:02")
        XCTAssertEqual(TextFormat.clock(ms: 601_449), "0:10:01")
        XCTAssertEqual(TextFormat.clock(ms: 601_450), "0:10:02", "601.5 in --json")
        XCTAssertEqual(TextFormat.clock(ms: -5), "0:00:00")
        XCTAssertEqual(TextFormat.clock(seconds: 601.6), "0:10:02")
        XCTAssertNil(TextFormat.clock(seconds: .nan))
    }
}

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
            (.infinity, 2, nil, nil),
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
}

final class GPXWriterTests: XCTestCase {
    func render(_ body: (GPXWriter) -> Void) throws -> String {
        let path = NSTemporaryDirectory() + "gpx-\(UUID().uuidString).gpx"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let w = GPXWriter(sink: try OutputSink(creating: path, force: false), creator: "cairn test")
        w.begin()
        body(w)
        XCTAssertNil(w.end())
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func testStructureAndTrustedHeights() throws {
        let good = Fix(timeMs: 1_748_764_800_000, lat: 47.5, lon: 180, mode: 3, altMSL: 420.256, epv: 10)
        let noisy = Fix(timeMs: 1_748_764_801_000, lat: 47.5001, lon: 8.5, mode: 3, altMSL: 421, epv: 80)
        let flat = Fix(timeMs: 1_748_764_802_000, lat: 47.5002, lon: 8.5, mode: 2)
        let gpx = try render { w in
            w.beginTrip(TripHeading(id: 7, activity: "ride"))
            w.beginSegment()
            w.point(good)
            w.point(noisy)
            w.beginSegment()
            w.beginSegment()   // an empty segment is never written
            w.point(flat)
            w.endTrip()
            w.beginTrip(TripHeading(id: 8, activity: nil))
            w.endTrip()
        }
        XCTAssertTrue(gpx.contains("<trkpt lat=\"47.5\" lon=\"-180\"><ele>420.26</ele><time>2025-06-01T08:00:00Z</time><fix>3d</fix></trkpt>"), gpx)
        XCTAssertTrue(gpx.contains("<trkpt lat=\"47.5001\" lon=\"8.5\"><time>2025-06-01T08:00:01Z</time><fix>3d</fix></trkpt>"), "no <ele> for an untrusted height")
        XCTAssertTrue(gpx.contains("<fix>2d</fix>"))
        XCTAssertEqual(gpx.components(separatedBy: "<trkseg>").count - 1, 2)
        XCTAssertEqual(gpx.components(separatedBy: "<trk>").count - 1, 2)
        XCTAssertTrue(gpx.contains("<name>Trip 7</name>\n    <type>ride</type>"))
        XCTAssertTrue(gpx.hasSuffix("</gpx>\n"))
    }

    func testRefusesToOverwrite() throws {
        let path = NSTemporaryDirectory() + "exists-\(UUID().uuidString).gpx"
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try OutputSink(creating: path, force: false)) { e in
            XCTAssertTrue("\(e)".contains("already exists"))
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "keep")
    }
}

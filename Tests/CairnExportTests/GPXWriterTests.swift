import XCTest
@testable import CairnCore
@testable import CairnExport

final class GPXWriterTests: XCTestCase {
    func render(_ body: (GPXWriter) -> Void) throws -> String {
        let path = NSTemporaryDirectory() + "gpx-\(UUID().uuidString).gpx"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let w = GPXWriter(sink: try OutputSink(creating: path, force: false), creator: "cairn test")
        w.begin()
        body(w)
        XCTAssertNoThrow(try w.end())
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
            w.beginSegment()  // an empty segment is never written
            w.point(flat)
            w.endTrip()
            w.beginTrip(TripHeading(id: 8, activity: nil))
            w.endTrip()
        }
        XCTAssertTrue(gpx.contains("<trkpt lat=\"47.5\" lon=\"-180\"><ele>420.26</ele><time>2025-06-01T08:00:00Z</time><fix>3d</fix></trkpt>"), gpx)
        XCTAssertTrue(
            gpx.contains("<trkpt lat=\"47.5001\" lon=\"8.5\"><time>2025-06-01T08:00:01Z</time><fix>3d</fix></trkpt>"),
            "no <ele> for an untrusted height")
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

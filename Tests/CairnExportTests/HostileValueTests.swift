import CairnCore
import Foundation
import XCTest
@testable import CairnExport
@testable import CairnLog

/// Writers handed values no reader delivers (the reader screens records with `PointBounds`):
/// they never trap, never print a number as nothing, and their output stays valid.
final class HostileValueTests: XCTestCase {
    func testEveryFiniteMagnitudePrintsInFull() throws {
        XCTAssertEqual(TextFormat.fixed(0x1p52, 2), "4503599627370496.00")
        XCTAssertEqual(TextFormat.fixed(-0x1p63, 0), "-9223372036854775808")
        XCTAssertEqual(TextFormat.fixed(8e11, 7), "800000000000.0000000")
        XCTAssertEqual(TextFormat.fixed(987_654_321_012.5, 7), "987654321012.5000000")
        XCTAssertEqual(TextFormat.fixed(-987_654_321_012.25, 9), "-987654321012.250000000")
        XCTAssertEqual(TextFormat.trimmed(1e19, 3), "10000000000000000000")
        let max = TextFormat.fixed(.greatestFiniteMagnitude, 1)!
        XCTAssertEqual(max.count, 309 + 2)
        XCTAssertTrue(max.hasPrefix("17976931348623157"), max)
        XCTAssertEqual(Double(max), .greatestFiniteMagnitude)
        XCTAssertNil(TextFormat.fixed(.nan, 2))
        XCTAssertNil(TextFormat.fixed(-.infinity, 2))
        // The sink writes the same digits.
        let path = ExportSupport.tempDir() + "/s.txt"
        let s = try OutputSink(creating: path, force: false)
        for v in [0x1p52, -8e11, 1e300, 987_654_321_012.5, -.greatestFiniteMagnitude] {
            XCTAssertTrue(s.decimal(v, 7, trim: false)); s.byte(32)
            XCTAssertTrue(s.decimal(v, 7)); s.byte(10)
        }
        XCTAssertNoThrow(try s.finish())
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        for (line, v) in zip(lines, [0x1p52, -8e11, 1e300, 987_654_321_012.5, -.greatestFiniteMagnitude]) {
            XCTAssertEqual(String(line), "\(TextFormat.fixed(v, 7)!) \(TextFormat.trimmed(v, 7)!)")
        }
    }

    func testFileNamesAreTotal() {
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 3, startMs: PointBounds.earliestMs), "20000101-000000-trip3.fit")
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 3, startMs: 3_155_760_000_000_000), "trip3.fit", "year 101970")
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 3, startMs: -62_200_000_000_000), "trip3.fit", "before year 1000")
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 3, startMs: Int64.min), "trip3.fit")
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 3, startMs: Int64.max), "trip3.fit")
    }

    /// Points with impossible values, straight into every writer (no reader in between): skipped
    /// or written valid, never a trap. One trip of 20 good points with the bad ones in between.
    func testEveryWriterStaysValidOnHostilePoints() throws {
        let good = ExportSupport.ride(20)
        var bad: [Fix] = []
        for (lat, lon) in [(91.0, 8.0), (47.0, 181.0), (8e11, 8.0), (47.0, -0x1p52), (.nan, 8.0), (47.0, .infinity)] {
            bad.append(Fix(timeMs: good[5].timeMs + 100, lat: lat, lon: lon, mode: 3))
        }
        bad.append(Fix(timeMs: 315_532_800_000, lat: 47, lon: 8, mode: 3))  // 1980
        bad.append(Fix(timeMs: 10_413_792_000_000, lat: 47, lon: 8, mode: 3))  // 2300
        bad.append(Fix(timeMs: Int64.min, lat: 47, lon: 8, mode: 3))
        // Absurd optional values on a possible point: written clamped or left out, never empty.
        var wild = good[6]
        wild.timeMs += 100
        wild.altMSL = 0x1p52; wild.altHAE = 0x1p52; wild.epv = 1; wild.eph = 1
        wild.speed = 1e300; wild.track = -1e12; wild.climb = .infinity; wild.pressurePa = -0x1p60
        var points = Array(good[0..<6]) + bad + [wild] + Array(good[6...])
        points.append(Fix(timeMs: good.last!.timeMs + 1000, lat: .nan, lon: .nan, mode: 3))
        let summary = TripSummary(id: 1, files: [], activity: "ride")
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for format in ["gpx", "fit", "geojson", "kml", "csv"] {
            let path = dir + "/t." + format
            let w: TrackExporter
            if format == "fit" {
                w = FITWriter(target: .file(path), force: false, softwareVersion: "0.1.0")
            } else {
                let sink = try OutputSink(creating: path, force: false)
                switch format {
                case "gpx": w = GPXWriter(sink: sink, creator: "test")
                case "geojson": w = GeoJSONWriter(sink: sink, colouring: .auto)
                case "kml": w = KMLWriter(sink: sink, creator: "test", colouring: .none)
                default: w = CSVWriter(sink: sink)
                }
            }
            w.begin()
            try w.beginTrip(TripHeading(id: 1, activity: "ride", summary: summary))
            w.beginSegment(.start)
            for p in points { w.point(p, PointExtras(p)) }
            XCTAssertNoThrow(try w.endTrip())
            XCTAssertNoThrow(try w.end())
            let r = try ExportSupport.check(format, path)
            switch format {
            case "gpx": XCTAssertEqual(r["points"] as? Int, 21, format)
            case "fit": XCTAssertEqual(r["record"] as? Int, 21, format)
            case "csv": XCTAssertEqual(r["rows"] as? Int, 21, format)
            default: break
            }
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            for empty in [",]", "[,", ",,", "<ele></ele>", "></cairn:speed>", "></gpxtpx:atemp>"] where format == "geojson" || format == "gpx" {
                XCTAssertFalse(text.contains(empty) && !(format == "gpx" && empty == ",,"), "\(format) holds \(empty)")
            }
            XCTAssertFalse(text.lowercased().contains("nan,") || text.contains(">nan<"), format)
        }
    }
}

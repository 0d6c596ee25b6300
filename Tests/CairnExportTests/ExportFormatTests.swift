import CairnCore
import Foundation
import XCTest

@testable import CairnExport

/// `ExportFormat`: the one table of formats that convert and export share.
final class ExportFormatTests: XCTestCase {
    func testNamesAndExtensions() {
        XCTAssertEqual(ExportFormat.names, ["gpx", "fit", "geojson", "kml", "csv"])
        for f in ExportFormat.allCases {
            XCTAssertEqual(ExportFormat.named(f.name), f)
            XCTAssertEqual(f.fileExtension, f.name)
            XCTAssertEqual(f.writesFilePerTrip, f == .fit)
        }
        XCTAssertNil(ExportFormat.named("GPX"))
        XCTAssertNil(ExportFormat.named("svg"))
    }

    func testEachFormatMakesItsWriter() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = ExportFormat.Settings(version: "1.2.3")
        XCTAssertTrue(ExportFormat.fit.makeWriter(.fitFiles(.directory(dir), force: false, atomic: true), settings) is FITWriter)
        let expected: [ExportFormat: TrackExporter.Type] = [
            .gpx: GPXWriter.self, .geojson: GeoJSONWriter.self, .kml: KMLWriter.self, .csv: CSVWriter.self
        ]
        for (format, type) in expected {
            let w = format.makeWriter(.sink(try OutputSink(creating: dir + "/x." + format.name, force: false)), settings)
            XCTAssertTrue(Swift.type(of: w) == type, format.name)
        }
    }

    /// The settings reach the writer: the GPX creator, and CSV's lap, origin and verdict columns.
    func testSettingsReachTheWriter() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func written(_ format: ExportFormat, _ s: ExportFormat.Settings) throws -> String {
            let path = dir + "/out." + format.name
            let sink = try OutputSink(creating: path, force: true)
            let w = format.makeWriter(.sink(sink), s)
            w.begin()
            try w.beginTrip(TripHeading(id: 1, activity: "ride"))
            w.beginSegment(.start)
            w.point(ExportSupport.ride(1)[0])
            XCTAssertNoThrow(try w.endTrip())
            XCTAssertNoThrow(try w.end())
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        var s = ExportFormat.Settings(version: "1.2.3")
        s.barometer = true
        XCTAssertTrue(try written(.gpx, s).contains("creator=\"cairn 1.2.3 with barometer\""))
        XCTAssertTrue(try written(.kml, s).contains("cairn 1.2.3"))
        let plain = try written(.csv, s).split(separator: "\n")[0]
        XCTAssertFalse(plain.contains("lap") || plain.contains("origin") || plain.contains("verdict"), String(plain))
        s.laps = .pause
        s.origins = true
        s.verdicts = true
        let full = try written(.csv, s).split(separator: "\n")[0]
        XCTAssertTrue(full.contains("lap") && full.contains("origin") && full.contains("verdict"), String(full))
    }

    /// `--name-prefix`: the prefix goes in front of the names FIT makes in a directory, and of
    /// the name `export` gives every format (ExportFormat.fileName), with or without a start time.
    func testNamePrefixGoesInFrontOfTheNamesMade() throws {
        XCTAssertEqual(
            ExportFormat.fit.fileName(tripId: 1, startMs: 1_748_764_800_000, prefix: "bike-"), "bike-20250601-080000-trip1.fit")
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 1, startMs: nil, suffix: "-00000002", prefix: "b_"), "b_trip1-00000002.fit")
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 1, startMs: 1_748_764_800_000), "20250601-080000-trip1.fit")
        XCTAssertEqual(ExportFormat.geojson.fileName(tripId: 4, startMs: 1_748_764_800_000, prefix: "x"), "x20250601-080000-trip4.geojson")
        XCTAssertEqual(ExportFormat.csv.fileName(tripId: 4, startMs: nil), "trip4.csv", "each format its own extension")

        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var s = ExportFormat.Settings(version: "1.2.3")
        s.namePrefix = "bike-"
        let w = ExportFormat.fit.makeWriter(.fitFiles(.directory(dir), force: false, atomic: true), s)
        w.begin()
        try w.beginTrip(TripHeading(id: 4, activity: "ride"))
        w.beginSegment(.start)
        w.point(ExportSupport.ride(1)[0])
        XCTAssertNoThrow(try w.endTrip())
        XCTAssertNoThrow(try w.end())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["bike-trip4.fit"])
    }
}

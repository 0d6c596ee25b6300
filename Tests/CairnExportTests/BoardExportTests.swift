import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// The board id in every export: file names, GPX, FIT, GeoJSON, CSV, KML; the log's id, else
/// the one given for logs without (`TripConversion.Stages.board`, `--board`).
final class BoardExportTests: XCTestCase {
    var dir = ""
    var out = ""

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
        // Trip 1 carries its board; trip 2 is from a recorder run without one.
        try ExportSupport.writeLog(
            TripSpec(id: 1, segments: [(.start, ExportSupport.ride(60))], board: "pi-north"), dir: dir, number: 1)
        try ExportSupport.writeLog(
            TripSpec(id: 2, segments: [(.start, ExportSupport.ride(60, seed: 2, startMs: 1_748_768_400_000))]), dir: dir, number: 2)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    var trips: [TripRef] { TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }) }

    func testFileNamesCarryTheBoard() {
        let june1: Int64 = 1_748_764_800_000
        XCTAssertEqual(ExportFormat.gpx.fileName(tripId: 3, startMs: june1, board: "pi-7"), "20250601-080000-pi-7-trip3.gpx")
        XCTAssertEqual(
            ExportFormat.fit.fileName(tripId: 3, startMs: june1, suffix: "-00000004", prefix: "bike-", board: "b.1"),
            "bike-20250601-080000-b.1-trip3-00000004.fit")
        XCTAssertEqual(ExportFormat.csv.fileName(tripId: 3, startMs: nil, board: "pi-7"), "pi-7-trip3.csv")
        // Unknown: the names of before.
        XCTAssertEqual(ExportFormat.gpx.fileName(tripId: 3, startMs: june1), "20250601-080000-trip3.gpx")
        XCTAssertEqual(ExportFormat.gpx.fileName(tripId: 3, startMs: june1, board: nil), "20250601-080000-trip3.gpx")
        // Never a path out of the directory, whoever calls.
        XCTAssertEqual(ExportFormat.gpx.fileName(tripId: 3, startMs: june1, board: "../x"), "20250601-080000-trip3.gpx")
    }

    func testTheLogsIdWinsOverTheFallback() throws {
        let t = trips
        XCTAssertEqual(t.map(\.id), [1, 2])
        XCTAssertEqual(TripCatalog.board(of: t[0]), "pi-north")
        XCTAssertEqual(TripCatalog.board(of: t[0], fallback: "given"), "pi-north")
        XCTAssertNil(TripCatalog.board(of: t[1]))
        XCTAssertEqual(TripCatalog.board(of: t[1], fallback: "given"), "given")
        XCTAssertEqual(try TripCatalog.read(t[0]).board, "pi-north")
        XCTAssertNil(try TripCatalog.read(t[1]).board)
    }

    /// Both trips through one conversion into `format`, with `given` for the trip without.
    func convert(_ format: ExportFormat, given: String?, settings: ExportFormat.Settings? = nil) throws -> String {
        let path = out + "/all." + format.fileExtension
        let output: ExportFormat.Output
        if format == .fit {
            output = .fitFiles(.directory(out), force: false, atomic: true)
        } else {
            output = .sink(try OutputSink(creating: path, force: true))
        }
        var stages = TripConversion.Stages()
        stages.board = given
        let c = TripConversion(writer: format.makeWriter(output, settings ?? .init(version: "9.9")), stages: stages) { XCTFail($0) }
        for t in trips { XCTAssertTrue(c.convert(t).converted) }
        XCTAssertNoThrow(try c.finish())
        return path
    }

    func testGPXNamesTheBoardPerTrackAndInItsMetadataAndValidates() throws {
        var s = ExportFormat.Settings(version: "9.9")
        s.board = "pi-north"
        let path = try convert(.gpx, given: "given", settings: s)
        let gpx = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(
            gpx.contains("<metadata>\n    <extensions>\n      <cairn:board>pi-north</cairn:board>\n    </extensions>\n  </metadata>\n  <trk>"),
            String(gpx.prefix(800)))
        let tracks = gpx.components(separatedBy: "<trk>").dropFirst().map { String($0.prefix(300)) }
        XCTAssertEqual(tracks.count, 2)
        XCTAssertTrue(
            tracks[0].contains("<type>ride</type>\n    <extensions>\n      <cairn:board>pi-north</cairn:board>\n    </extensions>\n    <trkseg>"),
            tracks[0])
        XCTAssertTrue(tracks[1].contains("<cairn:board>given</cairn:board>"), tracks[1])
        try ExportSupport.check("gpx", path)  // xmllint against the GPX 1.1 schema, gpsbabel, GDAL
        // Without a board: no metadata, no track extensions.
        let plain = try String(contentsOfFile: try convert(.gpx, given: nil), encoding: .utf8)
        XCTAssertFalse(plain.contains("<metadata>"))
        XCTAssertEqual(plain.components(separatedBy: "<cairn:board>").count, 2, "trip 1's own")
    }

    func testCSVHasABoardColumnAfterTrip() throws {
        let rows = try String(contentsOfFile: try convert(.csv, given: nil), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows[0], "time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board")
        XCTAssertEqual(rows.count, 121)
        XCTAssertTrue(rows[1...60].allSatisfy { $0.hasSuffix(",1,1,pi-north") }, String(rows[1]))
        XCTAssertTrue(rows[61...].allSatisfy { $0.hasSuffix(",1,2,") }, String(rows[61]))
        let given = try String(contentsOfFile: try convert(.csv, given: "given"), encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(given[61...].allSatisfy { $0.hasSuffix(",1,2,given") }, String(given[61]))
        try ExportSupport.check("csv", out + "/all.csv")
    }

    func testGeoJSONPropertiesNameTheBoard() throws {
        let path = try convert(.geojson, given: "given")
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let features = doc?["features"] as? [[String: Any]] ?? []
        let boards = features.compactMap { ($0["properties"] as? [String: Any])?["board"] as? String }
        XCTAssertEqual(boards, ["pi-north", "given"])
        try ExportSupport.check("geojson", path)
        // Unknown: no key (the document of before).
        let plain = try String(contentsOfFile: try convert(.geojson, given: nil), encoding: .utf8)
        XCTAssertEqual(plain.components(separatedBy: "\"board\":").count, 2, "trip 1's own")
    }

    func testKMLExtendedDataNamesTheBoard() throws {
        let path = try convert(.kml, given: "given")
        let kml = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(kml.contains("<Data name=\"board\"><value>pi-north</value></Data>"), kml)
        XCTAssertTrue(kml.contains("<Data name=\"board\"><value>given</value></Data>"))
        try ExportSupport.check("kml", path)
    }

    func testFITCreatorDescriptorIsTheBoard() throws {
        _ = try convert(.fit, given: "given")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(files, ["20250601-080000-pi-north-trip1.fit", "20250601-090000-given-trip2.fit"])
        var descriptors: [[String]] = []
        for f in files {
            let seen = try ExportSupport.check("fit", out + "/" + f)
            descriptors.append(seen["descriptors"] as? [String] ?? [])
        }
        XCTAssertEqual(descriptors, [["pi-north"], ["given"]])
    }

    /// Without a board the FIT file is the one of before: no descriptor.
    func testFITWithoutABoardHasNoDescriptor() throws {
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "9.9")
        var stages = TripConversion.Stages()
        stages.board = nil
        let c = TripConversion(writer: w, stages: stages) { XCTFail($0) }
        XCTAssertTrue(c.convert(trips[1]).converted)
        XCTAssertEqual(w.written.count, 1)
        let seen = try ExportSupport.check("fit", w.written[0])
        XCTAssertEqual(seen["descriptors"] as? [String], [])
        XCTAssertEqual(w.written[0].split(separator: "/").last, "20250601-090000-trip2.fit")
    }
}

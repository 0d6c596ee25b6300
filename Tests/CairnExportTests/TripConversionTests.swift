import CairnCore
import Foundation
import XCTest

@testable import CairnExport

/// `TripConversion`: trips from the log through the stages into one writer, with what each has
/// to say handed back instead of printed.
final class TripConversionTests: XCTestCase {
    var dir = ""
    var out = ""

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
        let a = ExportSupport.ride(120)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a)]), dir: dir, number: 1)
        let far = ExportSupport.ride(60, seed: 2, startMs: a.last!.timeMs + 3_600_000, lat: 46.0, lon: 7.0)
        try ExportSupport.writeLog(TripSpec(id: 2, activity: "walk", segments: [(.start, far)]), dir: dir, number: 2)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    func trips() -> [TripRef] { TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }) }

    func testTripsIntoOneDocument() throws {
        let sink = try OutputSink(creating: out + "/all.gpx", force: false)
        var said: [String] = []
        let c = TripConversion(
            writer: ExportFormat.gpx.makeWriter(.sink(sink), .init(version: "1.0.0")), stages: .init()
        ) { said.append($0) }
        XCTAssertFalse(c.begun)
        let outcomes = trips().map { c.convert($0) }
        XCTAssertEqual(outcomes, [TripConversion.Outcome(converted: true), TripConversion.Outcome(converted: true)])
        XCTAssertTrue(c.begun)
        XCTAssertNoThrow(try c.finish())
        XCTAssertEqual(said, [])
        let gpx = try String(contentsOfFile: out + "/all.gpx", encoding: .utf8)
        XCTAssertEqual(gpx.components(separatedBy: "<trk>").count - 1, 2)
        XCTAssertEqual(gpx.components(separatedBy: "<trkpt ").count - 1, 180)
    }

    /// A trip wholly inside a zone writes nothing and says so; the other is cut as asked.
    func testAZoneOverAWholeTripSaysSo() throws {
        let sink = try OutputSink(creating: out + "/all.csv", force: false)
        var said: [String] = []
        var stages = TripConversion.Stages()
        stages.zones = PrivacyZones([PrivacyZone(lat: 46.0, lon: 7.0, radiusM: 20_000)])
        let c = TripConversion(writer: ExportFormat.csv.makeWriter(.sink(sink), .init(version: "1.0.0")), stages: stages) {
            said.append($0)
        }
        let outcomes = trips().map { c.convert($0) }
        XCTAssertEqual(outcomes.map(\.converted), [true, false])
        XCTAssertEqual(outcomes.map(\.problems), [0, 0])
        XCTAssertEqual(said, ["trip 2: every point is inside a privacy zone; nothing written for it"])
        XCTAssertNoThrow(try c.finish())
    }

    /// A document whose every trip is hidden was never begun: the caller discards it.
    func testNothingWrittenLeavesTheDocumentUnbegun() throws {
        let sink = try OutputSink(creating: out + "/none.geojson", force: false)
        var stages = TripConversion.Stages()
        stages.zones = PrivacyZones([PrivacyZone(lat: 47.0, lon: 8.0, radiusM: 500_000)])
        var said: [String] = []
        let c = TripConversion(writer: ExportFormat.geojson.makeWriter(.sink(sink), .init(version: "1.0.0")), stages: stages) {
            said.append($0)
        }
        for t in trips() { XCTAssertEqual(c.convert(t), TripConversion.Outcome()) }
        XCTAssertFalse(c.begun)
        XCTAssertEqual(said.count, 2)
        sink.discard()
    }

    func testTheRecordedActivity() {
        XCTAssertEqual(trips().map { TripConversion.recordedActivity(of: $0) }, ["ride", "walk"])
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// What upload services read from cairn's files: the altitude's source, temperature, local time.
final class UploadTests: XCTestCase {
    var dir = "", out = ""

    override func setUp() {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    /// Trip 1 with a barometer's pressure on its points (from the 20th on), trip 2 without.
    func writeBarometerAndGPSTrips() throws {
        var a = ExportSupport.ride(120)
        for i in a.indices where i >= 20 { a[i].pressurePa = 95_000 - Double(i) }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a)]), dir: dir, number: 1)
        let b = ExportSupport.ride(60, seed: 2, startMs: a.last!.timeMs + 600_000)
        try ExportSupport.writeLog(TripSpec(id: 2, segments: [(.start, b)]), dir: dir, number: 2)
    }

    func trips() -> [TripRef] { TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }) }

    func testBarometricClimbIsKnownBeforeThePoints() throws {
        try writeBarometerAndGPSTrips()
        let t = trips()
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(try TripCatalog.climbsByBarometer(t[0]), true)
        XCTAssertEqual(try TripCatalog.climbsByBarometer(t[1]), false)
        XCTAssertTrue(try TripCatalog.read(t[0]).stats.climbFromBarometer)
        XCTAssertFalse(try TripCatalog.read(t[1]).stats.climbFromBarometer)
        // A trip without a point says nothing either way.
        let empty = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 3, segments: [], close: true), dir: empty)
        let e = TripCatalog.trips(TripCatalog.files([empty]) { XCTFail($0) })
        XCTAssertNil(try TripCatalog.climbsByBarometer(e[0]))

        XCTAssertEqual(GPXWriter.creator(version: "0.1.0", barometer: true), "cairn 0.1.0 with barometer")
        XCTAssertEqual(GPXWriter.creator(version: "0.1.0", barometer: false), "cairn 0.1.0")
    }

    func testFITNamesTheBarometerAsADeviceOnlyWhenTheClimbIsBarometric() throws {
        try writeBarometerAndGPSTrips()
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.1.0")
        try ExportSupport.export(dir, w) { PointExtras($0) }
        XCTAssertEqual(w.written.count, 2)
        let baro = try ExportSupport.check("fit", w.written[0])
        let gps = try ExportSupport.check("fit", w.written[1])
        let devices = baro["device_infos"] as? [[String: Any]] ?? []
        XCTAssertEqual(devices.count, 2, "\(devices)")
        XCTAssertEqual(devices.first?["manufacturer"] as? String, "development", "cairn's own device: no maker's ID claimed")
        XCTAssertEqual(devices.last?["device_index"] as? Int, 1)
        XCTAssertEqual(devices.last?["local_device_type"] as? String, "barometer")
        XCTAssertEqual(devices.last?["source_type"] as? String, "local")
        XCTAssertTrue(devices.last?["manufacturer"] is NSNull, "no manufacturer for the sensor")
        XCTAssertEqual(baro["manufacturer"] as? String, "development")
        XCTAssertEqual((gps["device_infos"] as? [[String: Any]])?.count, 1)
        XCTAssertNotNil((baro["session_figures"] as? [String: Any])?["total_ascent"] ?? nil)
        XCTAssertGreaterThan(baro["records_with_pressure"] as? Int ?? 0, 90)
    }

    func testUTCOffsetsParseAndFormat() {
        for (text, seconds) in [
            ("+02:00", 7200), ("-05:30", -19_800), ("+0545", 20_700), ("+2", 7200), ("-11", -39_600),
            ("Z", 0), ("UTC", 0), ("+00:00", 0), ("+18:00", 64_800)
        ] {
            XCTAssertEqual(UTCOffset.parse(text), seconds, text)
        }
        for bad in ["", "2", "+", "+25:00", "+18:01", "+02:60", "+2:00", "+02:00:00", "CET", "+0２:00", "- 02:00"] {
            XCTAssertNil(UTCOffset.parse(bad), bad)
        }
        XCTAssertEqual(UTCOffset.format(7200), "+02:00")
        XCTAssertEqual(UTCOffset.format(-19_800), "-05:30")
        XCTAssertEqual(UTCOffset.format(0), "+00:00")
    }

    /// FIT's local_timestamp: the trip's recorded zone, overridden by `--utc-offset`, and left out
    /// when neither is known (never the converting machine's zone).
    func testFITLocalTimeComesFromTheTripOrTheOption() throws {
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(30))], utcOffsetS: 7200), dir: dir, number: 1)
        try ExportSupport.writeLog(
            TripSpec(id: 2, segments: [(.start, ExportSupport.ride(30, seed: 2, startMs: 1_750_000_000_000))]), dir: dir, number: 2)
        let t = trips()
        XCTAssertEqual(try TripCatalog.read(t[0]).utcOffsetS, 7200)
        XCTAssertNil(try TripCatalog.read(t[1]).utcOffsetS)

        let recorded = FITWriter(target: .directory(out + "/a"), force: false, softwareVersion: "0.1.0")
        try FileManager.default.createDirectory(atPath: out + "/a", withIntermediateDirectories: true)
        try ExportSupport.export(dir, recorded)
        XCTAssertEqual(try ExportSupport.check("fit", recorded.written[0])["local_offset_s"] as? Int, 7200)
        XCTAssertTrue(try ExportSupport.check("fit", recorded.written[1])["local_offset_s"] is NSNull, "no zone known: no local time")

        try FileManager.default.createDirectory(atPath: out + "/b", withIntermediateDirectories: true)
        let given = FITWriter(target: .directory(out + "/b"), force: false, softwareVersion: "0.1.0", utcOffsetS: -19_800)
        try ExportSupport.export(dir, given)
        for f in given.written { XCTAssertEqual(try ExportSupport.check("fit", f)["local_offset_s"] as? Int, -19_800, f) }
    }
}

import CairnCore
import Foundation
import XCTest
@testable import CairnExport
@testable import CairnLog

/// Each writer, fed logs written by the real `LogWriter` and read back by `TripCatalog` (as
/// `cairn convert` does), checked by independent readers (Tests/tools/check-export.py).
final class WriterReaderTests: XCTestCase {
    var dir = ""
    var out = ""

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// Trip 1: three segments (start, a pause, a gap) of 300, 200 and 1 points; trip 2: 50 points
    /// of a walk across the antimeridian.
    func writeTrips() throws {
        let a = ExportSupport.ride(300)
        let b = ExportSupport.ride(200, seed: 2, startMs: a.last!.timeMs + 120_000, lat: a.last!.lat, lon: a.last!.lon)
        let c = ExportSupport.ride(1, seed: 3, startMs: b.last!.timeMs + 60_000, lat: b.last!.lat, lon: b.last!.lon)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a), (.pause, b), (.gap, c)]), dir: dir, number: 1)
        var walk = ExportSupport.ride(50, seed: 4, startMs: 1_750_000_000_000, lat: -16.8, lon: 179.9998)
        for i in walk.indices { walk[i].speed = 1.2; walk[i].track = 90 }
        try ExportSupport.writeLog(TripSpec(id: 2, activity: "walk", segments: [(.start, walk)]), dir: dir, number: 2)
    }

    func testFITActivityPassesGarminSDKAndFitdecode() throws {
        try writeTrips()
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.1.0")
        let pressure: (Fix) -> PointExtras = { f in
            // A barometer's reading on some points (none in the log yet: this is the extension point).
            f.timeMs % 3000 == 0 ? PointExtras(pressurePa: 96_512.4, temperatureC: 17.6) : .none
        }
        let sums = try ExportSupport.export(dir, w, extras: pressure)
        XCTAssertEqual(w.written.count, 2)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(files, ["20250601-080000-trip1.fit", "20250615-150640-trip2.fit"])

        let r = try ExportSupport.check("fit", out + "/" + files[0])
        XCTAssertEqual(r["record"] as? Int, 501)
        XCTAssertEqual(r["fitdecode_records"] as? Int, 501)
        XCTAssertEqual(r["session"] as? Int, 1)
        XCTAssertEqual(r["lap"] as? Int, 1)
        XCTAssertEqual(r["activity"] as? Int, 1)
        XCTAssertEqual(r["file_type"] as? String, "activity")
        XCTAssertEqual(
            r["order"] as? [String],
            ["file_id", "device_info", "event", "record", "event", "record", "event", "record", "event", "lap", "session", "activity"])
        XCTAssertEqual(r["timer_starts"] as? Int, 3, "a timer start per segment")
        XCTAssertEqual(r["timer_stops"] as? Int, 3)
        let trusted = ExportSupport.ride(300).filter { Accuracy.heightIsTrusted($0) }.count
        XCTAssertGreaterThan(trusted, 0)
        XCTAssertLessThan(r["records_with_altitude"] as! Int, 501, "untrusted heights are left out")
        XCTAssertEqual(r["records_with_speed"] as? Int, 501)
        XCTAssertGreaterThan(r["records_with_pressure"] as! Int, 100)
        XCTAssertEqual(r["records_with_pressure"] as? Int, r["records_with_temperature"] as? Int)
        XCTAssertEqual((r["last_record"] as? [String: Any])?["absolute_pressure"] as? Int ?? 96512, 96512)
        let session = r["session_figures"] as! [String: Any]
        let st = sums[0].stats
        XCTAssertEqual(session["sport"] as? String, "cycling")
        XCTAssertEqual(session["total_distance"] as! Double, st.distanceM, accuracy: 0.01)
        XCTAssertEqual(session["total_elapsed_time"] as! Double, Double(st.elapsedMs) / 1000, accuracy: 0.001)
        // The timer is the trip's moving time as `list --json` gives it (tenths of a second):
        // paused and gap time is not timer time, and neither is the wait at a light.
        let moving = (Double(st.movingTimeMs) / 100).rounded() / 10
        // The chord across the gap is ridden (`TripStats.bridges`): its ~6 m, 2 s at most once
        // whole seconds are left out (`TripStats.wholeSecondsOff`); the rest of the gap's 60 s
        // and the 120 s pause are not.
        XCTAssertLessThanOrEqual(moving, Double(299_000 + 199_000 + 2_000) / 1000, "paused and gap time is not timer time")
        XCTAssertEqual(session["total_timer_time"] as! Double, moving, accuracy: 0.0005)
        XCTAssertEqual(session["total_moving_time"] as! Double, moving, accuracy: 0.0005)
        XCTAssertEqual(session["total_distance"] as! Double, (st.distanceM * 10).rounded() / 10, accuracy: 0.0005)
        XCTAssertEqual(session["enhanced_max_speed"] as! Double, st.maxSpeedMps!, accuracy: 0.001)
        XCTAssertEqual((r["last_record"] as! [String: Any])["distance"] as! Double, st.distanceM, accuracy: 0.01)

        let walk = try ExportSupport.check("fit", out + "/" + files[1])
        XCTAssertEqual(walk["record"] as? Int, 50)
        XCTAssertEqual((walk["session_figures"] as? [String: Any])?["sport"] as? String, "walking")
        XCTAssertEqual(walk["timer_starts"] as? Int, 1)

        // Never over an existing file without force; with force, the same bytes again.
        let before = try Data(contentsOf: URL(fileURLWithPath: out + "/" + files[0]))
        let again = FITWriter(target: .directory(out), force: false, softwareVersion: "0.1.0")
        again.begin()
        XCTAssertThrowsError(try again.beginTrip(TripHeading(id: 1, activity: "ride", summary: sums[0]))) { e in
            XCTAssertTrue("\(e)".contains("already exists"), "\(e)")
        }
        let forced = FITWriter(target: .directory(out), force: true, softwareVersion: "0.1.0")
        try ExportSupport.export(dir, forced, extras: pressure)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/" + files[0])), before, "deterministic output")
    }

    func testBrokenFITFilesAreRejectedByTheReaders() throws {
        try writeTrips()
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.1.0")
        try ExportSupport.export(dir, w)
        let good = try Data(contentsOf: URL(fileURLWithPath: w.written[0]))
        func variant(_ name: String, _ bytes: Data) throws -> String {
            let p = out + "/" + name
            try bytes.write(to: URL(fileURLWithPath: p))
            return p
        }
        var crc = good
        crc[crc.count - 1] ^= 0xFF
        try ExportSupport.check("fit", try variant("crc.fit", crc), expectFailure: true)
        try ExportSupport.check("fit", try variant("cut.fit", good.prefix(good.count - 40)), expectFailure: true)
        var header = good
        header[12] = 0; header[13] = 0
        try ExportSupport.check("fit", try variant("hcrc0.fit", header), expectFailure: true)
    }

    func testGPXCarriesSpeedCourseAndPressureAndValidates() throws {
        try writeTrips()
        let path = out + "/t.gpx"
        let w = GPXWriter(sink: try OutputSink(creating: path, force: false), creator: "cairn test")
        try ExportSupport.export(dir, w) { f in f.timeMs % 2000 == 0 ? PointExtras(pressurePa: 101_325, temperatureC: 21.5) : .none }
        let r = try ExportSupport.check("gpx", path)
        XCTAssertEqual(r["points"] as? Int, 551)
        XCTAssertEqual(r["segments"] as? Int, 4)
        XCTAssertEqual(r["tracks"] as? Int, 2)
        XCTAssertEqual(r["gpsbabel_points"] as? Int, 551)
        XCTAssertEqual(r["gpsbabel_segments"] as? Int, 4)
        XCTAssertEqual(r["with_speed"] as? Int, 551)
        XCTAssertEqual(r["with_course"] as? Int, 551)
        XCTAssertGreaterThan(try XCTUnwrap(r["with_pressure"] as? Int, "the checker's output: \(r)"), 200)
        XCTAssertEqual(r["with_pressure"] as? Int, r["with_atemp"] as? Int)
        XCTAssertEqual(r["last_pressure_hpa"] as? Double, 1013.25)
        XCTAssertEqual((r["namespaces"] as? [String: String])?["pressure"], GPXWriter.cairnNamespace)
        let gpx = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(
            gpx.contains(
                "<extensions><gpxtpx:TrackPointExtension><gpxtpx:atemp>21.5</gpxtpx:atemp><gpxtpx:Extensions><cairn:sensor>barometer</cairn:sensor></gpxtpx:Extensions></gpxtpx:TrackPointExtension><cairn:speed>"
            ), "TrackPointExtension v1 with atemp, then speed")
        XCTAssertTrue(gpx.contains("xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\""))
        XCTAssertTrue(gpx.contains("</cairn:course><cairn:pressure>1013.25</cairn:pressure><cairn:climb>"))
        // GDAL reads every point without a warning, speed as a number of its own.
        XCTAssertEqual(r["ogr_points"] as? Int, 551)
        XCTAssertEqual(r["ogr_with_speed"] as? Int, 551)
        XCTAssertEqual(r["gpsbabel_temperatures"] as? Int, r["with_atemp"] as? Int, "gpsbabel reads atemp")
        XCTAssertEqual(r["last_atemp"] as? Double, 21.5)
        XCTAssertEqual(r["gpxpy_points"] as? Int, 551)
        XCTAssertEqual(r["gpxpy_atemp"] as? Int, r["with_atemp"] as? Int, "gpxpy finds atemp in TrackPointExtension v1")
        XCTAssertEqual(r["gpxpy_with_ele"] as? Int, r["with_ele"] as? Int)
        XCTAssertFalse(gpx.contains("lon=\"180"), "180 is written as -180")
    }

    func testGeoJSONPlainAndSpeedColoured() throws {
        try writeTrips()
        let plain = out + "/t.geojson"
        let sums = try ExportSupport.export(dir, GeoJSONWriter(sink: try OutputSink(creating: plain, force: false)))
        let r = try ExportSupport.check("geojson", plain)
        XCTAssertEqual(r["features"] as? Int, 3, "two trips and trip 1's one-point segment as a Point Feature")
        // 550 points in lines + 2 at the antimeridian split; the lone point is a Point.
        XCTAssertEqual(r["positions"] as? Int, 550 + 2 + 1)
        XCTAssertEqual(r["lines"] as? Int, 2 + 2)
        XCTAssertEqual(r["lone_points"] as? Int, 1)
        XCTAssertEqual(r["gpsbabel_waypoints"] as? Int, 1, "gpsbabel reads the Point as a waypoint, not a track point more")
        XCTAssertEqual(r["gpsbabel_points"] as? Int, 550 + 2)
        XCTAssertEqual(r["ogr_features"] as? Int, 3)
        // Trip 1 has untrusted heights: 2-D positions (never z = 0); the walk has a trusted height
        // at every point: 3-D, its antimeridian points with the height between their neighbours'.
        XCTAssertEqual(r["ogr_3d_geometries"] as? Int, 1)
        XCTAssertEqual(r["points_3d"] as? Int, 50 + 2)
        XCTAssertEqual(r["points_2d"] as? Int, 501)
        XCTAssertGreaterThan(r["with_height_property"] as? Int ?? 0, 100, "the trusted heights are in coordinateProperties.heights")
        let trips = r["trips"] as? [[String: Any]] ?? [[:], [:]]
        XCTAssertEqual(trips[0]["distance_m"] as? Double ?? 0, sums[0].stats.distanceM, accuracy: 0.1)
        XCTAssertEqual(trips[0]["points"] as? Int, 501)
        XCTAssertEqual(trips[1]["activity"] as? String, "walk")
        let text = try String(contentsOfFile: plain, encoding: .utf8)
        XCTAssertTrue(text.contains("[180,") && text.contains("[-180,"), "split at the antimeridian")
        XCTAssertFalse(text.contains("\"crs\""))

        let coloured = out + "/c.geojson"
        try ExportSupport.export(
            dir,
            GeoJSONWriter(
                sink: try OutputSink(creating: coloured, force: false),
                colouring: .bands(try SpeedBands.parse("18,22,26"))))
        let c = try ExportSupport.check("geojson", coloured)
        XCTAssertEqual(c["null_geometries"] as? Int, 2, "one figures feature per trip")
        let bands = c["bands"] as? [Int] ?? []
        XCTAssertGreaterThan(bands.count, 10)
        XCTAssertEqual(Set(bands).count, 4, "4-9 m/s spans the bands 18, 22 and 26 km/h")
        XCTAssertGreaterThan(c["shared_boundaries"] as? Int ?? 0, 0, "neighbouring runs share their boundary point")
        XCTAssertEqual(Set(c["strokes"] as? [String] ?? []), ["#2c7bb6", "#abd9e9", "#fdae61", "#d7191c"])
        // Every run's average speed lies in its band (the doppler speed decides the band).
        let limits = [0.0, 18, 22, 26, 1000]
        for pair in c["band_speeds"] as? [[Any]] ?? [] {
            let b = pair[0] as! Int, kmh = (pair[1] as? Double) ?? Double(pair[1] as! Int)
            XCTAssertTrue(kmh >= limits[b] - 1e-9 && kmh < limits[b + 1] + 0.05, "band \(b) with an average of \(kmh) km/h")
        }
    }

    func testKMLPlainAndColouredValidate() throws {
        try writeTrips()
        let plain = out + "/t.kml"
        try ExportSupport.export(dir, KMLWriter(sink: try OutputSink(creating: plain, force: false), creator: "cairn test"))
        let r = try ExportSupport.check("kml", plain)
        XCTAssertEqual(r["whens"] as? Int, 551)
        XCTAssertEqual(r["tracks"] as? Int, 4)
        XCTAssertEqual(r["line_strings"] as? Int, 0, "the ride is written once")
        XCTAssertEqual(r["gpsbabel_points"] as? Int, 551)
        XCTAssertEqual(r["gpsbabel_segments"] as? Int, 4)
        // Trip 1 (heights trusted in part): 2-D coords, its trusted heights per point; the walk: 3-D.
        XCTAssertEqual(r["coords_2d"] as? Int, 501)
        XCTAssertEqual(r["coords_3d"] as? Int, 50)
        let trusted = ExportSupport.ride(300).filter { Accuracy.heightIsTrusted($0) }.count
        XCTAssertGreaterThanOrEqual(r["listed_heights"] as? Int ?? 0, trusted)
        XCTAssertLessThan(r["listed_heights"] as? Int ?? 0, 501)
        XCTAssertEqual(r["ogr_3d_geometries"] as? Int, 1, "GDAL: z only for the walk, never a made-up 0")
        XCTAssertEqual(r["ogr_features"] as? Int, 2)

        let coloured = out + "/c.kml"
        try ExportSupport.export(dir, KMLWriter(sink: try OutputSink(creating: coloured, force: false), creator: "cairn test", colouring: .auto))
        let c = try ExportSupport.check("kml", coloured)
        XCTAssertTrue((c["colours"] as! [String]).contains("ff1c19d7"), "aabbggrr")
        XCTAssertGreaterThan(c["tracks"] as! Int, 4)
        XCTAssertEqual(c["whens"] as? Int, c["gpsbabel_points"] as? Int)
    }

    func testCSVReadsBackInGpsbabel() throws {
        try writeTrips()
        let path = out + "/t.csv"
        try ExportSupport.export(dir, CSVWriter(sink: try OutputSink(creating: path, force: false))) { f in
            f.timeMs % 2000 == 0 ? PointExtras(pressurePa: 101_325) : .none
        }
        let r = try ExportSupport.check("csv", path)
        XCTAssertEqual(r["rows"] as? Int, 551)
        XCTAssertEqual(r["segments"] as? Int, 4)
        XCTAssertEqual(r["gpsbabel_points"] as? Int, 551)
        XCTAssertEqual(r["gpsbabel_speeds"] as? Int, 551, "gpsbabel reads the speed column as speed")
        XCTAssertEqual(r["gpsbabel_header"] as? String, "No,Latitude,Longitude,Altitude,Speed,Course,Date,Time")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines[1].split(separator: ",", omittingEmptySubsequences: false).count, 12)
        XCTAssertTrue(lines.contains { $0.contains(",1013.25,") })
    }

    func testSpeedBandsParsingAndDefaults() throws {
        XCTAssertEqual(SpeedBands.defaults(activity: "ride").limitsKmh, [10, 20, 30])
        XCTAssertEqual(SpeedBands.defaults(activity: "drive").limitsKmh, [50, 90, 110])
        XCTAssertEqual(try SpeedBands.parse("5, 12.5,40").limitsKmh, [5, 12.5, 40])
        for bad in ["", "10,,20", "20,10", "0,5", "x", "1,2,3,4,5,6,7,8,9"] {
            XCTAssertThrowsError(try SpeedBands.parse(bad), bad)
        }
        let b = SpeedBands.defaults(activity: "ride")
        XCTAssertEqual(b.band(speedMps: 2.7), 0)
        XCTAssertEqual(b.band(speedMps: 10 / 3.6), 1, "a limit belongs to the faster band")
        XCTAssertEqual(b.band(speedMps: 20), 3)
        XCTAssertEqual(b.label(0), "< 10 km/h")
        XCTAssertEqual(b.label(2), "20-30 km/h")
        XCTAssertEqual(b.kmlColour(3), "ff1c19d7")
        XCTAssertEqual(b.cssColour(0), "#2c7bb6")
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// The sensors in every output: a trip whose log holds a heart rate strap (1 Hz), a speed and
/// cadence sensor's crank (1 Hz, 90 rpm, its 16-bit counter rolling over) and a power meter
/// (2 Hz), exported through the conversion and read back by independent readers (the FIT SDK,
/// fitdecode, xmllint against the GPX schema): the values are the ones the sensors sent.
final class SensorExportTests: XCTestCase {
    var dir = ""
    var out = ""
    static let start: Int64 = 1_748_764_800_000
    static let points = 240

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDownWithError() throws {
        // CAIRN_SENSOR_LOG_OUT=DIR keeps a trip with sensors there, for a look with the CLI.
        if let keep = ProcessInfo.processInfo.environment["CAIRN_SENSOR_LOG_OUT"],
            name.contains("testFITCarriesTheSensors")
        {
            try? FileManager.default.copyItem(atPath: dir, toPath: keep)
        }
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// Rising through the ride: each lap's figures differ from the one before.
    static func heartRate(_ i: Int) -> Int { 60 + i / 2 }
    static func power(_ i: Int) -> Int { 150 + i % 40 }

    /// What the sensors sent, as the recorder logs it: arrivals on a monotonic clock that reads
    /// 5,000 at the first point's GPS time (the batch's offset says so).
    static func batches() -> [SensorBatch] {
        let offset = start - 5000
        var ns: [SensorNotification] = []
        let crankTicks = 1024.0 * 60 / 90  // one revolution at 90 rpm, in 1/1024 s
        for i in 0..<points {
            let mono = Int64(5000 + i * 1000)
            ns.append(
                SensorNotification(
                    address: 0xAA, characteristic: 0x2A37, arrivalMonoMs: mono + 200, value: [0, UInt8(heartRate(i))]))
            // Revolutions so far (1.5 a second), starting near the 16-bit counter's end.
            let revs = i * 3 / 2
            let count = UInt16(truncatingIfNeeded: 65_500 + revs)
            let time = UInt16(truncatingIfNeeded: Int((Double(revs) * crankTicks).rounded()))
            ns.append(
                SensorNotification(
                    address: 0xBB, characteristic: 0x2A5B, arrivalMonoMs: mono + 300,
                    value: [2, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(time & 0xFF), UInt8(time >> 8)]))
            for half in 0..<2 {
                let w = power(2 * i + half)
                ns.append(
                    SensorNotification(
                        address: 0xCC, characteristic: 0x2A63, arrivalMonoMs: mono + 100 + Int64(half) * 500,
                        value: [0, 0, UInt8(w & 0xFF), UInt8(w >> 8)]))
            }
        }
        ns.sort { $0.arrivalMonoMs < $1.arrivalMonoMs }
        return stride(from: 0, to: ns.count, by: 20).map {
            SensorBatch(notifications: Array(ns[$0..<min(ns.count, $0 + 20)]), gpsMinusMonoMs: offset, clockMinusMonoMs: 0)
        }
    }

    /// A one-second ride with the sensors' records after the points of each 5 s, as the recorder
    /// writes them.
    func writeTrip(sensors: Bool) throws {
        let fixes = ExportSupport.ride(Self.points, startMs: Self.start)
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0001))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        let batches = Self.batches()
        var next = 0
        for chunk in stride(from: 0, to: fixes.count, by: 5) {
            try w.append(.points(Array(fixes[chunk..<min(fixes.count, chunk + 5)])))
            let until = fixes[min(fixes.count, chunk + 5) - 1].timeMs
            while sensors, next < batches.count, let t = batches[next].notifications.first.flatMap(batches[next].timeMs(of:)), t <= until {
                try w.append(.sensors(batches[next]))
                next += 1
            }
        }
        _ = try w.sync()
        w.close()
    }

    func trip() throws -> TripRef { try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first) }

    /// `laps`: the lap rule for the stages and the writer (nil: the conversion's default).
    func convert(_ format: ExportFormat, to path: String, laps: LapRule? = nil) throws {
        let writer: TrackExporter
        var settings = ExportFormat.Settings(version: "1.0.0")
        if let laps { settings.laps = laps }
        if format == .fit {
            writer = format.makeWriter(.fitFiles(.file(path), force: true, atomic: false), settings)
        } else {
            writer = format.makeWriter(.sink(try OutputSink(creating: path, force: true)), .init(version: "1.0.0"))
        }
        var said: [String] = []
        var stages = TripConversion.Stages()
        if let laps { stages.laps = laps }
        let c = TripConversion(writer: writer, stages: stages) { said.append($0) }
        XCTAssertEqual(c.convert(try trip()).converted, true)
        try c.finish()
        XCTAssertEqual(said, [])
    }

    /// The join on its own: each point takes the nearest value within 3 s; the cadence comes
    /// through the rollover at 90 rpm.
    func testTheTrackJoinsTheNearestValues() throws {
        try writeTrip(sensors: true)
        let track = try XCTUnwrap(try SensorTrack.read(trip()))
        for i in [0, 1, 37, 120, Self.points - 1] {
            let v = track.values(atMs: Self.start + Int64(i) * 1000)
            XCTAssertEqual(v.heartRate, Self.heartRate(i), "point \(i)")
            XCTAssertEqual(v.powerW, Self.power(2 * i), "point \(i)")
            // The first crank reading gives no cadence; point 0 takes the next one's (1.3 s away).
            XCTAssertEqual(v.cadence, 90, "point \(i)")
        }
        XCTAssertNil(track.values(atMs: Self.start + Int64(Self.points + 4) * 1000).heartRate, "3 s after the last: none")
    }

    /// `cairn info`'s figures: the FIT session's, over the recorded points.
    func testTheFiguresAreTheSessions() throws {
        try writeTrip(sensors: true)
        let f = try XCTUnwrap(try SensorTrack.figures(trip()))
        let hr = (0..<Self.points).map(Self.heartRate), power = (0..<Self.points).map { Self.power(2 * $0) }
        XCTAssertEqual(f.avgHeartRate, Int((Double(hr.reduce(0, +)) / Double(Self.points)).rounded()))
        XCTAssertEqual(f.maxHeartRate, hr.max())
        XCTAssertEqual(f.avgCadence, 90)
        XCTAssertEqual(f.avgPowerW, Int((Double(power.reduce(0, +)) / Double(Self.points)).rounded()))
        XCTAssertEqual(f.maxPowerW, power.max())
        try FileManager.default.removeItem(atPath: dir)
        dir = ExportSupport.tempDir()
        try writeTrip(sensors: false)
        XCTAssertNil(try SensorTrack.figures(trip()))
    }

    /// With privacy zones, `info`'s figures are the exported part's (attack r19, finding 7):
    /// the heart rate rises through the ride, so leaving out the start raises its average.
    func testTheFiguresWithAZoneAreTheExportedParts() throws {
        try writeTrip(sensors: true)
        let all = try XCTUnwrap(try SensorTrack.figures(trip()))
        let zone = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 200)
        var kept = 0
        var stages = ExportStages(window: PrivacyWindow(zones: [zone]), laps: .none)
        _ = try TripCatalog.read(trip()) { e in stages.feed(e, segment: { _ in }, point: { _, _ in kept += 1 }) }
        XCTAssertGreaterThan(kept, 0)
        XCTAssertLessThan(kept, Self.points, "the zone hides the start")
        let published = try XCTUnwrap(try SensorTrack.figures(trip(), window: PrivacyWindow(zones: [zone])))
        let hidden = Self.points - kept
        let hr = (hidden..<Self.points).map(Self.heartRate)
        XCTAssertEqual(published.avgHeartRate, Int((Double(hr.reduce(0, +)) / Double(hr.count)).rounded()))
        XCTAssertGreaterThan(published.avgHeartRate ?? 0, all.avgHeartRate ?? 0)
    }

    func testFITCarriesTheSensorsForTheSDKAndFitdecode() throws {
        try writeTrip(sensors: true)
        let path = out + "/trip.fit"
        try convert(.fit, to: path)
        let seen = try ExportSupport.check("fit", path)
        let hr = try XCTUnwrap(seen["record_heart_rate"] as? [Int])
        let cad = try XCTUnwrap(seen["record_cadence"] as? [Int])
        let power = try XCTUnwrap(seen["record_power"] as? [Int])
        XCTAssertEqual(hr, (0..<Self.points).map(Self.heartRate))
        XCTAssertEqual(power, (0..<Self.points).map { Self.power(2 * $0) })
        XCTAssertEqual(cad, Array(repeating: 90, count: Self.points))
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        let expectHR = Double((0..<Self.points).map(Self.heartRate).reduce(0, +)) / Double(Self.points)
        let expectPower = Double((0..<Self.points).map { Self.power(2 * $0) }.reduce(0, +)) / Double(Self.points)
        XCTAssertEqual(session["avg_heart_rate"] as? Int, Int(expectHR.rounded()))
        XCTAssertEqual(session["max_heart_rate"] as? Int, Self.heartRate(Self.points - 1))
        XCTAssertEqual(session["avg_cadence"] as? Int, 90)
        XCTAssertEqual(session["max_cadence"] as? Int, 90)
        XCTAssertEqual(session["avg_power"] as? Int, Int(expectPower.rounded()))
        XCTAssertEqual(session["max_power"] as? Int, 188)
        let lap = try XCTUnwrap(seen["lap_figures"] as? [String: Any])
        XCTAssertEqual(lap["avg_heart_rate"] as? Int, Int(expectHR.rounded()))
        XCTAssertEqual(lap["max_power"] as? Int, 188)
    }

    /// Laps of 500 m: each lap's figures are its own points' (the heart rate rises, so each lap's
    /// average and maximum are above the one before), the last lap's maximum the session's.
    func testEachLapHasItsOwnFigures() throws {
        try writeTrip(sensors: true)
        let path = out + "/laps.fit"
        try convert(.fit, to: path, laps: .distance(500))
        let seen = try ExportSupport.check("fit", path)
        let laps = try XCTUnwrap(seen["lap_sensor_figures"] as? [[String: Any]])
        XCTAssertGreaterThan(laps.count, 2)
        let avgs = laps.compactMap { $0["avg_heart_rate"] as? Int }, maxes = laps.compactMap { $0["max_heart_rate"] as? Int }
        XCTAssertEqual(avgs.count, laps.count)
        XCTAssertEqual(avgs, avgs.sorted())
        XCTAssertEqual(Set(avgs).count, avgs.count, "\(avgs)")
        XCTAssertEqual(maxes.last, Self.heartRate(Self.points - 1))
        XCTAssertLessThan(maxes[0], Self.heartRate(Self.points - 1))
        XCTAssertTrue(laps.allSatisfy { $0["avg_cadence"] as? Int == 90 })
    }

    /// The same trip without its sensors' records: not a byte of the FIT or the GPX changes
    /// with the sensors' code in (a record, a lap and a session without the fields).
    func testWithoutSensorsNothingChanges() throws {
        try writeTrip(sensors: false)
        try convert(.fit, to: out + "/plain.fit")
        try convert(.gpx, to: out + "/plain.gpx")
        let seen = try ExportSupport.check("fit", out + "/plain.fit")
        XCTAssertEqual((seen["record_heart_rate"] as? [Any])?.allSatisfy { $0 is NSNull }, true)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertTrue(session["avg_heart_rate"] is NSNull)
        let gpx = try String(contentsOfFile: out + "/plain.gpx", encoding: .utf8)
        XCTAssertFalse(gpx.contains("gpxtpx:hr") || gpx.contains("PowerInWatts"))
    }

    func testGPXCarriesTheSensorsAndValidates() throws {
        try writeTrip(sensors: true)
        let path = out + "/trip.gpx"
        try convert(.gpx, to: path)
        let seen = try ExportSupport.check("gpx", path)  // xmllint against the GPX 1.1 schema, gpxpy, GDAL
        XCTAssertEqual(seen["hr"] as? [Int], (0..<Self.points).map(Self.heartRate))
        XCTAssertEqual(seen["power"] as? [Int], (0..<Self.points).map { Self.power(2 * $0) })
        XCTAssertEqual(seen["cad"] as? [Int], Array(repeating: 90, count: Self.points))
    }

    /// CSV: the columns `heartrate,cadence,power` last, read back by gpsbabel's unicsv among the checks;
    /// GeoJSON: `coordinateProperties.heartRates`, `cadences`, `powers`, shaped like the
    /// coordinates (check-export's RFC 7946 rules, GDAL).
    func testCSVAndGeoJSONCarryTheSensors() throws {
        try writeTrip(sensors: true)
        try convert(.csv, to: out + "/trip.csv")
        let csvSeen = try ExportSupport.check("csv", out + "/trip.csv")
        XCTAssertEqual(csvSeen["gpsbabel_heartrate"] as? [Double], (0..<Self.points).map { Double(Self.heartRate($0)) })
        XCTAssertEqual(csvSeen["gpsbabel_cadence"] as? [Double], Array(repeating: 90, count: Self.points))
        XCTAssertEqual(csvSeen["gpsbabel_power"] as? [Double], (0..<Self.points).map { Double(Self.power(2 * $0)) })
        let rows = try String(contentsOfFile: out + "/trip.csv", encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(rows[0].hasSuffix(",board,heartrate,cadence,power"), String(rows[0]))
        XCTAssertEqual(rows.count, Self.points + 1)
        for (i, row) in rows.dropFirst().enumerated() {
            XCTAssertTrue(row.hasSuffix(",\(Self.heartRate(i)),90,\(Self.power(2 * i))"), String(row))
        }
        try convert(.geojson, to: out + "/trip.geojson")
        try ExportSupport.check("geojson", out + "/trip.geojson")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/trip.geojson"))) as? [String: Any]
        let feature = try XCTUnwrap((json?["features"] as? [[String: Any]])?.first)
        let props = try XCTUnwrap((feature["properties"] as? [String: Any])?["coordinateProperties"] as? [String: Any])
        XCTAssertEqual((props["heartRates"] as? [[Int]])?.flatMap { $0 }, (0..<Self.points).map(Self.heartRate))
        XCTAssertEqual((props["powers"] as? [[Int]])?.flatMap { $0 }, (0..<Self.points).map { Self.power(2 * $0) })
        XCTAssertEqual((props["cadences"] as? [[Int]])?.flatMap { $0 }, Array(repeating: 90, count: Self.points))
        // Without sensors: the header and the properties of before.
        try FileManager.default.removeItem(atPath: dir)
        dir = ExportSupport.tempDir()
        try writeTrip(sensors: false)
        try convert(.csv, to: out + "/plain.csv")
        XCTAssertTrue(try String(contentsOfFile: out + "/plain.csv", encoding: .utf8).hasPrefix(CSVWriter.header))
        try convert(.geojson, to: out + "/plain.geojson")
        XCTAssertFalse(try String(contentsOfFile: out + "/plain.geojson", encoding: .utf8).contains("heartRates"))
    }

    /// The page (issue 42): a ride's heart rate, cadence and power on its card, as its FIT
    /// session counts them; with a privacy zone over the start, over the written points only; a
    /// ride without sensors shows no sensor line and writes the columns empty.
    func testThePageShowsTheSensorsFiguresOverTheWrittenPoints() throws {
        try writeTrip(sensors: true)
        let t = try trip()
        let whole = try XCTUnwrap(try SensorTrack.figures(t))
        let first = ExportSupport.ride(1, startMs: Self.start)[0]
        let window = PrivacyWindow(zones: [PrivacyZone(lat: first.lat, lon: first.lon, radiusM: 150)])
        let cut = try XCTUnwrap(try SensorTrack.figures(t, window: window))
        XCTAssertGreaterThan(try XCTUnwrap(cut.avgHeartRate), try XCTUnwrap(whole.avgHeartRate), "the zone leaves the start out")
        for (w, f) in [(nil, whole), (window, cut)] as [(PrivacyWindow?, SensorFigures)] {
            let page = ExportSupport.tempDir()
            defer { try? FileManager.default.removeItem(atPath: page) }
            let builder = try PageBuilder(folder: page) { XCTFail($0) }
            var entry = TripIndex.Entry(key: "trip1", tripId: 1, name: "n")
            entry.points = Self.points
            XCTAssertNil(builder.add(PageTrip(entry: entry, trip: t, window: w)))
            try builder.write()
            let back = try XCTUnwrap(TripIndex(text: String(contentsOfFile: page + "/" + TripIndex.fileName, encoding: .utf8)).entries.first)
            XCTAssertEqual(back.heartRateAvg, f.avgHeartRate)
            XCTAssertEqual(back.heartRateMax, f.maxHeartRate)
            XCTAssertEqual(back.cadenceAvg, 90)
            XCTAssertEqual(back.powerAvgW, f.avgPowerW)
            XCTAssertEqual(back.powerMaxW, f.maxPowerW)
            let card = Dictionary(uniqueKeysWithValues: IndexPage.figures(back))
            XCTAssertEqual(card["avg heart rate"], "\(f.avgHeartRate!) bpm")
            XCTAssertEqual(card["max heart rate"], "\(f.maxHeartRate!) bpm")
            XCTAssertEqual(card["avg cadence"], "90 rpm")
            XCTAssertEqual(card["avg power"], "\(f.avgPowerW!) W")
            XCTAssertEqual(card["max power"], "\(f.maxPowerW!) W")
        }
        try FileManager.default.removeItem(atPath: dir)
        dir = ExportSupport.tempDir()
        try writeTrip(sensors: false)
        let page = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: page) }
        let builder = try PageBuilder(folder: page) { XCTFail($0) }
        var entry = TripIndex.Entry(key: "trip1", tripId: 1, name: "n")
        entry.points = Self.points
        XCTAssertNil(builder.add(PageTrip(entry: entry, trip: try trip(), window: nil)))
        try builder.write()
        let back = try XCTUnwrap(TripIndex(text: String(contentsOfFile: page + "/" + TripIndex.fileName, encoding: .utf8)).entries.first)
        XCTAssertNil(back.heartRateAvg)
        XCTAssertNil(back.powerMaxW)
        XCTAssertNil(Dictionary(uniqueKeysWithValues: IndexPage.figures(back))["avg heart rate"])
    }
}

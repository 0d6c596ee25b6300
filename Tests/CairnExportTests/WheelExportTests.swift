import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Distance from the wheel where GPS has none (issue 40), read back: a trainer's trip (no point,
/// a wheel, a strap and a power meter) in the figures, FIT (indoor cycling, read by the FIT SDK
/// and fitdecode), CSV (rows without a position), and skipped with a line by GPX, GeoJSON and
/// KML; a tunnel's gap measured by the wheel instead of the straight line.
final class WheelExportTests: XCTestCase {
    var dir = ""
    var out = ""
    static let start: Int64 = 1_748_764_800_000
    static let seconds = 600

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDownWithError() throws {
        // CAIRN_TRAINER_LOG_OUT=DIR keeps the trainer's log there, for a look with the CLI.
        if let keep = ProcessInfo.processInfo.environment["CAIRN_TRAINER_LOG_OUT"], name.contains("testATrainersFiguresAreTheWheels") {
            try? FileManager.default.copyItem(atPath: dir, toPath: keep)
        }
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// A CSC wheel reading: cumulative revolutions and the last one's time (1/1024 s).
    static func wheel(_ revolutions: UInt32, ticks: UInt16, at mono: Int64) -> SensorNotification {
        let r = revolutions
        return SensorNotification(
            address: 0xBB, characteristic: 0x2A5B, arrivalMonoMs: mono,
            value: [1, UInt8(r & 255), UInt8(r >> 8 & 255), UInt8(r >> 16 & 255), UInt8(r >> 24), UInt8(ticks & 255), UInt8(ticks >> 8)])
    }

    /// Notifications in records of 20, the monotonic clock at 0 when the trip starts; `gps`:
    /// the offset is GPS time's (else the system clock's, a trainer with no fix ever).
    static func batches(_ ns: [SensorNotification], gps: Bool, start: Int64 = WheelExportTests.start) -> [SensorBatch] {
        stride(from: 0, to: ns.count, by: 20).map {
            SensorBatch(
                notifications: Array(ns[$0..<min(ns.count, $0 + 20)]), gpsMinusMonoMs: gps ? start : nil,
                clockMinusMonoMs: gps ? 0 : start, wheelCircumferenceMm: 2000)
        }
    }

    /// Ten minutes on a trainer at 8 m/s (4 revolutions a second of a 2 m wheel), 140 bpm,
    /// 200 W, as the recorder writes it: no point. `lapPressesS` and `endPressS`: the rider's
    /// short presses and the long press that ended it, seconds into the ride; `endPressAt`: a
    /// long press at that time. `start`: the system clock then.
    func writeTrainerTrip(
        lapPressesS: [Int64] = [], endPressS: Int64? = nil, endPressAt: Int64? = nil, start: Int64 = WheelExportTests.start
    ) throws {
        var ns: [SensorNotification] = []
        for s in 0..<Self.seconds {
            let mono = Int64(s) * 1000
            ns.append(Self.wheel(UInt32(4 * s), ticks: UInt16(truncatingIfNeeded: s * 1024), at: mono))
            ns.append(SensorNotification(address: 0xAA, characteristic: 0x2A37, arrivalMonoMs: mono + 200, value: [0, 140]))
            ns.append(SensorNotification(address: 0xCC, characteristic: 0x2A63, arrivalMonoMs: mono + 400, value: [0, 0, 200, 0]))
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0040))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
        for b in Self.batches(ns, gps: false, start: start) { try w.append(.sensors(b)) }
        for p in lapPressesS { try w.append(.riderMark(RiderMark(kind: .lap, timeMs: start + p * 1000))) }
        if let p = endPressS { try w.append(.riderMark(RiderMark(kind: .end, timeMs: start + p * 1000))) }
        if let t = endPressAt { try w.append(.riderMark(RiderMark(kind: .end, timeMs: t))) }
        try w.append(
            .tripEnd(
                TripEnd(
                    reason: .standstill, points: 0, distanceM: 4792, movingTimeMs: 599_000, firstTimeMs: start,
                    lastTimeMs: start + 599_000)))
        _ = try w.sync()
        w.close()
    }

    func trip() throws -> TripRef { try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first) }

    func convert(_ format: ExportFormat, to path: String, laps: LapRule? = nil) throws -> (converted: Bool, said: [String]) {
        let writer: TrackExporter
        var settings = ExportFormat.Settings(version: "1.0.0")
        var stages = TripConversion.Stages()
        if let laps { (settings.laps, stages.laps) = (laps, laps) }
        if format == .fit {
            writer = format.makeWriter(.fitFiles(.file(path), force: true, atomic: false), settings)
        } else {
            writer = format.makeWriter(.sink(try OutputSink(creating: path, force: true)), settings)
        }
        var said: [String] = []
        let c = TripConversion(writer: writer, stages: stages) { said.append($0) }
        let converted = c.convert(try trip()).converted
        try c.finish()
        return (converted, said)
    }

    /// `list` and `info`: the trainer's distance, moving time and span are the wheel's (before:
    /// 0 m, no time, and `list` skipped it as empty).
    func testATrainersFiguresAreTheWheels() throws {
        try writeTrainerTrip()
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.stats.points, 0)
        XCTAssertTrue(s.hasNoPositions)
        XCTAssertEqual(s.stats.distanceM, 599 * 8, accuracy: 1e-6)
        XCTAssertEqual(s.stats.movingTimeMs, 599_000)
        XCTAssertEqual(s.stats.firstTimeMs, Self.start)
        XCTAssertEqual(s.stats.lastTimeMs, Self.start + 599_000)
        XCTAssertEqual(s.records, Self.seconds)
        XCTAssertEqual(s.status, .closed, "a trip without points is not damaged")
    }

    /// The summaries over what an export holds (export's and deliver's index and page, `list`
    /// and `info` with zones) keep the wheel's figures: the end press and a zone have no point
    /// to cut, and every export writes all of the wheel's records. Before: 0 m, 0:00, no start
    /// (the attack's t08b and t17, issue 40).
    func testATrainersFiguresSurviveTheEndPressAndAZone() throws {
        try writeTrainerTrip(endPressAt: Self.start + 598_000)
        let t = try trip()
        let whole = try TripCatalog.read(t)
        XCTAssertEqual(whole.endPressMs, Self.start + 598_000)
        let home = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 200)
        let pressed = try ExportStages.summary(t, window: nil, endPressMs: whole.endPressMs)
        let zoned = try ExportStages.summary(t, window: ExportStages.window(t, zones: [home]), endPressMs: whole.endPressMs)
        let cuts = [("end press", pressed), ("zone", zoned)]
        for (name, s) in cuts {
            XCTAssertTrue(s.hasNoPositions, name)
            XCTAssertEqual(s.stats.distanceM, 599 * 8, accuracy: 1e-6, name)
            XCTAssertEqual(s.stats.movingTimeMs, 599_000, name)
            XCTAssertEqual(s.stats.firstTimeMs, Self.start, name)
            XCTAssertEqual(s.stats.lastTimeMs, Self.start + 599_000, name)
            XCTAssertEqual(s.records, Self.seconds, name)
        }
    }

    func testATrainersFITIsIndoorCyclingWithTheWheelsDistanceAndTheSensors() throws {
        try writeTrainerTrip()
        let path = out + "/trainer.fit"
        let r = try convert(.fit, to: path)
        XCTAssertTrue(r.converted, "\(r.said)")
        let seen = try ExportSupport.check("fit", path)
        XCTAssertEqual(seen["record"] as? Int, Self.seconds)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(session["sport"] as? String, "cycling")
        XCTAssertEqual(session["sub_sport"] as? String, "indoor_cycling")
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), 4792, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), 599, accuracy: 1)
        let last = try XCTUnwrap(seen["last_record"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(last["distance"] as? Double), 4792, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(last["enhanced_speed"] as? Double), 8, accuracy: 0.01)
        XCTAssertEqual(seen["record_heart_rate"] as? [Int], Array(repeating: 140, count: Self.seconds))
        XCTAssertEqual(seen["record_power"] as? [Int], Array(repeating: 200, count: Self.seconds))
    }

    func testATrainersCSVHasRowsWithoutAPositionAndTheTrackFormatsSayWhy() throws {
        try writeTrainerTrip()
        let csv = out + "/trainer.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        let seen = try ExportSupport.check("csv", csv)
        XCTAssertEqual(seen["rows"] as? Int, Self.seconds)
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertTrue(rows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false)[1...2].allSatisfy(\.isEmpty) })
        for format in [ExportFormat.gpx, .geojson, .kml] {
            let r = try convert(format, to: out + "/trainer." + format.fileExtension)
            XCTAssertFalse(r.converted, format.name)
            XCTAssertEqual(r.said.count, 1, "\(r.said)")
            XCTAssertTrue(
                r.said.first?.hasPrefix("trip 1: no positions (a trainer ride: 4.79 km from the wheel); ") == true
                    && r.said.first?.contains("cannot hold a trip without positions") == true, "\(r.said)")
        }
    }

    /// A trainer ride's laps (attack r21, F1 and F6): before, its FIT had one lap and its CSV an
    /// empty `lap` column, whatever the presses or `--laps`: the laps were counted on points,
    /// and a trainer has none. Now the presses make laps, and `--laps 1km` counts the wheel's km.
    func testATrainersPressesAndKilometresMakeLaps() throws {
        try writeTrainerTrip(lapPressesS: [150, 300, 450])
        // What `info` lists: the laps the default export makes.
        let made = try ButtonLaps.count(trip(), marks: TripMarks.read(trip()), window: nil)
        XCTAssertEqual(made.rule, .marks)
        XCTAssertEqual(made.startsMs, [150, 300, 450].map { Self.start + $0 * 1000 })
        let fit = out + "/trainer.fit"
        XCTAssertTrue(try convert(.fit, to: fit, laps: .marksElsePause).converted)
        var seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["lap"] as? Int, 4)
        XCTAssertEqual(seen["lap_triggers"] as? [String], ["manual", "manual", "manual", "session_end"])
        XCTAssertEqual((seen["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }.count, 3)
        let csv = out + "/trainer.csv"
        XCTAssertTrue(try convert(.csv, to: csv, laps: .marksElsePause).converted)
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        let column = try XCTUnwrap(lines[0].split(separator: ",").firstIndex(of: "lap"))
        let laps = lines.dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[column]) }
        XCTAssertEqual(Set(laps), ["1", "2", "3", "4"])
        XCTAssertEqual(laps.firstIndex(of: "2"), 151, "the press at 150 s: the lap from the next record")
        // 4792 m on the wheel: four whole km and the rest.
        XCTAssertTrue(try convert(.fit, to: fit, laps: .distance(1000)).converted)
        seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["lap"] as? Int, 5)
        XCTAssertEqual(seen["lap_triggers"] as? [String], ["distance", "distance", "distance", "distance", "session_end"])
    }

    /// A trainer ride ended by the long press (attack r21, t03): before, its FIT and CSV held
    /// the records after the press that `info` says the exports leave out.
    func testATrainersExportsEndAtTheEndPress() throws {
        try writeTrainerTrip(endPressS: 500)
        let fit = out + "/trainer.fit"
        let r = try convert(.fit, to: fit)
        XCTAssertTrue(r.converted)
        XCTAssertEqual(r.said, ["trip 1: 99 records after the rider's end press (08:08:20Z) left out; the log keeps them"])
        XCTAssertEqual(try ExportSupport.check("fit", fit)["record"] as? Int, 501)
        let csv = out + "/trainer.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        XCTAssertEqual(try ExportSupport.check("csv", csv)["rows"] as? Int, 501)
        let made = try ButtonLaps.count(trip(), marks: TripMarks.read(trip()), window: nil)
        XCTAssertEqual(made.afterEnd, 99, "what info says")
    }

    /// A tunnel: the fixes stop for 60 s while the wheel turns on; the distance over the gap is
    /// the wheel's (the ride's own length there), in the figures and FIT's distance, not the
    /// straight line; the points are the measured ones.
    func testATunnelsDistanceIsTheWheels() throws {
        let fixes = ExportSupport.ride(240, startMs: Self.start)
        var along = [0.0]
        for i in 1..<fixes.count { along.append(along[i - 1] + Geodesy.distance(fixes[i - 1], fixes[i])) }
        // The wheel at each second: the ride's own length, in whole revolutions of 2 m.
        let ns = (0..<fixes.count).map { i in
            Self.wheel(UInt32(along[i] / 2), ticks: UInt16(truncatingIfNeeded: i * 1024), at: Int64(i) * 1000)
        }
        func write(_ points: [Fix], wheel: Bool) throws -> TripSummary {
            try? FileManager.default.removeItem(atPath: dir)
            dir = ExportSupport.tempDir()
            let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0041))
            try w.append(.tripStart(activity: "ride", software: "cairn tests"))
            try w.append(.segmentStart(.start, timeMs: points[0].timeMs))
            try w.append(.points(points))
            if wheel { for b in Self.batches(ns, gps: true) { try w.append(.sensors(b)) } }
            _ = try w.sync()
            w.close()
            return try TripCatalog.read(trip())
        }
        let tunnel = Array(fixes[..<100] + fixes[160...])
        let whole = try write(fixes, wheel: false)
        let line = try write(tunnel, wheel: false)
        let measured = try write(tunnel, wheel: true)
        XCTAssertEqual(measured.stats.points, tunnel.count)
        XCTAssertEqual(measured.wheelGaps, 1)
        let gapAlong = along[160] - along[99]
        let chord = Geodesy.distance(fixes[99], fixes[160])
        XCTAssertLessThan(chord, gapAlong - 20, "the ride bends in the tunnel")
        XCTAssertEqual(line.stats.distanceM, whole.stats.distanceM - gapAlong + chord, accuracy: 0.01)
        // The wheel counts whole revolutions: within a revolution at each end.
        XCTAssertEqual(measured.stats.distanceM, whole.stats.distanceM, accuracy: 4)
        let path = out + "/tunnel.fit"
        XCTAssertTrue(try convert(.fit, to: path).converted)
        let seen = try ExportSupport.check("fit", path)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), measured.stats.distanceM, accuracy: 0.1)
        XCTAssertEqual(seen["record"] as? Int, tunnel.count)
        // A wheel alone is no heart rate, cadence or power: no sensor fields, no figures in `info`.
        XCTAssertNil(session["avg_heart_rate"] as? Int)
        XCTAssertEqual(seen["record_heart_rate"] as? [NSNull], Array(repeating: NSNull(), count: tunnel.count))
        XCTAssertNil(try SensorTrack.figures(trip()))
    }

    /// attack-r21 F5: `--laps 1km` counted its marks on the straight line across a tunnel whose
    /// distance the wheel fills, so every lap after it ended the wheel's extra metres past the
    /// FIT's own marks. The laps count the distance FIT's records carry.
    func testDistanceLapsCountTheTunnelsWheel() throws {
        let fixes = ExportSupport.ride(240, startMs: Self.start)
        var along = [0.0]
        for i in 1..<fixes.count { along.append(along[i - 1] + Geodesy.distance(fixes[i - 1], fixes[i])) }
        let ns = (0..<fixes.count).map { i in
            Self.wheel(UInt32(along[i] / 2), ticks: UInt16(truncatingIfNeeded: i * 1024), at: Int64(i) * 1000)
        }
        let tunnel = Array(fixes[..<100] + fixes[160...])
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0042))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.segmentStart(.start, timeMs: tunnel[0].timeMs))
        try w.append(.points(tunnel))
        for b in Self.batches(ns, gps: true) { try w.append(.sensors(b)) }
        _ = try w.sync()
        w.close()
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.wheelGaps, 1)
        var maxStep = 0.0
        for i in 1..<tunnel.count where i != 100 { maxStep = max(maxStep, Geodesy.distance(tunnel[i - 1], tunnel[i])) }
        // A lap length whose marks the wheel's extra metres would miss by more than a step.
        let length = try XCTUnwrap(
            [100.0, 150, 200, 250, 300].first { l in
                let r = s.wheelDistanceM.truncatingRemainder(dividingBy: l)
                return r > maxStep + 2 && r < l - maxStep - 2
            })
        let path = out + "/laps.fit"
        XCTAssertTrue(try convert(.fit, to: path, laps: .distance(length)).converted)
        let seen = try ExportSupport.check("fit", path)
        let laps = try XCTUnwrap(seen["lap_distances"] as? [Double])
        XCTAssertGreaterThan(laps.count, 3)
        let session = try XCTUnwrap((seen["session_figures"] as? [String: Any])?["total_distance"] as? Double)
        XCTAssertEqual(laps.reduce(0, +), session, accuracy: 0.5)
        // Each lap but the last ends at the first record at or past its mark: within a step of it
        // (the tunnel's own step may cross a mark; the laps after it end at their marks again).
        let afterGap = along[99] + Geodesy.distance(tunnel[99], tunnel[100]) + s.wheelDistanceM
        var total = 0.0
        for (k, d) in laps.dropLast().enumerated() {
            total += d
            let past = total - (total / length).rounded(.down) * length
            XCTAssertTrue(
                past <= maxStep + 1 || abs(total - afterGap) < 1,
                "lap \(k + 1) ends \(past) m past its mark, at \(total) m (steps of at most \(maxStep) m)")
        }
    }
}

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
        // CAIRN_TRAINER_RESUMED_LOG_OUT=DIR: the trainer ride resumed after a restart (two files).
        if let keep = ProcessInfo.processInfo.environment["CAIRN_TRAINER_RESUMED_LOG_OUT"], name.contains("testATrainerRideResumedAfterARestart") {
            try? FileManager.default.copyItem(atPath: dir, toPath: keep)
        }
        // CAIRN_TRAINER_1970_LOG_OUT=DIR: the trainer ride on a clock never set (Tests/Fixtures/logs/trainer-1970).
        if let keep = ProcessInfo.processInfo.environment["CAIRN_TRAINER_1970_LOG_OUT"], name.contains("testATrainerRideOnAClockNeverSet") {
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

    /// A power meter's reading with wheel data (flags bit 4): 200 W, cumulative revolutions and
    /// the last one's time (1/2048 s).
    static func powerWheel(_ revolutions: UInt32, ticks: UInt16, at mono: Int64) -> SensorNotification {
        let r = revolutions
        return SensorNotification(
            address: 0xCC, characteristic: 0x2A63, arrivalMonoMs: mono,
            value: [0x10, 0, 200, 0, UInt8(r & 255), UInt8(r >> 8 & 255), UInt8(r >> 16 & 255), UInt8(r >> 24), UInt8(ticks & 255), UInt8(ticks >> 8)]
        )
    }

    /// A trainer trip of `ns` (no point), for the cases the plain ride does not cover.
    func writeTrainer(_ ns: [SensorNotification], start: Int64 = WheelExportTests.start) throws {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0042))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
        for b in Self.batches(ns, gps: false, start: start) { try w.append(.sensors(b)) }
        _ = try w.sync()
        w.close()
    }

    func trip() throws -> TripRef { try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first) }

    func convert(_ format: ExportFormat, to path: String, laps: LapRule? = nil, zones: PrivacyZones = PrivacyZones()) throws -> (
        converted: Bool, said: [String]
    ) {
        let writer: TrackExporter
        var settings = ExportFormat.Settings(version: "1.0.0")
        var stages = TripConversion.Stages()
        stages.zones = zones
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
    /// to cut. Before: 0 m, 0:00, no start (the attack's t08b and t17, issue 40). They end at the
    /// end press, as FIT and CSV do (the brief r22: before, the index claimed the records after
    /// it that the exports leave out).
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
            XCTAssertEqual(s.stats.distanceM, 598 * 8, accuracy: 1e-6, name)
            XCTAssertEqual(s.stats.movingTimeMs, 598_000, name)
            XCTAssertEqual(s.stats.firstTimeMs, Self.start, name)
            XCTAssertEqual(s.stats.lastTimeMs, Self.start + 598_000, name)
            XCTAssertEqual(s.records, Self.seconds - 1, name)
        }
        XCTAssertEqual(whole.stats.distanceM, 599 * 8, accuracy: 1e-6, "list and info: the whole log, as for a ride")
        let fit = out + "/trainer.fit"
        XCTAssertTrue(try convert(.fit, to: fit).converted)
        let seen = try ExportSupport.check("fit", fit)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), pressed.stats.distanceM, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), Double(pressed.stats.movingTimeMs) / 1000, accuracy: 0.05)
        XCTAssertEqual(seen["record"] as? Int, pressed.records)
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

    /// The speed sensor's battery dies at 300 s while the power meter's wheel data goes on
    /// (attack r21 U11): before, the trip stopped at the speed sensor's 2.4 km; now the power
    /// meter's wheel carries on from its own next reading, counted once.
    func testAPowerMetersWheelCarriesOnWhenTheSpeedSensorFallsSilent() throws {
        var ns: [SensorNotification] = []
        for s in 0..<Self.seconds {
            let mono = Int64(s) * 1000
            if s < 300 { ns.append(Self.wheel(UInt32(4 * s), ticks: UInt16(truncatingIfNeeded: s * 1024), at: mono)) }
            ns.append(Self.powerWheel(UInt32(4 * s), ticks: UInt16(truncatingIfNeeded: s * 2048), at: mono + 300))
        }
        try writeTrainer(ns)
        let s = try TripCatalog.read(trip())
        // 299 s of the speed sensor, 10 s silent, then the power meter's from 310 s to 599 s.
        XCTAssertEqual(s.stats.distanceM, 299 * 8 + 290 * 8, accuracy: 16)
        XCTAssertGreaterThan(s.stats.distanceM, 4400, "more than the speed sensor's half")
        let fit = out + "/trainer.fit"
        XCTAssertTrue(try convert(.fit, to: fit).converted)
        let session = try XCTUnwrap(try ExportSupport.check("fit", fit)["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), s.stats.distanceM, accuracy: 0.5)
        let said = try XCTUnwrap(SensorTrack.read(trip())).notes
        XCTAssertTrue(said.contains { $0.hasPrefix("wheel: ") && $0.contains("took over") }, "\(said)")
    }

    /// A sensor that stamps each notification as a revolution's time (whole revolutions
    /// alternate 3 and 4 a second; attack r21 U1, U2): before, FIT's timer was 57:00 of the
    /// wheel's 59:59 (the distance over the top speed) and `info` gave no top speed while FIT
    /// did. Now FIT's timer is the wheel's moving time and both give the same top speed.
    func testATrainersTimerIsItsMovingTimeAndItsTopSpeedIsSaid() throws {
        var ns: [SensorNotification] = []
        for s in 0..<Self.seconds {
            ns.append(Self.wheel(UInt32((Double(s) * 3.5).rounded(.down)), ticks: UInt16(truncatingIfNeeded: s * 1024), at: Int64(s) * 1000))
        }
        try writeTrainer(ns)
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.stats.movingTimeMs, 599_000)
        let top = try XCTUnwrap(s.stats.maxSpeedMps, "info's top speed")
        let fit = out + "/trainer.fit"
        XCTAssertTrue(try convert(.fit, to: fit).converted)
        let session = try XCTUnwrap(try ExportSupport.check("fit", fit)["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), 599, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(session["enhanced_max_speed"] as? Double), top, accuracy: 0.002)
    }

    /// A 3-min stand on the trainer (attack r21 F6): before, no segment anywhere (`info`: 0 in
    /// 0 segments), one lap with `--laps pause`, FIT's timer ran on. Now the wheel's pause is a
    /// segment: two in `info`, a timer stop and start in FIT, a lap per part with `--laps pause`,
    /// CSV's segment column 1 then 2.
    func testATrainersStandIsAPause() throws {
        var ns: [SensorNotification] = []
        var revolutions: UInt32 = 0
        for s in 0..<Self.seconds {
            // Standing from 200 s to 380 s: the sensor sends its unchanged counter.
            if !(200..<380).contains(s) { revolutions += 4 }
            ns.append(Self.wheel(revolutions, ticks: UInt16(truncatingIfNeeded: (s < 200 || s >= 380 ? s : 199) * 1024), at: Int64(s) * 1000))
        }
        try writeTrainer(ns)
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.wheelSegments, 2)
        XCTAssertTrue(TripFigures.json(s).contains { $0 == ("segments", "2") }, "list --json and info --json")
        let fit = out + "/trainer.fit"
        XCTAssertTrue(try convert(.fit, to: fit, laps: .pause).converted)
        let seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["lap"] as? Int, 2)
        let timers = (seen["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "timer" }
        XCTAssertEqual(timers.count, 4, "start, stop, start, stop_all: \(timers)")
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), Double(s.stats.movingTimeMs) / 1000, accuracy: 0.1)
        let csv = out + "/trainer.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        let column = try XCTUnwrap(lines[0].split(separator: ",").firstIndex(of: "segment"))
        let segments = lines.dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[column]) }
        XCTAssertEqual(Set(segments), ["1", "2"])
    }

    /// A trainer ride whose recorder restarted in the same boot (issue 40): part 0 cut without a
    /// trip end, part 1 of the same trip (no trip start, the wheel turning again 4 minutes after
    /// its last turn, the same monotonic clock and system clock offset), as the recorder writes
    /// it. One trip: both parts' distance and moving time, the stand a pause (2 segments), one
    /// FIT session and CSV rows from both parts. `start`: the system clock at the monotonic 0.
    /// `startBefore`: the system clock at the monotonic 0 as part 0 saw it (a clock NTP set
    /// between the two runs), `start` by default.
    func writeResumedTrainer(start: Int64, startBefore: Int64? = nil) throws {
        func part(_ number: UInt32, _ seconds: ClosedRange<Int>, revolutionsAt0: Int, end: Bool) throws {
            let w = try LogWriter(directory: dir, number: number, header: FileHeader(tripId: 1, part: number - 1, salt: 0x5EED_40F0 + number))
            if number == 1 {
                try w.append(.tripStart(activity: "ride", software: "cairn tests"))
                try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
            } else {
                try w.append(.note("trip resumed by the wheel after a restart: it stood 240 s, same boot"))
            }
            try w.append(.note(TripLog.bootNote("6f1c2b9e-0d6a-4c1e-9a51-2f8e7d3c4b5a")))
            let ns = seconds.map { Self.wheel(UInt32(revolutionsAt0 + 4 * $0), ticks: UInt16(truncatingIfNeeded: $0 * 1024), at: Int64($0) * 1000) }
            for b in Self.batches(ns, gps: false, start: number == 1 ? startBefore ?? start : start) { try w.append(.sensors(b)) }
            if end {
                let last = Int64(seconds.upperBound) * 1000
                try w.append(
                    .tripEnd(
                        TripEnd(
                            reason: .standstill, points: 0, distanceM: Double(seconds.count - 1) * 8,
                            movingTimeMs: last - Int64(seconds.lowerBound) * 1000,
                            firstTimeMs: start + Int64(seconds.lowerBound) * 1000, lastTimeMs: start + last)))
            }
            _ = try w.sync()
            w.close()
        }
        try part(1, 0...600, revolutionsAt0: 0, end: false)
        // The wheel stood while the board was off: the counter goes on from where it stood.
        try part(2, 840...1140, revolutionsAt0: 4 * 600 - 4 * 840, end: true)
    }

    func testATrainerRideResumedAfterARestartIsOneTrip() throws {
        try writeResumedTrainer(start: Self.start)
        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        XCTAssertEqual(trips.count, 1, "one trip over both files")
        let s = try TripCatalog.read(XCTUnwrap(trips.first))
        XCTAssertEqual(s.files.count, 2)
        XCTAssertEqual(s.stats.distanceM, (600 + 300) * 8, accuracy: 1e-6, "both parts, not the gap")
        // The first reading after the stand gives no rate yet (`WheelSpeed`): 1 s less, as the
        // same readings in one file give (below).
        XCTAssertEqual(s.stats.movingTimeMs, (600 + 300 - 1) * 1000)
        XCTAssertEqual(s.stats.firstTimeMs, Self.start)
        XCTAssertEqual(s.stats.lastTimeMs, Self.start + 1_140_000)
        XCTAssertEqual(s.wheelSegments, 2, "the 4 minutes off are a pause")
        let fit = out + "/resumed.fit"
        XCTAssertTrue(try convert(.fit, to: fit).converted)
        let seen = try ExportSupport.check("fit", fit)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), 7200, accuracy: 1)
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), 899, accuracy: 0.1)
        let csv = out + "/resumed.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertEqual(rows.count, 601 + 301, "every reading of both parts")
    }

    /// The resumed trip's figures are those of the same readings recorded without the restart.
    func testAResumedTrainerRideHasTheFiguresOfTheSameRideInOneFile() throws {
        try writeResumedTrainer(start: Self.start)
        let resumed = try TripCatalog.read(trip())
        try FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let seconds: [Int] = Array(0...600) + Array(840...1140)
        let ns: [SensorNotification] = seconds.map { (t: Int) -> SensorNotification in
            let revolutions = UInt32(4 * t - (t > 600 ? 960 : 0))
            return Self.wheel(revolutions, ticks: UInt16(truncatingIfNeeded: t * 1024), at: Int64(t) * 1000)
        }
        try writeTrainer(ns)
        let whole = try TripCatalog.read(trip())
        XCTAssertEqual(resumed.stats.distanceM, whole.stats.distanceM)
        XCTAssertEqual(resumed.stats.movingTimeMs, whole.stats.movingTimeMs)
        XCTAssertEqual(resumed.wheelSegments, whole.wheelSegments)
        XCTAssertEqual(resumed.stats.lastTimeMs, whole.stats.lastTimeMs)
    }

    /// The clock set by NTP between the runs (part 0 on 1970, part 1 on the real time): one boot
    /// is one monotonic clock, so part 0 is dated on part 1's offset, as a clock set during one
    /// run dates its start. Before, part 0 would lie in 1970 and the trip span 55 years.
    func testAResumedTrainerRideIsDatedByTheClockSetBeforeTheRestart() throws {
        try writeResumedTrainer(start: Self.start, startBefore: 0)
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.stats.firstTimeMs, Self.start)
        XCTAssertEqual(s.stats.lastTimeMs, Self.start + 1_140_000)
        XCTAssertEqual(s.stats.distanceM, 7200, accuracy: 1e-6)
        XCTAssertFalse(s.undatable)
    }

    /// The same on a clock never set (1970, the same boot's offset): one trip, both parts'
    /// figures; undatable, so no export, as a one-part trainer ride on such a clock.
    func testAResumedTrainerRideOnAClockNeverSetIsOneTripWithBothParts() throws {
        try writeResumedTrainer(start: 0)
        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        XCTAssertEqual(trips.count, 1)
        let s = try TripCatalog.read(XCTUnwrap(trips.first))
        XCTAssertEqual(s.stats.distanceM, 7200, accuracy: 1e-6)
        XCTAssertEqual(s.stats.movingTimeMs, 899_000)
        XCTAssertTrue(s.undatable)
    }

    /// A trainer ride on a board whose clock was never set (1970) and never had a fix (attack
    /// r21 F8): before, FIT was written with no session, lap or record and CSV with no row,
    /// both said written. Now neither is written, and a line names the trip and why.
    func testATrainerRideOnAClockNeverSetIsRefusedWithALine() throws {
        try writeTrainerTrip(start: 300_000)
        let s = try TripCatalog.read(trip())
        XCTAssertTrue(s.undatable)
        XCTAssertEqual(s.stats.distanceM, 4792, accuracy: 0.5, "its figures stand")
        for format in [ExportFormat.fit, .csv] {
            let path = out + "/trainer." + format.fileExtension
            let r = try convert(format, to: path)
            XCTAssertFalse(r.converted, format.name)
            XCTAssertEqual(
                r.said,
                [
                    "trip 1: a trainer ride of 4.79 km from the wheel on a clock that was never set (it starts 1970-01-01T00:05:00Z, "
                        + "and no fix came to set it): no export can date it, so none is written; its log keeps it"
                ], format.name)
            if format == .fit { XCTAssertFalse(FileManager.default.fileExists(atPath: path), "no empty FIT") }
        }
    }

    /// A bike carried across a 30 s gap in the fixes with its wheel spinning freely (attack r21
    /// U12): 240 m of revolutions over a 32 m straight line. Before, the wheel's 208 m more were
    /// counted; now a wheel beyond twice the line (and 20 m) is not the bike's way: the line stays.
    func testAWheelSpunInAGapIsNotTheRidesDistance() throws {
        let fixes = ExportSupport.ride(200, startMs: Self.start)
        // The gap: 30 s in which the board moves 32 m (about 4 of the ride's 8 m steps).
        var points = Array(fixes[..<100])
        let shift = fixes[104].timeMs - fixes[100].timeMs
        for f in fixes[104...] {
            var g = f
            g.timeMs += 30_000 - shift
            points.append(g)
        }
        let ns = (0..<230).map { i in Self.wheel(UInt32(4 * i), ticks: UInt16(truncatingIfNeeded: i * 1024), at: Int64(i) * 1000) }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0043))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.segmentStart(.start, timeMs: points[0].timeMs))
        try w.append(.points(points))
        for b in Self.batches(ns, gps: true) { try w.append(.sensors(b)) }
        _ = try w.sync()
        w.close()
        let chord = Geodesy.distance(points[99], points[100])
        XCTAssertLessThan(chord, 50)
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.wheelGaps, 0, "the spun wheel is not counted")
        XCTAssertEqual(s.wheelDistanceM, 0)
        // A tunnel's bends (1.2 times the line) still count.
        XCTAssertTrue(WheelTrack.plausible(1.2 * 2000, chord: 2000))
        XCTAssertFalse(WheelTrack.plausible(240, chord: 32))
    }

    /// 5 min on the trainer (the wheel, no fix), then outdoors with fixes (attack r21 F3), a
    /// press in each part: before, every output started at the first fix, and the indoor
    /// 2.4 km, its heart rate and its press were gone. Now the figures start with the wheel,
    /// FIT and CSV write the indoor part as records without a position, and the laps go on
    /// from it; GPX says what it cannot hold.
    func testATrainersIndoorPartBeforeTheFirstFixIsKept() throws {
        let fixes = ExportSupport.ride(200, startMs: Self.start + 300_000)
        var ns: [SensorNotification] = []
        for s in 0..<500 {
            let mono = Int64(s) * 1000
            ns.append(Self.wheel(UInt32(4 * s), ticks: UInt16(truncatingIfNeeded: s * 1024), at: mono))
            ns.append(SensorNotification(address: 0xAA, characteristic: 0x2A37, arrivalMonoMs: mono + 200, value: [0, 140]))
        }
        func batch(_ part: ArraySlice<SensorNotification>, gps: Bool) -> SensorBatch {
            SensorBatch(
                notifications: Array(part), gpsMinusMonoMs: gps ? Self.start : nil, clockMinusMonoMs: Self.start, wheelCircumferenceMm: 2000)
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0044))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
        for i in stride(from: 0, to: 600, by: 20) { try w.append(.sensors(batch(ns[i..<i + 20], gps: false))) }
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        try w.append(.points(fixes))
        for i in stride(from: 600, to: ns.count, by: 20) { try w.append(.sensors(batch(ns[i..<min(ns.count, i + 20)], gps: true))) }
        try w.append(.riderMark(RiderMark(kind: .lap, timeMs: Self.start + 150_000)))
        try w.append(.riderMark(RiderMark(kind: .lap, timeMs: Self.start + 400_000)))
        _ = try w.sync()
        w.close()
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.stats.firstTimeMs, Self.start, "the trip starts on the trainer")
        XCTAssertEqual(s.wheelLeadM, 300 * 8, accuracy: 8.5)
        XCTAssertEqual(s.wheelLeadSamples, 300)
        var outdoors = TripStats()
        for f in fixes { outdoors.add(f) }
        XCTAssertEqual(s.stats.distanceM, outdoors.distanceM + s.wheelLeadM, accuracy: 0.01)
        XCTAssertEqual(s.records, 500)
        let made = try ButtonLaps.count(trip(), marks: TripMarks.read(trip()), window: nil)
        XCTAssertEqual(made.startsMs.count, 2, "both presses make a lap: \(made.startsMs)")
        let fit = out + "/ride.fit"
        XCTAssertTrue(try convert(.fit, to: fit, laps: .marksElsePause).converted)
        let seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["record"] as? Int, 500)
        XCTAssertEqual(seen["records_without_position"] as? Int, 300, "the indoor part, then the fixes")
        XCTAssertEqual(seen["lap"] as? Int, 3)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), s.stats.distanceM, accuracy: 9)
        XCTAssertEqual(try XCTUnwrap(session["total_elapsed_time"] as? Double), 499, accuracy: 0.1)
        XCTAssertEqual((seen["record_heart_rate"] as? [Any])?.prefix(300).compactMap { $0 as? Int }.count, 300, "the indoor heart rate")
        let csv = out + "/ride.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        XCTAssertEqual(try ExportSupport.check("csv", csv)["rows"] as? Int, 500)
        let gpx = try convert(.gpx, to: out + "/ride.gpx")
        XCTAssertTrue(gpx.converted)
        XCTAssertTrue(gpx.said.contains { $0.hasPrefix("trip 1: its first 2.40 km, on the wheel before the first fix") }, "\(gpx.said)")
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

    /// A ride from home inside a privacy zone with a wheel sensor on from the start (attack-r22
    /// case 21): FIT and CSV wrote the hidden stretch as records without a position (its time,
    /// speed and running distance: the way from home to the zone's edge), and the exported
    /// figures counted it. The wheel's lead is only the part before the trip's own first point;
    /// where a zone hid the start, none is written or counted.
    func testAZoneThatHidesTheStartHidesTheWheelBeforeIt() throws {
        let fixes = ExportSupport.ride(300, startMs: Self.start)
        let ns = (0..<300).map { i in Self.wheel(UInt32(4 * i), ticks: UInt16(truncatingIfNeeded: i * 1024), at: Int64(i) * 1000) }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0045))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        try w.append(.points(fixes))
        for b in Self.batches(ns, gps: true) { try w.append(.sensors(b)) }
        _ = try w.sync()
        w.close()
        let whole = try TripCatalog.read(trip())
        XCTAssertEqual(whole.wheelLeadSamples, 0, "the wheel and the fixes start together")
        let zones = PrivacyZones(
            [PrivacyZone(lat: fixes[0].lat, lon: fixes[0].lon, radiusM: 100)], key: PrivacyKey(bytes: Array(repeating: 7, count: 16)))
        let fit = out + "/zoned.fit"
        XCTAssertTrue(try convert(.fit, to: fit, zones: zones).converted)
        let seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["records_without_position"] as? Int ?? 0, 0, "nothing of the hidden way")
        let t = try trip()
        let zoned = try ExportStages.summary(t, window: ExportStages.window(t, zones: zones), endPressMs: nil)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), zoned.stats.distanceM, accuracy: 1)
        XCTAssertLessThan(zoned.stats.distanceM, whole.stats.distanceM - whole.wheelLeadM, "the zone's cut is not counted")
        let csv = out + "/zoned.csv"
        XCTAssertTrue(try convert(.csv, to: csv, zones: zones).converted)
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        let lat = try XCTUnwrap(lines[0].split(separator: ",").firstIndex(of: "lat"))
        let empty = lines.dropFirst().filter { $0.split(separator: ",", omittingEmptySubsequences: false)[lat].isEmpty }
        XCTAssertEqual(empty.count, 0, "no row without a position")
    }

    /// The indoor part and the fixes after it, one recorder run (one monotonic clock): the
    /// indoor records carry only the system clock's offset (`indoorClock`: the system clock at
    /// the run's monotonic 0), the records from the first fix on GPS time's.
    func writeIndoorThenOutdoors(
        indoorClock: Int64, fixes: [Fix], seconds: Int = 500, salt: UInt32 = 0x5EED_0046, endPressMs: Int64? = nil
    ) throws {
        var ns: [SensorNotification] = []
        for s in 0..<seconds {
            let mono = Int64(s) * 1000
            ns.append(Self.wheel(UInt32(4 * s), ticks: UInt16(truncatingIfNeeded: s * 1024), at: mono))
            ns.append(SensorNotification(address: 0xAA, characteristic: 0x2A37, arrivalMonoMs: mono + 200, value: [0, 140]))
        }
        func batch(_ part: ArraySlice<SensorNotification>, gps: Bool) -> SensorBatch {
            SensorBatch(
                notifications: Array(part), gpsMinusMonoMs: gps ? Self.start : nil, clockMinusMonoMs: gps ? Self.start : indoorClock,
                wheelCircumferenceMm: 2000)
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: salt))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
        for i in stride(from: 0, to: 600, by: 20) { try w.append(.sensors(batch(ns[i..<i + 20], gps: false))) }
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        try w.append(.points(fixes))
        for i in stride(from: 600, to: ns.count, by: 20) { try w.append(.sensors(batch(ns[i..<min(ns.count, i + 20)], gps: true))) }
        if let p = endPressMs { try w.append(.riderMark(RiderMark(kind: .end, timeMs: p))) }
        _ = try w.sync()
        w.close()
    }

    /// attack-r22 case 10: a board without a clock rides 5 min on the wheel before its first
    /// fix. Its indoor records were dated on the system clock: 1970 (a trip of 494,527 hours in
    /// `list` and `info`, named 1970 on the remote, the FIT silently without the indoor 2.4 km)
    /// or fake-hwclock's last shutdown 13 h before (a FIT of 13 h). The run's one monotonic
    /// clock lets the first fix date them: the trip starts on the trainer, on GPS time.
    func testAnIndoorPartOnAClockNeverSetIsDatedByTheFirstFix() throws {
        for (name, clock) in [("1970", Int64(300_000)), ("fake-hwclock 13 h behind", Self.start - 46_800_000)] {
            try? FileManager.default.removeItem(atPath: dir)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try writeIndoorThenOutdoors(indoorClock: clock, fixes: ExportSupport.ride(200, startMs: Self.start + 300_000))
            let s = try TripCatalog.read(trip())
            XCTAssertEqual(s.stats.firstTimeMs, Self.start, "\(name): the trip starts on the trainer, on the fixes' clock")
            XCTAssertEqual(s.stats.lastTimeMs, Self.start + 499_000, name)
            XCTAssertEqual(s.wheelLeadM, 300 * 8, accuracy: 8.5, name)
            let fit = out + "/ride.fit"
            XCTAssertTrue(try convert(.fit, to: fit).converted, name)
            let seen = try ExportSupport.check("fit", fit)
            XCTAssertEqual(seen["records_without_position"] as? Int, 300, "\(name): the indoor part")
            let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
            XCTAssertEqual(try XCTUnwrap(session["total_elapsed_time"] as? Double), 499, accuracy: 0.1, name)
            XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), s.stats.distanceM, accuracy: 9, name)
        }
    }

    /// attack-r22 case 11: NTP set the clock half way through a trainer ride (no fix ever).
    /// The whole ride was "on a clock that was never set": no export, no delivery, 494,527 h
    /// elapsed in `info`. One run, one monotonic clock: the set clock dates all of it.
    func testATrainerRideWhoseClockIsSetMidwayIsDated() throws {
        var ns: [SensorNotification] = []
        for s in 0..<Self.seconds {
            ns.append(Self.wheel(UInt32(4 * s), ticks: UInt16(truncatingIfNeeded: s * 1024), at: Int64(s) * 1000))
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0047))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
        for (i, b) in Self.batches(ns, gps: false, start: 300_000).enumerated() {
            var b = b
            if i >= 15 { b.clockMinusMonoMs = Self.start }  // NTP set the clock at 300 s
            try w.append(.sensors(b))
        }
        _ = try w.sync()
        w.close()
        let s = try TripCatalog.read(trip())
        XCTAssertFalse(s.undatable, "its clock was set")
        XCTAssertEqual(s.stats.firstTimeMs, Self.start)
        XCTAssertEqual(s.stats.lastTimeMs, Self.start + 599_000)
        let fit = out + "/trainer.fit"
        let r = try convert(.fit, to: fit)
        XCTAssertTrue(r.converted, "\(r.said)")
        let seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["record"] as? Int, 600)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_elapsed_time"] as? Double), 599, accuracy: 0.1)
    }

    /// attack-r22 case 17: `--laps 1km` on a trainer ride that went outdoors: the indoor laps
    /// ended at 1 and 2 km, but the points counted their first km from the door, so the 3 km
    /// mark was lost and one "1 km" lap ran 1.4 km. The points' laps go on from the wheel's.
    func testDistanceLapsGoOnAcrossTheDoor() throws {
        let fixes = ExportSupport.ride(400, startMs: Self.start + 300_000)
        try writeIndoorThenOutdoors(indoorClock: Self.start, fixes: fixes, seconds: 700)
        var outdoors = TripStats()
        for f in fixes { outdoors.add(f) }
        XCTAssertGreaterThan(outdoors.distanceM, 1800, "the ride passes the 3 km mark outdoors")
        var maxStep = 8.5
        for i in 1..<fixes.count { maxStep = max(maxStep, Geodesy.distance(fixes[i - 1], fixes[i])) }
        let fit = out + "/laps.fit"
        XCTAssertTrue(try convert(.fit, to: fit, laps: .distance(1000)).converted)
        let seen = try ExportSupport.check("fit", fit)
        let laps = try XCTUnwrap(seen["lap_distances"] as? [Double])
        XCTAssertGreaterThanOrEqual(laps.count, 4)
        for (k, d) in laps.dropLast().enumerated() {
            XCTAssertEqual(d, 1000, accuracy: maxStep + 1, "lap \(k + 1) of \(laps)")
        }
        let csv = out + "/laps.csv"
        XCTAssertTrue(try convert(.csv, to: csv, laps: .distance(1000)).converted)
    }

    /// attack-r22 case 19: a trainer at home, then the ride out from home, home a privacy zone.
    /// The records between the first fix (at home) and the first point the zone lets out told the
    /// hidden way (their time, speed and running distance). Nothing of the indoor part or the
    /// hidden stretch is written then (where the indoor part ends is where the fixes start,
    /// inside the zone), and the export says what it left out.
    func testAZoneAroundTheTrainerLeavesOutTheIndoorPartAndSaysSo() throws {
        let fixes = ExportSupport.ride(400, startMs: Self.start + 300_000)
        try writeIndoorThenOutdoors(indoorClock: Self.start, fixes: fixes, seconds: 700, salt: 0x5EED_0048)
        let zones = PrivacyZones(
            [PrivacyZone(lat: fixes[0].lat, lon: fixes[0].lon, radiusM: 100)], key: PrivacyKey(bytes: Array(repeating: 7, count: 16)))
        let t = try trip()
        let zoned = try ExportStages.summary(t, window: ExportStages.window(t, zones: zones), endPressMs: nil)
        // attack-r23 case 7: info printed the hidden indoor part's distance and start beside
        // the exported figures.
        XCTAssertEqual(zoned.wheelLeadM, 0, "info says nothing of the hidden indoor part")
        XCTAssertNil(zoned.wheelLeadFromMs, "nor when it began")
        for format in [ExportFormat.fit, .csv] {
            let path = out + "/zoned." + format.fileExtension
            let r = try convert(format, to: path, zones: zones)
            XCTAssertTrue(r.converted)
            XCTAssertTrue(
                r.said.contains { $0.hasPrefix("trip 1: its first 2.40 km, on the wheel before the first fix, are left out") }, "\(r.said)")
            if format == .fit {
                let seen = try ExportSupport.check("fit", path)
                XCTAssertEqual(seen["records_without_position"] as? Int ?? 0, 0, "nothing of the indoor part or the hidden way")
                let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
                XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), zoned.stats.distanceM, accuracy: 1)
                XCTAssertEqual(try XCTUnwrap((seen["first_record"] as? [String: Any])?["distance"] as? Double), 0, accuracy: 0.01)
            }
        }
    }

    /// attack-r22 case 18: the rider's long press came on the trainer, before the first fix,
    /// and the bike went out with the trip still open. `info` said every export ends at the
    /// press; FIT and CSV wrote the whole ride outdoors, GPX the points after it. Now every
    /// export ends at the press: FIT and CSV the wheel's records up to it, without positions;
    /// GPX, which cannot hold them, nothing, with a line.
    func testAnEndPressOnTheWheelBeforeTheFirstFixEndsEveryExportThere() throws {
        let fixes = ExportSupport.ride(200, startMs: Self.start + 300_000)
        let press = Self.start + 200_000
        try writeIndoorThenOutdoors(indoorClock: Self.start, fixes: fixes, salt: 0x5EED_0049, endPressMs: press)
        let t = try trip()
        let marks = try TripMarks.read(t)
        XCTAssertEqual(marks.endMs, press)
        let made = try ButtonLaps.count(t, marks: marks, window: nil)
        // attack-r23 case 8: info said "299 points after it": the records and points apart.
        XCTAssertEqual(made.afterEnd, 200, "info: the points after the press")
        XCTAssertEqual(made.recordsAfterEnd, 99, "info: the indoor records after the press")
        let cut = try ExportStages.summary(t, window: nil, endPressMs: press)
        XCTAssertEqual(cut.stats.distanceM, 200 * 8, accuracy: 8.5, "the figures end at the press")
        XCTAssertEqual(cut.stats.points, 0)
        let fit = out + "/ended.fit"
        let r = try convert(.fit, to: fit)
        XCTAssertTrue(r.converted, "\(r.said)")
        let seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["record"] as? Int, 201, "the records up to the press")
        XCTAssertEqual(seen["records_without_position"] as? Int, 201)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), cut.stats.distanceM, accuracy: 1)
        XCTAssertEqual(try XCTUnwrap(session["total_elapsed_time"] as? Double), 200, accuracy: 0.1)
        let csv = out + "/ended.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        XCTAssertEqual(try ExportSupport.check("csv", csv)["rows"] as? Int, 201)
        let gpx = try convert(.gpx, to: out + "/ended.gpx")
        XCTAssertFalse(gpx.converted)
        XCTAssertTrue(gpx.said.contains { $0.contains("ended by the rider's press") && $0.contains("GPX cannot hold") }, "\(gpx.said)")
    }

    /// attack-r23 case 2: `render` called a trainer's ride and a ride ended on the trainer before
    /// its first fix "no points (an empty or unfinished trip)". It says what each is.
    func testRenderSaysATrainersRideHasNoPositionsToDraw() throws {
        func said(_ t: TripRef) throws -> String {
            let sink = try OutputSink(creating: out + "/t.svg", force: true)
            do {
                _ = try TrackPicture.draw(t, options: .defaults(activity: "ride"), to: sink)
                return ""
            } catch let e as ExportError {
                return e.description
            }
        }
        try writeTrainerTrip()
        let trainer = try said(trip())
        XCTAssertTrue(trainer.contains("no positions (a trainer's ride: the wheel's records only); nothing to draw"), trainer)
        try FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fixes = ExportSupport.ride(200, startMs: Self.start + 300_000)
        try writeIndoorThenOutdoors(indoorClock: Self.start, fixes: fixes, salt: 0x5EED_0050, endPressMs: Self.start + 200_000)
        let pressed = try said(trip())
        XCTAssertTrue(pressed.contains("its 200 points all come after the rider's end press (made before the first fix)"), pressed)
    }

    /// attack-r23 case 1: outdoors, then back on the trainer with the trip still open (the wheel
    /// goes on, no more fixes): 10 min and 4.8 km were gone from every output and nothing said
    /// so. The summary holds the part after the last fix, for `info` to say; with a zone it does
    /// not (a zone may hide where the fixes end).
    func testTheWheelAfterTheLastFixIsSaid() throws {
        let fixes = ExportSupport.ride(200, startMs: Self.start + 300_000)
        try writeIndoorThenOutdoors(indoorClock: Self.start, fixes: fixes, seconds: 800, salt: 0x5EED_0051)
        let t = try trip()
        let s = try TripCatalog.read(t)
        XCTAssertEqual(s.wheelTrailFromMs, Self.start + 499_000, "after the last fix")
        XCTAssertEqual(s.stats.lastTimeMs, Self.start + 799_000, "the figures end with the wheel (issue 40 item 1)")
        XCTAssertEqual(s.wheelTrailM, 300 * 8, accuracy: 8.5, "the wheel's 300 s after the last fix")
        XCTAssertEqual(s.wheelTrailToMs, Self.start + 799_000)
        XCTAssertEqual(s.wheelTrailSamples, 300)
        let zones = PrivacyZones(
            [PrivacyZone(lat: fixes[0].lat, lon: fixes[0].lon, radiusM: 100)], key: PrivacyKey(bytes: Array(repeating: 7, count: 16)))
        let zoned = try ExportStages.summary(t, window: ExportStages.window(t, zones: zones), endPressMs: nil)
        XCTAssertEqual(zoned.wheelTrailM, 0, "with a zone hiding the start, nothing of it")
    }

    /// attack-r23 case 1, written: the wheel's part after the last fix is in the figures (to its
    /// last record), FIT's records without a position after the fixes' (both FIT readers), its
    /// session and laps, CSV's rows; GPX ends at the last fix and says so.
    func testTheWheelAfterTheLastFixIsWrittenByFITAndCSV() throws {
        let fixes = ExportSupport.ride(200, startMs: Self.start + 300_000)
        try writeIndoorThenOutdoors(indoorClock: Self.start, fixes: fixes, seconds: 1100, salt: 0x5EED_0052)
        let s = try TripCatalog.read(trip())
        XCTAssertEqual(s.wheelTrailSamples, 600)
        XCTAssertEqual(s.wheelTrailM, 600 * 8, accuracy: 8.5)
        XCTAssertEqual(s.stats.lastTimeMs, Self.start + 1_099_000, "the trip ends at the wheel's last record")
        var outdoors = TripStats()
        for f in fixes { outdoors.add(f) }
        XCTAssertEqual(s.stats.distanceM, outdoors.distanceM + s.wheelLeadM + s.wheelTrailM, accuracy: 0.01)
        XCTAssertEqual(s.records, 300 + 200 + 600)
        let fit = out + "/ride.fit"
        XCTAssertTrue(try convert(.fit, to: fit, laps: .distance(1000)).converted)
        let seen = try ExportSupport.check("fit", fit)
        XCTAssertEqual(seen["record"] as? Int, 1100)
        XCTAssertEqual(seen["fitdecode_records"] as? Int, 1100)
        XCTAssertEqual(seen["records_without_position"] as? Int, 300)
        XCTAssertEqual(seen["records_without_position_after"] as? Int, 600, "the wheel after the last fix")
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), s.stats.distanceM, accuracy: 9)
        XCTAssertEqual(try XCTUnwrap(session["total_elapsed_time"] as? Double), 1099, accuracy: 0.1)
        let moving = (Double(s.stats.movingTimeMs) / 100).rounded() / 10
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), moving, accuracy: 0.05, "FIT's timer is info's moving time")
        XCTAssertEqual(try XCTUnwrap(session["enhanced_max_speed"] as? Double), try XCTUnwrap(s.stats.maxSpeedMps), accuracy: 0.002)
        let lastRecord = try XCTUnwrap(seen["last_record"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(lastRecord["distance"] as? Double), s.stats.distanceM, accuracy: 9)
        let sums = try XCTUnwrap(seen["lap_sums"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(sums["total_distance"] as? Double), s.stats.distanceM, accuracy: 9)
        XCTAssertEqual(try XCTUnwrap(sums["total_elapsed_time"] as? Double), 1099, accuracy: 0.1)
        let csv = out + "/ride.csv"
        XCTAssertTrue(try convert(.csv, to: csv).converted)
        XCTAssertEqual(try ExportSupport.check("csv", csv)["rows"] as? Int, 1100)
        let gpx = try convert(.gpx, to: out + "/ride.gpx")
        XCTAssertTrue(gpx.converted)
        XCTAssertTrue(gpx.said.contains { $0.hasPrefix("trip 1: its last 4.80 km, on the wheel after the last fix") }, "\(gpx.said)")
        // An end press on the trainer: everything up to it, nothing after.
        let pressed = try ExportStages.summary(trip(), window: nil, endPressMs: Self.start + 799_000)
        XCTAssertEqual(pressed.wheelTrailSamples, 300)
        XCTAssertEqual(pressed.stats.lastTimeMs, Self.start + 799_000)
    }

    /// attack r23 (issue 40/41 item 3): the wheel sensor restarts from 0 mid ride (a battery
    /// change: its counters and its event time start again, after a few seconds without a
    /// reading). `info`'s moving time and FIT's timer (both FIT readers) are one; so are the
    /// distance and the top speed, and CSV has a row a second.
    func testAWheelSensorThatRestartsFromZeroGivesOneMovingTime() throws {
        var ns: [SensorNotification] = []
        let restartS = 600, silentS = 8
        for s in 0..<1200 where s < restartS || s >= restartS + silentS {
            let k = s < restartS ? s : s - restartS - silentS
            ns.append(Self.wheel(UInt32((Double(k) * 3.5).rounded(.down)), ticks: UInt16(truncatingIfNeeded: k * 1024), at: Int64(s) * 1000))
        }
        try writeTrainer(ns)
        let s = try TripCatalog.read(trip())
        let w = try XCTUnwrap(WheelTrack.read(trip()))
        XCTAssertEqual(s.stats.movingTimeMs, w.movingMs, "the time the wheel turned")
        let fit = out + "/trainer.fit"
        XCTAssertTrue(try convert(.fit, to: fit).converted)
        let seen = try ExportSupport.check("fit", fit)
        let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
        let moving = (Double(s.stats.movingTimeMs) / 100).rounded() / 10
        XCTAssertEqual(try XCTUnwrap(session["total_timer_time"] as? Double), moving, accuracy: 0.05, "FIT's timer is info's moving time")
        XCTAssertEqual(try XCTUnwrap(session["total_distance"] as? Double), s.stats.distanceM, accuracy: 0.06)
        XCTAssertEqual(try XCTUnwrap(session["enhanced_max_speed"] as? Double), try XCTUnwrap(s.stats.maxSpeedMps), accuracy: 0.002)
        XCTAssertLessThanOrEqual(s.stats.movingTimeMs, 1_199_000 - Int64(silentS) * 1000 + 5000, "the sensor's silence is no riding")
        XCTAssertEqual(seen["record"] as? Int, s.wheelSamples)
    }
}

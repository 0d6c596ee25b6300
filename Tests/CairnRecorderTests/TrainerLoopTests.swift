import CairnCore
import CairnDevice
import Foundation
import XCTest

@testable import CairnLog
@testable import CairnRecorder

/// The record loop with a wheel sensor and no fix (issue 40), on a fake gpsd that never gives
/// one, a fake clock and a real `TripLog`: a trainer ride is a trip of its own, closed when the
/// wheel stands; a parked board, a wheel spun briefly or a wheel that does not turn write nothing.
final class TrainerLoopTests: XCTestCase {
    static let csc: UInt64 = 0xC0_FF_EE_00_00_02

    struct Outcome {
        var records: [LogRecord] = []
        var files = 0
        /// Each file's (trip id, part), in order.
        var headers: [(tripId: UInt64, part: UInt32)] = []
        /// The records of each file.
        var perFile: [[LogRecord]] = []
        var said: [String] = []
        /// What the status file got (`record --status`).
        var status: [(mono: Int64, status: LiveStatus)] = []
        var ends: [TripEnd] { records.compactMap { if case .tripEnd(let e) = $0 { e } else { nil } } }
        var batches: [SensorBatch] { records.compactMap { if case .sensors(let b) = $0 { b } else { nil } } }
    }

    /// A CSC notification at `mono` with the wheel's cumulative revolutions and event time.
    static func wheel(_ revolutions: UInt32, _ eventTicks: UInt16, at mono: Int64) -> SensorEvent {
        let r = revolutions, t = eventTicks
        return .notification(
            SensorNotification(
                address: csc, characteristic: 0x2A5B, arrivalMonoMs: mono,
                value: [0x01, UInt8(r & 255), UInt8(r >> 8 & 255), UInt8(r >> 16 & 255), UInt8(r >> 24), UInt8(t & 255), UInt8(t >> 8)]))
    }

    /// Readings once a second from `fromS` to `toS`, the wheel turning `perSecond` revolutions a
    /// second (a 2 m wheel: 4 is 8 m/s), counting on from `revolutions`.
    static func spin(_ fromS: Int, _ toS: Int, perSecond: UInt32, from revolutions: inout UInt32) -> [SensorEvent] {
        (fromS...toS).map { s in
            revolutions &+= perSecond
            return wheel(revolutions, UInt16(truncatingIfNeeded: s * 1024), at: Int64(s) * 1000)
        }
    }

    /// `gpsdDown`: no gpsd at all (every connect fails, the loop backs off between tries).
    /// `startS`: the monotonic clock when the run starts; `bootId`: the run's boot; `before`:
    /// writes what a previous run left in the directory.
    func run(
        stopS: Int, gpsdDown: Bool = false, startS: Int = 0, bootId: String? = nil, before: ((String) throws -> Void)? = nil,
        _ events: [SensorEvent]
    ) throws -> Outcome {
        let clock = FakeClock()
        clock.mono = Int64(startS) * 1000
        let gpsd = FakeGpsd(clock: clock)
        gpsd.stopAt = Int64(stopS) * 1000
        if gpsdDown { gpsd.down = [0..<Int64.max] }
        let dir = NSTemporaryDirectory() + "cairn-trainer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try before?(dir)
        var out = Outcome()
        let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 5000, say: { out.said.append($0) })
        var settings = RecordLoop.Settings(readEverySeconds: 0, pauseAfterMs: ActivityProfile.ride.pauseAfterMs)
        settings.wheelCircumferenceM = 2.0
        settings.wheelTrip.closeAfterMs = 5 * 60_000
        settings.bootId = bootId
        let statusFile = FakeStatusFile()
        let loop = RecordLoop(
            recorder: TripRecorder(filter: FixRules(profile: .ride)), log: log, source: gpsd, barometer: NoBarometer(),
            notify: FakeNotifier(clock: clock, enabled: false), statusFile: statusFile, clock: clock, settings: settings,
            stopRequested: { clock.mono >= gpsd.stopAt }, afterTripClosed: {}, say: { out.said.append($0) },
            distanceText: { "\($0) m" })
        log.wheelCircumferenceMm = 2000
        let sensors = FakeSensors()
        sensors.pending = events
        loop.sensors = sensors
        loop.run()
        out.status = statusFile.written
        let files = try LogDirectory.logFiles(in: dir)
        out.files = files.count
        for f in files {
            let reader = try LogReader(path: f.path)
            out.headers.append((reader.header.tripId, reader.header.part))
            var records: [LogRecord] = []
            try reader.forEach { e in
                records.append(e.record)
                return true
            }
            out.perFile.append(records)
            out.records += records
        }
        return out
    }

    /// 10 minutes on the trainer at 8 m/s, then the wheel stands: the trip opens after 30 s of
    /// spinning, holds no point, closes 5 minutes (`close-after`) after the wheel stopped, with
    /// the wheel's distance and moving time; the notifications from 10 s before it opened are
    /// in it, each record with the wheel's circumference.
    func testATrainerRideIsATripOfItsOwn() throws {
        var revs: UInt32 = 1000
        var events = Self.spin(0, 600, perSecond: 4, from: &revs)
        // Standing: the sensor repeats its count, once a second, for 10 minutes.
        for s in 601...1200 { events.append(Self.wheel(revs, UInt16(truncatingIfNeeded: 600 * 1024), at: Int64(s) * 1000)) }
        let r = try run(stopS: 1300, events)
        XCTAssertEqual(r.files, 1, "\(r.said)")
        guard case .tripStart = r.records.first else { return XCTFail("\(r.records.prefix(3))") }
        XCTAssertFalse(r.records.contains { if case .points = $0 { true } else { false } })
        XCTAssertTrue(r.records.contains(.note("trip opened by the wheel: no fix, distance from the wheel")))
        let end = try XCTUnwrap(r.ends.first)
        XCTAssertEqual(r.ends.count, 1)
        XCTAssertEqual(end.reason, .standstill)
        XCTAssertEqual(end.points, 0)
        // Opened at 30 s: 570 s more at 8 m/s.
        XCTAssertEqual(end.distanceM, 570 * 8, accuracy: 8)
        XCTAssertEqual(end.movingTimeMs, 570_000, accuracy: 1000)
        let first = try XCTUnwrap(end.firstTimeMs), last = try XCTUnwrap(end.lastTimeMs)
        XCTAssertEqual(first, FakeClock.wallOffset + 30_000, accuracy: 1000)
        XCTAssertEqual(last, FakeClock.wallOffset + 600_000, accuracy: 1000)
        let recorded = r.batches.flatMap(\.notifications)
        // The wheel told a rate from its second reading on: open at 31 s, kept from 21 s.
        XCTAssertEqual(recorded.first?.arrivalMonoMs, 21_000, "the 10 s before the trip opened")
        XCTAssertTrue(r.batches.allSatisfy { $0.wheelCircumferenceMm == 2000 })
        XCTAssertTrue(r.said.contains { $0.hasPrefix("trip closed: no fix") }, "\(r.said)")
    }

    /// `cairn status` on a trainer (Hardware/bluetooth.md, "What is not done yet": the status
    /// file said `gap` and 0 m while the wheel's trip was open): the open trip, its
    /// file, the wheel's distance and moving time, no points.
    func testTheStatusFileShowsTheWheelsTrip() throws {
        var revs: UInt32 = 1000
        let r = try run(stopS: 200, Self.spin(0, 180, perSecond: 4, from: &revs))
        let at100 = try XCTUnwrap(r.status.last { $0.mono <= 100_000 }?.status)
        XCTAssertTrue(at100.tripOpen)
        XCTAssertEqual(at100.state, "recording")
        XCTAssertNotNil(at100.tripFile)
        XCTAssertEqual(at100.stats.points, 0)
        // Opened at 30 s: about 70 s at 8 m/s by 100 s.
        XCTAssertEqual(at100.stats.distanceM, 70 * 8, accuracy: 24)
        XCTAssertEqual(Double(at100.stats.movingTimeMs), 70_000, accuracy: 3000)
        let still = try XCTUnwrap(r.status.last { $0.mono <= 195_000 }?.status)
        XCTAssertEqual(still.state, "standing", "the wheel still since 180 s")
        let before = try XCTUnwrap(r.status.last { $0.mono <= 20_000 }?.status)
        XCTAssertFalse(before.tripOpen, "not before the trip opens")
        XCTAssertEqual(before.state, "waiting")
    }

    /// No gpsd at all (a board without GPS, or gpsd not running): the same trip.
    func testATrainerRideWithoutGpsdIsATripToo() throws {
        var revs: UInt32 = 0
        let r = try run(stopS: 200, gpsdDown: true, Self.spin(0, 180, perSecond: 4, from: &revs))
        XCTAssertEqual(r.files, 1, "\(r.said)")
        let end = try XCTUnwrap(r.ends.first)
        XCTAssertEqual(end.points, 0)
        XCTAssertEqual(end.distanceM, 149 * 8, accuracy: 16)
    }

    /// Stopped while the wheel turns: the trip ends as a stop ends a ride (shutdown), with the
    /// wheel's figures.
    func testAStopClosesTheTrainersTripWithTheWheelsFigures() throws {
        var revs: UInt32 = 0
        let r = try run(stopS: 120, Self.spin(0, 200, perSecond: 3, from: &revs))
        let end = try XCTUnwrap(r.ends.first)
        XCTAssertEqual(end.reason, .shutdown)
        XCTAssertEqual(end.distanceM, 90 * 6, accuracy: 12)
    }

    /// What writes nothing: a parked board with the wheel standing (the sensor still sends), a
    /// wheel spun by hand for 10 s now and then, a bike walked at 1.5 m/s.
    func testAParkedCarriedOrWalkedBikeWritesNothing() throws {
        var standing: [SensorEvent] = []
        for s in 0...900 { standing.append(Self.wheel(77, 1234, at: Int64(s) * 1000)) }
        var revs: UInt32 = 0
        var spunByHand: [SensorEvent] = []
        for start in stride(from: 0, through: 800, by: 100) {
            spunByHand += Self.spin(start, start + 10, perSecond: 5, from: &revs)
        }
        var walkedRevs: UInt32 = 0
        // 1.5 m/s on a 2 m wheel: 3 revolutions every 4 s.
        let walked: [SensorEvent] = (0...900).map { s in
            if s % 4 == 0 { walkedRevs += 3 }
            return Self.wheel(walkedRevs, UInt16(truncatingIfNeeded: (s - s % 4) * 1024), at: Int64(s) * 1000)
        }
        for (name, events) in [("standing", standing), ("spun by hand", spunByHand), ("walked", walked)] {
            let r = try run(stopS: 1000, events)
            XCTAssertEqual(r.files, 0, name)
        }
    }

    // A wheel trip left unfinished (issue 40): resumed in the same boot within close-after, a
    // new trip after a power cut (another boot) or after standing past close-after.

    static let boot = "6f1c2b9e-0d6a-4c1e-9a51-2f8e7d3c4b5a"

    /// What a crash left: part 0 of trip 1, opened by the wheel in `boot`, 10 minutes at 8 m/s
    /// (the monotonic clock 0 ... 600 s, the system clock never set), no trip end.
    static func leaveUnfinished(_ dir: String, boot: String? = TrainerLoopTests.boot) throws {
        var ns: [SensorNotification] = []
        for s in 0...600 {
            let r = UInt32(1000 + 4 * s)
            ns.append(
                SensorNotification(
                    address: csc, characteristic: 0x2A5B, arrivalMonoMs: Int64(s) * 1000,
                    value: [
                        0x01, UInt8(r & 255), UInt8(r >> 8 & 255), UInt8(r >> 16 & 255), UInt8(r >> 24), UInt8(s * 1024 & 255),
                        UInt8(s * 1024 >> 8 & 255)
                    ]))
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_40F0))
        try w.append(.tripStart(activity: "ride", software: "cairn tests"))
        try w.append(.note("trip opened by the wheel: no fix, distance from the wheel"))
        if let boot { try w.append(.note(TripLog.bootNote(boot))) }
        for i in stride(from: 0, to: ns.count, by: 50) {
            try w.append(
                .sensors(
                    SensorBatch(
                        notifications: Array(ns[i..<min(ns.count, i + 50)]), gpsMinusMonoMs: nil, clockMinusMonoMs: FakeClock.wallOffset,
                        wheelCircumferenceMm: 2000)))
        }
        _ = try w.sync()
        w.close()
    }

    /// The unfinished trip's file is found with its boot and the wheel's last turn.
    func testAnUnfinishedWheelTripIsFoundWithItsBootAndLastTurn() throws {
        let dir = NSTemporaryDirectory() + "cairn-wheel-left-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.leaveUnfinished(dir)
        let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 5000, say: { _ in })
        XCTAssertNil(log.resumable)
        XCTAssertEqual(log.resumableWheelTrip, WheelTripResume.Unfinished(bootId: Self.boot, lastTurnMonoMs: 600_000))
    }

    /// The recorder restarted (same boot) 1 minute after the wheel's last turn (the trip opens
    /// again after 30 s of spinning: 91 s); the rider rides on 5 minutes: the wheel's trip opens again as part 1 of trip 1, without a trip start.
    func testARestartInTheSameBootResumesTheWheelTrip() throws {
        var revs: UInt32 = 5000
        let r = try run(
            stopS: 1000, startS: 660, bootId: Self.boot, before: { try Self.leaveUnfinished($0) }, Self.spin(660, 960, perSecond: 4, from: &revs))
        XCTAssertEqual(r.headers.map(\.tripId), [1, 1], "\(r.said)")
        XCTAssertEqual(r.headers.map(\.part), [0, 1])
        let second = r.perFile[1]
        XCTAssertFalse(second.contains { if case .tripStart = $0 { true } else { false } }, "a resumed part has no trip start")
        XCTAssertTrue(second.contains(.note("trip resumed by the wheel after a restart: it stood 91 s, same boot")), "\(second.prefix(4))")
        XCTAssertTrue(second.contains(.note(TripLog.bootNote(Self.boot))))
        XCTAssertEqual(r.ends.count, 1)
    }

    /// After a power cut (another boot) nothing proves how long the board was off: a new trip
    /// (trip 2), said; the first stays as it was. The same without a boot note (an older
    /// recorder), or with the wheel standing past close-after in the same boot.
    func testAnotherBootOrALongStandMakesANewTrip() throws {
        for (boot, left, startS, said) in [
            ("0a0a0a0a-0000-4000-8000-000000000000", Self.boot as String?, 60, "on another boot"),
            (Self.boot, nil, 660, "on another boot"),
            (Self.boot, Self.boot, 1000, "at or past close-after")
        ] {
            var revs: UInt32 = 5000
            let r = try run(
                stopS: startS + 340, startS: startS, bootId: boot, before: { try Self.leaveUnfinished($0, boot: left) },
                Self.spin(startS, startS + 300, perSecond: 4, from: &revs))
            XCTAssertEqual(r.headers.map(\.tripId), [1, 2], "\(r.said)")
            XCTAssertEqual(r.headers.map(\.part), [0, 0])
            guard case .tripStart = r.perFile[1].first else { return XCTFail("\(r.perFile[1].prefix(3))") }
            XCTAssertTrue(r.said.contains { $0.contains(said) && $0.hasSuffix("a new trip") }, "\(r.said)")
            XCTAssertEqual(r.perFile[0].count, left == nil ? 15 : 16, "the first trip's file is left alone")
        }
    }
}

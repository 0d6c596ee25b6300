import CairnCore
import CairnDevice
import Foundation
import XCTest

@testable import CairnLog
@testable import CairnRecorder

/// Sensors that send what a test sets at set moments: each poll hands over what arrived since
/// the last one (the kernel queues notifications between wake-ups).
final class FakeSensors: LoopSensors {
    var pending: [SensorEvent] = []
    private var next = 0
    private(set) var polls: [Int64] = []
    private(set) var closed = false
    var state: String { "ok" }
    var descriptors: [Int32] { [] }
    func poll(monoMs: Int64) -> [SensorEvent] {
        polls.append(monoMs)
        var out: [SensorEvent] = []
        while next < pending.count {
            if case .notification(let n) = pending[next], n.arrivalMonoMs > monoMs { break }
            out.append(pending[next])
            next += 1
        }
        return out
    }
    func msUntilDue(monoMs: Int64) -> Int64 { .max }
    func close() { closed = true }
}

/// The record loop with sensors, on a fake gpsd and clock and a real `TripLog`: what the trip's
/// file holds of the notifications, their times on the fixes' time line, and what misbehaving
/// sensors cost (notifications, never fixes).
final class SensorLoopTests: XCTestCase {
    static let strap: UInt64 = 0xC0_FF_EE_00_00_01

    struct Outcome {
        var batches: [SensorBatch] = []
        var points: [Fix] = []
        var notes: [String] = []
        var said: [String] = []
        var files = 0
    }

    /// A ride of `seconds` through the loop (`RecordLoopTests.ride`: 300 ms from fix to arrival),
    /// with `sensors`, read back from the card.
    func run(seconds: Int = 90, readEvery: Double = 0, parked: Bool = false, sensors: FakeSensors?) throws -> Outcome {
        let clock = FakeClock()
        let gpsd = FakeGpsd(clock: clock)
        gpsd.arrivals = parked ? [] : RecordLoopTests.ride(seconds: seconds)
        gpsd.stopAt = Int64(seconds + 20) * 1000
        let dir = NSTemporaryDirectory() + "cairn-sensorloop-\(UUID().uuidString)"
        var said: [String] = []
        let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 5000, say: { said.append($0) })
        let loop = RecordLoop(
            recorder: TripRecorder(filter: FixRules(profile: .ride)), log: log, source: gpsd, barometer: NoBarometer(),
            notify: FakeNotifier(clock: clock, enabled: false), statusFile: nil, clock: clock,
            settings: RecordLoop.Settings(readEverySeconds: readEvery, pauseAfterMs: ActivityProfile.ride.pauseAfterMs),
            stopRequested: { clock.mono >= gpsd.stopAt }, afterTripClosed: {}, say: { said.append($0) }, distanceText: { "\($0)" })
        loop.sensors = sensors
        loop.run()
        var out = Outcome()
        out.said = said
        let files = try LogDirectory.logFiles(in: dir)
        out.files = files.count
        for f in files {
            try LogReader(path: f.path).forEach { e in
                switch e.record {
                case .sensors(let b): out.batches.append(b)
                case .points(let p): out.points += p
                case .note(let t): out.notes.append(t)
                default: break
                }
                return true
            }
        }
        XCTAssertEqual(sensors?.closed ?? true, true, "the loop closes the sensors at its stop")
        return out
    }

    static func heartRate(_ bpm: UInt8, at mono: Int64) -> SensorEvent {
        .notification(SensorNotification(address: strap, characteristic: 0x2A37, arrivalMonoMs: mono, value: [0, bpm]))
    }

    /// Every notification from the trip's opening on is in the file with its arrival, and each
    /// one's time is the fixes' time line: the fake gpsd delivers a fix 300 ms after its GPS
    /// time, so a notification arriving at monotonic m happened at GPS time m + offset − 300
    /// (reading gpsd live; in batches, as the batch's arrival estimate has it).
    func testNotificationsAreRecordedWithTheirTimesOnTheFixesTimeLine() throws {
        for readEvery in [0.0, 5] {
            let s = FakeSensors()
            s.pending = (0..<400).map { Self.heartRate(UInt8(60 + $0 % 100), at: 500 + Int64($0) * 250) }
            let r = try run(readEvery: readEvery, sensors: s)
            XCTAssertGreaterThan(r.points.count, 60)
            let recorded = r.batches.flatMap(\.notifications)
            let sent = s.pending.compactMap { e -> SensorNotification? in if case .notification(let n) = e { n } else { nil } }
            // Kept: the 10 s before the trip opened, then every one until the stop.
            XCTAssertEqual(recorded, Array(sent.suffix(recorded.count)), "readEvery \(readEvery)")
            XCTAssertGreaterThan(recorded.count, 350)
            let firstPoint = r.points[0].timeMs - FakeClock.wallOffset
            XCTAssertGreaterThanOrEqual(recorded[0].arrivalMonoMs, firstPoint - 10_300)
            XCTAssertEqual(r.batches.reduce(0) { $0 + Int($1.leftOutBefore) } + recorded.count, sent.count)
            for b in r.batches {
                for n in b.notifications {
                    let t = try XCTUnwrap(b.timeMs(of: n))
                    if readEvery == 0 {
                        XCTAssertEqual(t, n.arrivalMonoMs + FakeClock.wallOffset - 300)
                    } else {
                        // Read in batches, a fix's arrival is estimated (`ArrivalClock`): here the
                        // last fix of each batch waited 700 ms in the socket, so the estimate is
                        // that early, within one fix interval.
                        XCTAssertEqual(t, n.arrivalMonoMs + FakeClock.wallOffset - 1000)
                    }
                }
            }
            XCTAssertTrue(r.said.allSatisfy { !$0.hasPrefix("sensor") }, "\(r.said)")
        }
    }

    /// Garbage (flags announcing bytes that are not there, an impossible heart rate, a
    /// characteristic nobody decodes) is recorded, counted and said in the journal and the
    /// notes, once and then once a minute; the trip's points are those of a ride without sensors.
    func testGarbageIsCountedAndSaidAndCostsNoFix() throws {
        let s = FakeSensors()
        var events: [SensorEvent] = []
        for i in 0..<300 {
            let m = 500 + Int64(i) * 300
            switch i % 3 {
            case 0: events.append(Self.heartRate(80, at: m))
            case 1: events.append(.notification(SensorNotification(address: Self.strap, characteristic: 0x2A37, arrivalMonoMs: m, value: [1, 44])))
            default:
                events.append(
                    .notification(SensorNotification(address: Self.strap, characteristic: 0x2A37, arrivalMonoMs: m, value: [1, 0x90, 0x01])))
            }
        }
        events.insert(.said("sensor C0:FF:EE:00:00:01 lost; reconnecting"), at: 150)
        s.pending = events
        let r = try run(sensors: s)
        let plain = try run(sensors: nil)
        XCTAssertEqual(r.points, plain.points, "a sensor's garbage cost a fix")
        let problems = r.said.filter { $0.hasPrefix("sensor C0:FF:EE:00:00:01 0x2A37") }
        XCTAssertGreaterThanOrEqual(problems.count, 2, "\(r.said)")
        XCTAssertLessThanOrEqual(problems.count, 3, "said once a minute at most: \(problems)")
        XCTAssertTrue(problems.contains { $0.contains("no decoder takes") } && problems.contains { $0.contains("out of range") }, "\(problems)")
        XCTAssertTrue(r.said.contains("sensor C0:FF:EE:00:00:01 lost; reconnecting"))
        XCTAssertTrue(r.notes.contains("sensor C0:FF:EE:00:00:01 lost; reconnecting"), "\(r.notes)")
        XCTAssertTrue(r.notes.contains { $0.hasPrefix("sensor C0:FF:EE:00:00:01 0x2A37") })
        // Recorded all the same: a later decoder may read what this one refuses.
        XCTAssertGreaterThan(r.batches.flatMap(\.notifications).count, 250)
    }

    /// A flood (a thousand notifications a second) is bounded: 8 a second are recorded, the rest
    /// counted in the records' left-out, said; the points are those of a ride without sensors.
    func testAFloodIsBoundedAndCounted() throws {
        let s = FakeSensors()
        s.pending = (0..<90_000).map { Self.heartRate(90, at: 500 + Int64($0)) }
        let r = try run(sensors: s)
        let plain = try run(sensors: nil)
        XCTAssertEqual(r.points, plain.points, "a flood cost a fix")
        let recorded = r.batches.flatMap(\.notifications).count
        let seconds = Double(r.batches.flatMap(\.notifications).last!.arrivalMonoMs - r.batches[0].notifications[0].arrivalMonoMs) / 1000
        XCTAssertLessThanOrEqual(Double(recorded), seconds * SensorIntake.perSecond + SensorIntake.burst + 1)
        XCTAssertGreaterThan(r.batches.reduce(0) { $0 + $1.leftOutBefore }, 80_000)
        XCTAssertTrue(r.said.contains { $0.contains("over 8 a second left out") }, "\(r.said)")
    }

    /// A parked board (no fix, no trip) writes nothing, whatever the sensors send.
    func testAParkedBoardWritesNothing() throws {
        let s = FakeSensors()
        s.pending = (0..<200).map { Self.heartRate(70, at: 500 + Int64($0) * 250) }
        let r = try run(seconds: 60, parked: true, sensors: s)
        XCTAssertEqual(r.files, 0)
        XCTAssertFalse(s.polls.isEmpty)
    }
}

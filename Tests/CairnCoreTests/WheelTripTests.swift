import XCTest

@testable import CairnCore

/// The trainer's trip as tables of wheel readings: when a spinning wheel opens a trip of its own,
/// when it does not (a parked bike, a wheel spun by hand, a bike carried, a board that moves),
/// its pauses, its close and its figures.
final class WheelTripTests: XCTestCase {
    /// A wheel reading at `ms`: `mps` metres a second (nil: no rate yet), `metres` it adds.
    struct Reading {
        var ms: Int64
        var mps: Double?
        var metres: Double
        var still = true
    }

    /// Readings once a second from `fromS` to `toS` (inclusive) at `mps`.
    func steady(_ fromS: Int64, _ toS: Int64, _ mps: Double, still: Bool = true) -> [Reading] {
        (fromS...toS).map { Reading(ms: $0 * 1000, mps: mps, metres: mps, still: still) }
    }

    func run(_ readings: [Reading], _ trip: inout WheelTrip) -> [(Int64, WheelTrip.Action)] {
        var out: [(Int64, WheelTrip.Action)] = []
        for r in readings {
            let step = WheelSpeed.Step(metresPerSecond: r.mps, metres: r.metres, event: .revolutions)
            if let a = trip.wheel(step, atMs: r.ms, boardStill: r.still) { out.append((r.ms, a)) }
            if let a = trip.tick(atMs: r.ms) { out.append((r.ms, a)) }
        }
        return out
    }

    func opensAt(_ readings: [Reading]) -> Int64? {
        var trip = WheelTrip()
        return run(readings, &trip).first { $0.1 == .open }?.0
    }

    func testOpensOnlyAfterASustainedSpinAboveWalkingPace() {
        let cases: [(String, [Reading], Int64?)] = [
            ("a trainer at 8 m/s opens after 30 s", steady(0, 60, 8), 30_000),
            ("the first revolutions without a rate count as turning", [Reading(ms: 0, mps: nil, metres: 2.1)] + steady(1, 40, 8), 30_000),
            ("a wheel that does not turn opens nothing", steady(0, 600, 0).map { Reading(ms: $0.ms, mps: 0, metres: 0) }, nil),
            ("walking the bike (1.4 m/s) opens nothing", steady(0, 600, 1.4), nil),
            ("a wheel spun by hand for 10 s opens nothing", steady(0, 10, 9) + steady(11, 20, 0), nil),
            ("a bike carried, wheel spinning 25 s, twice", steady(0, 25, 6) + steady(26, 27, 1) + steady(28, 53, 6), nil),
            ("readings stopping for 6 s break the spin", steady(0, 20, 8) + steady(27, 60, 8), 57_000),
            ("the board moving (a fix says so) opens nothing", steady(0, 120, 8, still: false), nil),
            ("moving, then still: the spin counts from still", steady(0, 20, 8, still: false) + steady(21, 60, 8), 51_000)
        ]
        for (name, readings, want) in cases { XCTAssertEqual(opensAt(readings), want, name) }
    }

    func testPausesAfterTwoMinutesStandingAndClosesAfterCloseAfter() {
        var config = WheelTrip.Config()
        config.closeAfterMs = 10 * 60_000
        var trip = WheelTrip(config: config)
        // 30 s to open, 60 s riding at 8 m/s, 3 min standing (readings of no revolution), 60 s
        // riding, then standing until it closes.
        let standing1 = (91...270).map { Reading(ms: Int64($0) * 1000, mps: 0, metres: 0) }
        let standing2 = (332...1000).map { Reading(ms: Int64($0) * 1000, mps: 0, metres: 0) }
        let actions = run(steady(0, 90, 8) + standing1 + steady(271, 331, 8) + standing2, &trip)
        XCTAssertEqual(actions.map(\.0), [30_000, 271_000, 931_000])
        XCTAssertEqual(actions[0].1, .open)
        XCTAssertEqual(actions[1].1, .resumed(atMs: 271_000))
        guard case .close(let t) = actions[2].1 else { return XCTFail("\(actions)") }
        // From the open: 60 s + 61 s of riding at 8 m/s.
        XCTAssertEqual(t.distanceM, 121 * 8, accuracy: 1e-9)
        XCTAssertEqual(t.movingMs, 121_000)
        XCTAssertEqual(t.firstMs, 30_000)
        XCTAssertEqual(t.lastMs, 331_000)
        XCTAssertFalse(trip.isOpen)
    }

    func testAShortStopIsNoPauseAndAQuietSensorIsNoMovingTime() {
        var trip = WheelTrip()
        let stop = (61...100).map { Reading(ms: Int64($0) * 1000, mps: 0, metres: 0) }
        // Silent from 140 s to 150 s: no moving time over the silence, its revolutions still count.
        let actions = run(
            steady(0, 60, 8) + stop + steady(101, 140, 8) + [Reading(ms: 150_000, mps: 8, metres: 80)], &trip)
        XCTAssertEqual(actions.map(\.1), [.open])
        XCTAssertEqual(trip.totals.distanceM, 30 * 8 + 40 * 8 + 80, accuracy: 1e-9)
        XCTAssertEqual(trip.totals.movingMs, 30_000 + 40_000)
    }

    func testAHandOverEndsTheWheelsTrip() {
        var trip = WheelTrip()
        XCTAssertEqual(run(steady(0, 40, 8), &trip).map(\.1), [.open])
        trip.handOver()
        XCTAssertFalse(trip.isOpen)
        // Never closed by the wheel after: the fix rules own the trip.
        XCTAssertTrue(run((41...3000).map { Reading(ms: Int64($0) * 1000, mps: 0, metres: 0, still: false) }, &trip).isEmpty)
    }

    /// A trip the wheel opened has no point: the recorder's close for want of fixes leaves it to
    /// the wheel (before: closed at the first tick, a fix having come long before), and a fix
    /// kept later goes into it as its first segment, not into a trip of its own.
    func testTheRecorderKeepsAWheelsTripOpenAndPutsLaterFixesInIt() {
        var r = TripRecorder(filter: FixRules(profile: .ride), config: TripRecorder<FixRules>.Config())
        var actions: [String] = []
        let sink: (RecorderAction) -> Void = { a in
            switch a {
            case .openTrip: actions.append("open")
            case .closeTrip: actions.append("close")
            case .startSegment(let s, _): actions.append("segment \(s)")
            case .keep: actions.append("keep")
            case .raw: break
            }
        }
        // A fix the rules drop (500 m error: the board indoors), then the trainer.
        r.report(.fix(fix(0, eph: 500, speed: 0)), wallClockMs: 0, emit: sink)
        r.flush(wallClockMs: 2000, emit: sink)
        r.openByWheel(emit: sink)
        r.openByWheel(emit: sink)
        XCTAssertTrue(r.tripOpen)
        for s in stride(from: Int64(0), through: 3 * 3600, by: 60) { r.tick(wallClockMs: s * 1000, emit: sink) }
        XCTAssertEqual(actions, ["open"])
        // (A doppler wobbles by a few cm/s: one equal to the chords, fix after fix, is gpsd's own
        // from positions, and opens a trip only on minutes of way.)
        for i in 0..<12 {
            let f = fix(Double(i), north: 6 * Double(i), speed: 6 + 0.03 * sin(Double(i) * 1.7))
            r.report(.fix(f), wallClockMs: 3 * 3600_000 + Int64(i) * 1000, emit: sink)
        }
        r.finish(wallClockMs: 3 * 3600_000 + 20_000, emit: sink)
        XCTAssertEqual(actions.prefix(3), ["open", "segment start", "keep"])
        XCTAssertEqual(actions.filter { $0 == "open" }.count, 1)
    }
}

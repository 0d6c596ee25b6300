import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Raw fixes (record type 8) and re-filtering: what the recorder logs of every fix, and the
/// rules run again over it.
final class RefilterTests: XCTestCase {
    /// A ride with what the rules exist for: noise, out-and-back spikes, rough fixes, a
    /// standstill long enough to be a pause, a tunnel, gpsd going away, a barometer.
    static func eventfulRide(seed: UInt64 = 7, count: Int = 1500) -> [Fix] {
        var ride = SyntheticRide(seed: seed)
        var rng = SplitMix64(state: seed &+ 99)
        var out: [Fix] = []
        var standAt: Fix?
        for i in 0..<count {
            var f = ride.next()
            switch i {
            case 400..<600:
                // Standing at a light for over three minutes: drift, zero speed.
                if standAt == nil { standAt = out.last }
                let s = standAt!
                f = Fix(
                    timeMs: f.timeMs, lat: s.lat + rng.gauss(2e-5), lon: s.lon + rng.gauss(2e-5), mode: 3,
                    altHAE: s.altHAE, altMSL: s.altMSL, eph: f.eph, epx: f.epx, epy: f.epy, epv: f.epv,
                    speed: abs(rng.gauss(0.05)), track: f.track, climb: 0)
            case 900..<920:
                continue  // a tunnel: twenty seconds without a fix
            default:
                break
            }
            if i % 97 == 50 { f.lat += 0.00036 }  // a 40 m spike out and back
            if i % 131 == 70 { f.eph = 400; f.epx = 250; f.epy = 260 }  // rough
            f.pressurePa = 96_000 - (f.altMSL ?? 400) * 11.3 + rng.gauss(3)
            f.temperatureC = 18.25
            out.append(f)
        }
        return out
    }

    struct Recording {
        var kept: [Fix] = []
        var segments: [SegmentReason] = []
        var drops = DropCounts()
        var raws: [RawFix] = []
    }

    /// Records `fixes` as `cairn record` does (a TripRecorder into a TripLog, syncing every 5 s of
    /// the arrival clock), each arriving `lagMs` after its time; gpsd goes away before `lostAt`.
    @discardableResult
    static func record(
        _ fixes: [Fix], dir: String, profile: ActivityProfile = .ride, raw: Bool = true,
        lagMs: Int64 = 230, lostAt: Set<Int> = [], clock arrival: ((Int, Fix) -> Int64)? = nil,
        crashes: Bool = false
    ) throws -> Recording {
        var config = TripRecorder<FixRules>.Config()
        config.closeWithoutFixMs = profile.closeAfterMs
        config.keepsRaw = raw
        var recorder = TripRecorder(filter: FixRules(profile: profile), config: config)
        let log = try TripLog(
            directory: dir, activity: profile.name, software: "cairn tests", syncIntervalMs: 5000,
            say: { _ in })
        recorder.resumeCandidate = log.resumable?.last
        var rec = Recording()
        var clock: Int64 = 0
        let apply: (RecorderAction) -> Void = { a in
            switch a {
            case .keep(let f): rec.kept.append(f)
            case .startSegment(let r, _): rec.segments.append(r)
            case .raw(let r): rec.raws.append(r)
            default: break
            }
            log.apply(a, monoMs: clock)
        }
        for (i, f) in fixes.enumerated() {
            clock = arrival?(i, f) ?? f.timeMs + lagMs + Int64(i % 7) * 13
            if lostAt.contains(i) { recorder.connectionLost(wallClockMs: clock, emit: apply) }
            log.tick(monoMs: clock)
            recorder.tick(wallClockMs: clock, emit: apply)
            recorder.report(.fix(f), wallClockMs: clock, emit: apply)
        }
        // A crash (kill -9, a power cut): nothing more is done; what was not synced is lost.
        if crashes { return rec }
        recorder.finish(wallClockMs: clock, emit: apply)
        rec.drops = recorder.drops
        if recorder.tripOpen {
            let s = recorder.stats
            log.closeTrip(
                TripEnd(
                    reason: .shutdown, points: UInt64(s.points), distanceM: s.distanceM, movingTimeMs: s.movingTimeMs,
                    firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs), drops: recorder.drops, monoMs: clock)
        } else {
            log.shutdown(monoMs: clock)
        }
        return rec
    }

    static func trips(_ dir: String) -> [TripRef] {
        TripCatalog.trips(TripCatalog.files([dir], problem: { XCTFail($0) }))
    }

    static func replay(_ trip: TripRef, _ options: TripReplay.Options = .init()) throws -> (
        points: [Fix], segments: [SegmentReason], summary: TripSummary, warnings: [String]
    ) {
        var points: [Fix] = [], segments: [SegmentReason] = [], warnings: [String] = []
        let s = try TripReplay.read(
            trip, options: options, warn: { warnings.append($0) },
            visit: { e in
                switch e {
                case .point(let f): points.append(f)
                case .segment(let r): segments.append(r)
                case .raw: break  // not asked for
                }
            })
        return (points, segments, s, warnings)
    }

    func testEveryOfferedFixIsLoggedOnceInOrderWithItsVerdict() throws {
        let dir = ExportSupport.tempDir()
        let fixes = Self.eventfulRide()
        let rec = try Self.record(fixes, dir: dir, lostAt: [1200])
        let trips = Self.trips(dir)
        XCTAssertEqual(trips.count, 1)
        var logged: [RawFix] = []
        try TripRaw.read(trips[0]) { r, batch in
            XCTAssertEqual(batch.activity, "ride")
            logged.append(r)
        }
        XCTAssertEqual(logged, rec.raws, "the log holds every raw fix the recorder handed out, in order")
        XCTAssertEqual(logged.count, fixes.count, "one raw fix per fix offered (one report per epoch here)")
        XCTAssertEqual(logged.map(\.fix.timeMs), fixes.map(\.timeMs), "in the order offered")
        XCTAssertEqual(logged.map(\.fix), fixes.map(\.atLogResolution), "as offered, at the log's resolution")
        let keptTimes = Set(rec.kept.map(\.timeMs))
        for r in logged {
            XCTAssertEqual(r.verdict == .kept, keptTimes.contains(r.fix.timeMs), "verdict kept exactly for the kept points")
            XCTAssertNotEqual(r.verdict, .undecided)
        }
        // The verdicts count exactly what the rules' drop counters say.
        var counted = DropCounts()
        for r in logged { if case .dropped(let d) = r.verdict { counted.add(d) } }
        for d in DropReason.allCases where d != .duplicate && d != .noFix && d != .noTime {
            XCTAssertEqual(counted[d], rec.drops[d], "verdicts for \(d.name)")
        }
        XCTAssertGreaterThan(counted[.spike], 0)
        XCTAssertGreaterThan(counted[.rough], 0)
        XCTAssertGreaterThan(counted[.standing], 0)
        XCTAssertTrue(logged[0].events.contains(.runStart))
        XCTAssertTrue(logged[1200].events.contains(.rulesFlushed), "gpsd lost before fix 1200 is logged with it")
        XCTAssertEqual(logged.filter { !$0.events.isEmpty }.count, 2)
        XCTAssertTrue(logged.allSatisfy { $0.fix.pressurePa != nil }, "the barometer's pressure rides with every raw fix")
    }

    func testRefilterWithTheRecordersSettingsReproducesTheRecordedPoints() throws {
        let dir = ExportSupport.tempDir()
        let rec = try Self.record(Self.eventfulRide(), dir: dir, lostAt: [1200])
        let trip = Self.trips(dir)[0]
        var recorded: [Fix] = [], recordedSegments: [SegmentReason] = []
        let summary = try TripCatalog.read(trip) { e in
            switch e {
            case .point(let f): recorded.append(f)
            case .segment(let r): recordedSegments.append(r)
            case .raw: break  // not asked for
            }
        }
        let again = try Self.replay(trip)
        XCTAssertEqual(again.warnings, [])
        XCTAssertEqual(again.points, recorded, "the rules run again give exactly the recorded points")
        XCTAssertEqual(again.points, rec.kept.map(PointResolution.stored), "the points they kept, as the log holds them")
        XCTAssertEqual(again.segments, rec.segments)
        XCTAssertEqual(again.segments, recordedSegments)
        XCTAssertTrue(recordedSegments.contains(.pause), "the standstill made a pause")
        // Against the log's points (the points record keeps speed to whole cm/s): same times,
        // positions and heights, same figures.
        XCTAssertEqual(again.points.map(\.timeMs), recorded.map(\.timeMs))
        XCTAssertEqual(again.points.map(\.lat), recorded.map(\.lat))
        XCTAssertEqual(again.points.map(\.lon), recorded.map(\.lon))
        XCTAssertEqual(again.points.map(\.altMSL), recorded.map(\.altMSL))
        XCTAssertEqual(again.points.map(\.pressurePa), recorded.map(\.pressurePa), "climb comes from the same pressures")
        XCTAssertEqual(again.summary.stats.points, summary.stats.points)
        XCTAssertEqual(again.summary.stats.distanceM, summary.stats.distanceM, accuracy: 1e-6)
        XCTAssertEqual(again.summary.stats.ascentM ?? -1, summary.stats.ascentM ?? -2, accuracy: 1e-6)
        XCTAssertTrue(again.summary.stats.climbFromBarometer)
        XCTAssertEqual(again.summary.stats.movingTimeMs, summary.stats.movingTimeMs)
        for d in DropReason.allCases where d != .duplicate {
            XCTAssertEqual(again.summary.drops[d], summary.drops[d], "drops of \(d.name)")
        }
        XCTAssertEqual(again.summary.activity, "ride")
    }

    func testRefilterAsAWalkDropsWhatAWalksLimitsDrop() throws {
        let fixes = Self.eventfulRide()
        let rideDir = ExportSupport.tempDir()
        let ride = try Self.record(fixes, dir: rideDir)
        // The same fixes recorded live as a walk: what the walk's limits keep.
        let walk = try Self.record(fixes, dir: ExportSupport.tempDir(), profile: .walk)
        let again = try Self.replay(Self.trips(rideDir)[0], TripReplay.Options(activity: .walk))
        XCTAssertEqual(again.points, walk.kept.map(PointResolution.stored), "re-filtered as a walk = recorded as a walk")
        XCTAssertEqual(again.summary.activity, "walk")
        XCTAssertNotEqual(again.points, ride.kept.map(PointResolution.stored))
        // A ride at 4-9 m/s is impossible jumps for a walk (14 km/h at most): five in a row, then a reset.
        XCTAssertGreaterThan(again.summary.drops[.jump], 500)
        XCTAssertLessThan(ride.drops[.jump], 5, "hardly any for the ride itself")
        XCTAssertGreaterThan(again.segments.filter { $0 == .reset }.count, 50)
        XCTAssertEqual(again.summary.drops[.jump], walk.drops[.jump])
    }

    func testALogWithoutRawFixesCannotBeRefiltered() throws {
        let dir = ExportSupport.tempDir()
        let rec = try Self.record(Self.eventfulRide(count: 300), dir: dir, raw: false)
        XCTAssertEqual(rec.raws, [])
        let trip = Self.trips(dir)[0]
        XCTAssertThrowsError(try Self.replay(trip)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains(trip.files[0].path), text)
            XCTAssertTrue(text.contains("cannot be re-filtered"), text)
        }
        // An old reader's promise: the records it does not know are skipped, and a log with raw
        // fixes reads as before.
        let withRaw = ExportSupport.tempDir()
        try Self.record(Self.eventfulRide(count: 300), dir: withRaw)
        var a: [Fix] = [], b: [Fix] = []
        try TripCatalog.read(Self.trips(withRaw)[0]) { if case .point(let f) = $0 { a.append(f) } }
        try TripCatalog.read(trip) { if case .point(let f) = $0 { b.append(f) } }
        XCTAssertEqual(a.count, b.count)
    }

    func testRawRecordRoundTripsAndOlderReadersSkipIt() throws {
        var raws: [RawFix] = []
        let settings = RawSettings(clockIsFix: true, closeAfterMs: 600_000)
        for (i, f) in Self.eventfulRide(count: 40).enumerated() {
            let v: Verdict = i % 3 == 0 ? .kept : (i % 3 == 1 ? .dropped(.tooClose) : .undecided)
            raws.append(
                RawFix(
                    fix: f.atLogResolution, arrivalMs: f.timeMs + 200 - Int64(i * 37 % 500), verdict: v,
                    events: i == 0 ? .runStart : (i == 17 ? [.rulesFlushed, .closedWithoutFix] : []), settings: settings))
        }
        let batch = RawBatch(activity: "walk", fixes: raws, leftOutBefore: 12)
        var body: [UInt8] = []
        RecordCodec.encodeBody(.rawFixes(batch), into: &body)
        var r = body.withUnsafeBytes { p in
            var reader = ByteReader(p)
            return try? RecordCodec.decodeBody(type: 8, &reader)
        }
        XCTAssertEqual(r, .rawFixes(batch))
        // A reader that does not know type 8 (every cairn before it) keeps it as unknown.
        r = body.withUnsafeBytes { p in
            var reader = ByteReader(p)
            return try? RecordCodec.decodeBody(type: 200, &reader)
        }
        XCTAssertEqual(r, .unknown(type: 200, payload: body))
        // Hostile payloads: every prefix and a few thousand corruptions of a real one decode or
        // are refused as malformed, never trap.
        var g = SplitMix64(state: 5)
        for cut in 0...body.count {
            _ = Array(body[..<cut]).withUnsafeBytes { p in
                var reader = ByteReader(p)
                return try? RecordCodec.decodeBody(type: 8, &reader)
            }
        }
        for _ in 0..<5000 {
            var b = body
            for _ in 0..<(1 + Int(g.next() % 4)) { b[Int(g.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: g.next()) }
            _ = b.withUnsafeBytes { p in
                var reader = ByteReader(p)
                return try? RecordCodec.decodeBody(type: 8, &reader)
            }
        }
        // The resolution a raw fix is judged at is what the log gives back.
        XCTAssertEqual(raws.map(\.fix), raws.map { $0.fix.atLogResolution })
    }
}

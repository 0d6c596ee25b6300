import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Round 8 attack on raw fixes and re-filtering: hostile values and runs the recorder's own
/// tests do not make.
final class RefilterAttackTests: XCTestCase {
    /// The log's points as `TripCatalog.read` gives them.
    static func recorded(_ trip: TripRef) throws -> [Fix] {
        var out: [Fix] = []
        _ = try TripCatalog.read(trip) { e in if case .point(let f) = e { out.append(f) } }
        return out
    }

    /// Where two tracks first differ, for a short failure message.
    static func firstDifference(_ a: [Fix], _ b: [Fix]) -> String? {
        for i in 0..<min(a.count, b.count) where a[i] != b[i] { return "point \(i): \(a[i]) vs \(b[i])" }
        return a.count == b.count ? nil : "\(a.count) points vs \(b.count)"
    }

    /// Optional values outside what the log holds (`PointBounds`: a u-blox receiver without a fix
    /// says hAcc 4,294,967 m; a glitch says 5 km/s, a course of 400°), and times the log cannot
    /// hold (2103, year 9999) among the fixes: the reader leaves such values out of the raw
    /// fixes and counts such fixes as left out, so the live rules must have judged them so, or
    /// the re-filtered track differs from the recorded one.
    func testValuesTheLogCannotHoldReplayAsTheyWereJudged() throws {
        let ride = RefilterTests.eventfulRide(seed: 11, count: 900)
        var fixes = ride
        for i in stride(from: 60, to: fixes.count, by: 37) { fixes[i].eph = 4_294_967; fixes[i].epx = nil; fixes[i].epy = nil }
        for i in stride(from: 75, to: fixes.count, by: 41) { fixes[i].speed = 5_000 }
        for i in stride(from: 90, to: fixes.count, by: 43) { fixes[i].track = 400; fixes[i].climb = -2_000 }
        for i in stride(from: 95, to: fixes.count, by: 47) { fixes[i].eph = -3; fixes[i].speed = -1 }
        for i in stride(from: 130, to: fixes.count, by: 53) { fixes[i].timeMs = i % 2 == 0 ? 4_200_000_000_000 : 253_402_300_799_000 }
        let dir = ExportSupport.tempDir()
        // The recorder's clock goes on as for the ride (the fix times lie, not the clock).
        let rec = try RefilterTests.record(fixes, dir: dir) { i, _ in ride[i].timeMs + 230 }
        XCTAssertEqual(RefilterTests.trips(dir).count, 1)
        let trip = RefilterTests.trips(dir)[0]
        let again = try RefilterTests.replay(trip)
        var recorded: [Fix] = []
        let summary = try TripCatalog.read(trip) { e in if case .point(let f) = e { recorded.append(f) } }
        XCTAssertNil(Self.firstDifference(again.points, recorded), "the rules run again give exactly the recorded points")
        XCTAssertNil(Self.firstDifference(recorded, rec.kept.map(PointResolution.stored)))
        XCTAssertEqual(rec.drops[.invalid], 15, "the fixes from 2100 on are invalid")
        let hopeless = Set(stride(from: 60, to: fixes.count, by: 37).map { fixes[$0].timeMs })
        let verdicts = rec.raws.filter { hopeless.contains($0.fix.timeMs) }.map(\.verdict)
        XCTAssertEqual(verdicts.count, hopeless.count)
        XCTAssertFalse(verdicts.contains(.kept), "an error estimate beyond the log's bound is never kept")
        for d in DropReason.allCases where d != .duplicate && d != .invalid {
            XCTAssertEqual(again.summary.drops[d], summary.drops[d], "drops of \(d.name)")
        }
    }

    /// A fix whose latitude or longitude is not a number (a library caller, or a receiver's
    /// garbage through a future parser) is dropped as invalid, with raw fixes on as with them off.
    func testNonFiniteCoordinatesAreDroppedWithRawFixesOn() throws {
        for keepsRaw in [false, true] {
            var config = TripRecorder<FixRules>.Config()
            config.keepsRaw = keepsRaw
            var recorder = TripRecorder(filter: FixRules(profile: .ride), config: config)
            let t0: Int64 = 1_700_000_000_000
            var raws: [RawFix] = []
            for (i, (lat, lon)) in [(Double.nan, 8.5), (47.3, -Double.infinity), (Double.infinity, 8.5), (47.3, Double.nan)].enumerated() {
                let f = Fix(timeMs: t0 + Int64(i) * 1000, lat: lat, lon: lon, mode: 3, eph: 3, speed: 5)
                recorder.report(.fix(f), wallClockMs: f.timeMs + 200) { if case .raw(let r) = $0 { raws.append(r) } }
            }
            recorder.finish(wallClockMs: t0 + 10_000) { if case .raw(let r) = $0 { raws.append(r) } }
            XCTAssertEqual(recorder.drops[.invalid], 4, "keepsRaw \(keepsRaw)")
            XCTAssertEqual(raws.count, keepsRaw ? 4 : 0)
            XCTAssertTrue(raws.allSatisfy { $0.verdict == .dropped(.invalid) })
            // The log counts them as left out (it cannot hold them).
            if keepsRaw {
                var out: [UInt8] = []
                RawFixesCodec.encode(RawBatch(activity: "ride", fixes: raws), into: &out)
                let back = try out.withUnsafeBytes { p in
                    var r = ByteReader(p)
                    return try RawFixesCodec.decode(&r)
                }
                XCTAssertEqual(back.fixes.count, 0)
                XCTAssertEqual(back.leftOutBefore, 4)
            }
        }
    }

    /// A CRC-valid raw fixes record whose arrival times are absurd (2^62 ms: a crafted file) is
    /// damage the reader counts and skips, not numbers the rules overflow on (a trap).
    func testAnImpossibleArrivalTimeIsDamageNotATrap() throws {
        let dir = ExportSupport.tempDir()
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0xA77A_0008))
        let fixes = RefilterTests.eventfulRide(count: 60).map(\.atLogResolution)
        try w.append(.tripStart(activity: "ride", software: "cairn tests", utcOffsetS: 0))
        try w.append(.segmentStart(.start, timeMs: fixes[0].timeMs))
        try w.append(.points(fixes))
        let settings = RawSettings(clockIsFix: false, closeAfterMs: 1_800_000)
        for (k, lag) in [230, 1 << 62, 230, -(1 << 62) - 5, 230].enumerated() {
            let raws = (0..<12).map { j in
                let f = fixes[k * 12 + j]
                return RawFix(
                    fix: f, arrivalMs: f.timeMs + Int64(lag), verdict: .kept, events: k == 0 && j == 0 ? .runStart : [],
                    settings: settings)
            }
            try w.append(.rawFixes(RawBatch(activity: "ride", fixes: raws)))
        }
        _ = try w.sync()
        w.close()
        let report = try LogReader(path: w.path).scan()
        XCTAssertEqual(report.implausibleRecords, 2, "the two records with impossible arrivals")
        XCTAssertEqual(report.firstImplausible, "arrival time \(fixes[12].timeMs + (1 << 62)) ms since 1970 out of range")
        let again = try RefilterTests.replay(RefilterTests.trips(dir)[0])
        XCTAssertEqual(
            again.points.count, 36 - again.summary.drops.nonzero.reduce(0) { $0 + Int($1.count) },
            "the other three records' fixes are judged")
        var counted = 0
        try TripRaw.read(RefilterTests.trips(dir)[0]) { _, _ in counted += 1 }
        XCTAssertEqual(counted, 36)
    }

    /// A trip whose every raw fixes record is damaged is not said to be "recorded with
    /// 'record --raw off'": the error names the damage too.
    func testATripWhoseRawFixesAreAllDamagedSaysSo() throws {
        let dir = ExportSupport.tempDir()
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0xA77A_0009))
        let fixes = RefilterTests.eventfulRide(count: 12).map(\.atLogResolution)
        try w.append(.tripStart(activity: "ride", software: "cairn tests", utcOffsetS: 0))
        try w.append(.points(fixes))
        let settings = RawSettings(clockIsFix: false, closeAfterMs: 1_800_000)
        try w.append(
            .rawFixes(
                RawBatch(
                    activity: "ride",
                    fixes: fixes.map {
                        RawFix(fix: $0, arrivalMs: $0.timeMs + (1 << 62), verdict: .kept, events: .runStart, settings: settings)
                    })))
        _ = try w.sync()
        w.close()
        let trip = RefilterTests.trips(dir)[0]
        XCTAssertThrowsError(try RefilterTests.replay(trip)) { e in
            let text = "\(e)"
            XCTAssertTrue(text.contains("no raw fixes in \(w.path)"), text)
            XCTAssertTrue(text.contains("or lost in the 1 damaged record 'cairn verify' reports"), text)
        }
        // Without damage, the message stays as it was.
        XCTAssertFalse("\(TripRaw.missing(TripRef(id: 9, files: [])))".contains("damaged"))
    }

    /// The recorder dies mid-ride (whatever the rules held, and the last seconds not synced, are
    /// lost) and the next run resumes the trip: re-filtering the recovered log gives exactly
    /// the recorded points, wherever the crash falls (in the standstill, right after a spike,
    /// in the tunnel, among corner candidates).
    func testRefilterAfterACrashAndAResumedTripGivesTheRecordedPoints() throws {
        let ride = RefilterTests.eventfulRide(seed: 3, count: 1300)
        var failures: [String] = []
        for cut in [120, 147, 451, 599, 603, 700, 901, 925, 1050, 1151] {
            let dir = ExportSupport.tempDir()
            try RefilterTests.record(Array(ride[..<cut]), dir: dir, crashes: true)
            try RefilterTests.record(Array(ride[(cut + 3)...]), dir: dir)
            let trips = RefilterTests.trips(dir)
            guard let trip = trips.first else { failures.append("cut \(cut): no trip"); continue }
            var recorded: [Fix] = [], segments: [SegmentReason] = []
            _ = try TripCatalog.read(trip) { e in
                switch e {
                case .point(let f): recorded.append(f)
                case .segment(let r): segments.append(r)
                case .raw: break  // not asked for
                }
            }
            let again = try RefilterTests.replay(trip)
            if let d = Self.firstDifference(again.points, recorded) { failures.append("cut \(cut) (\(trips.count) trips): \(d)") }
            if again.segments != segments { failures.append("cut \(cut): segments \(again.segments) vs \(segments)") }
            if trips.count != 1 || !segments.contains(.resume) { failures.append("cut \(cut): \(trips.count) trips, \(segments): not resumed") }
        }
        XCTAssertEqual(failures, [])
    }

    /// The recorder's system clock steps (NTP: an hour ahead, then two minutes back, then set
    /// to 1970 and back) while the fix times run on: the rules judge by the stored arrival
    /// times, so re-filtering gives exactly the recorded points.
    func testRefilterWithTheSystemClockSteppingGivesTheRecordedPoints() throws {
        let ride = RefilterTests.eventfulRide(seed: 5, count: 1300)
        let dir = ExportSupport.tempDir()
        try RefilterTests.record(ride, dir: dir) { i, f in
            let t = f.timeMs + 230
            switch i {
            case 300..<500: return t + 3_600_000
            case 500..<700: return t + 3_600_000 - 120_000
            case 700..<760: return 5_000 + Int64(i) * 1000
            case 760..<770: return t + 50
            default: return t
            }
        }
        let trips = RefilterTests.trips(dir)
        XCTAssertEqual(trips.count, 3, "each step ahead (an hour; from 1970 back to now) closed a trip: no fix for 30 minutes, by the clock")
        var options = TripReplay.Options()
        options.logTrips = trips
        for trip in trips {
            var recorded: [Fix] = []
            _ = try TripCatalog.read(trip) { e in if case .point(let f) = e { recorded.append(f) } }
            let again = try RefilterTests.replay(trip, options)
            XCTAssertEqual(again.warnings, [])
            XCTAssertNil(Self.firstDifference(again.points, recorded), "trip \(trip.id)")
        }
    }

    /// A standstill longer than the close limit ends the trip and the ride goes on in a new
    /// one, in the same recording: each trip re-filtered gives exactly its recorded points (the
    /// rules' state carries over from the trip before, which the replay must run through too).
    func testRefilterOfATripAfterAnotherInOneRecordingGivesItsRecordedPoints() throws {
        var ride = RefilterTests.eventfulRide(seed: 9, count: 1400)
        // Parked for six minutes from fix 700 (the close limit below is five).
        let park = ride[699]
        for i in 700..<1060 {
            ride[i] = Fix(
                timeMs: ride[i].timeMs, lat: park.lat + Double(i % 3) * 1e-6, lon: park.lon, mode: 3,
                altHAE: park.altHAE, altMSL: park.altMSL, eph: ride[i].eph, epx: ride[i].epx, epy: ride[i].epy,
                epv: ride[i].epv, speed: 0.02, track: nil, climb: 0)
        }
        var profile = ActivityProfile.ride
        profile.closeAfterMs = 5 * 60_000
        let dir = ExportSupport.tempDir()
        try RefilterTests.record(ride, dir: dir, profile: profile)
        let trips = RefilterTests.trips(dir)
        XCTAssertEqual(trips.count, 2, "the standstill closed the first trip")
        for trip in trips {
            var recorded: [Fix] = []
            _ = try TripCatalog.read(trip) { e in if case .point(let f) = e { recorded.append(f) } }
            let again = try RefilterTests.replay(trip)
            XCTAssertNil(Self.firstDifference(again.points, recorded), "trip \(trip.id)")
        }
    }

    /// No fix at all for 35 minutes (the bike left in a cellar) closes the trip; the ride goes on
    /// in a new one, in the same recording: each trip re-filtered gives exactly its points.
    func testRefilterOfATripAfterASilenceThatClosedTheOneBeforeGivesItsRecordedPoints() throws {
        var ride = RefilterTests.eventfulRide(seed: 13, count: 1300)
        for i in 650..<ride.count { ride[i].timeMs += 35 * 60_000 }
        let dir = ExportSupport.tempDir()
        try RefilterTests.record(ride, dir: dir)
        let trips = RefilterTests.trips(dir)
        XCTAssertEqual(trips.count, 2, "the silence closed the first trip")
        for trip in trips {
            var recorded: [Fix] = []
            _ = try TripCatalog.read(trip) { e in if case .point(let f) = e { recorded.append(f) } }
            let again = try RefilterTests.replay(trip)
            XCTAssertNil(Self.firstDifference(again.points, recorded), "trip \(trip.id)")
        }
    }
}

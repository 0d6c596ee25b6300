import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Laps (`LapRule`, `LapSplitter`), privacy zones (`PrivacyZone`, `PrivacyWindow`), the stages
/// that apply them (`ExportStages`), and what the writers make of them, checked against Strava's
/// upload rules by Tests/tools/check-strava.py.
final class LapsAndPrivacyTests: XCTestCase {
    var dir = "", out = ""

    override func setUp() {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    static var strava: String { ExportSupport.repoRoot.appendingPathComponent("Tests/tools/check-strava.py").path }

    /// Runs check-strava.py; a broken rule fails the test. Returns its summary.
    @discardableResult
    func strava(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try ExportSupport.run("/usr/bin/env", ["python3", Self.strava] + args)
        XCTAssertEqual(r.status, 0, "check-strava \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// The convert loop as `cairn convert` runs it: the privacy pass, the summary pass, then the
    /// points through `ExportStages` into `writer`.
    @discardableResult
    func convert(_ writer: TrackExporter, laps: LapRule, zones: [PrivacyZone] = []) throws -> [PrivacyWindow?] {
        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        var windows: [PrivacyWindow?] = []
        writer.begin()
        for t in trips {
            let window = zones.isEmpty ? nil : try ExportStages.window(t, zones: zones)
            windows.append(window)
            if window?.hidesAll == true { continue }
            var h = TripHeading(id: t.id, activity: nil)
            if writer.wantsSummaryFirst {
                h.summary = try ExportStages.summary(t, window: window)
                h.activity = h.summary?.activity
            }
            try writer.beginTrip(h)
            var stages = ExportStages(window: window, laps: laps)
            try TripCatalog.read(t) { e in
                stages.feed(e, segment: { writer.beginSegment($0) }, point: { writer.point($0, $1) })
            }
            XCTAssertNoThrow(try writer.endTrip())
        }
        XCTAssertNoThrow(try writer.end())
        return windows
    }

    /// Points due east from (lat, lon), `step` metres apart, one a second.
    func line(_ n: Int, step: Double, from t0: Int64 = 1_748_764_800_000, lat: Double = 47.0, lon: Double = 8.0, speed: Double? = nil) -> [Fix] {
        let dLon = step / (Geodesy.distance(lat1: lat, lon1: 0, lat2: lat, lon2: 1))
        return (0..<n).map { i in
            Fix(
                timeMs: t0 + Int64(i) * 1000, lat: lat, lon: lon + Double(i) * dLon, mode: 3,
                altMSL: 400, eph: 5, epv: 8, speed: speed ?? step)
        }
    }

    func laps(_ rule: LapRule, _ segments: [(SegmentReason, [Fix])]) -> [Int?] {
        var s = LapSplitter(rule)
        var out: [Int?] = []
        for (r, fixes) in segments {
            s.segment(r)
            for f in fixes { out.append(s.lap(of: f)) }
        }
        return out
    }

    // MARK: Lap rules and splitting

    func testLapRulesParse() {
        XCTAssertEqual(LapRule.parse("pause"), .pause)
        XCTAssertEqual(LapRule.parse("none"), LapRule.none)
        XCTAssertEqual(LapRule.parse("1km"), .distance(1000))
        XCTAssertEqual(LapRule.parse("5km"), .distance(5000))
        XCTAssertEqual(LapRule.parse("10km"), .distance(10_000))
        XCTAssertEqual(LapRule.parse("1mi"), .distance(1609.344))
        XCTAssertEqual(LapRule.parse("5mi"), .distance(5 * 1609.344))
        XCTAssertEqual(LapRule.parse("2.5km"), .distance(2500))
        for bad in [
            "", "km", "mi", "0km", "-1km", "+1km", "1e3km", "1 km", "5", "1KM", "1m", "0.001km", "1001km", "nankm", "infkm", "0x10km", "1.2.3km",
            "Pause"
        ] {
            XCTAssertNil(LapRule.parse(bad), bad)
        }
    }

    /// A lap ends at the first point at or past each mark; the next lap starts after it.
    func testDistanceLapsEndAtTheFirstPointAtOrPastEachMark() {
        // 10 m steps: point 100 is at exactly 1000 m, so it ends lap 1.
        let tens = laps(.distance(1000), [(.start, line(250, step: 10))])
        XCTAssertEqual(tens.prefix(101).allSatisfy { $0 == 1 }, true)
        XCTAssertEqual(tens[101], 2)
        XCTAssertEqual(tens[200], 2, "point 200 is at 2000 m: the last of lap 2")
        XCTAssertEqual(tens[201], 3)
        // 7 m steps: point 142 is at 994 m, point 143 at 1001 m (the first past the mark).
        let sevens = laps(.distance(1000), [(.start, line(300, step: 7))])
        XCTAssertEqual(sevens[142], 1)
        XCTAssertEqual(sevens[143], 1)
        XCTAssertEqual(sevens[144], 2)
        // The marks stay whole multiples: 2000 m is reached at point 286 (2002 m), not at 1001 + 1000.
        XCTAssertEqual(sevens[286], 2)
        XCTAssertEqual(sevens[287], 3)
        XCTAssertEqual(laps(.none, [(.start, line(10, step: 10))]), Array(repeating: nil, count: 10))
    }

    /// A step over two marks (a tunnel's chord) ends one lap; the distance across a pause does
    /// not count (as `TripStats`), across a gap it does.
    func testDistanceLapsCountWhatTripStatsCounts() {
        let a = line(50, step: 10)  // 0 … 490 m
        let b = line(40, step: 10, from: a.last!.timeMs + 120_000, lon: a.last!.lon + 0.04)  // ~3 km on, 390 m more
        let c = line(8, step: 10, from: b.last!.timeMs + 300_000, lon: b.last!.lon + 0.5)  // a pause 38 km off, 70 m more
        let got = laps(.distance(1000), [(.start, a), (.gap, b), (.pause, c)])
        XCTAssertEqual(got[49], 1)
        XCTAssertEqual(got[50], 1, "the point after the gap is past the 1, 2 and 3 km marks: it ends lap 1")
        XCTAssertEqual(got[51], 2)
        XCTAssertEqual(Set(got[51...]), [2], "the pause's jump adds no distance: no lap ends after it")
        var stats = TripStats()
        for (r, f) in [(SegmentReason.start, a), (.gap, b), (.pause, c)] { stats.startSegment(r); f.forEach { stats.add($0) } }
        XCTAssertGreaterThan(stats.distanceM, 3900)
        XCTAssertLessThan(stats.distanceM, 4000, "the pause's chord is not counted, the gap's is")
    }

    /// A mark reached just before a gap, or just before a pause: the lap ends at that point, and
    /// the step across the gap (counted as distance) is the next lap's; the records say so.
    func testADistanceLapEndingBeforeAGapOrAPause() throws {
        let a = line(101, step: 10)  // point 100 at 1000 m
        let b = line(60, step: 10, from: a.last!.timeMs + 60_000, lon: a.last!.lon + 0.005)  // a ~380 m chord
        let c = line(40, step: 10, from: b.last!.timeMs + 300_000, lon: b.last!.lon + 0.01)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a), (.gap, b), (.pause, c)]), dir: dir)
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.2.0", laps: .distance(1000))
        try convert(w, laps: .distance(1000))
        let r = try strava("fit", w.written[0])
        let ds = r["lap_distances"] as? [Double] ?? []
        XCTAssertEqual(ds.first ?? -1, 1000, accuracy: 0.05, "lap 1 ends at the point at the mark, before the gap")
        XCTAssertEqual(r["laps"] as? Int, 3)
    }

    func testPauseLapsStartAfterEachPause() {
        let a = line(20, step: 5), b = line(20, step: 5, from: a.last!.timeMs + 200_000), c = line(20, step: 5, from: b.last!.timeMs + 30_000)
        let d = line(20, step: 5, from: c.last!.timeMs + 400_000)
        let got = laps(.pause, [(.start, a), (.pause, b), (.gap, c), (.pause, d)])
        XCTAssertEqual(
            got, Array(repeating: 1, count: 20) + Array(repeating: 2, count: 40) + Array(repeating: 3, count: 20),
            "a gap (a tunnel) is no pause: it starts no lap")
        // A pause before the first point starts nothing.
        XCTAssertEqual(laps(.pause, [(.pause, a)]).first ?? nil, 1)
    }

    // MARK: Privacy zones

    func testPrivacyZonesParse() throws {
        XCTAssertEqual(try PrivacyZone.parse("47.3769,8.5417,300").get(), PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 300))
        XCTAssertEqual(try PrivacyZone.parse(" -33.9 , 151.2 , 250.5 ").get(), PrivacyZone(lat: -33.9, lon: 151.2, radiusM: 250.5))
        for (bad, needle) in [
            ("47.3,8.5", "expected LAT,LON,RADIUS_M"), ("47.3,8.5,300,1", "expected"), ("", "expected"),
            ("91,8,300", "latitude '91'"), ("47,181,300", "longitude '181'"), ("47,8,0", "radius '0'"),
            ("47,8,-5", "radius '-5'"), ("47,8,60000", "radius '60000'"), ("1e1,8,300", "latitude"),
            ("47,8,nan", "radius"), ("47,8,inf", "radius"), ("47;8;300", "expected"), ("47,,300", "longitude ''")
        ] {
            switch PrivacyZone.parse(bad) {
            case .success(let z): XCTFail("\(bad) parsed as \(z)")
            case .failure(let e): XCTAssertTrue(e.description.contains(needle), "\(bad): \(e)")
            }
        }
    }

    /// Leaves home (inside zone A), rides through zone B, comes back home: the runs in A at the
    /// start and at the end go, and so do B's points in the middle (issue 27: a zone hides
    /// wherever the ride is in it).
    func homeRide() -> (fixes: [Fix], home: PrivacyZone, passing: PrivacyZone) {
        let fixes = line(400, step: 10)  // 4 km east, then we turn back
        var back = line(400, step: 10, from: fixes.last!.timeMs + 1000, lon: fixes.last!.lon)
        let dLon = back[1].lon - back[0].lon
        for i in back.indices { back[i].lon = fixes.last!.lon - Double(i + 1) * dLon }
        let home = PrivacyZone(lat: 47.0, lon: 8.0, radiusM: 205)  // the first 21 points, the last 21
        let passing = PrivacyZone(lat: 47.0, lon: fixes[200].lon, radiusM: 100)
        return (fixes + back, home, passing)
    }

    func testPrivacyWindowLeavesOutEveryPointInAZone() {
        let (ride, home, passing) = homeRide()
        var w = PrivacyWindow(zones: [home, passing])
        ride.forEach { w.see($0) }
        let kept = ride.filter { w.keeps($0) }
        let inside = ride.filter { home.contains($0) || passing.contains($0) }.count
        XCTAssertEqual(w.leftOut, inside)
        XCTAssertEqual(w.stretches, 4, "the start, B going out, B coming back, the end")
        XCTAssertEqual(kept.count, ride.count - w.leftOut)
        XCTAssertFalse(kept.contains { home.contains($0) || passing.contains($0) })
        var all = PrivacyWindow(zones: [PrivacyZone(lat: 47, lon: 8.02, radiusM: 50_000)])
        ride.forEach { all.see($0) }
        XCTAssertTrue(all.hidesAll)
        XCTAssertFalse(ride.contains { all.keeps($0) })
        XCTAssertEqual(all.leftOut, ride.count)
    }

    /// A stop at home in the middle of a ride (finding 4: it was written, 41 points 1.2 m from
    /// the door): left out, the ride split there into two segments with no line and no distance
    /// across, one trip.
    func testAStopAtHomeInTheMiddleIsLeftOutAndSplitsTheRide() {
        let (ride, home, _) = homeRide()
        let stop = line(1200, step: 0, from: ride.last!.timeMs + 1000)  // 20 min at the door
        let again = line(400, step: -10, from: stop.last!.timeMs + 1000)  // out west: a line across would be 400 m
        var stages = ExportStages(window: PrivacyWindow(zones: [home]), laps: .pause)
        var segments: [SegmentReason] = [], written: [Fix] = []
        var stats = TripStats()
        let events = [TripEvent.segment(.start)] + (ride + stop + again).map { TripEvent.point($0) }
        for e in events {
            stages.feed(
                e,
                segment: {
                    segments.append($0); stats.startSegment($0)
                },
                point: { f, _ in
                    written.append(f); stats.add(f)
                })
        }
        XCTAssertFalse(written.contains { home.contains($0) })
        XCTAssertEqual(segments, [.start, .hidden])
        XCTAssertEqual(stages.stretches, 2, "leaving home; coming home, the stop and leaving again")
        XCTAssertEqual(stages.leftOut, (ride + stop + again).count - written.count)
        XCTAssertEqual(stages.firstWritten, written.first)
        XCTAssertEqual(stats.segments, 2)
        XCTAssertLessThan(stats.distanceM, Double(written.count - 2) * 10 + 1, "no distance across the hidden stop")
    }

    /// A 30 s dropout whose filled chord crosses a zone: the made-up points inside are not
    /// written, and the count says so (it said every point the filler made).
    func testAFilledChordAcrossAZoneCountsWhatIsWritten() {
        let a = line(30, step: 10)
        let dLon = a[1].lon - a[0].lon
        let b = line(30, step: 10, from: a.last!.timeMs + 31_000, lon: a.last!.lon + 31 * dLon)
        let zone = PrivacyZone(lat: 47.0, lon: a.last!.lon + 15.5 * dLon, radiusM: 60)
        let w = PrivacyWindow(zones: [zone])
        let p = TrackPipeline(smooth: false, fillGaps: true, activity: "ride", window: w)
        var stages = ExportStages(window: w, laps: .none)
        var written: [(Fix, PointOrigin)] = [], segments: [SegmentReason] = []
        func put(_ i: TrackItem) { stages.feed(i, segment: { segments.append($0) }, point: { written.append(($0, $1.origin)) }) }
        p.push(.segment(.start), emit: put)
        for f in a + b { p.push(.point(f), emit: put) }
        p.finish(emit: put)
        XCTAssertEqual(p.filled?.gaps, 1)
        XCTAssertGreaterThan(p.filled?.points ?? 0, stages.interpolatedWritten, "some made-up points lie in the zone")
        XCTAssertGreaterThan(stages.interpolatedWritten, 0)
        XCTAssertEqual(stages.interpolatedWritten, written.filter { $0.1 == .interpolated }.count)
        XCTAssertFalse(written.contains { zone.contains($0.0) })
        XCTAssertEqual(segments, [.start, .hidden], "no line across the zone")
    }

    /// The FIT of a trimmed trip counts what it holds: its records, session and laps; nothing of
    /// the left-out runs; the log itself is untouched.
    func testPrivacyTrimmedFITCountsWhatItHolds() throws {
        let (ride, home, _) = homeRide()
        let log = try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ride)]), dir: dir)
        let before = try Data(contentsOf: URL(fileURLWithPath: log))
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.2.0", laps: .distance(1000))
        let win = try convert(w, laps: .distance(1000), zones: [home])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: log)), before, "the log is never touched")
        let window = try XCTUnwrap(win.first ?? nil)
        let r = try strava("fit", w.written[0])
        XCTAssertEqual(r["records"] as? Int, ride.count - window.leftOut)
        var kept = TripStats()
        ride.filter { window.keeps($0) }.forEach { kept.add($0) }
        let session = r["session"] as? [String: Any] ?? [:]
        XCTAssertEqual(session["total_distance"] as? Double ?? -1, (kept.distanceM * 10).rounded() / 10, accuracy: 0.0005)
        XCTAssertLessThan(session["total_distance"] as? Double ?? .infinity, 7990 - 400, "the 2 × ~200 m at home are not counted")
        XCTAssertEqual(r["laps"] as? Int, Int((kept.distanceM / 1000).rounded(.up)))
        // GPX: no point of the start's or the end's run in the zone.
        let sink = try OutputSink(creating: out + "/t.gpx", force: true)
        try convert(GPXWriter(sink: sink, creator: "cairn test"), laps: .distance(1000), zones: [home])
        let g = try strava("gpx", out + "/t.gpx", "--fit", w.written[0])
        XCTAssertEqual(g["points"] as? Int, r["records"] as? Int)
    }

    func testATripWhollyInsideAZoneWritesNothing() throws {
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(30, step: 3))]), dir: dir)
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.2.0")
        let win = try convert(w, laps: .pause, zones: [PrivacyZone(lat: 47, lon: 8, radiusM: 500)])
        XCTAssertEqual(win.first??.hidesAll, true)
        XCTAssertEqual(w.written, [])
    }

    /// Segments that lie wholly in the left-out runs leave no trace: no extra segment, no lap.
    func testSegmentsInsideTheLeftOutRunsLeaveNoTrace() {
        let a = line(10, step: 3), b = line(30, step: 10, from: a.last!.timeMs + 300_000)
        var w = PrivacyWindow(zones: [PrivacyZone(lat: 47, lon: 8, radiusM: 40)])
        for f in a + b { w.see(f) }
        var stages = ExportStages(window: w, laps: .pause)
        var segments: [SegmentReason] = [], lapsSeen: [Int?] = []
        let events: [TripEvent] = [.segment(.start)] + a.map { TripEvent.point($0) } + [.segment(.pause)] + b.map { TripEvent.point($0) }
        for e in events {
            stages.feed(e, segment: { segments.append($0) }, point: { lapsSeen.append($1.lap) })
        }
        XCTAssertEqual(segments, [.pause], "one segment start, just before the first point kept")
        XCTAssertEqual(Set(lapsSeen), [1], "the pause before the first kept point starts no lap")
        XCTAssertEqual(lapsSeen.count, b.filter { w.keeps($0) }.count)

        // A pause followed by a gap before the next point: one segment start (the gap, the last),
        // and the pause still starts a lap.
        var plain = ExportStages(window: nil, laps: .pause)
        segments = []
        lapsSeen = []
        let c = line(5, step: 10, from: b.last!.timeMs + 400_000)
        let more: [TripEvent] = b.map { TripEvent.point($0) } + [.segment(.pause), .segment(.gap)] + c.map { TripEvent.point($0) }
        for e in more { plain.feed(e, segment: { segments.append($0) }, point: { lapsSeen.append($1.lap) }) }
        XCTAssertEqual(segments, [.gap])
        XCTAssertEqual(lapsSeen, Array(repeating: 1, count: b.count) + Array(repeating: 2, count: 5))
    }

    // MARK: The Strava check: a barometer ride, a tunnel, laps

    /// A barometer ride (pressure on every point), a ride through a 90 s tunnel (a gap segment),
    /// and a ride with two pauses, in FIT and GPX, every lap rule: every rule of check-strava
    /// holds, and the same trip converted twice has the same file_id (and the same bytes).
    func testUploadsPassStravasRules() throws {
        var baro = ExportSupport.ride(900, seed: 11)
        for i in baro.indices { baro[i].pressurePa = 96_000 - 5 * Double(i % 300) + 3 * Double(i / 300); baro[i].temperatureC = 18 }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, baro)]), dir: dir, number: 1)
        let t = ExportSupport.ride(900, seed: 12, startMs: baro.last!.timeMs + 3_600_000)
        try ExportSupport.writeLog(TripSpec(id: 2, segments: [(.start, Array(t[..<400])), (.gap, Array(t[490...]))]), dir: dir, number: 2)
        let p = ExportSupport.ride(900, seed: 13, startMs: t.last!.timeMs + 3_600_000)
        var after1 = Array(p[300..<600]), after2 = Array(p[600...])
        for i in after1.indices { after1[i].timeMs += 240_000 }
        for i in after2.indices { after2[i].timeMs += 600_000 }
        try ExportSupport.writeLog(TripSpec(id: 3, segments: [(.start, Array(p[..<300])), (.pause, after1), (.pause, after2)]), dir: dir, number: 3)

        for rule in [LapRule.pause, .distance(1000), .distance(1609.344), .none] {
            var fits: [[String]] = []
            for run in 0..<2 {
                let d = out + "/\(rule)-\(run)"
                try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
                let w = FITWriter(target: .directory(d), force: false, softwareVersion: "0.2.0", laps: rule)
                try convert(w, laps: rule)
                XCTAssertEqual(w.written.count, 3)
                fits.append(w.written)
                let sink = try OutputSink(creating: d + "/all.gpx", force: true)
                try convert(GPXWriter(sink: sink, creator: "cairn test"), laps: rule)
            }
            var lapCounts: [Int] = []
            for (a, b) in zip(fits[0], fits[1]) {
                let r = try strava("fit", a, "--same-id", b)
                lapCounts.append(r["laps"] as? Int ?? -1)
                XCTAssertEqual(
                    try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)), "\(rule): the same bytes twice")
                if case .distance(let len) = rule {
                    // Each lap but the last ends at the first point past its mark.
                    let ds = r["lap_distances"] as? [Double] ?? []
                    var sum = 0.0
                    for (k, d) in ds.dropLast().enumerated() {
                        sum += d
                        XCTAssertGreaterThanOrEqual(sum, Double(k + 1) * len - 0.05, "\(rule) \(a) lap \(k)")
                        // Past the mark by less than one step: ~9 m, or the tunnel's ~600 m chord.
                        XCTAssertLessThan(sum, Double(k + 1) * len + (a.hasSuffix("trip2.fit") ? 700 : 12), "\(rule) \(a) lap \(k)")
                    }
                }
            }
            switch rule {
            case .pause: XCTAssertEqual(lapCounts, [1, 1, 3], "a lap per part between pauses; the tunnel is none")
            case .none: XCTAssertEqual(lapCounts, [1, 1, 1])
            default: XCTAssertTrue(lapCounts.allSatisfy { $0 > 2 }, "\(lapCounts)")
            }
            // GPX: every point timed and ascending; each trip's FIT has as many records and laps.
            let g = try strava("gpx", out + "/\(rule)-0/all.gpx")
            XCTAssertEqual(g["points"] as? Int, 900 + 810 + 900)
            XCTAssertEqual(g["laps"] as? Int, rule == .none ? 0 : lapCounts.reduce(0, +))
        }
        // The barometer ride's FIT names the barometer and carries its climb in the laps.
        let b = try ExportSupport.check(
            "fit",
            out + "/pause-0/"
                + (try FileManager.default.contentsOfDirectory(atPath: out + "/pause-0").sorted().first { $0.hasSuffix("trip1.fit") } ?? ""))
        XCTAssertEqual((b["device_infos"] as? [[String: Any]])?.count, 2)
        XCTAssertNotNil((b["lap_sums"] as? [String: Any])?["total_ascent"] as? Int)
    }

    /// Pause laps: the pause's time belongs to the lap it ends; each lap starts where the last
    /// ended; their times add up to the session's elapsed time.
    func testPauseLapsAreContiguousInTime() throws {
        let a = line(100, step: 6), b = line(100, step: 6, from: a.last!.timeMs + 200_000, lon: a.last!.lon)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a), (.pause, b)]), dir: dir)
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.2.0", laps: .pause)
        try convert(w, laps: .pause)
        let r = try ExportSupport.check("fit", w.written[0])
        XCTAssertEqual(r["lap"] as? Int, 2)
        let sums = r["lap_sums"] as? [String: Any] ?? [:]
        XCTAssertEqual(sums["total_elapsed_time"] as? Double ?? -1, 99 + 200 + 99, accuracy: 0.0005)
        XCTAssertEqual(sums["total_timer_time"] as? Double ?? -1, 99 + 99, accuracy: 0.0005, "the timer stops for the pause")
        XCTAssertEqual(r["lap_triggers"] as? [String], ["time", "session_end"], "a pause ends its lap by the clock, no button")
        XCTAssertEqual(((r["lap_figures"] as? [String: Any])?["total_elapsed_time"] as? Double) ?? -1, 99 + 200, accuracy: 0.0005)
        try strava("fit", w.written[0])
    }

    /// A pause and then a gap before the next point (the rider stopped, then the fix was lost):
    /// a new lap, and the gap's chord is counted as distance. The lap used to end when the rider
    /// set off (the next point) with its distance stopping at its last point, so the chord's
    /// metres fell between the laps' ends: check-strava found the lap 10 m short of its records.
    func testAPauseThenAGapEndsTheLapAtItsLastPoint() throws {
        let a = line(100, step: 6)
        let b = line(100, step: 6, from: a.last!.timeMs + 300_000, lon: a.last!.lon + 0.0003)  // a ~23 m chord
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a), (.pause, []), (.gap, b)]), dir: dir)
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.2.0", laps: .pause)
        try convert(w, laps: .pause)
        let r = try strava("fit", w.written[0])
        XCTAssertEqual(r["laps"] as? Int, 2)
        let ds = r["lap_distances"] as? [Double] ?? []
        XCTAssertEqual(ds.first ?? -1, 99 * 6, accuracy: 0.15, "the first lap ends at its last point")
        let total = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first.flatMap { try? TripCatalog.read($0).stats.distanceM }
        XCTAssertEqual(ds.reduce(0, +), total ?? -1, accuracy: 0.15, "the chord is in the laps")
    }

    /// 10 m laps over 700 km: more laps than FIT holds (a lap's message_index has 12 bits for its
    /// number). They wrapped (69,999 laps, num_laps 4,463, indices read as flags); now the last
    /// lap holds the rest of the trip.
    func testLapsStopAtFITsLimit() {
        var s = LapSplitter(.distance(10))
        var laps = Set<Int>()
        var last = 0
        for i in 0..<70_000 {
            last = s.lap(of: Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 10, lon: -100 + Double(i) * 0.0001, mode: 3)) ?? 0
            laps.insert(last)
        }
        XCTAssertEqual(last, 4_095, "FIT holds laps 0...4094 (FITWriter writes a lap where the number changes)")
        XCTAssertEqual(laps.count, 4_095)
        var p = LapSplitter(.pause)
        for i in 0..<70_000 {
            p.segment(.pause)
            last = p.lap(of: Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 10, lon: -100, mode: 3)) ?? 0
        }
        XCTAssertEqual(last, 4_095)
    }

    // MARK: Lap numbers in the text formats

    func testCSVAndGeoJSONAndGPXNameEachPointsLap() throws {
        try ExportSupport.writeLog(TripSpec(id: 4, segments: [(.start, line(250, step: 10))]), dir: dir)
        let csvSink = try OutputSink(creating: out + "/t.csv", force: true)
        try convert(CSVWriter(sink: csvSink, laps: true), laps: .distance(1000))
        let rows = try String(contentsOfFile: out + "/t.csv", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows.first.map(String.init), String(CSVWriter.header(laps: true, origins: false).dropLast()))
        let lapColumn = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? "" }
        XCTAssertEqual(lapColumn, Array(repeating: "1", count: 101) + Array(repeating: "2", count: 100) + Array(repeating: "3", count: 49))
        let c = try ExportSupport.check("csv", out + "/t.csv")
        XCTAssertEqual(c["laps"] as? Int, 3)

        let geoSink = try OutputSink(creating: out + "/t.geojson", force: true)
        try convert(GeoJSONWriter(sink: geoSink, laps: true), laps: .distance(1000))
        try ExportSupport.check("geojson", out + "/t.geojson")
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/t.geojson"))) as? [String: Any]
        let props = ((j?["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any])?["coordinateProperties"] as? [String: Any]
        let geoLaps = (props?["laps"] as? [[Int]])?.first ?? []
        XCTAssertEqual(geoLaps, lapColumn.map { Int($0)! })

        let gpxSink = try OutputSink(creating: out + "/t.gpx", force: true)
        try convert(GPXWriter(sink: gpxSink, creator: "cairn test"), laps: .distance(1000))
        try ExportSupport.check("gpx", out + "/t.gpx")
        let gpx = try String(contentsOfFile: out + "/t.gpx", encoding: .utf8)
        XCTAssertEqual(gpx.components(separatedBy: "<cairn:lap>3</cairn:lap>").count - 1, 49)

        // Without laps: no column, no list, no element (the files as before).
        let plain = try OutputSink(creating: out + "/p.csv", force: true)
        try convert(CSVWriter(sink: plain), laps: .none)
        XCTAssertTrue(try String(contentsOfFile: out + "/p.csv", encoding: .utf8).hasPrefix(CSVWriter.header))
        let plainGPX = try OutputSink(creating: out + "/p.gpx", force: true)
        try convert(GPXWriter(sink: plainGPX, creator: "cairn test"), laps: .none)
        XCTAssertFalse(try String(contentsOfFile: out + "/p.gpx", encoding: .utf8).contains("cairn:lap"))
    }
}

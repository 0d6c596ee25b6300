import CairnCore
import XCTest

@testable import CairnExport
@testable import CairnLog

/// The rider's laps measured over the same span as their figures (the attack on issue 41's
/// button laps, findings 2-5, 7, 8): a press ends its lap at the last point at or before it, so
/// the laps add up to the session that `list` and `--laps none` give, no lap is faster than the
/// records, the default takes the rider's laps only from presses that make one, and the cap is
/// on laps, not presses.
extension RiderLapsTests {
    func fitFigures() throws -> [String: Any] {
        try convert(.fit, to: out + "/t.fit")
        let r = try ExportSupport.check("fit", out + "/t.fit")
        let strava = try ExportSupport.run("/usr/bin/env", ["python3", LapsAndPrivacyTests.strava, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)
        return r
    }

    func session(_ r: [String: Any], _ key: String) -> Double { (r["session_figures"] as? [String: Any])?[key] as? Double ?? -1 }

    /// A press between two seconds (every real one: the kernel stamps microseconds): the lap
    /// ends at the point before it, and the session's timer is the whole ride's moving time.
    func testAPressBetweenSecondsKeepsTheSessionsTimer() throws {
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(60))], marks: [lap(20_900)]), dir: dir)
        let r = try fitFigures()
        XCTAssertEqual(session(r, "total_timer_time"), 59, accuracy: 0.0005, "the ride moves throughout: 59 s, as list says")
        XCTAssertEqual((r["lap_timers"] as? [Double]) ?? [], [20, 39])
        XCTAssertEqual(r["lap_times"] as? [[Int]], [[fitSeconds(0), fitSeconds(20_000)], [fitSeconds(20_000), fitSeconds(59_000)]])
        let events = (r["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }
        XCTAssertEqual(events.map { $0["timestamp"] as? Int }, [fitSeconds(20_000)], "the lap event at the lap's boundary")
    }

    /// Two presses 0.7 s apart around a point, and two 0.1 s apart around one (the first lap
    /// between them had 8 m in 0.7 s, the second null speeds and nulled the session's): laps of
    /// whole steps, none faster than the ride (8 m/s throughout), the session's top speed the
    /// records'.
    func testPressesAroundAPointMakeNoLapFasterThanTheRide() throws {
        for presses in [[30_650, 31_350], [30_950, 31_050]] {
            dir = ExportSupport.tempDir()
            try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(60))], marks: presses.map { lap(Int64($0)) }), dir: dir)
            let r = try fitFigures()
            XCTAssertEqual(session(r, "enhanced_max_speed"), 8, accuracy: 0.0015, "\(presses)")
            XCTAssertEqual(session(r, "total_timer_time"), 59, accuracy: 0.0005, "\(presses)")
            for s in (r["lap_speeds"] as? [[Double?]]) ?? [] {
                XCTAssertEqual(s[0] ?? -1, 8, accuracy: 0.0015, "\(presses): \(s)")
                XCTAssertEqual(s[1] ?? -1, 8, accuracy: 0.0015, "\(presses): \(s)")
            }
            XCTAssertEqual(r["lap"] as? Int, 3, "\(presses)")
            XCTAssertEqual((r["lap_timers"] as? [Double]) ?? [], [30, 1, 28], "\(presses)")
        }
    }

    /// A press at the first point's time, or between the first two points: no empty first lap.
    func testNoEmptyFirstLap() throws {
        for press in [0, 400] {
            dir = ExportSupport.tempDir()
            try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(30))], marks: [lap(Int64(press)), lap(10_500)]), dir: dir)
            let r = try fitFigures()
            XCTAssertEqual(r["lap"] as? Int, 2, "press at \(press) ms")
            XCTAssertEqual((r["lap_timers"] as? [Double]) ?? [], [10, 19], "press at \(press) ms")
        }
    }

    /// With `--fill-gaps`, presses in a filled dropout: the session's top speed is the records'.
    func testPressesInAFilledGapKeepTheSessionsTopSpeed() throws {
        let pts = line(120)
        let kept = Array(pts[0..<50]) + Array(pts[70...])
        for presses in [[Int64](), [30_000, 55_500, 61_300]] {
            dir = ExportSupport.tempDir()
            try ExportSupport.writeLog(
                TripSpec(id: 1, segments: [(.start, Array(kept[0..<50])), (.gap, Array(kept[50...]))], marks: presses.map(lap)), dir: dir)
            var stages = TripConversion.Stages()
            stages.fillGaps = true
            try convert(.fit, to: out + "/t.fit", stages: stages)
            let r = try ExportSupport.check("fit", out + "/t.fit")
            XCTAssertLessThanOrEqual(session(r, "enhanced_max_speed"), 8.0005, "\(presses)")
            for s in (r["lap_speeds"] as? [[Double?]]) ?? [] { XCTAssertLessThanOrEqual(s[1] ?? 0, 8.0005, "\(presses): \(s)") }
        }
    }

    /// The default takes the rider's laps only from presses that make a lap in this export: a
    /// press before the first point leaves the pause laps; one in the ride replaces them.
    func testTheDefaultCountsOnlyPressesThatMakeALap() throws {
        let a = line(20), b = line(20, first: 100, lon: a[19].lon)
        for (presses, want) in [([Int64(-5000)], ["time", "session_end"]), ([-5000, 10_500], ["manual", "session_end"])] {
            dir = ExportSupport.tempDir()
            try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a), (.pause, b)], marks: presses.map(lap)), dir: dir)
            let r = try fitFigures()
            XCTAssertEqual(r["lap_triggers"] as? [String], want, "\(presses)")
            let lapEvents = (r["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }.count
            XCTAssertEqual(lapEvents, presses.count - 1, "\(presses): pause laps have no lap event, the rider's have one")
            let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
            let made = try ButtonLaps.count(t, marks: try TripMarks.read(t), window: nil)
            XCTAssertEqual(made.count, 2)
            XCTAssertEqual(made.rule, presses.count == 1 ? .pause : .marks)
        }
    }

    /// The cap is on laps: thousands of presses in the first seconds, then three later ones,
    /// which still make their laps.
    func testTheCapIsOnLapsNotPresses() throws {
        let presses = (0..<5000).map { lap(Int64($0)) } + [lap(300_500), lap(400_500), lap(500_500)]
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(600))], marks: presses), dir: dir)
        let r = try fitFigures()
        XCTAssertEqual(r["lap"] as? Int, 8, "laps at points 1-4 (the presses in 0...4.999 s), then at 300, 400 and 500")
    }

    /// More presses than laps: the 4,095th lap holds the rest (the splitter alone, as
    /// LapsAndPrivacyTests.testLapsStopAtFITsLimit for distance laps).
    func testTheLastLapHoldsTheRest() {
        let points = line(4_300)
        var s = LapSplitter(.marks, marks: TripMarks(lapTimesMs: (0..<4_200).map { t0 + Int64($0) * 1000 + 500 }))
        let laps = points.map { s.lap(of: $0) ?? 0 }
        XCTAssertEqual(laps.last, LapSplitter.maxLaps)
        XCTAssertEqual(laps.firstIndex(of: LapSplitter.maxLaps), 4_095, "the last lap from point 4,095 (its boundary 4,094) to the end")
        XCTAssertEqual(laps[2], 2, "no lap ends at the first point: the second starts after point 1")
    }

    /// A long press ended the trip: a short press after it makes no lap; the fixes after it
    /// (the recorder reads presses once a batch) are left out of the export, which ends at the
    /// last point at or before the press, FIT's stop there (attack-laps-r20, finding 2).
    func testAShortPressAfterTheEndPressMakesNoLap() throws {
        try ExportSupport.writeLog(
            TripSpec(
                id: 1, segments: [(.start, line(30))], marks: [lap(10_500), RiderMark(kind: .end, timeMs: t0 + 25_300), lap(27_500)]),
            dir: dir)
        let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        XCTAssertEqual(try TripMarks.read(t), TripMarks(lapTimesMs: [t0 + 10_500], endMs: t0 + 25_300))
        let r = try fitFigures()
        XCTAssertEqual(r["lap"] as? Int, 2)
        let last = (r["events"] as? [[String: Any]] ?? []).last ?? [:]
        XCTAssertEqual(last["timestamp"] as? Int, fitSeconds(25_000))
        XCTAssertEqual(last["timer_trigger"] as? String, "manual")
        XCTAssertEqual(r["record"] as? Int, 26, "points 0...25; the 4 after the press left out")
    }

    /// `info`'s laps (`ButtonLaps`) are FIT's, zones included: a press in a zone the trip starts
    /// in makes none.
    func testTheLapsCountedAreTheExportsWithZones() throws {
        let pts = line(90)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, pts)], marks: [lap(2_500), lap(40_500), lap(60_500)]), dir: dir)
        var stages = TripConversion.Stages()
        stages.zones = PrivacyZones([PrivacyZone(lat: pts[0].lat, lon: pts[0].lon, radiusM: 100)])
        let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        let made = try ButtonLaps.count(t, marks: try TripMarks.read(t), window: stages.zones.window(for: t))
        try convert(.fit, to: out + "/t.fit", stages: stages)
        let r = try ExportSupport.check("fit", out + "/t.fit")
        XCTAssertEqual(made.count, 3)
        XCTAssertEqual(r["lap"] as? Int, made.count)
        XCTAssertEqual(made.startsMs.map { Int(($0 - t0) / 1000) }, [40, 60])
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// The rider's button in the exports (issue 41): a short press starts a lap (FIT lap and lap
/// event, the lap number in CSV, GeoJSON and GPX), by default where a trip has presses; a long
/// press's end is FIT's last timer stop; a press inside a privacy zone says nothing of it.
final class RiderLapsTests: XCTestCase {
    var dir = "", out = ""
    let t0: Int64 = 1_748_764_800_000

    override func setUp() {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    /// Points due east, 8 m apart, one a second, from `t0 + first` s.
    func line(_ n: Int, first: Int = 0, lon: Double = 8.0) -> [Fix] {
        let dLon = 8 / Geodesy.distance(lat1: 47, lon1: 0, lat2: 47, lon2: 1)
        return (0..<n).map { i in
            Fix(
                timeMs: t0 + Int64(first + i) * 1000, lat: 47, lon: lon + Double(i) * dLon, mode: 3, altMSL: 400, eph: 5, epv: 8,
                speed: 8)
        }
    }

    func lap(_ ms: Int64) -> RiderMark { RiderMark(kind: .lap, timeMs: t0 + ms) }

    func fitSeconds(_ ms: Int64) -> Int { Int((t0 + ms) / 1000 - FITWriter.epochOffset) }

    /// Converts every trip in `dir` as `cairn convert` does (`TripConversion`, default stages
    /// unless given).
    func convert(_ format: ExportFormat, to path: String, stages: TripConversion.Stages = .init(), laps: LapRule = .marksElsePause) throws {
        var settings = ExportFormat.Settings(version: "1.0.0")
        settings.laps = laps
        let output: ExportFormat.Output
        if format == .fit {
            output = .fitFiles(.file(path), force: true, atomic: false)
        } else {
            output = .sink(try OutputSink(creating: path, force: true))
        }
        var said: [String] = []
        let c = TripConversion(writer: format.makeWriter(output, settings), stages: stages) { said.append($0) }
        for t in TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }) { XCTAssertTrue(c.convert(t).converted, "\(said)") }
        try c.finish()
    }

    // MARK: The rule

    /// Table: presses before the first point, two between the same two points, one at a
    /// point's own time (that point ends the lap), one after the last point.
    func testAPressStartsALapAtTheFirstPointAfterIt() {
        let marks = TripMarks(lapTimesMs: [t0 - 1000, t0 + 5500, t0 + 5700, t0 + 12_000, t0 + 30_000])
        var s = LapSplitter(.marks, marks: marks)
        var laps: [Int?] = []
        var pressed: [Int: Int64] = [:]
        s.segment(.start)
        for (i, f) in line(20).enumerated() {
            laps.append(s.lap(of: f))
            if let p = s.startedAtMarkMs { pressed[i] = p - t0 }
        }
        XCTAssertEqual(laps, Array(repeating: 1, count: 6) + Array(repeating: 2, count: 7) + Array(repeating: 3, count: 7))
        XCTAssertEqual(pressed, [6: 5700, 13: 12_000])
    }

    func testTheDefaultIsTheRidersLapsWhereThereAreAny() {
        let some = TripMarks(lapTimesMs: [t0])
        XCTAssertEqual(LapRule.marksElsePause.forTrip(some), .marks)
        XCTAssertEqual(LapRule.marksElsePause.forTrip(.none), .pause)
        XCTAssertEqual(LapRule.pause.forTrip(some), .pause, "an explicit --laps wins")
        XCTAssertEqual(LapRule.distance(1000).forTrip(some), .distance(1000))
        XCTAssertEqual(LapRule.marks.forTrip(.none), .marks, "--laps marks on a trip without presses: one lap")
        XCTAssertEqual(LapRule.parse("marks"), .marks)
        var s = LapSplitter(.marks)
        XCTAssertEqual(line(5).map { s.lap(of: $0) }, [1, 1, 1, 1, 1])
    }

    func testTheMarksAreReadInTimeOrderWithTheEndPress() throws {
        try ExportSupport.writeLog(
            TripSpec(id: 1, segments: [(.start, line(30))], marks: [lap(20_000), lap(9_000), RiderMark(kind: .end, timeMs: t0 + 29_500)]),
            dir: dir)
        let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        XCTAssertEqual(try TripMarks.read(t), TripMarks(lapTimesMs: [t0 + 9_000, t0 + 20_000], endMs: t0 + 29_500))
    }

    /// A log with more presses than FIT holds laps (a crafted one, or a chattering button the
    /// rule let through): all are read (memory bounded by `TripMarks.maxPresses`), the FIT valid.
    func testPressesBeyondFITsLapsAreRead() throws {
        // Times at the ends of the range first (before the first point, after the last: no lap).
        let presses = [RiderMark(kind: .lap, timeMs: .max), RiderMark(kind: .lap, timeMs: -.max)] + (0..<5000).map { lap(Int64($0) * 100 + 50) }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(600))], marks: presses), dir: dir)
        let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        XCTAssertEqual(try TripMarks.read(t).lapTimesMs.count, 5_000, "every one in range (those at Int64's ends are not read back)")
        try convert(.fit, to: out + "/t.fit")
        let r = try ExportSupport.check("fit", out + "/t.fit")
        XCTAssertEqual(r["lap"] as? Int, 500, "the first lap, then one ending at each of points 1...499 (presses up to 499.95 s)")
    }

    // MARK: FIT

    /// Two presses: three laps (manual, manual, session_end), a lap event at each press, the
    /// laps ending at the presses and adding up to the session; num_laps 3.
    func testFITHasALapAndALapEventAtEachPress() throws {
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(60))], marks: [lap(20_400), lap(40_000)]), dir: dir)
        try convert(.fit, to: out + "/t.fit")
        let r = try ExportSupport.check("fit", out + "/t.fit")
        XCTAssertEqual(r["lap"] as? Int, 3)
        XCTAssertEqual(r["lap_triggers"] as? [String], ["manual", "manual", "session_end"])
        let times = r["lap_times"] as? [[Int]] ?? []
        XCTAssertEqual(
            times, [[fitSeconds(0), fitSeconds(20_400)], [fitSeconds(20_400), fitSeconds(40_000)], [fitSeconds(40_000), fitSeconds(59_000)]])
        let events = (r["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }
        XCTAssertEqual(events.map { $0["event_type"] as? String }, ["marker", "marker"])
        XCTAssertEqual(events.map { $0["timestamp"] as? Int }, [fitSeconds(20_400), fitSeconds(40_000)])
        XCTAssertEqual((r["session_figures"] as? [String: Any])?["num_laps"] as? Int, 3)
        let sums = r["lap_sums"] as? [String: Any] ?? [:]
        XCTAssertEqual(sums["total_elapsed_time"] as? Double ?? -1, 59, accuracy: 0.0005)
        XCTAssertEqual(sums["total_distance"] as? Double ?? -1, 59 * 8, accuracy: 0.15)
        let strava = try ExportSupport.run("/usr/bin/env", ["python3", LapsAndPrivacyTests.strava, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)
    }

    /// An explicit --laps wins over the presses: distance laps, no lap event.
    func testAnExplicitRuleWinsOverThePresses() throws {
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(60))], marks: [lap(20_400)]), dir: dir)
        var stages = TripConversion.Stages()
        stages.laps = .distance(200)
        try convert(.fit, to: out + "/t.fit", stages: stages, laps: .distance(200))
        let r = try ExportSupport.check("fit", out + "/t.fit")
        XCTAssertEqual(r["lap_triggers"] as? [String], ["distance", "distance", "session_end"])
        XCTAssertEqual((r["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }.count, 0)
    }

    /// A long press ended the trip: its last timer stop is the rider's (timer_trigger manual).
    func testTheEndPressIsTheRidersTimerStop() throws {
        try ExportSupport.writeLog(
            TripSpec(id: 1, segments: [(.start, line(30))], marks: [RiderMark(kind: .end, timeMs: t0 + 29_400)]), dir: dir)
        try convert(.fit, to: out + "/t.fit")
        let r = try ExportSupport.check("fit", out + "/t.fit")
        let last = (r["events"] as? [[String: Any]] ?? []).last ?? [:]
        XCTAssertEqual(last["event"] as? String, "timer")
        XCTAssertEqual(last["event_type"] as? String, "stop_all")
        XCTAssertEqual(last["timer_trigger"] as? String, "manual")
        XCTAssertEqual(r["lap"] as? Int, 1, "an end press starts no lap")
    }

    // MARK: The text formats

    func testCSVGeoJSONAndGPXNumberTheRidersLaps() throws {
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(30))], marks: [lap(10_500)]), dir: dir)
        try convert(.csv, to: out + "/t.csv")
        let rows = try String(contentsOfFile: out + "/t.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        let lapColumn = rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? "" }
        XCTAssertEqual(lapColumn, Array(repeating: "1", count: 11) + Array(repeating: "2", count: 19))
        try convert(.geojson, to: out + "/t.geojson")
        try ExportSupport.check("geojson", out + "/t.geojson")
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/t.geojson"))) as? [String: Any]
        let props = ((j?["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any])?["coordinateProperties"] as? [String: Any]
        XCTAssertEqual((props?["laps"] as? [[Int]])?.first ?? [], lapColumn.map { Int($0)! })
        try convert(.gpx, to: out + "/t.gpx")
        try ExportSupport.check("gpx", out + "/t.gpx")
        let gpx = try String(contentsOfFile: out + "/t.gpx", encoding: .utf8)
        XCTAssertEqual(gpx.components(separatedBy: "<cairn:lap>2</cairn:lap>").count - 1, 19)
    }

    // MARK: Privacy

    /// A press inside a privacy zone: its lap starts at the zone's edge (the last point written
    /// before the zone, where the left-out stretch begins), and FIT's lap event is there too, so
    /// every lap the rider made has its event (attack-laps-r20, finding 1: a lap without one
    /// before): no time from inside the zone.
    func testAPressInsideAZoneMovesItsLapToTheZonesEdge() throws {
        // 90 points east over 712 m; the zone covers the middle (points ~35 to ~55).
        let pts = line(90)
        let centre = pts[45]
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, pts)], marks: [lap(20_000), lap(45_000)]), dir: dir)
        var stages = TripConversion.Stages()
        stages.zones = PrivacyZones([PrivacyZone(lat: centre.lat, lon: centre.lon, radiusM: 60)])
        let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        let window = try ExportStages.window(t, zones: stages.zones)
        let hidden = pts.filter { !window.keeps($0) }.map(\.timeMs)
        XCTAssertLessThan(hidden.first ?? .max, t0 + 45_000, "the press is inside the zone")
        XCTAssertGreaterThan(hidden.last ?? .min, t0 + 45_000)
        let edge = try XCTUnwrap(pts.last { window.keeps($0) && $0.timeMs < hidden.first ?? 0 }?.timeMs)
        try convert(.fit, to: out + "/t.fit", stages: stages)
        let r = try ExportSupport.check("fit", out + "/t.fit")
        XCTAssertEqual(r["lap_triggers"] as? [String], ["manual", "manual", "session_end"])
        let events = (r["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }
        XCTAssertEqual(
            events.map { $0["timestamp"] as? Int }, [fitSeconds(20_000), fitSeconds(edge - t0)], "the zone's press: its event at the zone's edge")
        XCTAssertEqual(events.map { $0["event_type"] as? String }, ["marker", "marker"])
        XCTAssertEqual(events.count, (r["lap"] as? Int ?? 0) - 1, "a lap event for every lap the presses made")
        let times = r["lap_times"] as? [[Int]] ?? []
        XCTAssertEqual(times.count, 3)
        XCTAssertEqual(times.last?.first, fitSeconds(edge - t0), "the third lap starts at the zone's edge")
        XCTAssertEqual(times.dropLast().last?.last, fitSeconds(edge - t0), "the second ends there")
        let strava = try ExportSupport.run("/usr/bin/env", ["python3", LapsAndPrivacyTests.strava, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)
    }

    /// The long press at the door, inside home's privacy zone (the common end of a ride): the
    /// export ends at the last point written before the zone, FIT's rider stop there, the laps
    /// adding up to the session; `ButtonLaps` (info) places the end there too, and nothing from
    /// inside the zone is said (no time in what convert says).
    func testALongPressInsideHomesZoneEndsAtTheZonesEdge() throws {
        let pts = line(90)
        try ExportSupport.writeLog(
            TripSpec(id: 1, segments: [(.start, pts)], marks: [lap(30_000), RiderMark(kind: .end, timeMs: t0 + 86_500)]), dir: dir)
        var stages = TripConversion.Stages()
        stages.zones = PrivacyZones([PrivacyZone(lat: pts[86].lat, lon: pts[86].lon, radiusM: 60)])
        let t = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        let window = try ExportStages.window(t, zones: stages.zones)
        let edge = try XCTUnwrap(pts.last { window.keeps($0) && $0.timeMs <= t0 + 86_500 }?.timeMs)
        XCTAssertLessThan(edge, t0 + 80_000, "the press is well inside the zone")
        let made = try ButtonLaps.count(t, marks: try TripMarks.read(t), window: window)
        XCTAssertEqual(made.endMs, edge)
        XCTAssertEqual(made.afterEnd, 3, "points 87...89, after the press")
        var settings = ExportFormat.Settings(version: "1.0.0")
        settings.laps = .marksElsePause
        var said: [String] = []
        let c = TripConversion(
            writer: ExportFormat.fit.makeWriter(.fitFiles(.file(out + "/t.fit"), force: true, atomic: false), settings), stages: stages
        ) {
            said.append($0)
        }
        XCTAssertTrue(c.convert(t).converted, "\(said)")
        try c.finish()
        XCTAssertTrue(said.contains("trip 1: 3 points after the rider's end press left out; the log keeps them"), "\(said)")
        let r = try ExportSupport.check("fit", out + "/t.fit")
        let last = (r["events"] as? [[String: Any]] ?? []).last ?? [:]
        XCTAssertEqual(last["event_type"] as? String, "stop_all")
        XCTAssertEqual(last["timer_trigger"] as? String, "manual")
        XCTAssertEqual(last["timestamp"] as? Int, fitSeconds(edge - t0))
        XCTAssertEqual(r["lap_triggers"] as? [String], ["manual", "session_end"])
        XCTAssertEqual((r["lap_times"] as? [[Int]])?.last?.last, fitSeconds(edge - t0))
        let sums = r["lap_sums"] as? [String: Any] ?? [:]
        XCTAssertEqual(sums["total_elapsed_time"] as? Double ?? -1, Double(edge - t0) / 1000, accuracy: 0.0005)
        let strava = try ExportSupport.run("/usr/bin/env", ["python3", LapsAndPrivacyTests.strava, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)
    }
}

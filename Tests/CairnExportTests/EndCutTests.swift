import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// One window for every output (issue 41, attack-r21): the page's picture, `render` and the
/// cells end at the rider's long press as the exports do; a press before the first point is
/// placed nowhere, and `info` says so; the top speed from positions is judged on the offered
/// fixes the export keeps, not those inside a privacy zone.
final class EndCutTests: XCTestCase {
    var dir = "", out = ""
    let t0: Int64 = 1_748_764_800_000

    override func setUp() {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// Points due east, `step` m apart, one a second, from `t0`, then (from `turn` on) due north.
    func line(_ n: Int, step: Double = 8, turn: Int = .max, speed: Double? = 8) -> [Fix] {
        let dLon = step / Geodesy.distance(lat1: 47, lon1: 0, lat2: 47, lon2: 1), dLat = step / 111_195
        return (0..<n).map { i in
            let east = Double(min(i, turn)), north = Double(max(0, i - turn))
            return Fix(
                timeMs: t0 + Int64(i) * 1000, lat: 47 + north * dLat, lon: 8 + east * dLon, mode: 3, altMSL: 400, eph: 5, epv: 8,
                speed: speed)
        }
    }

    func trip(_ d: String) throws -> TripRef { try XCTUnwrap(TripCatalog.trips(TripCatalog.files([d]) { XCTFail($0) }).first) }

    /// attack-r21: the exports ended at the long press, the page's picture and `render` drew
    /// past it (and counted its figures), and the cells index took its cells.
    func testThePictureAndTheCellsEndAtTheEndPress() throws {
        // 60 points east, then 60 north after the press: the picture and the cells must not go north.
        let pts = line(120, turn: 60)
        let path = try ExportSupport.writeLog(
            TripSpec(id: 1, segments: [(.start, pts)], marks: [RiderMark(kind: .end, timeMs: t0 + 59_500)]), dir: dir)
        let cut = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: cut) }
        let cutPath = try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, Array(pts[..<60]))]), dir: cut)

        let sink = try OutputSink(creating: out + "/t.svg", force: true)
        let drawn = try TrackPicture.draw(try trip(dir), options: .defaults(activity: "ride"), to: sink)
        try sink.finish()
        let sink2 = try OutputSink(creating: out + "/cut.svg", force: true)
        let whole = try TrackPicture.draw(try trip(cut), options: .defaults(activity: "ride"), to: sink2)
        try sink2.finish()
        XCTAssertEqual(drawn.summary.stats.points, 60, "the picture's figures end at the press")
        XCTAssertEqual(drawn.summary.stats.distanceM, whole.summary.stats.distanceM, accuracy: 0.001)
        XCTAssertEqual(drawn.height, whole.height, "no room for the way north")
        XCTAssertEqual(
            try String(contentsOfFile: out + "/t.svg", encoding: .utf8).count, try String(contentsOfFile: out + "/cut.svg", encoding: .utf8).count,
            "the same picture as the trip recorded up to the press")

        func cells(_ p: String) throws -> Set<String> {
            var st = stat()
            XCTAssertEqual(stat(p, &st), 0)
            let r = try XCTUnwrap(ExploredCells.readFile(p, name: "x", st: st, problem: { XCTFail($0) }, note: { _ in }))
            return Set(r.entry.cells.map { "\($0.0)" })
        }
        let all = try cells(path), upToPress = try cells(cutPath)
        XCTAssertEqual(all, upToPress, "no cell north of the press")
    }

    /// attack-r21 U5: a long press stamped before the trip's first point: `info` said "ended
    /// by the button" while every export keeps the whole trip. It is placed nowhere, said so.
    func testAnEndPressBeforeTheFirstPointIsPlacedNowhere() throws {
        try ExportSupport.writeLog(
            TripSpec(id: 1, segments: [(.start, line(30))], marks: [RiderMark(kind: .end, timeMs: t0 - 60_000)]), dir: dir)
        let t = try trip(dir)
        let marks = try TripMarks.read(t)
        let made = try ButtonLaps.count(t, marks: marks, window: nil)
        XCTAssertTrue(made.endBeforeStart, "placed nowhere")
        XCTAssertNil(made.endMs)
        XCTAssertEqual(made.afterEnd, 0)
        let s = try ExportStages.summary(t, window: nil, endPressMs: marks.endMs)
        XCTAssertEqual(s.stats.points, 30, "the exports keep the whole trip")
        // A press at the first point does end it there (`placed`), as before.
        let at = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: at) }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, line(30))], marks: [RiderMark(kind: .end, timeMs: t0 + 10_500)]), dir: at)
        let placed = try ButtonLaps.count(try trip(at), marks: try TripMarks.read(try trip(at)), window: nil)
        XCTAssertFalse(placed.endBeforeStart)
        XCTAssertEqual(placed.afterEnd, 19)
    }

    /// The top speed from positions (a receiver without doppler) was judged on every offered
    /// fix, those inside a privacy zone too: a fast stretch at home made the exported top speed.
    func testTheTopSpeedFromPositionsCountsOnlyWhatTheZoneKeeps() throws {
        // 90 s at 6 m/s, then 30 s at 16 m/s inside the zone (no measured speed anywhere).
        var pts = line(90, step: 6, speed: nil)
        let dLon = 16 / Geodesy.distance(lat1: 47, lon1: 0, lat2: 47, lon2: 1)
        for i in 1...30 {
            let p = pts[89]
            pts.append(Fix(timeMs: p.timeMs + Int64(i) * 1000, lat: 47, lon: p.lon + Double(i) * dLon, mode: 3, altMSL: 400, eph: 5, epv: 8))
        }
        let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 9))
        try w.append(.tripStart(activity: "ride", software: "test"))
        try w.append(.segmentStart(.start, timeMs: t0))
        try w.append(.points(pts))
        let raws = pts.map { RawFix(fix: $0, arrivalMs: $0.timeMs, verdict: .kept, settings: settings) }
        try w.append(.rawFixes(RawBatch(activity: "ride", fixes: raws)))
        try w.sync()
        w.close()
        let t = try trip(dir)
        let whole = try TripCatalog.read(t)
        let recordedTop = try XCTUnwrap(whole.stats.positionTopMps)
        XCTAssertGreaterThan(recordedTop, 12, "the fast stretch is in the recording")
        let zone = PrivacyZone(lat: 47, lon: pts[105].lon, radiusM: 250)
        let window = try ExportStages.window(t, zones: [zone])
        XCTAssertFalse(window.keeps(pts[95]))
        XCTAssertTrue(window.keeps(pts[40]))
        let exported = try ExportStages.summary(t, window: window)
        let top = try XCTUnwrap(exported.stats.positionTopMps)
        XCTAssertLessThan(top, 7, "only the 6 m/s the export holds: \(top) (recorded \(recordedTop))")
        XCTAssertLessThan(try XCTUnwrap(exported.stats.maxSpeedMps), 7)
    }
}

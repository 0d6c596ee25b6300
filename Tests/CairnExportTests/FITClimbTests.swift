import XCTest
import Foundation
@testable import CairnCore
@testable import CairnExport
@testable import CairnLog

/// A FIT file's session and laps say the climb `cairn info` says (issue 39 item 4): with a
/// barometer, the barometer's climb over every fix kept or thinned out (the log's raw fixes),
/// not over the kept points alone; a log without raw fixes counts its points in both.
final class FITClimbTests: XCTestCase {
    var dir = "", out = ""
    static let t0: Int64 = 1_748_764_800_000
    let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)

    override func setUp() {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// ISA pressure at `h` metres.
    static func pressure(_ h: Double) -> Double { 101_325 * pow(1 - h / 44_330.77, 5.25588) }

    /// 30 minutes at 6 m/s due east, one fix a second, every third kept (the others thinned out
    /// as too close); the road is level at the kept points, and between two of them, once a
    /// minute, it rises 4 m and comes back: the kept points alone see none of it.
    func writeRide(raw: Bool, endPressMs: Int64? = nil) throws -> (kept: [Fix], raws: [RawFix]) {
        let dLon = 6 / Geodesy.distance(lat1: 47, lon1: 0, lat2: 47, lon2: 1)
        var kept: [Fix] = [], raws: [RawFix] = []
        for i in 0..<1800 {
            let bump = i % 60 == 31 || i % 60 == 32 ? 4.0 : 0
            let f = Fix(
                timeMs: Self.t0 + Int64(i) * 1000, lat: 47, lon: 8 + Double(i) * dLon, mode: 3, altMSL: 400 + bump, eph: 5, epv: 30,
                speed: 6, pressurePa: Self.pressure(400 + bump))
            let keep = i % 3 == 0
            if keep { kept.append(f) }
            raws.append(RawFix(fix: f, arrivalMs: f.timeMs, verdict: keep ? .kept : .dropped(.tooClose), settings: settings))
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 7))
        try w.append(.tripStart(activity: "ride", software: "test"))
        try w.append(.segmentStart(.start, timeMs: Self.t0))
        var rawsWritten = 0
        func writeRaws(upTo ms: Int64) throws {
            let b = raws[rawsWritten...].prefix { $0.fix.timeMs <= ms }
            if !b.isEmpty { try w.append(.rawFixes(RawBatch(activity: "ride", fixes: Array(b)))) }
            rawsWritten += b.count
        }
        for k in stride(from: 0, to: kept.count, by: 20) {
            try w.append(.points(Array(kept[k..<min(k + 20, kept.count)])))
            // The raw fixes trail the points they judged, as the recorder writes them: a
            // minute behind here.
            if raw, k >= 20 { try writeRaws(upTo: kept[k - 1].timeMs) }
        }
        if raw { try writeRaws(upTo: .max) }
        if let e = endPressMs { try w.append(.riderMark(RiderMark(kind: .end, timeMs: e))) }
        try w.sync()
        w.close()
        return (kept, raws)
    }

    func trip() throws -> TripRef { try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first) }

    /// Converts the trip to FIT (1 km laps) as `cairn convert` does and reads it back.
    func fit(window: PrivacyWindow? = nil, smooth: Bool = false) throws -> [String: Any] {
        var settings = ExportFormat.Settings(version: "1.0.0")
        var stages = TripConversion.Stages()
        stages.smooth = smooth
        (settings.laps, stages.laps) = (.distance(1000), .distance(1000))
        let path = out + "/t.fit"
        let writer = ExportFormat.fit.makeWriter(.fitFiles(.file(path), force: true, atomic: false), settings)
        let c = TripConversion(writer: writer, stages: stages) { _ in }
        XCTAssertTrue(c.convert(try trip(), window: window).converted)
        try c.finish()
        return try ExportSupport.check("fit", path)
    }

    func assertAgrees(_ f: [String: Any], ascent: Double?, descent: Double?, file: StaticString = #filePath, line: UInt = #line) {
        let session = f["session_figures"] as? [String: Any] ?? [:]
        let sums = f["lap_sums"] as? [String: Any] ?? [:]
        XCTAssertEqual(session["total_ascent"] as? Int, ascent.map { Int($0.rounded()) }, "\(session)", file: file, line: line)
        XCTAssertEqual(session["total_descent"] as? Int, descent.map { Int($0.rounded()) }, file: file, line: line)
        XCTAssertEqual(sums["total_ascent"] as? Int, session["total_ascent"] as? Int, "the laps add up to the session", file: file, line: line)
        XCTAssertEqual(sums["total_descent"] as? Int, session["total_descent"] as? Int, file: file, line: line)
        XCTAssertGreaterThan(session["num_laps"] as? Int ?? 0, 5, file: file, line: line)
    }

    /// The bumps between kept points are climb in `info` and in the FIT alike (before: 0 m in the
    /// FIT, about 120 m in `info`).
    func testTheSessionSaysTheClimbInfoSays() throws {
        _ = try writeRide(raw: true)
        let s = try TripCatalog.read(try trip())
        let ascent = try XCTUnwrap(s.stats.ascentM)
        XCTAssertGreaterThan(ascent, 100, "30 bumps of 4 m between kept points")
        let f = try fit()
        assertAgrees(f, ascent: ascent, descent: s.stats.descentM)
        // Each lap has the bumps of its own kilometre (a bump every 60 s, a lap every 166.7 s:
        // 2 or 3 of them), not the ones the log's raw fixes, a minute behind, held back.
        let laps = f["lap_ascents"] as? [Int] ?? []
        for (i, a) in laps.dropLast().enumerated() { XCTAssertTrue([8, 12].contains(a), "lap \(i): \(a) m (\(laps))") }
    }

    /// The same through the binary: `cairn info --json`'s ascent is the FIT session's that
    /// `cairn convert` writes ($CAIRN_BIN, else the `cairn` built beside this test bundle).
    func testInfoJSONAndConvertedFITAgree() throws {
        _ = try writeRide(raw: true)
        let bin =
            ProcessInfo.processInfo.environment["CAIRN_BIN"].flatMap { $0.isEmpty ? nil : $0 }
            ?? URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            .deletingLastPathComponent().appendingPathComponent("cairn").path
        let info = try ExportSupport.run(bin, ["info", dir, "--json", "--config", "none"])
        XCTAssertEqual(info.status, 0, info.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any], info.stdout)
        let ascent = try XCTUnwrap(json["ascent_m"] as? Double, info.stdout)
        XCTAssertGreaterThan(ascent, 100)
        let conv = try ExportSupport.run(bin, ["convert", dir, "--to", "fit", "-o", out + "/c.fit", "--config", "none"])
        XCTAssertEqual(conv.status, 0, conv.stderr)
        let session = try ExportSupport.check("fit", out + "/c.fit")["session_figures"] as? [String: Any] ?? [:]
        XCTAssertEqual(Double(session["total_ascent"] as? Int ?? -9), ascent, accuracy: 0.55, "\(session)")
        XCTAssertEqual(Double(session["total_descent"] as? Int ?? -9), json["descent_m"] as? Double ?? -1, accuracy: 0.55)
    }

    /// Smoothed, the records reach the writer later than the raw fixes: the climb is the same.
    func testASmoothedFITSaysTheSameClimb() throws {
        _ = try writeRide(raw: true)
        let s = try TripCatalog.read(try trip())
        let f = try fit(smooth: true)
        assertAgrees(f, ascent: s.stats.ascentM, descent: s.stats.descentM)
        let laps = f["lap_ascents"] as? [Int] ?? []
        for (i, a) in laps.dropLast().enumerated() { XCTAssertTrue([8, 12].contains(a), "lap \(i): \(a) m (\(laps))") }
    }

    /// With a privacy zone, the FIT counts the offered fixes the window keeps, as the export's
    /// summary does.
    func testAZoneCutsTheOfferedClimbToo() throws {
        let (kept, _) = try writeRide(raw: true)
        let t = try trip()
        let window = try ExportStages.window(t, zones: [PrivacyZone(lat: 47, lon: kept[300].lon, radiusM: 1500)])
        let s = try ExportStages.summary(t, window: window)
        let ascent = try XCTUnwrap(s.stats.ascentM)
        XCTAssertLessThan(ascent, try XCTUnwrap(TripCatalog.read(t).stats.ascentM) - 30, "the bumps in the zone are left out")
        assertAgrees(try fit(window: window), ascent: ascent, descent: s.stats.descentM)
    }

    /// With the end press cutting, the FIT counts the offered fixes up to it, as the export's
    /// summary (`ExportStages.summary`) does.
    func testAnEndPressCutsTheOfferedClimbToo() throws {
        let end = Self.t0 + 900_500
        _ = try writeRide(raw: true, endPressMs: end)
        let t = try trip()
        let marks = try TripMarks.read(t)
        let s = try ExportStages.summary(t, window: nil, endPressMs: marks.endMs)
        let ascent = try XCTUnwrap(s.stats.ascentM)
        XCTAssertLessThan(ascent, try XCTUnwrap(TripCatalog.read(t).stats.ascentM) * 0.6, "half the ride")
        XCTAssertGreaterThan(ascent, 40)
        assertAgrees(try fit(), ascent: ascent, descent: s.stats.descentM)
    }

    /// `--raw off`: no raw fixes, so both count the kept points (none of the bumps).
    func testALogWithoutRawFixesCountsItsPointsInBoth() throws {
        _ = try writeRide(raw: false)
        let s = try TripCatalog.read(try trip())
        let ascent = try XCTUnwrap(s.stats.ascentM)
        XCTAssertLessThan(ascent, 2)
        assertAgrees(try fit(), ascent: ascent, descent: s.stats.descentM)
    }
}

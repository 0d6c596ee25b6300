import Foundation
import XCTest

/// The rider's button in the exports, end to end (issue 41): a log with presses (record type 10,
/// as the recorder writes them; a button's presses are only recorded in the guest, deploy/board)
/// converted by the binary. By default its laps are the presses: FIT laps ending at them with an
/// event lap/marker at each, the CSV lap column; `--laps none` one lap; `info` lists them.
final class RiderLapsEndToEndTests: XCTestCase {
    let t0 = CraftedLog.june1

    func log() throws -> String {
        let dir = CraftedLog.directory()
        let data = CraftedLog.file(trip: 1, salt: 0x41, points: 120, closed: true, presses: [(0, t0 + 40_500), (0, t0 + 80_000)])
        try CraftedLog.write(data, dir + "/00000001.cairn")
        return dir
    }

    func fitSeconds(_ ms: Int64) -> Int { Int(ms / 1000 - 631_065_600) }

    func testThePressesAreTheLapsOfEveryExport() throws {
        let dir = try log()
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/t.fit", "--config", "none")
        XCTAssertEqual(r.status, 0, r.stderr)
        let fit = try Harness.checkExport("fit", out + "/t.fit")
        XCTAssertEqual(fit["lap_triggers"] as? [String], ["manual", "manual", "session_end"])
        let laps = fit["lap_times"] as? [[Int]] ?? []
        XCTAssertEqual(laps.map { $0.last ?? 0 }, [fitSeconds(t0 + 40_500), fitSeconds(t0 + 80_000), fitSeconds(t0 + 119_000)])
        let events = (fit["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }
        XCTAssertEqual(events.map { $0["timestamp"] as? Int }, [fitSeconds(t0 + 40_500), fitSeconds(t0 + 80_000)])
        XCTAssertEqual(events.map { $0["event_type"] as? String }, ["marker", "marker"])
        XCTAssertEqual((fit["session_figures"] as? [String: Any])?["num_laps"] as? Int, 3)
        let strava = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-strava.py").path, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)

        let csv = try Harness.cairn("convert", dir, "--to", "csv", "--config", "none")
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let lapColumn = csv.stdout.split(separator: "\n").dropFirst().map {
            String($0.split(separator: ",", omittingEmptySubsequences: false).last ?? "")
        }
        XCTAssertEqual(lapColumn, Array(repeating: "1", count: 41) + Array(repeating: "2", count: 40) + Array(repeating: "3", count: 39))

        let none = try Harness.cairn("convert", dir, "--to", "fit", "--laps", "none", "-o", out + "/n.fit", "--config", "none")
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(try Harness.checkExport("fit", out + "/n.fit")["lap_triggers"] as? [String], ["session_end"])

        let info = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none")
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("  laps:       3 (the rider's button: a lap from 08:00:40Z, 08:01:20Z)"), info.stdout)
    }

    /// `info` counts the laps the exports write, not the presses (attack-laps-r19, finding 1):
    /// presses before the first point and after the last, and three at one time, make one lap
    /// in FIT; info's `laps:` and `info --json`'s `laps.count` say 2 as FIT's `num_laps` does.
    func testInfoCountsTheLapsTheExportsWrite() throws {
        let dir = CraftedLog.directory()
        let presses: [(kind: UInt8, ms: Int64)] = [(0, t0 - 50_000), (0, t0 + 40_500), (0, t0 + 40_500), (0, t0 + 40_500), (0, t0 + 500_000)]
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x42, points: 120, closed: true, presses: presses), dir + "/00000001.cairn")
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/t.fit", "--config", "none")
        XCTAssertEqual(r.status, 0, r.stderr)
        let fit = try Harness.checkExport("fit", out + "/t.fit")
        XCTAssertEqual((fit["session_figures"] as? [String: Any])?["num_laps"] as? Int, 2)
        let info = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none")
        XCTAssertTrue(info.stdout.contains("  laps:       2 (the rider's button: a lap from 08:00:40Z)\n"), info.stdout)
        let json = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none", "--json")
        XCTAssertTrue(json.stdout.contains(#""laps": {"count": 2, "by": "button", "starts": ["2025-06-01T08:00:40Z"]"#), json.stdout)
    }

    /// attack F10: `info --json` had no `laps` for a trip of one lap (no press, no pause): a
    /// reader of it could not tell one lap from none. One lap is the whole trip, as FIT's one
    /// lap message; the text says nothing of it, as before.
    func testInfoJSONGivesTheOneLapOfATripWithoutPresses() throws {
        let dir = CraftedLog.directory()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x45, points: 120, closed: true, presses: []), dir + "/00000001.cairn")
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/t.fit", "--config", "none")
        XCTAssertEqual(r.status, 0, r.stderr)
        let fit = try Harness.checkExport("fit", out + "/t.fit")
        XCTAssertEqual((fit["session_figures"] as? [String: Any])?["num_laps"] as? Int, 1)
        let json = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none", "--json")
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertTrue(json.stdout.contains(#""laps": {"count": 1, "by": "pause", "ended_by_button": false}"#), json.stdout)
        let info = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none")
        XCTAssertFalse(info.stdout.contains("laps:"), info.stdout)
    }

    /// A press made before the clock was set (attack-laps-r20, finding 3: time 0, a resumed
    /// trip's press before its first fix on a board without a real-time clock) is a press without
    /// a usable time, not damage: `info` says it and no damage (`info --why` tells it:
    /// RiderMarkTimelineTests), the exports make no lap of it and the other press still makes its lap. Failed before: the
    /// record was skipped as damaged (`damaged_records` 1, "damage:" in info). The long press
    /// at time 0 is placed nowhere, as the exports keep the whole trip (attack-r21 U5).
    func testAPressAtTimeZeroIsAPressWithoutATimeNotDamage() throws {
        let dir = CraftedLog.directory()
        let presses: [(kind: UInt8, ms: Int64)] = [(0, 0), (0, t0 + 40_500), (1, 0)]
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x43, points: 120, closed: true, presses: presses), dir + "/00000001.cairn")
        let info = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none")
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertFalse(info.stdout.contains("damage"), info.stdout)
        XCTAssertTrue(
            info.stdout.contains(
                "  laps:       2 (the rider's button: a lap from 08:00:40Z; 2 presses at no usable time (the clock was not set): no lap; "
                    + "ended by the button, but its press has no usable time: placed nowhere, every export keeps the whole trip)"
            ),
            info.stdout)
        let json = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none", "--json")
        XCTAssertTrue(json.stdout.contains(#""damaged_records": 0"#), json.stdout)
        XCTAssertTrue(json.stdout.contains(#""ended_by_button": true, "end_press_without_time": true, "presses_without_time": 2}"#), json.stdout)
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/t.fit", "--config", "none")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("damage"), r.stderr)
        let fit = try Harness.checkExport("fit", out + "/t.fit")
        XCTAssertEqual(fit["lap_triggers"] as? [String], ["manual", "session_end"])
        XCTAssertEqual(fit["record"] as? Int, 120, "an end press without a time cuts nothing")
        let last = (fit["events"] as? [[String: Any]] ?? []).last ?? [:]
        XCTAssertEqual(last["timer_trigger"] as? String, "manual", "but the rider ended the trip: the last stop is the rider's")
        XCTAssertEqual(last["timestamp"] as? Int, fitSeconds(t0 + 119_000))
    }

    /// A long press, then more fixes (attack-laps-r20, finding 2: the fixes the loop took while
    /// the button was held, or a log with minutes after it): every export ends where the rider
    /// asked, at the last point at or before the press, as a device stops recording at its stop
    /// button (Strava and Garmin Connect draw the records, not the timer); FIT's last timer
    /// stop, the rider's, is there. `info` says the end and the points after it the exports
    /// leave out; the log keeps them (`list` counts them, `--raw` writes them). Failed before: every export wrote
    /// all 120 points and FIT's stop was at the last.
    func testALongPressEndsEveryExportWhereTheRiderAsked() throws {
        let dir = CraftedLog.directory()
        let presses: [(kind: UInt8, ms: Int64)] = [(0, t0 + 30_500), (1, t0 + 60_400)]
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x44, points: 120, closed: true, presses: presses), dir + "/00000001.cairn")
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/t.fit", "--config", "none")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("trip 1: 59 points after the rider's end press (08:01:00.400Z) left out; the log keeps them"), r.stderr)
        let fit = try Harness.checkExport("fit", out + "/t.fit")
        XCTAssertEqual(fit["record"] as? Int, 61)
        XCTAssertEqual((fit["last_record"] as? [String: Any])?["timestamp"] as? Int, fitSeconds(t0 + 60_000))
        let last = (fit["events"] as? [[String: Any]] ?? []).last ?? [:]
        XCTAssertEqual(last["event_type"] as? String, "stop_all")
        XCTAssertEqual(last["timer_trigger"] as? String, "manual")
        XCTAssertEqual(last["timestamp"] as? Int, fitSeconds(t0 + 60_000))
        XCTAssertEqual(fit["lap_triggers"] as? [String], ["manual", "session_end"])
        XCTAssertEqual((fit["lap_times"] as? [[Int]])?.last?.last, fitSeconds(t0 + 60_000))
        let strava = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-strava.py").path, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)
        for (format, rows) in [("csv", { (s: String) in s.split(separator: "\n").count - 1 }), ("gpx", { Harness.count("<trkpt", in: $0) })] {
            let c = try Harness.cairn("convert", dir, "--to", format, "--config", "none")
            XCTAssertEqual(c.status, 0, c.stderr)
            XCTAssertEqual(rows(c.stdout), 61, format)
        }
        let geo = try Harness.cairn("convert", dir, "--to", "geojson", "-o", out + "/t.geojson", "--config", "none")
        XCTAssertEqual(geo.status, 0, geo.stderr)
        let g = try Harness.checkExport("geojson", out + "/t.geojson")
        XCTAssertEqual((g["trips"] as? [[String: Any]])?.first?["points"] as? Int, 61, "GeoJSON's figures count what it holds")
        let kml = try Harness.cairn("convert", dir, "--to", "kml", "--config", "none")
        XCTAssertEqual(Harness.count("<when>", in: kml.stdout), 61, "kml")
        // export (and deliver, through the same shipment): the same end.
        let stick = out + "/stick"
        let ex = try Harness.cairn("export", "--to", stick, "--dir", dir, "--format", "fit,gpx", "--config", "none")
        XCTAssertEqual(ex.status, 0, ex.stderr)
        let fits = try FileManager.default.contentsOfDirectory(atPath: stick + "/fit").filter { $0.hasSuffix(".fit") }
        XCTAssertEqual(fits.count, 1)
        XCTAssertEqual(try Harness.checkExport("fit", stick + "/fit/" + (fits.first ?? ""))["record"] as? Int, 61, "export")
        XCTAssertTrue(try Harness.cairn("list", dir, "--config", "none").stdout.contains(" 120 "), "the log keeps every point")
        let info = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none")
        XCTAssertTrue(
            info.stdout.contains(
                "  laps:       2 (the rider's button: a lap from 08:00:30Z; ended by the button at 08:01:00Z: 59 points after it left out of the exports)\n"
            ),
            info.stdout)
        let json = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none", "--json")
        XCTAssertTrue(json.stdout.contains(#""ended_by_button": true, "end": "2025-06-01T08:01:00Z", "points_after_end": 59"#), json.stdout)
        // With privacy zones info's figures are the exports' (a zone far away: nothing hidden),
        // so they end at the press too; no time for it.
        _ = try Harness.recorderKey(dir)
        let zoned = try Harness.cairn("info", dir + "/00000001.cairn", "--config", "none", "--privacy-zone", "10,10,100")
        XCTAssertEqual(zoned.status, 0, zoned.stderr)
        XCTAssertTrue(zoned.stdout.contains("  points:     61 in 1 segment\n"), zoned.stdout)
        XCTAssertTrue(
            zoned.stdout.contains(
                "  laps:       2 (the rider's button; no times with privacy zones; ended by the button: 59 points after it left out of the exports)\n"
            ),
            zoned.stdout)
    }

    /// The presses a rider makes, in a trip the recorder resumed after a restart (two files, a
    /// gap between them): at the trip's first point (no lap), two in one second (one lap), one
    /// in the resumed trip before its first fix (in the gap: a lap ending at the last point
    /// before it), one in the resumed part. Every export agrees: FIT's laps and lap events match
    /// and pass Strava's rules, GPX and CSV number the same laps, `info` counts them.
    func testThePressesARiderMakesInAResumedTrip() throws {
        let dir = CraftedLog.directory()
        let first: [(kind: UInt8, ms: Int64)] = [(0, t0), (0, t0 + 20_200), (0, t0 + 20_700)]
        let resumed: [(kind: UInt8, ms: Int64)] = [(0, t0 + 120_000), (0, t0 + 200_500)]
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x45, points: 60, closed: false, presses: first), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(
                trip: 1, part: 1, salt: 0x46, startMs: t0 + 180_000, points: 60, northOffset: 60, closed: true, presses: resumed),
            dir + "/00000002.cairn")
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/t.fit", "--config", "none")
        XCTAssertEqual(r.status, 0, r.stderr)
        let fit = try Harness.checkExport("fit", out + "/t.fit")
        XCTAssertEqual(fit["lap_triggers"] as? [String], ["manual", "manual", "manual", "session_end"])
        XCTAssertEqual(
            (fit["lap_times"] as? [[Int]])?.map { $0.last ?? 0 },
            [fitSeconds(t0 + 20_000), fitSeconds(t0 + 59_000), fitSeconds(t0 + 200_000), fitSeconds(t0 + 239_000)])
        let events = (fit["events"] as? [[String: Any]] ?? []).filter { $0["event"] as? String == "lap" }
        XCTAssertEqual(events.map { $0["timestamp"] as? Int }, [fitSeconds(t0 + 20_000), fitSeconds(t0 + 59_000), fitSeconds(t0 + 200_000)])
        XCTAssertEqual((fit["session_figures"] as? [String: Any])?["num_laps"] as? Int, 4)
        let strava = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-strava.py").path, "fit", out + "/t.fit"])
        XCTAssertEqual(strava.status, 0, strava.stderr)
        let csv = try Harness.cairn("convert", dir, "--to", "csv", "--config", "none")
        let lapColumn = csv.stdout.split(separator: "\n").dropFirst().map {
            String($0.split(separator: ",", omittingEmptySubsequences: false).last ?? "")
        }
        let expected =
            Array(repeating: "1", count: 21) + Array(repeating: "2", count: 39) + Array(repeating: "3", count: 21) + Array(repeating: "4", count: 39)
        XCTAssertEqual(lapColumn, expected)
        let gpx = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out + "/t.gpx", "--config", "none")
        XCTAssertEqual(gpx.status, 0, gpx.stderr)
        _ = try Harness.checkExport("gpx", out + "/t.gpx")
        let g = try String(contentsOfFile: out + "/t.gpx", encoding: .utf8)
        XCTAssertEqual((1...4).map { Harness.count("<cairn:lap>\($0)</cairn:lap>", in: g) }, [21, 39, 21, 39])
        let info = try Harness.cairn("info", "1", "--dir", dir, "--config", "none")
        XCTAssertTrue(info.stdout.contains("  laps:       4 (the rider's button: a lap from 08:00:20Z, 08:00:59Z, 08:03:20Z)\n"), info.stdout)
    }
}

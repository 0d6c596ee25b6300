import XCTest
import Foundation

/// Raw fixes end to end: `record` (with `--raw on`, the default, and `--raw off`), then
/// `convert --refilter`, `convert --raw` and `info --why` on what it wrote.
final class RawEndToEndTests: XCTestCase {
    /// A 6-minute ride with a 150 s stop (a pause) and gpsd restarted halfway, recorded once.
    nonisolated(unsafe) static var recorded: String?

    func logs() throws -> String {
        if let r = Self.recorded { return r }
        let work = Harness.tempDir()
        let nmea = work + "/ride.nmea"
        let mk = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path, "0.1", nmea, "--stop", "60:150"])
        XCTAssertEqual(mk.status, 0, mk.stderr)
        let rec = try Harness.record(nmea, dir: work + "/logs", restartAt: [0.5])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        Self.recorded = work + "/logs"
        return work + "/logs"
    }

    /// CSV rows without the header.
    func rows(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    func testRefilterWithTheRecordedSettingsExportsTheRecordedTrack() throws {
        let dir = try logs()
        let out = Harness.tempDir()
        let a = try Harness.cairn("convert", dir, "--to", "csv", "-o", out + "/recorded.csv")
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try Harness.cairn("convert", dir, "--to", "csv", "--refilter", "-o", out + "/refiltered.csv")
        XCTAssertEqual(b.status, 0, b.stderr)
        let recorded = try rows(out + "/recorded.csv"), again = try rows(out + "/refiltered.csv")
        XCTAssertGreaterThan(recorded.count, 50)
        XCTAssertEqual(again, recorded, "every point and segment, every column")
        XCTAssertEqual(Set(recorded.map { $0[9] }).count, 2, "the stop made a pause")
        let gpx = try Harness.cairn("convert", dir, "--to", "gpx", "--refilter", "-o", out + "/refiltered.gpx")
        XCTAssertEqual(gpx.status, 0, gpx.stderr)
        XCTAssertEqual(try Harness.checkExport("gpx", out + "/refiltered.gpx")["points"] as? Int, recorded.count)

        // As a walk: the ride is too fast for one (jumps dropped, segments reset).
        let w = try Harness.cairn("convert", dir, "--to", "csv", "--refilter", "--activity", "walk", "-o", out + "/walk.csv")
        XCTAssertEqual(w.status, 0, w.stderr)
        let walk = try rows(out + "/walk.csv")
        XCTAssertNotEqual(walk, recorded)
        XCTAssertGreaterThan(Set(walk.map { $0[9] }).count, 2, "a walk's jump limit resets the line again and again")

        for (args, needle) in [
            (["--activity", "walk"], "'--activity' applies to --refilter"),
            (["--refilter", "--activity", "skate"], "'--activity <activity>'"),
            (["--refilter", "--raw"], "do not go together"),
            (["--raw", "--to", "kml"], "'--raw' applies to gpx and csv")
        ] {
            var argv = ["convert", dir]
            if !args.contains("--to") { argv += ["--to", "csv"] }
            let r = try Harness.run(Harness.cairn, argv + args + ["-o", out + "/bad"])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/bad"))
        }
    }

    func testRawExportHasEveryFixWithItsVerdict() throws {
        let dir = try logs()
        let out = Harness.tempDir()
        let r = try Harness.cairn("convert", dir, "--to", "csv", "--raw", "-o", out + "/raw.csv")
        XCTAssertEqual(r.status, 0, r.stderr)
        let header = try String(contentsOfFile: out + "/raw.csv", encoding: .utf8).split(separator: "\n")[0]
        XCTAssertEqual(header, "time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board,verdict")
        let raw = try rows(out + "/raw.csv")
        let recorded = try Harness.trips(dir)[0]["points"] as? Int ?? -1
        XCTAssertEqual(raw.filter { $0[12] == "kept" }.count, recorded, "kept exactly the recorded points")
        XCTAssertGreaterThan(raw.count, 300, "a fix a second for six minutes, kept or not")
        XCTAssertTrue(raw.contains { $0[12] == "standing" })
        XCTAssertTrue(raw.contains { $0[12] == "too_close" })
        XCTAssertFalse(raw.contains { $0[12].isEmpty })
        let g = try Harness.cairn("convert", dir, "--to", "gpx", "--raw", "-o", out + "/raw.gpx")
        XCTAssertEqual(g.status, 0, g.stderr)
        XCTAssertEqual(try Harness.checkExport("gpx", out + "/raw.gpx")["points"] as? Int, raw.count)
        let text = try String(contentsOfFile: out + "/raw.gpx", encoding: .utf8)
        XCTAssertEqual(Harness.count("<cairn:verdict>kept</cairn:verdict>", in: text), recorded)
    }

    func testWhyTellsTheTripsDecisions() throws {
        let dir = try logs()
        let t = try Harness.cairn("info", "--why", dir)
        XCTAssertEqual(t.status, 0, t.stderr)
        XCTAssertTrue(t.stdout.contains("recorder started"), t.stdout)
        XCTAssertTrue(t.stdout.contains("trip started: its first point"), t.stdout)
        XCTAssertTrue(t.stdout.contains("new segment: pause"), t.stdout)
        XCTAssertTrue(t.stdout.contains("gpsd was lost"), t.stdout)
        XCTAssertTrue(t.stdout.contains("dropped: standing"), t.stdout)
        XCTAssertTrue(t.stdout.contains("trip ended: the recorder stopped"), t.stdout)
        let j = try Harness.cairn("info", "--why", "--json", dir)
        XCTAssertEqual(j.status, 0, j.stderr)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let events = try XCTUnwrap(o["events"] as? [[String: Any]])
        XCTAssertEqual(events.first?["event"] as? String, "recorder_started")
        XCTAssertEqual(events.last?["event"] as? String, "ended")
        XCTAssertEqual(events.filter { $0["event"] as? String == "segment" }.map { $0["reason"] as? String }, ["pause"])
        let csv = Harness.tempDir() + "/raw.csv"
        XCTAssertEqual(try Harness.cairn("convert", dir, "--to", "csv", "--raw", "-o", csv).status, 0)
        let dropped = events.filter { $0["event"] as? String == "dropped" }.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }
        XCTAssertEqual(dropped, try rows(csv).filter { $0[12] != "kept" }.count, "every dropped fix is in one run")
    }

    func testALogRecordedWithRawOffSaysItCannotBeRefiltered() throws {
        let rec = try Harness.record("haicom-305N.log", extra: ["--raw", "off"])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: rec.dir).filter { $0.hasSuffix(".cairn") }.sorted().first)
        for args in [["convert", rec.dir, "--to", "gpx", "--refilter"], ["convert", rec.dir, "--to", "csv", "--raw"], ["info", "--why", rec.dir]] {
            let r = try Harness.run(Harness.cairn, args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(rec.dir + "/" + file), r.stderr)
            XCTAssertTrue(r.stderr.contains("no raw fixes") && r.stderr.contains("--raw off"), r.stderr)
        }
        // The recording itself is as before: it converts.
        XCTAssertEqual(try Harness.cairn("convert", rec.dir, "--to", "gpx", "-o", Harness.tempDir() + "/a.gpx").status, 0)
        let bad = try Harness.cairn("record", "--raw", "maybe", "--check")
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("'--raw <on|off>'"), bad.stderr)
        let conf = Harness.tempDir() + "/cairn.conf"
        try "sync = 2\nraw = sometimes\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let fromFile = try Harness.cairn("record", "--config", conf, "--check")
        XCTAssertEqual(fromFile.status, 64, fromFile.stderr)
        XCTAssertTrue(fromFile.stderr.contains("\(conf):2: The value 'sometimes' is invalid for '--raw <on|off>'"), fromFile.stderr)
        try "raw = off\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let off = try Harness.cairn("record", "--config", conf, "--check")
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertTrue(off.stdout.contains("raw = off"), off.stdout)
    }

    /// `convert --smooth` learns from the fixes the rules thinned out where the log holds them
    /// (the Edge 810's road ride: 1,679 points kept, 2,961 fixes thinned): the same points come out,
    /// moved otherwise than from the points alone; a re-filtered trip's new verdicts are used
    /// alike (the same file as from the recorded ones); a log recorded with `--raw off` says it
    /// was smoothed from its points alone.
    func testSmoothingLearnsFromTheRawFixes() throws {
        let real = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/real/edge810.nmea").path
        let on = try Harness.record(real)
        XCTAssertEqual(on.status, 0, on.stderr)
        let off = try Harness.record(real, extra: ["--raw", "off"])
        XCTAssertEqual(off.status, 0, off.stderr)
        let out = Harness.tempDir()
        func smooth(_ dir: String, _ name: String, _ more: [String] = []) throws -> (rows: [[String]], stderr: String) {
            let r = try Harness.run(Harness.cairn, ["convert", dir, "--to", "csv", "--smooth", "-o", out + "/" + name] + more)
            XCTAssertEqual(r.status, 0, r.stderr)
            return (try rows(out + "/" + name), r.stderr)
        }
        let withRaw = try smooth(on.dir, "on.csv")
        XCTAssertFalse(withRaw.stderr.contains("no raw fixes"), withRaw.stderr)
        let alone = try smooth(off.dir, "off.csv")
        XCTAssertTrue(alone.stderr.contains("trip 1: no raw fixes") && alone.stderr.contains("'record --raw off'"), alone.stderr)
        XCTAssertTrue(alone.stderr.contains("smoothed from its points alone"), alone.stderr)
        let recorded = try Harness.trips(on.dir).reduce(0) { $0 + ($1["points"] as? Int ?? 0) }
        XCTAssertEqual(withRaw.rows.count, recorded, "every point, and only the points")
        XCTAssertTrue(withRaw.rows.allSatisfy { $0.last == "smoothed" })
        // Where both recordings kept a point at the same time, the thinned fixes moved it otherwise.
        let aloneAt = Dictionary(alone.rows.map { ($0[0], ($0[1], $0[2])) }, uniquingKeysWith: { a, _ in a })
        let common = withRaw.rows.filter { aloneAt[$0[0]] != nil }
        XCTAssertGreaterThan(common.count, recorded / 2)
        let moved = common.filter { aloneAt[$0[0]]! != ($0[1], $0[2]) }
        XCTAssertGreaterThan(moved.count, common.count / 2, "the raw fixes changed the estimate")
        // The device's own total (Tests/Fixtures/real/SOURCES.md): 41.34 km.
        let geo = try Harness.cairn("convert", on.dir, "--to", "geojson", "--smooth", "-o", out + "/s.geojson")
        XCTAssertEqual(geo.status, 0, geo.stderr)
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/s.geojson"))) as? [String: Any]
        let feature = (j?["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any]
        let km = (feature?["distance_m"] as? Double ?? 0) / 1000
        XCTAssertEqual(km, 41.34, accuracy: 41.34 * 0.005, "smoothed length against the Edge 810's own")
        XCTAssertEqual(feature?["smoothed"] as? Bool, true)
        let refiltered = try smooth(on.dir, "refilter.csv", ["--refilter"])
        XCTAssertEqual(refiltered.rows, withRaw.rows, refiltered.stderr)
        XCTAssertFalse(refiltered.stderr.contains("no raw fixes"), refiltered.stderr)
    }

    /// A log whose raw fixes records are all damaged (one byte of each flipped: the CRC fails)
    /// says so when smoothed from its points alone, as `--refilter` does: not "recorded with
    /// --raw off", which it was not.
    func testSmoothingWithTheRawFixesDamagedSaysWhereTheyWent() throws {
        let dir = Harness.tempDir() + "/damaged"
        XCTAssertEqual(mkdir(dir, 0o755), 0)
        var damaged = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: try logs()) where name.hasSuffix(".cairn") {
            var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try logs() + "/" + name)))
            // LOG_FORMAT.md section 3: after the header, frames of CRC, u16 length, type, payload.
            var p = Int(b[10]) | Int(b[11]) << 8
            while p + 7 <= b.count, b[p + 6] != 0 {
                let n = Int(b[p + 4]) | Int(b[p + 5]) << 8
                if b[p + 6] == 8 && n > 2 {
                    b[p + 7 + n / 2] ^= 0xFF
                    damaged += 1
                }
                p += 7 + n
            }
            try Data(b).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        XCTAssertGreaterThan(damaged, 0)
        let r = try Harness.cairn("convert", dir, "--to", "csv", "--smooth", "-o", dir + "/out.csv")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("no raw fixes") && r.stderr.contains("lost in the \(damaged) damaged records"), r.stderr)
        XCTAssertTrue(r.stderr.contains("smoothed from its points alone"), r.stderr)
    }

    /// CRC-valid hostile raw fixes records (Tests/crash/hostile-raw.py: absurd counts and lags,
    /// every verdict code, truncated bodies, records before the trip start and in a part file)
    /// against every read-side command that reads them: no signal, files untouched.
    func testHostileRawFixesRecordsNeverCrashTheReaders() throws {
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/crash/hostile-raw.py").path,
                Harness.repoRoot.path, Harness.cairn, "12"
            ], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("\"files\": 12"), r.stdout)
    }
}

import XCTest
import Foundation

/// `cairn convert` end to end: trips recorded by the real binary from a private gpsd, converted to
/// every format by the CLI, and each output read by independent readers (Tests/tools/check-export.py:
/// Garmin's FIT SDK and fitdecode, xmllint with the GPX and KML schemas, fastkml, gpsbabel,
/// geojson-validator). A missing reader fails the test: nothing here skips.
final class ConvertEndToEndTests: XCTestCase {
    /// Two trips in one directory, recorded once for the whole class: a 6-minute synthetic ride
    /// (Tests/tools/make-ride.py) with a 150 s stop (a pause: a new segment) and gpsd restarted
    /// halfway (a dropout: the line goes on), and a real
    /// receiver's log from gpsd's regression suite.
    nonisolated(unsafe) static var recorded: (dir: String, trips: [[String: Any]])?

    func logs() throws -> (dir: String, trips: [[String: Any]]) {
        if let r = Self.recorded { return r }
        let work = Harness.tempDir()
        let nmea = work + "/ride.nmea"
        let mk = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path, "0.1", nmea, "--stop", "60:150", "--dropout",
                "290:25"
            ])
        XCTAssertEqual(mk.status, 0, mk.stderr)
        let dir = work + "/logs"
        let a = try Harness.record(nmea, dir: dir, restartAt: [0.5])
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try Harness.record("haicom-305N.log", dir: dir)
        XCTAssertEqual(b.status, 0, b.stderr)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 2)
        Self.recorded = (dir, trips)
        return (dir, trips)
    }

    func check(_ format: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        var args = ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-export.py").path, format, path]
        if format == "gpx" { args += ["--gpx-schema", Harness.gpxSchema] }
        let r = try Harness.run("/usr/bin/env", args)
        XCTAssertEqual(r.status, 0, "\(format) rejected: \(r.stderr)", file: file, line: line)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// `--utc-offset` sets FIT's local_timestamp; a malformed one, or one for another format, is a
    /// usage error naming the option, and nothing is written.
    func testUTCOffsetSetsFITLocalTime() throws {
        let (dir, _) = try logs()
        let out = Harness.tempDir()
        let fit = try Harness.cairn("convert", dir, "--to", "fit", "--utc-offset", "-05:30", "-o", out + "/fit")
        XCTAssertEqual(fit.status, 0, fit.stderr)
        for f in try FileManager.default.contentsOfDirectory(atPath: out + "/fit") {
            XCTAssertEqual(try check("fit", out + "/fit/" + f)["local_offset_s"] as? Int, -19_800, f)
        }
        for (args, needle) in [
            (["--to", "fit", "--utc-offset", "+25:00"], "'--utc-offset <offset>'"),
            (["--to", "fit", "--utc-offset", "CET"], "'--utc-offset <offset>'"),
            (["--to", "gpx", "--utc-offset", "+02:00"], "'--utc-offset' applies to fit")
        ] {
            let r = try Harness.run(Harness.cairn, ["convert", dir] + args + ["-o", out + "/bad"])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/bad"))
        }
    }

    func testEveryFormatIsReadByIndependentReaders() throws {
        let (dir, trips) = try logs()
        let points = trips.reduce(0) { $0 + ($1["points"] as? Int ?? 0) }
        let segments = trips.reduce(0) { $0 + ($1["segments"] as? Int ?? 0) }
        XCTAssertGreaterThan(points, 50)
        XCTAssertEqual(segments, 3, "the 150 s stop is a pause (a new segment); the gpsd restart keeps the line")
        let out = Harness.tempDir()

        let gpx = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out + "/all.gpx")
        XCTAssertEqual(gpx.status, 0, gpx.stderr)
        XCTAssertTrue(gpx.stderr.contains("wrote 2 trips to \(out)/all.gpx"), gpx.stderr)
        let g = try check("gpx", out + "/all.gpx")
        XCTAssertEqual(g["points"] as? Int, points)
        XCTAssertEqual(g["gpsbabel_points"] as? Int, points)
        XCTAssertEqual(g["gpsbabel_segments"] as? Int, segments)
        XCTAssertEqual(g["with_speed"] as? Int, points, "gpsd sends a speed with every fix here")
        XCTAssertEqual(g["creator"] as? String, "cairn " + Harness.version, "no barometer: Strava may replace the heights")
        XCTAssertEqual(g["ogr_points"] as? Int, points, "GDAL reads every point, without a warning")
        XCTAssertEqual(g["ogr_with_speed"] as? Int, points, "GDAL reads the speed as a field of its own")

        let fit = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/fit")
        XCTAssertEqual(fit.status, 0, fit.stderr)
        XCTAssertTrue(fit.stderr.contains("wrote 2 FIT files to \(out)/fit"), fit.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: out + "/fit").sorted()
        XCTAssertEqual(files.count, 2)
        var fitRecords = 0
        for (f, t) in zip(files, trips.sorted { ($0["start"] as? String ?? "") < ($1["start"] as? String ?? "") }) {
            XCTAssertTrue(f.hasSuffix("-trip\(t["id"] as? Int ?? -1).fit"), f)
            let r = try check("fit", out + "/fit/" + f)
            fitRecords += r["record"] as? Int ?? 0
            XCTAssertEqual(r["record"] as? Int, t["points"] as? Int, f)
            XCTAssertEqual(r["timer_starts"] as? Int, t["segments"] as? Int, "a timer start per segment: \(f)")
            XCTAssertEqual(r["session"] as? Int, 1)
            XCTAssertEqual(r["activity"] as? Int, 1)
            let s = r["session_figures"] as? [String: Any] ?? [:]
            XCTAssertEqual(s["sport"] as? String, "cycling")
            XCTAssertEqual(s["total_elapsed_time"] as? Double ?? -1, t["elapsed_s"] as? Double ?? 0, accuracy: 0.06)
            // The same figures as `list --json`, to its last digit: FIT's timer is the moving time;
            // the laps (one per part between pauses) add up to them.
            XCTAssertEqual(r["lap"] as? Int, t["segments"] as? Int, "one lap per pause-separated part: \(f)")
            for (k, figures) in [("session", s), ("laps", r["lap_sums"] as? [String: Any] ?? [:])] {
                XCTAssertEqual(figures["total_timer_time"] as? Double ?? -1, t["moving_time_s"] as? Double ?? 0, accuracy: 0.0005, "\(k): \(f)")
                XCTAssertEqual(figures["total_moving_time"] as? Double ?? -1, t["moving_time_s"] as? Double ?? 0, accuracy: 0.0005, "\(k): \(f)")
                XCTAssertEqual(figures["total_distance"] as? Double ?? -1, t["distance_m"] as? Double ?? 0, accuracy: 0.0005, "\(k): \(f)")
            }
            XCTAssertEqual(
                (r["activity_figures"] as? [String: Any])?["total_timer_time"] as? Double ?? -1, t["moving_time_s"] as? Double ?? 0, accuracy: 0.0005)
            // `info` prints the same figures (its speeds from list's distance, moving time and maximum).
            let info = try Harness.cairn("info", String(t["id"] as? Int ?? 0), "--dir", dir)
            XCTAssertEqual(info.status, 0, info.stderr)
            let moving = t["moving_time_s"] as? Double ?? 0, distance = t["distance_m"] as? Double ?? 0
            let line = info.stdout.split(separator: "\n").first { $0.contains("speed:") }.map(String.init) ?? ""
            let numbers = line.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
            XCTAssertEqual(numbers.count, 2, line)
            // Within the rounding of list's figures (0.1 m, 0.1 s, 0.01 m/s) and info's (0.1 km/h).
            XCTAssertEqual(numbers.first ?? -1, distance / moving * 3.6, accuracy: 0.06, line)
            XCTAssertEqual(numbers.last ?? -1, (t["max_speed_mps"] as? Double ?? 0) * 3.6, accuracy: 0.07, line)
        }
        XCTAssertEqual(fitRecords, points)

        let geo = try Harness.cairn("convert", dir, "--to", "geojson", "-o", out + "/all.geojson")
        XCTAssertEqual(geo.status, 0, geo.stderr)
        let j = try check("geojson", out + "/all.geojson")
        XCTAssertEqual(j["features"] as? Int, 2)
        XCTAssertGreaterThanOrEqual(j["positions"] as? Int ?? 0, points)
        XCTAssertEqual((j["trips"] as? [[String: Any]])?.map { $0["points"] as? Int ?? 0 }, trips.map { $0["points"] as? Int ?? 0 })
        // GDAL: one feature per trip (no one-point segment here), 3-D only where cairn wrote heights.
        XCTAssertEqual(j["ogr_features"] as? Int, 2)
        XCTAssertEqual(j["ogr_3d_geometries"] as? Int, (j["points_3d"] as? Int ?? 0) > 0 ? 1 : 0)
        XCTAssertEqual((j["gpsbabel_points"] as? Int ?? 0) + (j["gpsbabel_waypoints"] as? Int ?? 0), j["positions"] as? Int)

        let kml = try Harness.cairn("convert", dir, "--to", "kml", "-o", out + "/all.kml")
        XCTAssertEqual(kml.status, 0, kml.stderr)
        let k = try check("kml", out + "/all.kml")
        XCTAssertEqual(k["whens"] as? Int, points)
        XCTAssertEqual(k["gpsbabel_points"] as? Int, points)
        XCTAssertEqual(k["gpsbabel_segments"] as? Int, segments)
        XCTAssertEqual(k["ogr_features"] as? Int, 2, "GDAL's LIBKML reads one feature per trip, without a warning")
        XCTAssertEqual(Set((k["ogr_geometries"] as? [String] ?? []).map { $0.split(separator: " ")[0] }), ["MULTILINESTRING"])

        let csv = try Harness.cairn("convert", dir, "--to", "csv", "-o", out + "/all.csv")
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let c = try check("csv", out + "/all.csv")
        XCTAssertEqual(c["rows"] as? Int, points)
        XCTAssertEqual(c["gpsbabel_points"] as? Int, points)
        XCTAssertEqual(c["segments"] as? Int, segments)

        for (format, bands) in [("geojson", "auto"), ("kml", "12,24,36")] {
            let p = out + "/speed." + format
            let r = try Harness.cairn("convert", dir, "--to", format, "--speed-bands", bands, "-o", p)
            XCTAssertEqual(r.status, 0, r.stderr)
            let v = try check(format, p)
            if format == "geojson" { XCTAssertGreaterThan(v["shared_boundaries"] as? Int ?? 0, 0) }
        }
    }

    /// `--smooth` and `--fill-gaps`: every format still passes its readers; smoothing keeps every
    /// point (moved, flagged), filling adds flagged points, the same ones in every format, and
    /// the figures and stderr follow the exported track; the log is not touched.
    func testSmoothAndFillGapsAreFlaggedInEveryFormat() throws {
        let (dir, trips) = try logs()
        let points = trips.reduce(0) { $0 + ($1["points"] as? Int ?? 0) }
        let out = Harness.tempDir()
        let before = try Harness.cairn("list", dir, "--json").stdout

        let smooth = try Harness.cairn("convert", dir, "--to", "gpx", "--smooth", "-o", out + "/smooth.gpx")
        XCTAssertEqual(smooth.status, 0, smooth.stderr)
        let s = try check("gpx", out + "/smooth.gpx")
        XCTAssertEqual(s["points"] as? Int, points)
        XCTAssertEqual((s["src"] as? [String: Int])?["cairn smoothed"], points)
        XCTAssertEqual(s["interpolated"] as? Int, 0)

        let both = try Harness.cairn("convert", dir, "--to", "gpx", "--smooth", "--fill-gaps", "-o", out + "/both.gpx")
        XCTAssertEqual(both.status, 0, both.stderr)
        let g = try check("gpx", out + "/both.gpx")
        let made = g["interpolated"] as? Int ?? -1
        XCTAssertEqual(made, 25, "a point a second across the 25 s dropout while riding (the walk's long steps were only thinned)")
        XCTAssertEqual(g["points"] as? Int, points + made)
        XCTAssertEqual(g["gpsbabel_points"] as? Int, points + made)
        XCTAssertEqual((g["src"] as? [String: Int])?["cairn interpolated"], made)
        XCTAssertEqual((g["src"] as? [String: Int])?["cairn smoothed"], points)
        // stderr names each trip's filling; the counts add up to what the file holds.
        let said = both.stderr.split(separator: "\n").filter { $0.contains("interpolated point") }
        XCTAssertEqual(said.count, trips.count, both.stderr)
        let counted = said.compactMap { line -> Int? in
            guard let r = line.range(of: " with ") else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }.reduce(0, +)
        XCTAssertEqual(counted, made, both.stderr)
        XCTAssertTrue(said.allSatisfy { $0.contains("exported length") && $0.contains("recorded") }, both.stderr)

        let csv = try Harness.cairn("convert", dir, "--to", "csv", "--smooth", "--fill-gaps", "-o", out + "/both.csv")
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let c = try check("csv", out + "/both.csv")
        XCTAssertEqual(c["gpsbabel_points"] as? Int, points + made)
        XCTAssertEqual((c["origins"] as? [String: Int])?["interpolated"] ?? 0, made)
        XCTAssertEqual((c["origins"] as? [String: Int])?["smoothed"], points)

        let geo = try Harness.cairn("convert", dir, "--to", "geojson", "--fill-gaps", "-o", out + "/fill.geojson")
        XCTAssertEqual(geo.status, 0, geo.stderr)
        let j = try check("geojson", out + "/fill.geojson")
        XCTAssertEqual(j["interpolated"] as? Int, made, "the same gaps, unsmoothed: as many points")
        let figures = j["trips"] as? [[String: Any]] ?? []
        XCTAssertEqual(figures.map { $0["interpolated_points"] as? Int ?? -1 }.reduce(0, +), j["interpolated"] as? Int ?? 0)
        XCTAssertEqual(figures.map { $0["points"] as? Int ?? 0 }.reduce(0, +), j["positions"] as? Int)

        let fit = try Harness.cairn("convert", dir, "--to", "fit", "--smooth", "--fill-gaps", "-o", out + "/fit")
        XCTAssertEqual(fit.status, 0, fit.stderr)
        var records = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: out + "/fit") {
            let r = try check("fit", out + "/fit/" + f)
            records += r["record"] as? Int ?? 0
        }
        XCTAssertEqual(records, points + made)
        let kml = try Harness.cairn("convert", dir, "--to", "kml", "--smooth", "--fill-gaps", "-o", out + "/both.kml")
        XCTAssertEqual(kml.status, 0, kml.stderr)
        XCTAssertEqual(try check("kml", out + "/both.kml")["whens"] as? Int, points + made)

        XCTAssertEqual(try Harness.cairn("list", dir, "--json").stdout, before, "the log is read, never changed")
        for (args, needle) in [
            (["--smooth=yes"], "The flag '--smooth' takes no value"),
            (["--fill-gap"], "Unknown option '--fill-gap'. Did you mean '--fill-gaps'?")
        ] {
            let r = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx"] + args + ["-o", out + "/bad.gpx"])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/bad.gpx"))
        }
    }

    func testStdoutTripSelectionAndForce() throws {
        let (dir, trips) = try logs()
        let out = Harness.tempDir()
        let id = String(trips[1]["id"] as? Int ?? 0)
        let want = trips[1]["points"] as? Int ?? -1

        // -o - (the default) writes to standard output, the same bytes as a file.
        for format in ["gpx", "geojson", "kml", "csv"] {
            let s = try Harness.cairn("convert", dir, "--to", format, "--trip", id, "-o", "-")
            XCTAssertEqual(s.status, 0, s.stderr)
            let f = try Harness.cairn("convert", dir, "--to", format, "--trip", id, "-o", out + "/one." + format)
            XCTAssertEqual(f.status, 0, f.stderr)
            XCTAssertEqual(s.stdout, try String(contentsOfFile: out + "/one." + format, encoding: .utf8), format)
            XCTAssertEqual((try Harness.cairn("convert", dir, "--to", format, "--trip", id)).stdout, s.stdout, "stdout is the default")
        }
        let one = try check("gpx", out + "/one.gpx")
        XCTAssertEqual(one["points"] as? Int, want)
        XCTAssertEqual(one["tracks"] as? Int, 1)

        // Never over an existing file without --force; the file is left as it was.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: out + "/keep.csv"))
        let refused = try Harness.cairn("convert", dir, "--to", "csv", "-o", out + "/keep.csv")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("\(out)/keep.csv: already exists (use --force to replace it)"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: out + "/keep.csv", encoding: .utf8), "keep")
        let forced = try Harness.cairn("convert", dir, "--to", "csv", "-o", out + "/keep.csv", "--force")
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(try String(contentsOfFile: out + "/keep.csv", encoding: .utf8).hasPrefix("time,lat,lon"))

        // FIT: a directory, created if missing; a single .fit file for one trip; never stdout.
        let fitDir = out + "/fit"
        XCTAssertEqual(try Harness.cairn("convert", dir, "--to", "fit", "-o", fitDir, "--trip", id).status, 0)
        let name = try FileManager.default.contentsOfDirectory(atPath: fitDir)
        XCTAssertEqual(name.count, 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: fitDir + "/" + name[0]))
        let again = try Harness.cairn("convert", dir, "--to", "fit", "-o", fitDir)
        XCTAssertEqual(again.status, 1, "one of the two files exists")
        XCTAssertTrue(again.stderr.contains("\(fitDir)/\(name[0]): already exists (use --force to replace it)"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: fitDir + "/" + name[0])), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fitDir).count, 2, "the other trip is still written")
        XCTAssertEqual(try Harness.cairn("convert", dir, "--to", "fit", "-o", fitDir, "--force").status, 0)
        let single = try Harness.cairn("convert", dir, "--to", "fit", "--trip", id, "-o", out + "/ride.fit")
        XCTAssertEqual(single.status, 0, single.stderr)
        XCTAssertEqual(try check("fit", out + "/ride.fit")["record"] as? Int, want)
        let two = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/both.fit")
        XCTAssertEqual(two.status, 1)
        XCTAssertTrue(two.stderr.contains("-o \(out)/both.fit: one FIT file holds one trip, and 2 are selected"), two.stderr)
        try Data("x".utf8).write(to: URL(fileURLWithPath: out + "/plain"))
        let notDir = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/plain")
        XCTAssertEqual(notDir.status, 1)
        XCTAssertTrue(notDir.stderr.contains("-o \(out)/plain: not a directory"), notDir.stderr)
    }

    func testUsageErrorsNameTheOption() throws {
        let (dir, _) = try logs()
        let cases: [([String], String)] = [
            (["convert", dir, "--to", "shp"], "The value 'shp' is invalid for '--to <format>': use one of gpx, fit, geojson, kml, csv"),
            (["convert", dir, "--to", "fit"], "--to fit writes one file per trip: give a directory with '-o <dir>'"),
            (["convert", dir, "--to", "fit", "-o", "-"], "--to fit cannot write to standard output"),
            (["convert", dir, "--to", "gpx", "--speed-bands", "auto"], "'--speed-bands' applies to geojson and kml, not gpx"),
            (["convert", dir, "--to", "kml", "--speed-bands", "20,10"], "--speed-bands: limits must increase (20 then 10)"),
            (["convert", dir, "--to", "geojson", "--speed-bands", "fast"], "--speed-bands: 'fast' is not a positive speed in km/h"),
            (["convert", dir, "--to", "gpx", "--trip", "x"], "The value 'x' is invalid for '--trip <id>'"),
            (["convert", dir], "Missing expected option '--to <format>'"),
            // An empty -o wrote the whole conversion into `..part` and then failed to rename it.
            (["convert", dir, "--to", "gpx", "-o", ""], "The value '' is invalid for '-o, --output <path>'"),
            (["convert", dir, "--to", "fit", "-o", ""], "The value '' is invalid for '-o, --output <path>'")
        ]
        for (args, message) in cases {
            let r = try Harness.run(Harness.cairn, args)
            XCTAssertEqual(r.status, 64, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("Usage: cairn convert"), r.stderr)
        }
        let missing = try Harness.cairn("convert", dir, "--to", "gpx", "--trip", "999")
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("--trip 999: no such trip"), missing.stderr)
        let nothing = try Harness.cairn("convert", dir + "/nope", "--to", "csv")
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("\(dir)/nope: no such file or directory"), nothing.stderr)
        let help = try Harness.cairn("convert", "--help")
        XCTAssertEqual(help.status, 0)
        for word in ["gpx", "fit", "geojson", "kml", "csv", "--speed-bands", "--force", "--trip"] {
            XCTAssertTrue(help.stdout.contains(word), "help lacks \(word)")
        }
    }

    func testTornTripConvertsWhatIsIntactAndSaysSo() throws {
        let (_, trips) = try logs()
        // A copy of the ride's file with its tail cut mid-frame, as a power cut leaves it.
        let file = trips[0]["file"] as? String ?? ""
        let copy = Harness.tempDir()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes = bytes.prefix(bytes.count - 37)
        try bytes.write(to: URL(fileURLWithPath: copy + "/" + URL(fileURLWithPath: file).lastPathComponent))
        let listed = try Harness.trips(copy)
        XCTAssertEqual(listed.first?["status"] as? String, "recovered")
        let kept = listed.first?["points"] as? Int ?? 0
        XCTAssertGreaterThan(kept, 0)
        XCTAssertLessThanOrEqual(kept, trips[0]["points"] as? Int ?? 0)
        let out = Harness.tempDir()
        for format in ["gpx", "fit"] {
            let r = try Harness.cairn("convert", copy, "--to", format, "-o", out + "/torn" + (format == "fit" ? "" : ".gpx"))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("recovered from a damaged or interrupted log; converted what is intact (\(kept) points)"), r.stderr)
        }
        XCTAssertEqual(try check("gpx", out + "/torn.gpx")["points"] as? Int, kept)
        let fits = try FileManager.default.contentsOfDirectory(atPath: out + "/torn")
        XCTAssertEqual(try check("fit", out + "/torn/" + fits[0])["record"] as? Int, kept)
    }
}

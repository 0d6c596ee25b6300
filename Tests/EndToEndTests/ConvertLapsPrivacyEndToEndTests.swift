import XCTest
import Foundation

/// `convert --laps`, `--privacy-zone` and `--config` end to end, on the rides ConvertEndToEndTests
/// records (a synthetic ride with a pause and a gpsd restart, and a real receiver's log), each
/// FIT and GPX checked by Tests/tools/check-strava.py against Strava's upload rules.
extension ConvertEndToEndTests {
    @discardableResult
    func strava(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try Harness.run("/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-strava.py").path] + args)
        XCTAssertEqual(r.status, 0, "check-strava \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    func fitFiles(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".fit") }.sorted().map { dir + "/" + $0 }
    }

    func testLapsPassStravasRulesAndKeepTheirIds() throws {
        let (dir, trips) = try logs()
        let out = Harness.tempDir()
        for laps in ["pause", "1km", "1mi", "none"] {
            for run in ["a", "b"] {
                let r = try Harness.cairn("convert", dir, "--to", "fit", "--laps", laps, "-o", "\(out)/\(laps)-\(run)")
                XCTAssertEqual(r.status, 0, r.stderr)
            }
            let gpx = try Harness.cairn("convert", dir, "--to", "gpx", "--laps", laps, "-o", "\(out)/\(laps).gpx")
            XCTAssertEqual(gpx.status, 0, gpx.stderr)
            var lapCount = 0
            for (a, b) in zip(try fitFiles("\(out)/\(laps)-a"), try fitFiles("\(out)/\(laps)-b")) {
                let r = try strava("fit", a, "--same-id", b)
                lapCount += r["laps"] as? Int ?? 0
                XCTAssertEqual(
                    try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)),
                    "\(laps): converted twice, the same file")
                // One trip per GPX here: check each FIT against a GPX of its own trip.
                let id = a.split(separator: "-").last.map { String($0.dropFirst(4).dropLast(4)) } ?? ""
                let one = "\(out)/\(laps)-\(id).gpx"
                XCTAssertEqual(try Harness.cairn("convert", dir, "--to", "gpx", "--laps", laps, "--trip", id, "-o", one).status, 0)
                try strava("gpx", one, "--fit", a)
            }
            let g = try strava("gpx", "\(out)/\(laps).gpx")
            XCTAssertEqual(g["points"] as? Int, trips.reduce(0) { $0 + ($1["points"] as? Int ?? 0) })
            switch laps {
            case "pause": XCTAssertEqual(lapCount, trips.reduce(0) { $0 + ($1["segments"] as? Int ?? 0) }, "a lap per part between pauses")
            case "none": XCTAssertEqual(lapCount, trips.count)
            default:
                let km = trips.reduce(0.0) { $0 + (($1["distance_m"] as? Double ?? 0) / (laps == "1km" ? 1000 : 1609.344)).rounded(.up) }
                XCTAssertEqual(Double(lapCount), km, "\(laps): a lap per mark passed, and the rest")
            }
            XCTAssertEqual(g["laps"] as? Int, laps == "none" ? 0 : lapCount)
        }
        // CSV: the lap column with laps, none without.
        let csv = try Harness.cairn("convert", dir, "--to", "csv", "--laps", "1km")
        XCTAssertTrue(
            csv.stdout.hasPrefix("time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board,lap\n"), csv.stdout.prefix(100).description)
        XCTAssertTrue(
            try Harness.cairn("convert", dir, "--to", "csv", "--laps", "none").stdout.hasPrefix(
                "time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board\n"))
    }

    /// A zone around the start of the synthetic ride (also where it ends: the ride comes back):
    /// the points in its cut are left out of every format, the figures count the rest, and the
    /// log is untouched. A config file's privacy-zone lines do the same.
    func testPrivacyZonesTrimTheStartAndTheEnd() throws {
        // A ride of its own over some kilometres (24 minutes): the shared one (1.6 km) is about
        // as long as a keyed cut reaches past a zone now, at each end.
        let work = Harness.tempDir()
        let mk = try Harness.run(
            "/usr/bin/env",
            ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path, "0.4", work + "/ride.nmea", "--seed", "7"])
        XCTAssertEqual(mk.status, 0, mk.stderr)
        let dir = work + "/logs"
        XCTAssertEqual(try Harness.record(work + "/ride.nmea", dir: dir).status, 0)
        let trips = try Harness.trips(dir)
        let out = Harness.tempDir()
        let t = trips.max { ($0["points"] as? Int ?? 0) < ($1["points"] as? Int ?? 0) }!
        let id = String(t["id"] as? Int ?? 0)
        let rows = try Harness.cairn("convert", dir, "--to", "csv", "--trip", id).stdout.split(separator: "\n").dropFirst()
        let first = rows.first!.split(separator: ",")
        // 30 m: the cut reaches 4-7 times the radius class (at least 100 m) from a keyed square's
        // centre, and this ride is short (make-ride.py 0.1); a 150 m zone now hides most of it.
        let zone = "\(first[1]),\(first[2]),30"
        func logFiles() throws -> [Data] {
            try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".cairn") }.sorted()
                .map { try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0)) }
        }
        let logsBefore = try logFiles()
        // The board's key, as export keeps it: convert is pointed at it, so both cut the same.
        let key = ["--privacy-key", try Self.keyLeavingSome(dir, id: id, zone: zone)]

        let fit = try Harness.cairn(
            "convert", dir, "--trip", id, "--to", "fit", "--privacy-zone", zone, "--laps", "1km", "-o", out + "/z.fit", key[0], key[1])
        XCTAssertEqual(fit.status, 0, fit.stderr)
        XCTAssertTrue(fit.stderr.contains("trip \(id): privacy zones: left out "), fit.stderr)
        XCTAssertFalse(fit.stderr.contains("made a new privacy key"), fit.stderr)
        let r = try strava("fit", out + "/z.fit")
        let kept = r["records"] as? Int ?? 0
        XCTAssertLessThan(kept, t["points"] as? Int ?? 0)
        XCTAssertGreaterThan(kept, (t["points"] as? Int ?? 0) / 2)
        let session = r["session"] as? [String: Any] ?? [:]
        XCTAssertLessThan(
            session["total_distance"] as? Double ?? .infinity, (t["distance_m"] as? Double ?? 0) - 100, "the left-out runs add no distance")
        // Every format keeps the same points; the first written is outside the zone.
        let csv = try Harness.cairn("convert", dir, "--trip", id, "--to", "csv", "--privacy-zone", zone, key[0], key[1])
        let keptRows = csv.stdout.split(separator: "\n").dropFirst()
        XCTAssertEqual(keptRows.count, kept)
        XCTAssertNotEqual(keptRows.first, rows.first)
        let gpx = try Harness.cairn(
            "convert", dir, "--trip", id, "--to", "gpx", "--privacy-zone", zone, "--laps", "1km", "-o", out + "/z.gpx", key[0], key[1])
        XCTAssertEqual(gpx.status, 0, gpx.stderr)
        try strava("gpx", out + "/z.gpx", "--fit", out + "/z.fit")
        let geo = try Harness.cairn("convert", dir, "--trip", id, "--to", "geojson", "--privacy-zone", zone, "-o", out + "/z.geojson", key[0], key[1])
        XCTAssertEqual(geo.status, 0, geo.stderr)
        let j = try checkExportJSON("geojson", out + "/z.geojson")
        XCTAssertEqual((j["trips"] as? [[String: Any]])?.first?["points"] as? Int, kept, "GeoJSON's figures count what it holds")

        // The recorder's config file: its privacy-zone lines (either spelling), its other keys checked and ignored.
        let conf = out + "/cairn.conf"
        try "gpsd = 127.0.0.1:2947\nactivity = ride\nprivacy_zone = \(zone)\nprivacy-zone = -33.9,151.2,300\n".write(
            toFile: conf, atomically: true, encoding: .utf8)
        let viaConfig = try Harness.cairn("convert", dir, "--trip", id, "--to", "csv", "--config", conf, key[0], key[1])
        XCTAssertEqual(viaConfig.status, 0, viaConfig.stderr)
        XCTAssertEqual(viaConfig.stdout, csv.stdout)
        // The recorder accepts the same file (--check only reads it).
        let check = try Harness.cairn("record", "--config", conf, "--check", "--dir", out + "/rec")
        XCTAssertEqual(check.status, 0, check.stderr)

        // export: the same trimming and laps.
        let dest = out + "/stick"
        let ex = try Harness.cairn(
            "export", "--to", dest, "--dir", dir, "--privacy-zone", zone, "--laps", "1km", "--format", "fit,gpx", key[0], key[1])
        XCTAssertEqual(ex.status, 0, ex.stderr)
        let exported = try fitFiles(dest + "/fit").first { $0.hasSuffix("trip\(id).fit") } ?? ""
        XCTAssertEqual(try strava("fit", exported)["records"] as? Int, kept)

        XCTAssertEqual(try logFiles(), logsBefore, "the logs are untouched")
    }

    /// A fixed key (`PrivacyZoneEndToEndTests.boardKey`) whose cut of `zone` leaves part of this
    /// short ride (make-ride.py's, a few km): the cut is 4 to 8 times the radius class (100 m to
    /// 200 m at least) around a keyed square's centre, and reaches on along the path, so some keys
    /// hide the whole ride. The tests are of what is left out, not of the cut's size.
    static func keyLeavingSome(_ dir: String, id: String, zone: String) throws -> String {
        let keys = Harness.tempDir()
        for i in 0..<40 {
            let key = try PrivacyZoneEndToEndTests.boardKey(keys, name: "key\(i)")
            let c = try Harness.cairn("convert", dir, "--trip", id, "--to", "csv", "--privacy-zone", zone, "--privacy-key", key)
            if c.status == 0 && c.stdout.split(separator: "\n").count > 50 { return key }
        }
        XCTFail("no key of 40 leaves 50 points of trip \(id) outside \(zone)")
        return try PrivacyZoneEndToEndTests.boardKey(keys, name: "key0")
    }

    /// A zone in the middle of a recorded ride (finding 4's rule, and `--raw`, `--smooth`,
    /// `--refilter`): no written fix or point within its radius, the ride split there.
    func testAZoneInTheMiddleIsLeftOutOfEveryExport() throws {
        // A ride of its own, 40 minutes (the shared one is 6): the cut is 4 to 8 times the radius
        // class around a keyed square's centre and reaches on along the path, so a short ride
        // is hidden whole.
        let work = Harness.tempDir()
        let mk = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path, "0.67", work + "/ride.nmea"])
        XCTAssertEqual(mk.status, 0, mk.stderr)
        let dir = work + "/logs"
        XCTAssertEqual(try Harness.record(work + "/ride.nmea", dir: dir).status, 0)
        let id = "1"
        let rows = try Harness.cairn("convert", dir, "--to", "csv", "--trip", id).stdout.split(separator: "\n").dropFirst()
        let mid = Array(rows)[rows.count / 2].split(separator: ",")
        let (lat, lon) = (Double(mid[1])!, Double(mid[2])!)
        let key = try Self.keyLeavingSome(dir, id: id, zone: "\(lat),\(lon),100")
        for opts in [["--raw"], ["--smooth"], ["--refilter", "--smooth", "--fill-gaps"], []] {
            let c = try Harness.run(
                Harness.cairn, ["convert", dir, "--trip", id, "--to", "csv", "--privacy-zone", "\(lat),\(lon),100", "--privacy-key", key] + opts)
            XCTAssertEqual(c.status, 0, "\(opts): \(c.stderr)")
            XCTAssertTrue(c.stderr.contains(" in 1 stretch"), "\(opts): \(c.stderr)")
            var nearest = Double.infinity
            for r in c.stdout.split(separator: "\n").dropFirst() {
                let f = r.split(separator: ",")
                let dLat = (Double(f[1])! - lat) * 111_195, dLon = (Double(f[2])! - lon) * 111_195 * cos(lat * .pi / 180)
                nearest = min(nearest, (dLat * dLat + dLon * dLon).squareRoot())
            }
            XCTAssertGreaterThan(nearest, 100, "\(opts)")
        }
        let gpx = try Harness.cairn("convert", dir, "--trip", id, "--to", "gpx", "--raw", "--privacy-zone", "\(lat),\(lon),100", "--privacy-key", key)
        let plain = try Harness.cairn("convert", dir, "--trip", id, "--to", "gpx", "--raw")
        XCTAssertEqual(
            gpx.stdout.components(separatedBy: "<trkseg>").count, plain.stdout.components(separatedBy: "<trkseg>").count + 1,
            "split at the zone: no line through it")
    }

    func checkExportJSON(_ format: String, _ path: String) throws -> [String: Any] { try check(format, path) }

    /// A 10 m zone around the door is taken, and said: what it hides (far more than 10 m) and
    /// where it was given, the option or the config file's line.
    func testASmallZoneIsUsedAndSaid() throws {
        let (dir, _) = try logs()
        let out = Harness.tempDir()
        let key = try PrivacyZoneEndToEndTests.boardKey(out)
        let conf = out + "/cairn.conf"
        try "activity = ride\nprivacy-zone = 10,10,300\nprivacy-zone = 47.1,8.5,10\n".write(toFile: conf, atomically: true, encoding: .utf8)
        for (args, said) in [
            (["--privacy-zone", "47.1,8.5,10"], "cairn: note: --privacy-zone 47.1,8.5,10: a radius of 10 m is used"),
            (["--config", conf], "cairn: note: \(conf):3: privacy-zone: a radius of 10 m is used")
        ] {
            let target = out + "/\(args[0].dropFirst(2)).gpx"
            let r = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "--privacy-key", key, "-o", target] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains(said) && r.stderr.contains("not a 10 m circle"), r.stderr)
            XCTAssertFalse(r.stderr.contains(":2: privacy-zone: a radius"), "a 300 m zone is not said: \(r.stderr)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: target), r.stderr)
        }
    }

    /// A malformed lap rule or privacy zone, on the command line or in the config file, is a usage
    /// error (64) naming the option or the file and line; nothing is written.
    func testBadLapsAndPrivacyZonesAreUsageErrors() throws {
        let (dir, _) = try logs()
        let out = Harness.tempDir()
        let conf = out + "/bad.conf"
        try "activity = ride\nprivacy-zone = 47.1,8.5\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let unknown = out + "/unknown.conf"
        try "privacy-zones = 47.1,8.5,300\n".write(toFile: unknown, atomically: true, encoding: .utf8)
        for (args, needle) in [
            (["--laps", "3furlongs"], "'--laps <laps>'"),
            (["--laps", "0km"], "'--laps <laps>'"),
            (["--laps", ""], "'--laps <laps>'"),
            (["--privacy-zone", "47.1,8.5"], "'--privacy-zone <lat,lon,radius_m>': expected LAT,LON,RADIUS_M"),
            (["--privacy-zone", "95,8.5,300"], "latitude '95'"),
            (["--privacy-zone", "47,8.5,0"], "radius '0'"),
            (["--privacy-zone", "47,8.5,300", "--privacy-zone", "x,y,z"], "'x,y,z'"),
            (["--config", conf], "\(conf):2: privacy-zone: expected LAT,LON,RADIUS_M"),
            (["--config", unknown], "\(unknown):1: unknown key 'privacy-zones' (did you mean 'privacy-zone'?)")
        ] {
            for format in ["fit", "gpx"] {
                let target = out + "/bad." + format
                let r = try Harness.run(Harness.cairn, ["convert", dir, "--to", format] + args + ["-o", target])
                XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: target), "\(args): nothing written")
            }
        }
        let missing = try Harness.cairn("convert", dir, "--to", "gpx", "--config", out + "/none.conf", "-o", out + "/m.gpx")
        XCTAssertEqual(missing.status, 78, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("\(out)/none.conf: cannot read the config file"), missing.stderr)
        // The recorder names a bad privacy-zone line too (and exits 64 before recording).
        let rec = try Harness.cairn("record", "--config", conf, "--check", "--dir", out + "/rec")
        XCTAssertEqual(rec.status, 64, rec.stderr)
        XCTAssertTrue(rec.stderr.contains("\(conf):2: privacy-zone"), rec.stderr)
        // export: the same errors.
        let ex = try Harness.cairn("export", "--to", out + "/stick", "--dir", dir, "--laps", "fast")
        XCTAssertEqual(ex.status, 64, ex.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/stick"))
    }
}

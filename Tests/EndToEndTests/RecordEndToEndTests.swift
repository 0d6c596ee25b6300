import XCTest
import Foundation

/// The real binary against a private gpsd replaying real receiver logs (gpsd's regression suite).
final class RecordEndToEndTests: XCTestCase {
    /// Converts the recorded trips to GPX and checks it against the official schema and the list.
    func checkGPX(_ dir: String, trips: [[String: Any]], file: StaticString = #filePath, line: UInt = #line) throws {
        let out = Harness.tempDir() + "/ride.gpx"
        let c = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(c.status, 0, c.stderr, file: file, line: line)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: Harness.gpxSchema),
            "GPX schema missing: run Tests/tools/install-deps.sh", file: file, line: line)
        let v = try Harness.run("/usr/bin/xmllint", ["--noout", "--schema", Harness.gpxSchema, out])
        XCTAssertEqual(v.status, 0, "xmllint: \(v.stderr)", file: file, line: line)
        let gpx = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertEqual(Harness.count("<trk>", in: gpx), trips.count, file: file, line: line)
        XCTAssertEqual(Harness.count("<trkpt ", in: gpx), trips.reduce(0) { $0 + ($1["points"] as! Int) }, file: file, line: line)
        XCTAssertEqual(Harness.count("<trkseg>", in: gpx), trips.reduce(0) { $0 + ($1["segments"] as! Int) }, file: file, line: line)
        // Writing over an existing file needs --force.
        let again = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(again.status, 1, file: file, line: line)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr, file: file, line: line)
    }

    /// The times of every point in the GPX of `dir`, one array per trip (`<trk>`).
    func gpxTimes(_ dir: String) throws -> [[Double]] {
        let out = Harness.tempDir() + "/x.gpx"
        let c = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out)
        if try Harness.trips(dir).isEmpty {
            // No trip, no document: exit 1 and nothing written.
            XCTAssertEqual(c.status, 1, c.stderr)
            XCTAssertTrue(c.stderr.contains("nothing written"), c.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            return []
        }
        XCTAssertEqual(c.status, 0, c.stderr)
        guard c.status == 0 else { return [] }
        let gpx = try String(contentsOfFile: out, encoding: .utf8)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return gpx.components(separatedBy: "<trk>").dropFirst().map { trk in
            trk.components(separatedBy: "<trkpt").dropFirst().compactMap { pt -> Double? in
                guard let r = pt.range(of: "<time>") else { return nil }
                var text = String(pt[r.upperBound...].prefix(while: { $0 != "<" }))
                if !text.contains(".") { text = text.replacingOccurrences(of: "Z", with: ".000Z") }
                return iso.date(from: text)!.timeIntervalSince1970
            }
        }
    }

    /// What every recording must satisfy: times only increase within a trip, one point per time,
    /// and every point is one of the fixes gpsd reported that pass the basic gates (nothing
    /// invented).
    func checkInvariants(_ log: String, _ dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let trips = try gpxTimes(dir)
        for trip in trips {
            XCTAssertEqual(trip, trip.sorted(), "\(log): times must increase within a trip", file: file, line: line)
        }
        let times = trips.flatMap { $0 }
        XCTAssertEqual(Set(times).count, times.count, "\(log): one point per time", file: file, line: line)
        let usable = Set(try Oracle.keptPoints(log).map(\.t))
        XCTAssertTrue(times.allSatisfy { usable.contains($0) }, "\(log): a point that gpsd never reported as usable", file: file, line: line)
    }

    func testMovingRideIsRecordedAndConverts() throws {
        let r = try Harness.record("haicom-305N.log")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(r.stopSeconds, 5, "SIGTERM to exit must take under 5 s")
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, r.stderr)
        guard let t = trips.first else { return }
        // 67 distinct fix times; 4 have eph 401 m (HDOP 21), beyond the accuracy gate. The other
        // 63 (eph 21-143 m, i.e. 4-26 m at 68 %) are spaced by the distance filter.
        let usable = try Oracle.keptPoints("haicom-305N.log")
        XCTAssertEqual(usable.count, 63)
        let points = t["points"] as! Int
        XCTAssertGreaterThanOrEqual(points, 3)
        XCTAssertLessThanOrEqual(points, usable.count)
        XCTAssertEqual(t["status"] as? String, "closed")
        // The path through the 37 better fixes (eph up to 78 m, HDOP 4) includes their jitter;
        // through the HDOP 7.5 ones it would be mostly jitter.
        let better = try Oracle.keptPoints("haicom-305N.log", maxEph: 80)
        XCTAssertEqual(better.count, 37)
        XCTAssertEqual(
            t["distance_m"] as! Double, Oracle.distance(better), accuracy: Oracle.distance(better) * 0.25,
            "within a quarter of the path through the better fixes")
        for key in [
            "id", "file", "start", "end", "points", "segments", "distance_m", "moving_time_s", "elapsed_s",
            "ascent_m", "descent_m", "max_speed_mps", "status"
        ] {
            XCTAssertNotNil(t[key], "list --json lacks \(key)")
        }
        XCTAssertTrue((t["start"] as! String).hasSuffix("Z"))
        let dropped = t["dropped"] as? [String: Any] ?? [:]
        XCTAssertEqual(dropped["duplicate"] as? Int ?? 0 > 0, true, "gpsd sends 2 TPVs per time here")
        XCTAssertEqual(dropped["rough"] as? Int, 4, "eph over 271 m (HDOP 14.3: 50 m at 68 %)")
        let v = try Harness.cairn("verify", r.dir)
        XCTAssertEqual(v.status, 0, v.stdout + v.stderr)
        XCTAssertTrue(v.stdout.contains("clean, trip closed"), v.stdout)
        let info = try Harness.cairn("info", t["file"] as! String)
        XCTAssertEqual(info.status, 0)
        XCTAssertTrue(info.stdout.contains("distance:"), info.stdout)
        XCTAssertTrue(info.stdout.contains("rough 4"), info.stdout)
        try checkGPX(r.dir, trips: trips)
        try checkInvariants("haicom-305N.log", r.dir)
    }

    func testManyReportsPerEpochCollapse() throws {
        // Many NMEA talkers: gpsd never learns the cycle end and sends up to 19 TPVs per time.
        let r = try Harness.record("bundg_zeus_9.log")
        XCTAssertEqual(r.status, 0, r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1)
        let usable = try Oracle.keptPoints("bundg_zeus_9.log")
        XCTAssertLessThanOrEqual(trips.first?["points"] as? Int ?? 999, usable.count, "one point per distinct time at most")
        XCTAssertEqual(
            trips.first?["distance_m"] as? Double ?? 0, Oracle.distance(usable), accuracy: Oracle.distance(usable) * 0.1,
            "a 427 m walk")
        try checkGPX(r.dir, trips: trips)
        try checkInvariants("bundg_zeus_9.log", r.dir)
    }

    func testReportsWithoutTimeRecordNothing() throws {
        let r = try Harness.record("sounder.log")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Harness.trips(r.dir).count, 0)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: r.dir)) ?? []
        XCTAssertEqual(files.filter { $0.hasSuffix(".cairn") }, [], "nothing is written while there is no usable fix")
    }

    func testStationaryReceiversRecordNoDistance() throws {
        // A receiver on a table: jitter of a few metres, doppler near zero. Nothing to record.
        for log in ["telit-he910.log", "ublox-neo-m9n-nmea.log"] {
            let r = try Harness.record(log)
            XCTAssertEqual(r.status, 0, r.stderr)
            let trips = try Harness.trips(r.dir)
            let d = trips.reduce(0.0) { $0 + ($1["distance_m"] as? Double ?? 0) }
            XCTAssertLessThan(d, 5, "\(log): a stationary receiver records (almost) no distance")
            if log == "telit-he910.log" {
                let raw = Oracle.distance(try Oracle.keptPoints(log))
                XCTAssertGreaterThan(raw, 8, "keeping every fix would have scribbled \(raw) m")
            }
        }
    }

    func testPathologicalLogsNeverGoBackInTime() throws {
        // bt451: a receiver date bug (a jump of +83278 s, then back a day); humminbird: time
        // back 13 s and 2-D epochs; a cold boot with one usable fix; a 307 s gap at a standstill.
        for log in ["bt451.log", "humminbird-M37.log", "gp-320fw-2019-04-07-coldboot.log", "ublox-lea-4h.log"] {
            let r = try Harness.record(log)
            XCTAssertEqual(r.status, 0, r.stderr)
            let trips = try Harness.trips(r.dir)
            if !trips.isEmpty { try checkGPX(r.dir, trips: trips) }
            try checkInvariants(log, r.dir)
        }
        // One fix in a whole cold boot confirms nothing: no trip.
        let cold = try Harness.record("gp-320fw-2019-04-07-coldboot.log")
        XCTAssertEqual(try Harness.trips(cold.dir).count, 0)
    }

    func testGpsdRestartedMidRideIsOneTripAndOneLine() throws {
        let r = try Harness.record("haicom-305N.log", restartAt: [0.35, 0.7])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.replayOutput.contains("RESTARTED"), r.replayOutput)
        XCTAssertTrue(r.stderr.contains("connection lost"), r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, "a gpsd restart must not split the trip")
        XCTAssertEqual(trips.first?["segments"] as? Int, 1, "a dropout while riding keeps the line")
        try checkGPX(r.dir, trips: trips)
    }

    func testKilledRecorderTripIsResumedByTheNextRun() throws {
        // The first half of a ride, then power is cut (SIGKILL: no trip end); the recorder comes
        // back and the rider moves on: one trip in two files, nothing lost that was synced.
        let text = try String(contentsOfFile: Harness.fixture("haicom-305N.log"), encoding: .isoLatin1)
        let lines = text.components(separatedBy: "\n")
        let tmp = Harness.tempDir()
        let half = lines.count * 7 / 10  // the first usable fixes come 37 s in
        try lines[..<half].joined(separator: "\n").write(toFile: tmp + "/a.log", atomically: true, encoding: .isoLatin1)
        try lines[half...].joined(separator: "\n").write(toFile: tmp + "/b.log", atomically: true, encoding: .isoLatin1)
        let dir = tmp + "/logs"
        let first = try Harness.record(tmp + "/a.log", dir: dir, stopSignal: SIGKILL)
        XCTAssertEqual(first.status, SIGKILL)
        let cut = try Harness.trips(dir)
        XCTAssertEqual(cut.first?["status"] as? String, "open", "no trip end after a power cut")
        let second = try Harness.record(tmp + "/b.log", dir: dir)
        XCTAssertEqual(second.status, 0, second.stderr)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1, "the interrupted trip continues")
        XCTAssertEqual((trips.first?["files"] as? [String])?.count, 2)
        XCTAssertEqual(trips.first?["status"] as? String, "recovered")
        XCTAssertGreaterThan(trips.first?["points"] as? Int ?? 0, cut.first?["points"] as? Int ?? 0)
        XCTAssertEqual(try Harness.cairn("verify", dir).status, 0)
        try checkGPX(dir, trips: trips)
    }

    func testSecondRunStartsANewFileAndNeverOverwrites() throws {
        // Two recorder runs into one directory; the second continues, never overwrites.
        let dir = Harness.tempDir() + "/logs"
        let first = try Harness.record("haicom-305N.log", dir: dir)
        XCTAssertEqual(first.status, 0)
        let before = try Harness.trips(dir)
        let second = try Harness.record("bundg_zeus_9.log", dir: dir)
        XCTAssertEqual(second.status, 0)
        let after = try Harness.trips(dir)
        XCTAssertEqual(after.count, 2, "a closed trip is not resumed: a new trip starts")
        XCTAssertEqual(after.first?["points"] as? Int, before.first?["points"] as? Int, "the first trip is untouched")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(files, [".cairn.lock", "00000001.cairn", "00000002.cairn"], "the log files and the recorder's lock")
    }
}

/// The recorder's behaviour without a useful gpsd, and the CLI's contract.
final class RecorderFaultTests: XCTestCase {
    func testNoGpsdKeepsRetryingAndStopsCleanly() throws {
        // A port nobody listens on.
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &len) } }
        let port = UInt16(bigEndian: addr.sin_port)
        close(sock)

        let dir = Harness.tempDir() + "/logs"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Harness.cairn)
        p.arguments = ["record", "--gpsd", "127.0.0.1:\(port)", "--dir", dir, "--baro", "none"]
        let err = Pipe()
        p.standardError = err
        let lines = Harness.Lines(err.fileHandleForReading)
        try p.run()
        XCTAssertNotNil(lines.wait(prefix: "cairn: cannot connect to gpsd", timeout: 10), lines.text)
        // Three seconds of retries (the back-off itself: RecordLoopTests), ended early by an exit.
        XCTAssertFalse(Harness.waitUntil(timeout: 3) { !p.isRunning }, "must not exit because gpsd is absent")
        let t0 = Date()
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertTrue(lines.text.contains("cannot connect to gpsd"), lines.text)
        XCTAssertEqual(Harness.count("cannot connect", in: lines.text), 1, "the outage is reported once, not every retry")
    }

    /// IPv6 needs brackets to carry a port; without them every colon is the address's. Every
    /// number an option takes is plain decimal: no hex, exponent or sign.
    func testGpsdAddressesAndStrictNumbers() throws {
        for (arg, shown) in [
            ("::1:2947", "[::1:2947]:2947"), ("[::1]:2947", "[::1]:2947"), ("::1", "[::1]:2947"),
            ("[::1]:3000", "[::1]:3000"), ("[::1]", "[::1]:2947"), ("127.0.0.1:3000", "127.0.0.1:3000"),
            ("localhost", "127.0.0.1:2947")
        ] {
            let r = try Harness.cairn("record", "--check", "--gpsd", arg)
            XCTAssertEqual(r.status, 0, "\(arg): \(r.stderr)")
            XCTAssertTrue(r.stdout.hasPrefix("gpsd = \(shown)  (command line)"), "\(arg): \(r.stdout)")
        }
        for arg in ["[::1]:x", "[::1", "[127.0.0.1]:2947", "127.0.0.1:0x10", "127.0.0.1:+80", "[::1]2947"] {
            let r = try Harness.cairn("record", "--check", "--gpsd", arg)
            XCTAssertEqual(r.status, 64, "\(arg): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("'\(arg)' is invalid for '--gpsd"), r.stderr)
        }
        for (option, value) in [
            ("--sync", "0x10"), ("--sync", "1e1"), ("--sync", "+5"), ("--sync", "inf"), ("--sync", " 5"),
            ("--read-every", "1e0"), ("--close-after", "0x1e"), ("--close-after", "30.0"),
            ("--keep-days", "1e3"), ("--max-mb", "0x100"), ("--keep-days", "nan")
        ] {
            let r = try Harness.cairn("record", "--check", option, value)
            XCTAssertEqual(r.status, 64, "\(option) \(value): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("'\(value)' is invalid for '\(option)"), r.stderr)
        }
        let ok = try Harness.cairn("record", "--check", "--sync", "10", "--read-every", "2.5", "--keep-days", "0.5", "--max-mb", "100")
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("sync = 10  (command line)") && ok.stdout.contains("read-every = 2.5  (command line)"), ok.stdout)
        // The message names the address with brackets too.
        let dir = Harness.tempDir()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Harness.cairn)
        p.arguments = ["record", "--gpsd", "[::1]:1", "--dir", dir, "--baro", "none"]
        let err = Pipe()
        p.standardError = err
        let lines = Harness.Lines(err.fileHandleForReading)
        try p.run()
        XCTAssertNotNil(lines.wait(prefix: "cairn: cannot connect to gpsd at [::1]:1", timeout: 10), lines.text)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertTrue(lines.text.contains("from gpsd at [::1]:1 "), lines.text)
    }

    /// `cairn status` never blocks on a FIFO and refuses what is not a regular file; a status
    /// whose recorder is gone, or that is too old, exits 2.
    func testStatusRefusesOtherFilesAndSaysStaleWithItsExitStatus() throws {
        let dir = Harness.tempDir()
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let f = try Harness.run(Harness.cairn, ["status", fifo], timeout: 10)
        XCTAssertEqual(f.status, 1, f.stderr)
        XCTAssertTrue(f.stderr.contains("\(fifo): not a regular file"), f.stderr)
        let d = try Harness.cairn("status", dir)
        XCTAssertEqual(d.status, 1, d.stderr)
        // Fresh, with a live PID (this test's): 0.
        let fresh = dir + "/fresh"
        try "state=recording\npid=\(getpid())\nrefresh_s=5\n".write(toFile: fresh, atomically: true, encoding: .utf8)
        XCTAssertEqual(try Harness.cairn("status", fresh).status, 0)
        // Too old for its refresh interval: 2.
        let old = dir + "/old"
        try "state=recording\npid=\(getpid())\nrefresh_s=5\n".write(toFile: old, atomically: true, encoding: .utf8)
        var times = [timespec(tv_sec: time(nil) - 30, tv_nsec: 0), timespec(tv_sec: time(nil) - 30, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, old, &times, 0), 0)
        let o = try Harness.cairn("status", old)
        XCTAssertEqual(o.status, 2, o.stdout)
        XCTAssertTrue(o.stdout.contains("stale: not updated for"), o.stdout)
        // Its recorder is gone (killed: no final "stopped" write): 2.
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/true")
        try sleeper.run()
        sleeper.waitUntilExit()
        let gone = dir + "/gone"
        try "state=recording\npid=\(sleeper.processIdentifier)\nrefresh_s=5\n".write(toFile: gone, atomically: true, encoding: .utf8)
        let g = try Harness.cairn("status", gone)
        XCTAssertEqual(g.status, 2, g.stdout)
        XCTAssertTrue(g.stdout.contains("is not running"), g.stdout)
    }

    /// An argument that is not UTF-8 would reach open(2) changed (U+FFFD for each bad byte) and
    /// be reported missing: it is refused by name, its bad bytes shown as \\xHH.
    func testArgumentThatIsNotUTF8IsNamedNotReportedMissing() throws {
        let dir = Harness.tempDir()
        let r = try Harness.run(
            "/bin/bash", ["-c", #"mkdir "$1/a$(printf '\377')b" && exec "$0" record --check --dir "$1/a$(printf '\377')b""#, Harness.cairn, dir])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("'\(dir)/a\\xFFb' is not valid UTF-8"), r.stderr)
        XCTAssertFalse(r.stderr.contains("no such file"), r.stderr)
    }

    func testUnwritableDirectoryIsAClearError() throws {
        let r = try Harness.cairn("record", "--dir", "/proc/cairn-cannot-exist", "--baro", "none")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("/proc/cairn-cannot-exist"), r.stderr)
    }

    func testHelpVersionAndUsageErrors() throws {
        let help = try Harness.cairn("--help")
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("SUBCOMMANDS:"))
        for sub in ["record", "list", "info", "convert", "verify"] {
            let h = try Harness.cairn(sub, "--help")
            XCTAssertEqual(h.status, 0, sub)
            XCTAssertTrue(h.stdout.contains("USAGE: cairn \(sub)"), h.stdout)
            let h2 = try Harness.cairn("help", sub)
            XCTAssertEqual(h2.stdout, h.stdout)
        }
        let v = try Harness.cairn("--version")
        XCTAssertEqual(v.status, 0)
        XCTAssertFalse(v.stdout.isEmpty)
        let unknown = try Harness.cairn("record", "--gspd", "127.0.0.1")
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("Unknown option '--gspd'"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("Did you mean '--gpsd'?"), unknown.stderr)
        XCTAssertTrue(unknown.stdout.isEmpty)
        let badSync = try Harness.cairn("record", "--sync", "0")
        XCTAssertEqual(badSync.status, 64)
        XCTAssertTrue(badSync.stderr.contains("--sync"), badSync.stderr)
        let close = try Harness.cairn("record", "--close-after", "2")
        XCTAssertEqual(close.status, 64)
        XCTAssertTrue(close.stderr.contains("--close-after"), close.stderr)
        let host = try Harness.cairn("record", "--gpsd", "gps.example:2947")
        XCTAssertEqual(host.status, 64)
        XCTAssertTrue(host.stderr.contains("numeric address"), host.stderr)
        let missing = try Harness.cairn("convert", "/nonexistent-dir", "--to", "gpx")
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("/nonexistent-dir"), missing.stderr)
        let format = try Harness.cairn("convert", ".", "--to", "shp")
        XCTAssertEqual(format.status, 64)
        XCTAssertTrue(format.stderr.contains("'shp'"), format.stderr)
        let nosub = try Harness.cairn("fly")
        XCTAssertEqual(nosub.status, 64)
    }

    func testHostileFilesAreNamedNotFatal() throws {
        let dir = Harness.tempDir()
        let junk = dir + "/00000001.cairn"
        _ = FileManager.default.createFile(atPath: junk, contents: Data("this is not a log\n".utf8))
        let empty = dir + "/00000002.cairn"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        for args in [["verify", junk], ["list", dir], ["convert", junk, "--to", "gpx"]] {
            let r = try Harness.run(Harness.cairn, args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(".cairn"), "\(args) must name the file: \(r.stderr)")
        }
        // An empty file is one the recorder was creating at a power cut: torn (2), not unreadable.
        let v = try Harness.run(Harness.cairn, ["verify", empty])
        XCTAssertEqual(v.status, 2, v.stdout + v.stderr)
        XCTAssertTrue(v.stdout.contains(empty) && v.stdout.contains("torn"), v.stdout)
    }

    /// Each trip records its zone's UTC offset at its start (`--timezone`, or `timezone` in the
    /// config; default /etc/localtime): `info` shows it and FIT's local time follows it. A zone
    /// that does not exist is a usage error naming the option and its line.
    func testTripsRecordTheirUTCOffset() throws {
        let zurich = try Harness.record("haicom-305N.log", extra: ["--timezone", "Europe/Zurich"])
        XCTAssertEqual(zurich.status, 0, zurich.stderr)
        let trips = try Harness.trips(zurich.dir)
        XCTAssertEqual(trips.count, 1)
        let id = String(trips[0]["id"] as? Int ?? 0)
        // Whatever Zurich's offset was at the replayed ride's start (+01:00 or +02:00), by Foundation's zone code.
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let startText = trips[0]["start"] as? String ?? ""
        let start = try XCTUnwrap(iso.date(from: startText) ?? ISO8601DateFormatter().date(from: startText), startText)
        let expected = try XCTUnwrap(TimeZone(identifier: "Europe/Zurich")).secondsFromGMT(for: start)
        let info = try Harness.cairn("info", id, "--dir", zurich.dir)
        XCTAssertTrue(info.stdout.contains("UTC offset: " + (expected == 3600 ? "+01:00" : "+02:00") + " (recorded)"), info.stdout)
        let out = Harness.tempDir()
        XCTAssertEqual(try Harness.cairn("convert", zurich.dir, "--to", "fit", "-o", out + "/z.fit").status, 0)
        XCTAssertEqual(try Harness.checkExport("fit", out + "/z.fit")["local_offset_s"] as? Int, expected)

        let conf = Harness.tempDir() + "/cairn.conf"
        try "timezone = -05:30\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let fixed = try Harness.record("haicom-305N.log", extra: ["--config", conf])
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        let id2 = String(try Harness.trips(fixed.dir).first?["id"] as? Int ?? 0)
        XCTAssertTrue(try Harness.cairn("info", id2, "--dir", fixed.dir).stdout.contains("UTC offset: -05:30 (recorded)"))
        let check = try Harness.cairn("record", "--check", "--config", conf)
        XCTAssertTrue(check.stdout.contains("timezone = -05:30 (fixed UTC-05:30)  (\(conf):1)"), check.stdout)

        try "timezone = Mars/Olympus_Mons\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let bad = try Harness.cairn("record", "--check", "--config", conf)
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("\(conf):1: The value 'Mars/Olympus_Mons' is invalid for '--timezone"), bad.stderr)
        let dots = try Harness.cairn("record", "--check", "--timezone", "../../etc/passwd")
        XCTAssertEqual(dots.status, 64, dots.stderr)
        let notZone = try Harness.cairn("record", "--check", "--timezone", "/etc/hostname")
        XCTAssertEqual(notZone.status, 64, notZone.stderr)
        XCTAssertTrue(notZone.stderr.contains("/etc/hostname: not a TZif zone file"), notZone.stderr)
    }
}

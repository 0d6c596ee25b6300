import XCTest
import Foundation

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
        // Alone: a short usage on standard output, as rclone and restic print theirs.
        let bare = try Harness.run(Harness.cairn, [])
        XCTAssertEqual(bare.status, 0)
        XCTAssertTrue(bare.stdout.hasPrefix("usage: cairn <subcommand>"), bare.stdout)
        XCTAssertTrue(bare.stderr.isEmpty, bare.stderr)
        // Help is wrapped: 80 columns when it goes to a file or a pipe.
        for sub in ["record", "deliver", "export", "list"] {
            let h = try Harness.cairn(sub, "--help")
            let long = h.stdout.split(separator: "\n").filter { $0.count > 80 }
            XCTAssertEqual(long, [], sub)
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

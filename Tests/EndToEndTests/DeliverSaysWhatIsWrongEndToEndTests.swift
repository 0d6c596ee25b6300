import Foundation
import XCTest

/// Delivery that says what is wrong (issue 42, item 1): a password or key refused fails the
/// unit and is said on every run; a remote that is no rclone remote is refused; `--check`
/// reaches the remote and writes nothing; a config file's bad line is said without the usage.
final class DeliverSaysWhatIsWrongEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func logs() throws -> String {
        let dir = CraftedLog.directory()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x10, startMs: CraftedLog.june1, points: 30, closed: true), dir + "/00000001.cairn")
        return dir
    }

    func testARefusedPasswordFailsEveryRunNotTryLater() throws {
        let dir = try logs()
        let t = Harness.tempDir()
        // A WebDAV server (rclone's own) that refuses the password rclone's config gives.
        let rclone = try XCTUnwrap(
            ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { $0 + "/rclone" }.first {
                fm.isExecutableFile(atPath: $0)
            })
        try fm.createDirectory(atPath: t + "/srv", withIntermediateDirectories: true)
        let log = t + "/serve.log"
        XCTAssertTrue(fm.createFile(atPath: log, contents: nil))
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: rclone)
        serve.arguments = ["serve", "webdav", t + "/srv", "--addr", "127.0.0.1:0", "--user", "u", "--pass", "right", "--config", "/dev/null"]
        serve.standardError = FileHandle(forWritingAtPath: log)
        try serve.run()
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        var url = ""
        for _ in 0..<200 where url.isEmpty {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: "http://127.0.0.1:") { url = "http://127.0.0.1:" + text[r.upperBound...].prefix { $0.isNumber } + "/" }
            usleep(50_000)
        }
        XCTAssertFalse(url.isEmpty, "rclone serve webdav did not start")
        let wrong = try Harness.run(rclone, ["obscure", "wrong"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let conf = t + "/rclone.conf"
        try "[dav]\ntype = webdav\nurl = \(url)\nvendor = other\nuser = u\npass = \(wrong)\n".write(
            toFile: conf, atomically: true, encoding: .utf8)
        for run in 0..<2 {
            let r = try Harness.run(
                Harness.cairn, ["deliver", "--dir", dir, "--remote", "dav:rides", "--rclone-config", conf, "--config", "none", "--retries", "1"])
            XCTAssertEqual(r.status, 1, "run \(run): " + r.stderr)
            XCTAssertTrue(r.stderr.contains("401 Unauthorized") && r.stderr.contains("setup"), "run \(run): " + r.stderr)
        }
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertTrue(status.contains("result = failed\n") && status.contains("failures = 2\n"), status)
        XCTAssertFalse(status.contains("try_later"), "a refused setup is no outage: the LED says failing")
        // With no recorder running (no status file) `cairn status` still says the failing
        // delivery, and --json holds it (attack-r20b: it said nothing); exit 1 as before.
        let noRecorder = t + "/no-status"
        let st = try Harness.run(Harness.cairn, ["status", noRecorder, "--dir", dir])
        XCTAssertEqual(st.status, 1, st.stderr)
        XCTAssertTrue(st.stdout.contains("delivery:") && st.stdout.contains("401 Unauthorized"), st.stdout + st.stderr)
        XCTAssertTrue(st.stderr.contains("\(noRecorder): cannot read"), st.stderr)
        let js = try Harness.run(Harness.cairn, ["status", noRecorder, "--dir", dir, "--json"])
        XCTAssertEqual(js.status, 1, js.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(js.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((obj?["delivery"] as? [String: Any])?["result"] as? String, "failed", js.stdout)
    }

    func testARemoteWithoutAColonIsRefusedUnlessALocalPathIsSaid() throws {
        let dir = try logs()
        let cwd = Harness.tempDir()
        for remote in ["rides", "backup/rides", "./rides"] {
            let r = try Harness.run(Harness.cairn, ["deliver", "--dir", dir, "--remote", remote, "--config", "none"], cwd: cwd)
            XCTAssertEqual(r.status, 64, "\(remote): " + r.stderr)
            XCTAssertTrue(r.stderr.contains("no rclone remote"), "\(remote): " + r.stderr)
            XCTAssertEqual(try fm.contentsOfDirectory(atPath: cwd), [], remote)
        }
        let folder = try Harness.offCardDir() + "/rides"
        for remote in [folder, ":local:" + folder] {
            let r = try Harness.run(Harness.cairn, ["deliver", "--dir", dir, "--remote", remote, "--config", "none", "--format", "gpx"])
            XCTAssertEqual(r.status, 0, "\(remote): " + r.stderr)
        }
        XCTAssertTrue(fm.fileExists(atPath: folder + "/unnamed/logs/00000001-00000010.cairn"))
    }

    func testCheckReachesTheRemoteAndWritesNothing() throws {
        let dir = try logs()
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let before = try fm.contentsOfDirectory(atPath: dir).sorted()
        let r = try Harness.run(
            Harness.cairn,
            ["deliver", "--check", "--dir", dir, "--remote", "loc:" + t + "/remote", "--rclone-config", conf, "--config", "none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("would send: trip 1") && r.stdout.contains("1 trip to send"), r.stdout)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).sorted(), before)
        XCTAssertFalse(fm.fileExists(atPath: t + "/remote"))
        // With --json, one object (attack-r20b: it printed the text).
        let js = try Harness.run(
            Harness.cairn,
            ["deliver", "--check", "--json", "--dir", dir, "--remote", "loc:" + t + "/remote", "--rclone-config", conf, "--config", "none"])
        XCTAssertEqual(js.status, 0, js.stderr)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(js.stdout.utf8)) as? [String: Any], js.stdout)
        XCTAssertEqual(o["check"] as? Bool, true)
        XCTAssertEqual(o["reached"] as? Bool, true)
        XCTAssertEqual(o["would_send"] as? [Int], [1], js.stdout)
        XCTAssertEqual(o["exit_status"] as? Int, 0)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).sorted(), before)
        // A remote rclone does not know is said as for a run.
        let bad = try Harness.run(
            Harness.cairn, ["deliver", "--check", "--dir", dir, "--remote", "nas:rides", "--rclone-config", conf, "--config", "none"])
        XCTAssertEqual(bad.status, 78, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("no remote 'nas'"), bad.stderr)
    }

    func testAConfigFilesBadLineIsSaidWithoutTheUsage() throws {
        let dir = try logs()
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "privacy-zone = 91,8.5,200\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Harness.run(Harness.cairn, ["deliver", "--dir", dir, "--remote", "/tmp/x", "--config", cfg])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(cfg):1: privacy-zone"), r.stderr)
        XCTAssertFalse(r.stderr.contains("Usage:"), r.stderr)
    }

    /// `record --check` shows every setting the file sets for the board, the zones (how many,
    /// never where) and the `[deliver]` section the timer's runs take, each with its line.
    func testRecordCheckShowsTheZonesAndTheDeliverSection() throws {
        let cfg = Harness.tempDir() + "/cairn.conf"
        try """
        dir = /tmp/cairn-check-logs
        privacy-zone = 47.1,8.5,200
        privacy-zone = 47.25,8.61,300
        fuel_l_per_100km = 6.5
        [deliver]
        remote = nas:rides
        format = gpx

        """.write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Harness.run(Harness.cairn, ["record", "--config", cfg, "--check"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for line in [
            "privacy-zone = 2 zones (places not printed)  (\(cfg):2,3)", "fuel_l_per_100km = 6.5  (\(cfg):4)", "[deliver]",
            "remote = nas:rides  (\(cfg):6)", "format = gpx  (\(cfg):7)", "logs = no (privacy zones)  (default)", "retries = 3  (default)",
            "page = yes  (default)"
        ] {
            XCTAssertTrue(r.stdout.contains(line + "\n"), line + " in:\n" + r.stdout)
        }
        XCTAssertFalse(r.stdout.contains("47.1") || r.stdout.contains("8.61"), "no zone's place: " + r.stdout)
        let none = try Harness.run(Harness.cairn, ["record", "--check", "--dir", "/tmp/cairn-check-logs"])
        XCTAssertTrue(none.stdout.contains("privacy-zone = none  (default)\n[deliver]\nremote = none (no delivery)  (default)\n"), none.stdout)
        XCTAssertTrue(none.stdout.contains("logs = yes  (default)"), none.stdout)
        // What `cairn deliver` would refuse, refused here too (attack-r20b: it passed `rides`).
        for (line, says) in [("remote = rides", "it names no rclone remote"), ("format = gpx,png", "--format")] {
            try "dir = /tmp/cairn-check-logs\n[deliver]\nremote = nas:rides\n".replacingOccurrences(
                of: "remote = nas:rides", with: line == "remote = rides" ? line : "remote = nas:rides\n" + line
            )
            .write(toFile: cfg, atomically: true, encoding: .utf8)
            let bad = try Harness.run(Harness.cairn, ["record", "--config", cfg, "--check"])
            XCTAssertEqual(bad.status, 64, line + ": " + bad.stderr)
            XCTAssertTrue(bad.stderr.contains(cfg + ":") && bad.stderr.contains(says), line + ": " + bad.stderr)
            XCTAssertFalse(bad.stderr.contains("Usage:"), bad.stderr)
        }
    }

    /// A `[deliver]` section's unknown key lists the section's keys, not the fuel keys of the
    /// file's top (issue 42).
    func testADeliverSectionsUnknownKeyListsOnlyItsKeys() throws {
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "[deliver]\nremote = nas:rides\nfuel_price = 1.8\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Harness.run(Harness.cairn, ["deliver", "--dir", try logs(), "--config", cfg, "--check"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(cfg):3: unknown key 'fuel_price'"), r.stderr)
        XCTAssertTrue(r.stderr.contains("keys: remote, format, logs,"), r.stderr)
        XCTAssertFalse(r.stderr.contains("fuel_l_per_100km"), r.stderr)
    }

    /// A convert of several trips says where it is on a terminal (through `script`, a pty) and
    /// leaves the line clean; into a pipe it says only what it wrote (issue 42, item 3).
    func testConvertShowsProgressOnATerminalOnly() throws {
        let dir = CraftedLog.directory()
        for n in 1...3 {
            try CraftedLog.write(
                CraftedLog.file(trip: UInt64(n), salt: 0x10, startMs: CraftedLog.june1 + Int64(n) * 3_600_000, points: 30, closed: true),
                dir + "/0000000\(n).cairn")
        }
        let out = Harness.tempDir() + "/all.gpx"
        let piped = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stderr, "cairn: wrote 3 trips to \(out)\n")
        let tty = try Harness.run(
            "/usr/bin/script", ["-qec", "\(Harness.cairn) convert \(dir) --to gpx -o \(out) --force", "/dev/null"])
        XCTAssertEqual(tty.status, 0, tty.stderr)
        XCTAssertTrue(tty.stdout.contains("cairn: converting trip 2 (2 of 3)..."), tty.stdout)
        XCTAssertTrue(tty.stdout.contains("\r\u{1B}[Kcairn: wrote 3 trips to \(out)"), tty.stdout)
    }

    /// attack-r20b: `record`'s bad config values (home, home-stand, button-key, led,
    /// close-after) printed the whole usage after their precise error; now the error alone,
    /// naming the file and line, exit 64.
    func testRecordsBadConfigValuesAreSaidWithoutTheUsage() throws {
        let cfg = Harness.tempDir() + "/cairn.conf"
        for line in ["home = 91,8,100", "home-stand = 99", "button-key = 9999", "led = ../x", "close-after = 0"] {
            try "dir = /tmp/cairn-check-logs\n\(line)\n".write(toFile: cfg, atomically: true, encoding: .utf8)
            let r = try Harness.run(Harness.cairn, ["record", "--config", cfg, "--check"])
            XCTAssertEqual(r.status, 64, line + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("\(cfg):2: The value"), line + ": " + r.stderr)
            XCTAssertFalse(r.stderr.contains("Usage:"), line + ": " + r.stderr)
        }
    }
}

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
        let folder = Harness.tempDir() + "/rides"
        for remote in [folder, ":local:" + folder] {
            let r = try Harness.run(Harness.cairn, ["deliver", "--dir", dir, "--remote", remote, "--config", "none", "--format", "gpx"])
            XCTAssertEqual(r.status, 0, "\(remote): " + r.stderr)
        }
        XCTAssertTrue(fm.fileExists(atPath: folder + "/unnamed/logs/00000001.cairn"))
    }

    func testCheckReachesTheRemoteAndWritesNothing() throws {
        let dir = try logs()
        let t = Harness.tempDir()
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
}

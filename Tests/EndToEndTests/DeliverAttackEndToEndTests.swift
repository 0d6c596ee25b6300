import Foundation
import XCTest

/// An attacker's findings against `cairn deliver` (issue 31), each through the binary and a real
/// rclone to a local remote: privacy zones and the default for the logs, a log directory whose
/// relative name reads as an rclone flag, a hostile `delivery` status file, a config value's
/// error, and a remote log overwritten by another log under the same name.
final class DeliverAttackEndToEndTests: XCTestCase {
    let fm = FileManager.default

    /// A log directory with `trips` closed trips and an rclone config whose remote `loc` is the
    /// local file system.
    func setUp(trips: Int, dir: String? = nil, salt: UInt32 = 0x10, lat0 northOffset: Int = 0) throws -> (dir: String, conf: String, remote: String) {
        let dir = dir ?? CraftedLog.directory()
        for i in 1...trips {
            try CraftedLog.write(
                CraftedLog.file(
                    trip: UInt64(i), salt: salt * UInt32(i), startMs: CraftedLog.june1 + Int64(i) * 86_400_000, points: 20 + i,
                    northOffset: northOffset, closed: true),
                dir + "/0000000\(i).cairn")
        }
        // Off the log directory's file system, as a remote is (one on its card is refused).
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        return (dir, conf, "loc:" + t + "/remote")
    }

    func deliver(_ dir: String, _ conf: String, _ remote: String, _ extra: [String] = []) throws -> Harness.Result {
        try Harness.run(
            Harness.cairn, ["deliver", "--dir", dir, "--remote", remote, "--rclone-config", conf, "--config", "none", "--retries", "1"] + extra)
    }

    func files(_ root: String) -> [String] {
        guard let e = fm.enumerator(atPath: root) else { return [] }
        var out: [String] = []
        while let p = e.nextObject() as? String {
            var d: ObjCBool = false
            if fm.fileExists(atPath: root + "/" + p, isDirectory: &d), !d.boolValue { out.append(p) }
        }
        return out.sorted()
    }

    func data(_ p: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: p)) }

    /// Runs cairn in `cwd` (for relative --dir values).
    func run(in cwd: String, _ args: [String]) throws -> Harness.Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Harness.cairn)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: cwd)
        let out = Harness.tempDir()
        _ = fm.createFile(atPath: out + "/e", contents: nil)
        let e = FileHandle(forWritingAtPath: out + "/e")!
        p.standardError = e
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        try? e.close()
        return Harness.Result(status: p.terminationStatus, stdout: "", stderr: String(decoding: try data(out + "/e"), as: UTF8.self))
    }

    /// Privacy zones in the config and `format = none` in its [deliver] section: the help and
    /// deploy/DELIVERY.md say the logs (every point, home too) stay on the board unless `logs = yes`.
    /// Before the fix the raw logs went to the remote.
    func testFormatNoneWithPrivacyZonesDoesNotSendTheLogs() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        try Harness.recorderKey(dir)
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "privacy-zone = 47.0,8.5,300\n[deliver]\nremote = \(remote)\nformat = none\nrclone-config = \(conf)\n".write(
            toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Harness.cairn("deliver", "--dir", dir, "--config", cfg, "--retries", "1")
        XCTAssertEqual(files(String(remote.dropFirst(4))), [], r.stderr)
        XCTAssertNotEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("--logs yes"), r.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/delivered"))
        // Said outright, the logs go.
        let y = try Harness.cairn("deliver", "--dir", dir, "--config", cfg, "--retries", "1", "--logs", "yes")
        XCTAssertEqual(y.status, 0, y.stderr)
        // A board without an id delivering with zones: a folder of its own (`unnamed-<tag>`).
        XCTAssertTrue(
            files(String(remote.dropFirst(4))).contains { $0.hasPrefix("unnamed-") && $0.hasSuffix("/logs/00000001-00000010.cairn") }, y.stderr)
    }

    /// A relative log directory whose name begins with '-' went to rclone as a flag ("unknown
    /// shorthand flag"), and the run said the remote failed, for ever (exit 75, once).
    func testARelativeLogDirectoryThatLooksLikeAFlagOrARemote() throws {
        let (_, conf, remote) = try setUp(trips: 1, dir: CraftedLog.directory())
        let cwd = Harness.tempDir()
        for name in ["-logs", "x:logs"] {
            try fm.createDirectory(atPath: cwd + "/" + name, withIntermediateDirectories: true)
            _ = try setUp(trips: 2, dir: cwd + "/" + name)
            let target = remote + "-" + String(name.prefix(1))
            let r = try run(in: cwd, ["deliver", "--dir=" + name, "--remote", target, "--rclone-config", conf, "--config", "none", "--retries", "1"])
            XCTAssertEqual(r.status, 0, name + ": " + r.stderr)
            XCTAssertEqual(
                try data(String(target.dropFirst(4)) + "/unnamed/logs/00000002-00000020.cairn"), try data(cwd + "/" + name + "/00000002.cairn"),
                name + ": " + r.stderr)
        }
    }

    /// A `delivery` file with no result line (garbage, or another program's file) read as a
    /// successful delivery: "delivered 0 trips to  at 1970-01-01T00:00:00Z".
    func testAStatusFileWithoutAResultIsNotShownAsADelivery() throws {
        let dir = CraftedLog.directory()
        let live = Harness.tempDir() + "/status"
        try "state=stopped\npid=1\n".write(toFile: live, atomically: true, encoding: .utf8)
        try "at_ms = 1\nsomething = else\n".write(toFile: dir + "/delivery", atomically: true, encoding: .utf8)
        let s = try Harness.cairn("status", live, "--dir", dir)
        XCTAssertFalse(s.stdout.contains("delivery:   delivered"), s.stdout)
        // Control characters and a huge value stay harmless (these held before).
        var hostile = "result = failed\nremote = \u{1B}]0;title\u{07}\nfailures = 99999999999999999999999\nreason = \u{1B}[2J"
        hostile += String(repeating: "A", count: 200_000) + "\n"
        try hostile.write(toFile: dir + "/delivery", atomically: true, encoding: .utf8)
        let h = try Harness.cairn("status", live, "--dir", dir)
        XCTAssertFalse(h.stdout.contains("\u{1B}"), h.stdout)
        XCTAssertLessThan(h.stdout.utf8.count, 70_000)
    }

    /// A value the [deliver] section sets wrong is named by the option only ("The value '99' is
    /// invalid for '--retries'"), not by the config file and line where the rider wrote it.
    func testABadValueInTheConfigSectionNamesItsLine() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "[deliver]\nremote = \(remote)\nretries = 99\nrclone-config = \(conf)\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Harness.cairn("deliver", "--dir", dir, "--config", cfg)
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(cfg):3"), r.stderr)
    }

    /// The remote's folder is the same for every board without an id, and a log directory that
    /// starts again (a new card, a second bike) numbers its files and trips from 1 again. The
    /// second delivery overwrote the first board's delivered log with its own (then, refused,
    /// its trips never went: "deliver this board's trips to another folder", every run, while
    /// the page it sent linked their files). Every name a trip takes carries its log's salt:
    /// the second card's rides go beside the first's, trip 1 at the same start second as the
    /// first card's trip 1 (its picture replaced the first's), nothing of the first replaced.
    func testAnotherLogUnderTheSameNameOnTheRemoteIsNeverOverwritten() throws {
        let (a, conf, remote) = try setUp(trips: 2, salt: 0x10)
        let (b, _, _) = try setUp(trips: 2, salt: 0x3300, lat0: 4000)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        let ra = try deliver(a, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(ra.status, 0, ra.stderr)
        let firstCopy = try data(root + "/logs/00000001-00000010.cairn")
        XCTAssertEqual(firstCopy, try data(a + "/00000001.cairn"))
        let first = files(root).filter { !$0.hasPrefix("index.") }
        var before: [String: Data] = [:]
        for f in first { before[f] = try data(root + "/" + f) }
        XCTAssertTrue(first.contains("pictures/20250602-080000-trip1-00000010.svg"), "\(first)")
        let rb = try deliver(b, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(rb.status, 0, "the new card's rides go beside the first's: " + rb.stderr)
        for (f, d) in before { XCTAssertEqual(try data(root + "/" + f), d, "\(f) of the first card replaced: " + rb.stderr) }
        XCTAssertEqual(try data(root + "/logs/00000001-00003300.cairn"), try data(b + "/00000001.cairn"))
        XCTAssertEqual(try data(root + "/logs/00000002-00006600.cairn"), try data(b + "/00000002.cairn"))
        let after = files(root)
        XCTAssertEqual(after.filter { $0.hasPrefix("gpx/") }.count, 4, "\(after)")
        XCTAssertEqual(after.filter { $0.hasPrefix("pictures/") }.count, 4, "\(after)")
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        XCTAssertEqual(index.split(separator: "\n").filter { $0.hasPrefix("trip") }.count, 4, index)
        // Both cards' next runs send nothing.
        for d in [a, b] { XCTAssertTrue(try deliver(d, conf, remote, ["--format", "gpx"]).stderr.contains("delivered 0 trips")) }
    }

    /// A card's bit rot after a delivery changes a log; the next run took it for a changed
    /// trip and replaced the remote's whole copy with the damaged one (and its conversion with
    /// one point short); prune then deleted the board's copy: the whole log was nowhere.
    func testADamagedLogNeverReplacesItsWholeCopy() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let whole = try data(dir + "/00000001.cairn")
        var rotten = whole
        rotten[300] ^= 0x40
        try rotten.write(to: URL(fileURLWithPath: dir + "/00000001.cairn"))
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), whole, r.stderr)
        XCTAssertNotEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("00000001.cairn is damaged"), r.stderr)
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001")
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
    }

    /// A local remote inside the log directory (or the log directory itself) was taken: the
    /// copies stayed on the card, out of retention's count, and their receipts let prune delete
    /// the trips as if they were safe elsewhere.
    func testALocalRemoteInsideTheLogDirectoryIsRefused() throws {
        let (dir, conf, _) = try setUp(trips: 2)
        for remote in [dir, dir + "/sub", ":local:" + dir + "/x", dir + "/../" + baseName(dir)] {
            let r = try deliver(dir, conf, remote)
            XCTAssertEqual(r.status, 78, remote + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("--remote \(remote): its folder"), r.stderr)
        }
        // The board's folder would be the log directory itself.
        let parent = Harness.tempDir()
        let unnamed = parent + "/unnamed"
        try fm.createDirectory(atPath: unnamed, withIntermediateDirectories: true)
        _ = try setUp(trips: 1, dir: unnamed)
        XCTAssertEqual(try deliver(unnamed, conf, parent).status, 78)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).sorted(), ["00000001.cairn", "00000002.cairn"])
    }

    func baseName(_ p: String) -> String { String(p.split(separator: "/").last ?? "") }

    /// `rclone cat` of a folder concatenates the files in it, so a folder standing
    /// under a log's final name, holding a file with the log's bytes, reads back as the log:
    /// "already there", and the receipt is written with no file under that name.
    func testAFolderUnderAFinalNameIsNoCopy() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        try fm.createDirectory(atPath: root + "/logs/00000001-00000010.cairn", withIntermediateDirectories: true)
        try data(dir + "/00000001.cairn").write(to: URL(fileURLWithPath: root + "/logs/00000001-00000010.cairn/x"))
        let r = try deliver(dir, conf, remote, ["--format", "none"])
        XCTAssertFalse(
            (try? String(contentsOfFile: dir + "/delivered", encoding: .utf8))?.contains("00000001.cairn 1 ") ?? false,
            "a receipt for a log that is a folder on the remote: " + r.stderr)
    }
}

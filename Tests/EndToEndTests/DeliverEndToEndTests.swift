import Foundation
import XCTest

/// `cairn deliver` (issue 31) through a real rclone to a local remote: every finished trip
/// once, whole, with its receipt written only after the remote's copy read back right; a trip
/// that changed goes again; a trip being recorded waits; a failing remote is said once per
/// outage; bad input names the option. Faults against network servers are in Tests/deliver.
final class DeliverEndToEndTests: XCTestCase {
    let fm = FileManager.default

    /// A log directory and an rclone config whose remote `loc` is the local file system.
    func setUp(trips: Int) throws -> (dir: String, conf: String, remote: String) {
        let dir = CraftedLog.directory()
        for i in 1...trips {
            try CraftedLog.write(
                CraftedLog.file(
                    trip: UInt64(i), salt: UInt32(0x10 * i), startMs: CraftedLog.june1 + Int64(i) * 86_400_000, points: 20 + i, closed: true),
                dir + "/0000000\(i).cairn")
        }
        // Off the log directory's file system, as a remote is (retention deletes on no copy on the card).
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        return (dir, conf, "loc:" + t + "/remote")
    }

    /// A remote with room for some trips and not for all (a disk nearly full): the batch that does
    /// not fit fails the run; the next sends one trip a batch, then more while they go, so the
    /// trips that fit are delivered and every run after a failure makes progress. (rclone here
    /// refuses an upload of more than `room` bytes, as a full disk does: a `sync` command, or a
    /// sync/sync asked of the run's `rclone rcd`, through a proxy in front of it.)
    func testARemoteWithRoomForSomeTripsTakesThose() throws {
        let (dir, conf, remote) = try setUp(trips: 6)
        let work = try Harness.offCardDir()
        // rclone as a remote with 12,000 bytes of room per upload (`RcloneSyncHook`'s proxy).
        let wrapper = try RcloneSyncHook.wrapper(in: work, room: 12000)
        func receipted() -> Int {
            ((try? String(contentsOfFile: dir + "/delivered", encoding: .utf8)) ?? "").split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        }
        let first = try deliver(dir, conf, remote, "--rclone", wrapper, "--page", "no", "--format", "gpx,csv")
        XCTAssertNotEqual(first.status, 0, "six trips do not fit at once: \(first.stderr)")
        XCTAssertEqual(receipted(), 0, first.stderr)
        // A full remote needs the rider: said (under systemd too), failed, not "try later" (the
        // LED's delivery-failing pattern, not rides waiting).
        XCTAssertEqual(first.status, 1, first.stderr)
        XCTAssertTrue(first.stderr.contains("the remote is full"), first.stderr)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertTrue(status.contains("result = failed\n") && !status.contains("try_later"), status)
        var runs = 1
        var before = 0
        while receipted() < 6 && runs < 5 {
            let r = try deliver(dir, conf, remote, "--rclone", wrapper, "--page", "no", "--format", "gpx,csv")
            runs += 1
            XCTAssertGreaterThan(receipted(), before, "run \(runs) after a failure sent nothing: \(r.stderr)")
            before = receipted()
        }
        XCTAssertEqual(receipted(), 6, (try? String(contentsOfFile: work + "/uploads", encoding: .utf8)) ?? "")
        for i in 1...6 {
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: dir + "/0000000\(i).cairn")),
                try Data(contentsOf: URL(fileURLWithPath: String(remote.dropFirst(4)) + "/unnamed/logs/0000000\(i)-000000\(i)0.cairn")))
        }
    }

    /// One rclone process a run whatever it sends (issue 37): six trips, then a run with nothing
    /// to send, each start counted by a wrapper; none left running after either.
    func testARunStartsOneRcloneWhateverItSends() throws {
        let (dir, conf, remote) = try setUp(trips: 6)
        let work = try Harness.offCardDir()
        let rclone = try XCTUnwrap(
            ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { $0 + "/rclone" }.first { fm.isExecutableFile(atPath: $0) })
        let wrapper = work + "/rclone-counted"
        try "#!/bin/sh\necho \"$$ $*\" >> \(work)/starts\nexec \(rclone) \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        func starts() -> [String] {
            ((try? String(contentsOfFile: work + "/starts", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        let first = try deliver(dir, conf, remote, "--rclone", wrapper)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("delivered 6 trips"), first.stderr)
        XCTAssertEqual(starts().count, 1, starts().joined(separator: "\n"))
        let again = try deliver(dir, conf, remote, "--rclone", wrapper)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(starts().count, 2, starts().joined(separator: "\n"))
        for line in starts() {
            let pid = try XCTUnwrap(Int32(line.prefix { $0 != " " }))
            XCTAssertNotEqual(kill(pid, 0), 0, "rclone \(pid) still running after its run: \(line)")
        }
    }

    /// Progress where someone watches: on a terminal a run says what it sends before it goes;
    /// into a pipe or the journal only the outcome.
    func testProgressOnATerminalOnly() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let quiet = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("sending"), quiet.stderr)
        try fm.removeItem(atPath: dir + "/delivered")
        let command = [
            Harness.cairn, "deliver", "--dir", dir, "--remote", remote + "2", "--rclone-config", conf, "--config", "none", "--format", "gpx"
        ]
        let tty = try Harness.run("/usr/bin/script", ["-qec", command.map { "'" + $0 + "'" }.joined(separator: " "), "/dev/null"])
        XCTAssertEqual(tty.status, 0, tty.stdout)
        XCTAssertTrue(tty.stdout.contains("cairn: sending 2 trips ("), tty.stdout)
    }

    func deliver(_ dir: String, _ conf: String, _ remote: String, _ extra: String...) throws -> Harness.Result {
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

    func testEachTripGoesOnceWholeWithItsReceipt() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        let r = try deliver(dir, conf, remote)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            files(root),
            [
                "csv/20250602-080000-trip1-00000010.csv", "csv/20250603-080000-trip2-00000020.csv", "fit/20250602-080000-trip1-00000010.fit",
                "fit/20250603-080000-trip2-00000020.fit",
                "gpx/20250602-080000-trip1-00000010.gpx", "gpx/20250603-080000-trip2-00000020.gpx", "index.html", "index.tsv",
                "logs/00000001-00000010.cairn",
                "logs/00000002-00000020.cairn", "pictures/20250602-080000-trip1-00000010.svg", "pictures/20250603-080000-trip2-00000020.svg"
            ], r.stderr)
        XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), try data(dir + "/00000001.cairn"))
        XCTAssertEqual(
            Harness.count("<trkpt ", in: try String(contentsOfFile: root + "/gpx/20250603-080000-trip2-00000020.gpx", encoding: .utf8)), 22)
        let receipts = try String(contentsOfFile: dir + "/delivered", encoding: .utf8)
        XCTAssertEqual(receipts.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 2, receipts)
        // The conversions sent, with their sizes, after the logs' "logs".
        XCTAssertTrue(receipts.contains("00000002.cairn 2 20 v2 logs+salted+sent=gpx/20250603-080000-trip2-00000020.gpx/"), receipts)
        XCTAssertTrue(receipts.contains(" 00000002.cairn/20/"), receipts)
        XCTAssertTrue(r.stderr.contains("delivered 2 trips"), r.stderr)
        // Nothing of the run stays in the log directory but its receipts and status.
        XCTAssertFalse(fm.fileExists(atPath: dir + "/.deliver"))
        // Again: nothing sent, nothing changed on the remote.
        let before = try files(root).map { try data(root + "/" + $0) }
        let r2 = try deliver(dir, conf, remote)
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("delivered 0 trips") && r2.stderr.contains("2 already there"), r2.stderr)
        XCTAssertEqual(try files(root).map { try data(root + "/" + $0) }, before)
        // A delivered trip counts as exported for retention (the newest file is always kept).
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(p.stderr.contains("deleted trip 1 (00000001.cairn"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"))
        // Its receipt stays, naming what was sent of it: a zone changed later takes that down
        // (its log is no longer there to cut again).
        let kept = try String(contentsOfFile: dir + "/delivered", encoding: .utf8)
        XCTAssertTrue(kept.contains("00000001.cairn 1 10 v2 logs+salted+sent=gpx/20250602-080000-trip1-00000010.gpx/"), kept)
    }

    func testATripThatChangedGoesAgainUnderTheSameNames() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote).status, 0)
        // The trip resumed after a restart: a second part in a new file.
        try CraftedLog.write(
            CraftedLog.file(trip: 1, part: 1, salt: 0x77, startMs: CraftedLog.june1 + 86_400_000 + 600_000, points: 9, northOffset: 40, closed: true),
            dir + "/00000002.cairn")
        let r = try deliver(dir, conf, remote)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 1 trip "), r.stderr)
        XCTAssertEqual(try data(root + "/logs/00000002-00000077.cairn"), try data(dir + "/00000002.cairn"))
        XCTAssertEqual(
            Harness.count("<trkpt ", in: try String(contentsOfFile: root + "/gpx/20250602-080000-trip1-00000010.gpx", encoding: .utf8)), 30)
        XCTAssertEqual(files(root).filter { $0.hasPrefix("gpx/") }, ["gpx/20250602-080000-trip1-00000010.gpx"])
        // Once on the page, with the figures of both parts.
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        XCTAssertEqual(index.split(separator: "\n").filter { $0.hasPrefix("trip1") }.count, 1, index)
    }

    /// The remote's page lists the trips of every run (its index is read back from the remote,
    /// not kept on the board), and passes the page check in headless Chromium.
    func testThePageOnTheRemoteKeepsEveryRunsTrips() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote).status, 0)
        // The board's first trip pruned since; a second ride.
        try fm.removeItem(atPath: dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 2 * 86_400_000, points: 25, closed: true), dir + "/00000002.cairn")
        let r = try deliver(dir, conf, remote)
        XCTAssertEqual(r.status, 0, r.stderr)
        let html = try String(contentsOfFile: root + "/index.html", encoding: .utf8)
        XCTAssertTrue(html.contains("gpx/20250602-080000-trip1-00000010.gpx") && html.contains("gpx/20250603-080000-trip2-00000022.gpx"), html)
        let check = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-page.py").path, root + "/index.html"], timeout: 120
        )
        XCTAssertEqual(check.status, 0, "check-page: \(check.stderr)\n\(check.stdout)")
        XCTAssertFalse(files(root).contains { $0.contains(".cairn-tmp-") })
    }

    /// A run cut by a power loss left a temporary and a final-named copy of one log. The next
    /// run removes the temporary, finds the whole copy (read back: not sent again) and replaces
    /// a damaged one.
    func testLeftoversOfACutRunAreCleanedAndCheckedNotTrusted() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        try fm.createDirectory(atPath: root + "/logs", withIntermediateDirectories: true)
        try data(dir + "/00000001.cairn").prefix(700).write(to: URL(fileURLWithPath: root + "/logs/.cairn-tmp-0123456789abcdef-00000001.cairn"))
        try data(dir + "/00000001.cairn").write(to: URL(fileURLWithPath: root + "/logs/00000001-00000010.cairn"))
        var damaged = try data(dir + "/00000002.cairn")
        damaged[100] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: root + "/logs/00000002-00000020.cairn"))
        let r = try deliver(dir, conf, remote, "--format", "gpx", "--page", "no")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            files(root),
            [
                "gpx/20250602-080000-trip1-00000010.gpx", "gpx/20250603-080000-trip2-00000020.gpx", "logs/00000001-00000010.cairn",
                "logs/00000002-00000020.cairn"
            ])
        XCTAssertEqual(try data(root + "/logs/00000002-00000020.cairn"), try data(dir + "/00000002.cairn"))
        // Three files sent: two conversions and the damaged log; the whole copy stayed.
        XCTAssertTrue(r.stderr.contains("(3 files,"), r.stderr)
    }

    func testATripBeingRecordedMakesDeliveryWait() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let lock = open(dir + "/.cairn.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        let w = open(dir + "/00000002.cairn", O_WRONLY | O_APPEND | O_CLOEXEC)
        let r = try deliver(dir, conf, remote)
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivery waits: the recorder (PID \(getpid())) is recording a trip"), r.stderr)
        XCTAssertFalse(fm.fileExists(atPath: String(remote.dropFirst(4))))
        XCTAssertTrue(try String(contentsOfFile: dir + "/delivery", encoding: .utf8).contains("result = deferred"))
        // Parked: the recorder keeps its lock, no log open. Delivery goes.
        close(w)
        let r2 = try deliver(dir, conf, remote)
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("delivered 2 trips"), r2.stderr)
        close(lock)
    }

    /// A remote that fails is said once per outage under systemd (standard error is not a
    /// terminal here either), counted in the status, and its end is said.
    func testAFailingRemoteIsSaidOncePerOutage() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let blocker = try Harness.offCardDir() + "/file"
        try "not a folder".write(toFile: blocker, atomically: true, encoding: .utf8)
        let bad = "loc:" + blocker + "/rides"
        let r1 = try deliver(dir, conf, bad)
        XCTAssertEqual(r1.status, 75, r1.stderr)
        XCTAssertTrue(r1.stderr.contains("delivery to \(bad) failed:"), r1.stderr)
        let r2 = try deliver(dir, conf, bad)
        XCTAssertEqual(r2.status, 75, r2.stderr)
        XCTAssertFalse(r2.stderr.contains("failed"), r2.stderr)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertTrue(status.contains("result = failed") && status.contains("failures = 2"), status)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/delivered"))
        let live = Harness.tempDir() + "/status"
        try "state=stopped\npid=1\n".write(toFile: live, atomically: true, encoding: .utf8)
        let s = try Harness.cairn("status", live, "--dir", dir)
        XCTAssertTrue(s.stdout.contains("delivery:   failing since ") && s.stdout.contains("(2 runs)"), s.stdout)
        let r3 = try deliver(dir, conf, remote)
        XCTAssertEqual(r3.status, 0, r3.stderr)
        XCTAssertTrue(r3.stderr.contains("works again (it failed 2 runs in a row)"), r3.stderr)
    }

    /// A remote that goes silent mid-upload (a NAS that hangs, a Wi-Fi that passes nothing)
    /// ends the run once nothing has moved for twice `--timeout` and 5 s (rclone's progress
    /// counters still), as "try later", with nothing receipted; the next run delivers each trip
    /// once. Before, the upload's deadline grew with its bytes (2 kB/s), so a silent remote of
    /// 30 trips held the run for more than 11 minutes (attack r23 c13).
    func testARemoteThatGoesSilentMidUploadEndsTheRun() throws {
        let (dir, conf, remote) = try setUp(trips: 3)
        let work = try Harness.offCardDir()
        // The upload never answers: the proxy sleeps before passing it on; core/stats still answers.
        let wrapper = try RcloneSyncHook.wrapper(in: work, hook: "sleep 60")
        let t0 = Date()
        let r = try deliver(dir, conf, remote, "--rclone", wrapper, "--page", "no", "--format", "gpx", "--timeout", "1")
        let took = Date().timeIntervalSince(t0)
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertTrue(r.stderr.contains("the remote stopped answering: nothing moved for 7 s"), r.stderr)
        XCTAssertLessThan(took, 25, r.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/delivered"), r.stderr)
        let again = try deliver(dir, conf, remote, "--page", "no", "--format", "gpx")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(files(String(remote.dropFirst(4)) + "/unnamed/logs").filter { $0.hasSuffix(".cairn") }.count, 3, again.stderr)
    }

    func testBadInputIsNamed() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let r1 = try deliver(dir, conf, "nas:rides")
        XCTAssertEqual(r1.status, 78, r1.stderr)
        XCTAssertTrue(r1.stderr.contains("--remote nas:rides: rclone has no remote 'nas' (config: \(conf)); it has: loc"), r1.stderr)
        let r2 = try deliver(dir, conf, remote, "--rclone", "/nonexistent/rclone")
        XCTAssertEqual(r2.status, 78, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("--rclone /nonexistent/rclone: "), r2.stderr)
        let r3 = try deliver(dir, conf, remote, "--retries", "0")
        XCTAssertEqual(r3.status, 64, r3.stderr)
        XCTAssertTrue(r3.stderr.contains("'--retries'"), r3.stderr)
        let r4 = try Harness.cairn("deliver", "--dir", dir, "--config", "none")
        XCTAssertEqual(r4.status, 64, r4.stderr)
        XCTAssertTrue(r4.stderr.contains("'--remote <remote:path>'"), r4.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/delivered"))
    }

    /// The `[deliver]` section of the recorder's config: read by deliver, checked and skipped
    /// by record, and a wrong key names its line.
    func testConfigSection() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "dir = \(dir)\n[deliver]\nremote = \(remote)\nformat = gpx\npage = no\nrclone-config = \(conf)\n".write(
            toFile: cfg, atomically: true, encoding: .utf8)
        let c = try Harness.cairn("record", "--config", cfg, "--check")
        XCTAssertEqual(c.status, 0, c.stderr)
        let r = try Harness.cairn("deliver", "--config", cfg)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(String(remote.dropFirst(4)) + "/unnamed"), ["gpx/20250602-080000-trip1-00000010.gpx", "logs/00000001-00000010.cairn"])
        try "[deliver]\nremote = x:y\nsync = 5\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let bad = try Harness.cairn("deliver", "--config", cfg)
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("\(cfg):3: unknown key 'sync'"), bad.stderr)
        try "[delivery]\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let bad2 = try Harness.cairn("record", "--config", cfg, "--check")
        XCTAssertTrue(bad2.stderr.contains("\(cfg):1: unknown section '[delivery]'; sections: [deliver]"), bad2.stderr)
    }

    /// A format added to the config later goes up for the trips delivered before (the receipt
    /// names the formats); the logs, there already, are read back, not sent again.
    func testAFormatAddedLaterGoesUpForEveryTrip() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, "--format", "gpx", "--page", "no").status, 0)
        let r = try deliver(dir, conf, remote, "--format", "gpx,csv", "--page", "no")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 2 trips") && r.stderr.contains("(2 files,"), r.stderr)
        XCTAssertEqual(
            files(root).filter { $0.hasPrefix("csv/") }, ["csv/20250602-080000-trip1-00000010.csv", "csv/20250603-080000-trip2-00000020.csv"])
    }

    /// A run cut after its receipts, before its page: the page is owed (said in `delivery`
    /// before the first receipt), and the next run makes it though it has no trip to send.
    func testAPageOwedByACutRunIsMadeByTheNext() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, "--format", "gpx").status, 0)
        // As a cut leaves it: receipts written, the page not sent, a temporary of it left.
        for f in ["index.html", "index.tsv", "pictures"] { try fm.removeItem(atPath: root + "/" + f) }
        try fm.createDirectory(atPath: root + "/pictures", withIntermediateDirectories: true)
        try "<svg".write(toFile: root + "/pictures/.cairn-tmp-0123456789abcdef-20250602-080000-trip1-00000010.svg", atomically: true, encoding: .utf8)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        try status.replacingOccurrences(of: "page = ok", with: "page = pending").write(toFile: dir + "/delivery", atomically: true, encoding: .utf8)
        let r = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 0 trips"), r.stderr)
        XCTAssertEqual(
            files(root).filter { !$0.hasPrefix("gpx/") && !$0.hasPrefix("logs/") },
            ["index.html", "index.tsv", "pictures/20250602-080000-trip1-00000010.svg", "pictures/20250603-080000-trip2-00000020.svg"])
        XCTAssertTrue(try String(contentsOfFile: dir + "/delivery", encoding: .utf8).contains("page = ok"))
    }

    /// A remote that filled up after a trip's files, before its page entry and picture (attack-r22
    /// c21): the trip is not delivered whole until it shows on the page, which is made from its
    /// log, so prune keeps it; the run that has room again puts it there, then prune may delete.
    /// A picture deleted on the remote after its delivery (the page still there) keeps the
    /// trip's log, by the remote's listing in prune's run: the picture is drawn from the log, and
    /// the next delivery draws it again. Before, prune deleted the trip by its receipt and the
    /// picture was gone for good (attack r23 c05b).
    func testATripIsKeptWhileItsPictureIsGoneFromTheRemote() throws {
        let (dir, conf, remote) = try setUp(trips: 3)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, "--format", "gpx").status, 0)
        let picture = "pictures/20250602-080000-trip1-00000010.svg"
        try fm.removeItem(atPath: root + "/" + picture)
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001")
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("trip 1: its picture \(picture) is not in"), p.stderr)
        let r = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(fm.fileExists(atPath: root + "/" + picture), r.stderr)
    }

    func testATripIsKeptUntilItsPageEntryIsThere() throws {
        let (dir, conf, remote) = try setUp(trips: 3)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, "--format", "gpx").status, 0)
        // As a full remote leaves it: trip 1's files and receipt there, not its entry nor picture
        // (nor the picture's MD5 on its receipt, noted when the page goes up).
        for f in ["index.html", "index.tsv", "pictures"] { try fm.removeItem(atPath: root + "/" + f) }
        let receipts = try String(contentsOfFile: dir + "/delivered", encoding: .utf8)
        let noPictures = receipts.replacingOccurrences(of: ",pictures/[^ ,]*", with: "", options: .regularExpression)
        XCTAssertNotEqual(noPictures, receipts, "the pictures' MD5s are on the receipts")
        try noPictures.write(toFile: dir + "/delivered", atomically: true, encoding: .utf8)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        try status.replacingOccurrences(of: "page = ok", with: "page = pending").write(toFile: dir + "/delivery", atomically: true, encoding: .utf8)
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("the remote's page does not show it yet"), p.stderr)
        let r = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            files(root).filter { $0.hasPrefix("pictures/") },
            [
                "pictures/20250602-080000-trip1-00000010.svg", "pictures/20250603-080000-trip2-00000020.svg",
                "pictures/20250604-080000-trip3-00000030.svg"
            ])
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        for k in ["trip1-00000010", "trip2-00000020", "trip3-00000030"] { XCTAssertTrue(index.contains("\n\(k)\t"), index) }
        let p2 = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001")
        XCTAssertTrue(p2.stderr.contains("deleted trip 1 (00000001.cairn"), p2.stderr)
    }

    /// A picture damaged at its size on a remote that lists MD5s (attack-r22 c22): found by the
    /// MD5 it read back with when it went, said, and drawn again; the next run sends nothing.
    func testAPictureDamagedAtItsSizeIsDrawnAgain() throws {
        let (dir, conf, remote) = try setUp(trips: 2)
        let root = String(remote.dropFirst(4)) + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, "--format", "gpx").status, 0)
        let picture = root + "/pictures/20250602-080000-trip1-00000010.svg"
        let good = try data(picture)
        var bad = good
        bad[bad.count / 2] ^= 0x01
        try bad.write(to: URL(fileURLWithPath: picture))
        let r = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("pictures/20250602-080000-trip1-00000010.svg: missing or damaged there; drawn again"), r.stderr)
        XCTAssertEqual(try data(picture), good)
        let again = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertFalse(again.stderr.contains("drawn again"), again.stderr)
        XCTAssertTrue(again.stderr.contains("(0 files, 0 bytes)"), again.stderr)
    }

    /// A card cut mid-upload, then re-formatted (attack-r22 c12): the new card's first run that
    /// sends removes the shipping folder the old one left, and no other board's.
    func testANewCardsFirstRunRemovesAnEarlierCardsShippingFolder() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let top = String(remote.dropFirst(4))
        let ours = top + "/.cairn-tmp-unnamed-0123456789abcdef"
        let others = top + "/.cairn-tmp-unnamed-x-0123456789abcdef"
        for f in [ours, others] {
            try fm.createDirectory(atPath: f + "/logs", withIntermediateDirectories: true)
            try "part".write(toFile: f + "/logs/00000001-00000099.cairn", atomically: true, encoding: .utf8)
        }
        let r = try deliver(dir, conf, remote, "--format", "gpx")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(fm.fileExists(atPath: ours), r.stderr)
        XCTAssertTrue(fm.fileExists(atPath: others + "/logs/00000001-00000099.cairn"))
    }

    /// A privacy zone added after a delivery: every trip goes again, cut; what was sent of the
    /// place before (a conversion named by its old first point, a picture, a trip now wholly
    /// inside the zone) is deleted from the remote and the page. The logs sent before stay: they
    /// are the copy retention relied on.
    func testAZoneAddedLaterTakesBackWhatWasSentOfThePlace() throws {
        let dir = CraftedLog.directory()
        // Trip 1 runs 3 km north from the zone's centre: out of any keyed cut of 100 m (at 600 m
        // a cut of the widest class hid it whole now and then).
        let day: Int64 = 86_400_000
        try CraftedLog.write(
            CraftedLog.file(trip: 1, salt: 0x10, startMs: CraftedLog.june1 + day, points: 600, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x20, startMs: CraftedLog.june1 + 2 * day, points: 4, closed: true), dir + "/00000002.cairn")
        // Off the log directory's file system, as a remote is (retention deletes on no copy on the card).
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let remote = "loc:" + t + "/remote"
        let root = t + "/remote/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, "--format", "gpx").status, 0)
        XCTAssertEqual(
            files(root).filter { $0.hasPrefix("gpx/") }, ["gpx/20250602-080000-trip1-00000010.gpx", "gpx/20250603-080000-trip2-00000020.gpx"])
        try PrivacyZoneEndToEndTests.boardKey(dir)  // the board's (the recorder's); fixed bytes: the same cut every run
        let r = try deliver(dir, conf, remote, "--format", "gpx", "--privacy-zone", "47.0,8.5,100")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 2 trips"), r.stderr)
        let gpx = files(root).filter { $0.hasPrefix("gpx/") }
        XCTAssertEqual(gpx.count, 1, "\(gpx)")
        XCTAssertTrue(gpx.first?.hasSuffix("-trip1-00000010.gpx") == true && gpx.first != "gpx/20250602-080000-trip1-00000010.gpx", "\(gpx)")
        XCTAssertEqual(files(root).filter { $0.hasPrefix("pictures/") }.count, 1, "\(files(root))")
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        XCTAssertFalse(index.contains("trip2") || index.contains("20250602-080000"), index)
        // No written point within 100 m of the place.
        let text = try String(contentsOfFile: root + "/" + gpx[0], encoding: .utf8)
        let lats = text.components(separatedBy: "lat=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        XCTAssertFalse(lats.isEmpty)
        XCTAssertTrue(lats.allSatisfy { ($0 - 47.0) * 111_195 > 100 }, "\(lats.min() ?? 0)")
        XCTAssertEqual(files(root).filter { $0.hasPrefix("logs/") }, ["logs/00000001-00000010.cairn", "logs/00000002-00000020.cairn"])
    }

    /// Two deliveries at once: the second stops at once (75), the first delivers.
    func testTwoDeliveriesAtOnce() throws {
        let (dir, conf, remote) = try setUp(trips: 1)
        let lock = open(dir + "/.cairn-deliver.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        let r = try deliver(dir, conf, remote)
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertTrue(r.stderr.contains("another delivery is running"), r.stderr)
        close(lock)
        XCTAssertEqual(try deliver(dir, conf, remote).status, 0)
    }
}

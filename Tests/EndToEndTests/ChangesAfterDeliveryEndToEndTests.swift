import Foundation
import XCTest

/// The delivery findings of issue 38, each through the binary and a real rclone to a local
/// remote: what changes around a receipt after it was written (the local log, the remote's
/// copy, the card, another board, a kill, the remote's index, a ride) must never lose a ride.
final class ChangesAfterDeliveryEndToEndTests: XCTestCase {
    let fm = FileManager.default
    let day: Int64 = 86_400_000

    /// `trips` closed trips in `dir` (a new one when nil), salts `salt * i`, starting `firstDay`
    /// days after June 1st.
    func logs(_ trips: Int, dir: String? = nil, salt: UInt32 = 0x10, firstDay: Int64 = 1) throws -> String {
        let dir = dir ?? CraftedLog.directory()
        for i in 1...trips {
            try CraftedLog.write(
                CraftedLog.file(
                    trip: UInt64(i), salt: salt * UInt32(i), startMs: CraftedLog.june1 + (firstDay + Int64(i) - 1) * day, points: 40 + i,
                    northOffset: 400, closed: true),
                dir + "/0000000\(i).cairn")
        }
        return dir
    }

    /// An rclone config with the local remote `loc`, and a remote folder under a new directory.
    func remote() throws -> (conf: String, remote: String, path: String) {
        // Off the log directory's file system, as a remote is (retention deletes on no copy on the card).
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        return (conf, "loc:" + t + "/remote", t + "/remote")
    }

    func deliver(_ dir: String, _ conf: String, _ remote: String, _ extra: [String] = []) throws -> Harness.Result {
        try Harness.run(
            Harness.cairn, ["deliver", "--dir", dir, "--remote", remote, "--rclone-config", conf, "--config", "none", "--retries", "1"] + extra)
    }

    func prune(_ dir: String) throws -> Harness.Result { try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001") }

    /// The folder of a board without an id that delivers with zones: `unnamed-` and a keyed tag.
    func unnamedFolder(_ path: String) throws -> String {
        let all = try fm.contentsOfDirectory(atPath: path).filter { $0.hasPrefix("unnamed-") }
        XCTAssertEqual(all.count, 1, "\(all)")
        return path + "/" + (all.first ?? "unnamed-?")
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

    /// Finding 1: a local log that lost its tail after its delivery (torn: `cairn verify` says
    /// so) replaced the whole remote copy and its conversion (exit 0), and prune then deleted
    /// the trip: the end of the ride was nowhere.
    func testATornLocalLogNeverReplacesItsWholeCopy() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let whole = try data(dir + "/00000001.cairn")
        let gpx = try data(root + "/gpx/20250602-080000-trip1-00000010.gpx")
        // The tail lost mid-record, then more of it.
        for cut in [whole.count - 7, whole.count - 37] {
            try whole.prefix(cut).write(to: URL(fileURLWithPath: dir + "/00000001.cairn"))
            let r = try deliver(dir, conf, remote, ["--format", "gpx"])
            XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), whole, "cut to \(cut): " + r.stderr)
            XCTAssertEqual(try data(root + "/gpx/20250602-080000-trip1-00000010.gpx"), gpx, "cut to \(cut): " + r.stderr)
            XCTAssertNotEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("00000001.cairn") && r.stderr.contains("kept"), r.stderr)
            let p = try prune(dir)
            XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        }
    }

    /// attack-r24 c17: bytes added to a delivered log on the remote (the whole log, then
    /// garbage) left the copy damaged for good: a copy longer than the local log was taken for
    /// a tail the local log lost. The local log is whole (its trip's end, its receipt), so the
    /// copy is sent again whole and said; prune then finds it whole.
    func testBytesAddedToARemoteLogAreReplacedByTheWholeLog() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        let copy = path + "/unnamed/logs/00000001-00000010.cairn"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let whole = try data(dir + "/00000001.cairn")
        XCTAssertEqual(try data(copy), whole)
        for junk in [Data("garbage after the log\n".utf8), Data(repeating: 0, count: 4096), whole.prefix(64)] {
            try (whole + junk).write(to: URL(fileURLWithPath: copy))
            let r = try deliver(dir, conf, remote, ["--format", "gpx"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try data(copy), whole, r.stderr)
            XCTAssertTrue(r.stderr.contains("00000001-00000010.cairn: a damaged copy") && r.stderr.contains("sent again"), r.stderr)
            XCTAssertTrue(r.stderr.contains("delivered 1 trip"), r.stderr)
        }
        let p = try prune(dir)
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertEqual(try data(copy), whole)
    }

    /// Finding 2: a remote log deleted, or cut, after its receipt: the next run said "already
    /// there" (receipts and sizes; the remote never read again), and prune deleted the only copy.
    func testARemoteCopyLostAfterItsReceiptIsSentAgainAndPruneChecksIt() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        try fm.removeItem(atPath: root + "/logs/00000001-00000010.cairn")
        let two = try data(dir + "/00000002.cairn")
        try two.prefix(300).write(to: URL(fileURLWithPath: root + "/logs/00000002-00000020.cairn"))
        try fm.removeItem(atPath: root + "/gpx/20250604-080000-trip3-00000030.gpx")
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), try data(dir + "/00000001.cairn"), r.stderr)
        XCTAssertEqual(try data(root + "/logs/00000002-00000020.cairn"), two, r.stderr)
        XCTAssertTrue(fm.fileExists(atPath: root + "/gpx/20250604-080000-trip3-00000030.gpx"), r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 3 trips"), r.stderr)
        XCTAssertTrue(r.stderr.contains("logs/00000001-00000010.cairn: missing") && r.stderr.contains("sent again"), r.stderr)
        // Lost again after the run: prune finds it so in its own run and keeps the trips.
        try fm.removeItem(atPath: root + "/logs/00000001-00000010.cairn")
        try two.prefix(300).write(to: URL(fileURLWithPath: root + "/logs/00000002-00000020.cairn"))
        let p = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000002.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("not found whole"), p.stderr)
        // Same size, other bytes (where the backend has a hash): kept too.
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        var flipped = try data(root + "/logs/00000001-00000010.cairn")
        flipped[200] ^= 0x01
        try flipped.write(to: URL(fileURLWithPath: root + "/logs/00000001-00000010.cairn"))
        let damaged = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), damaged.stderr)
        // Found so, its receipt no longer holds: the next delivery reads it back and repairs it.
        let repair = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertTrue(repair.stderr.contains("a damaged copy"), repair.stderr)
        XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), try data(dir + "/00000001.cairn"), repair.stderr)
        // A remote that cannot be reached keeps every delivered trip, said.
        try "".write(toFile: conf, atomically: true, encoding: .utf8)
        let gone = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), gone.stderr)
        XCTAssertTrue(gone.stderr.contains("could not be checked"), gone.stderr)
        // Whole and reachable: deleted.
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let ok = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), ok.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000002.cairn"), ok.stderr)
    }

    /// A stick's mount point while the stick is not mounted, or any folder on the board's card:
    /// a delivery or an export there writes onto the card itself, and those copies die with it.
    /// A delivery there is refused (78: attack r21 case15, an alias or a local remote through a
    /// symlink to a folder beside the logs went and said delivered), nothing written; retention
    /// never deletes a trip on an export's copies there; a copy off the card still frees it.
    func testCopiesOnTheBoardsOwnCardAreNoCopiesForRetention() throws {
        let dir = try logs(2)
        let card = Harness.tempDir()
        let conf = card + "/rclone.conf"
        try fm.createDirectory(atPath: card + "/beside", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: card + "/link", withDestinationPath: card + "/beside")
        try "[loc]\ntype = local\n[stick]\ntype = alias\nremote = loc:\(card)/media/stick\n".write(toFile: conf, atomically: true, encoding: .utf8)
        for remote in ["stick:rides", "loc:" + card + "/link/rides", card + "/beside/rides"] {
            let check = try deliver(dir, conf, remote, ["--format", "gpx", "--page", "no", "--check"])
            XCTAssertEqual(check.status, 78, remote + ": " + check.stderr)
            XCTAssertTrue(check.stderr.contains("on the log directory's own card"), check.stderr)
            let d = try deliver(dir, conf, remote, ["--format", "gpx", "--page", "no"])
            XCTAssertEqual(d.status, 78, remote + ": " + d.stderr)
            XCTAssertTrue(d.stderr.contains("on the log directory's own card"), d.stderr)
        }
        XCTAssertEqual(files(card + "/media") + files(card + "/beside"), [])
        XCTAssertFalse(fm.fileExists(atPath: dir + "/delivered"))
        // Exported to a folder on the card (a stick's mount point): kept.
        try fm.createDirectory(atPath: card + "/media", withIntermediateDirectories: true)
        let e = try Harness.cairn("export", "--dir", dir, "--to", card + "/media/stick2")
        XCTAssertEqual(e.status, 0, e.stderr)
        let p2 = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p2.stderr)
        XCTAssertTrue(p2.stderr.contains("only copies on the log directory's own card"), p2.stderr)
        // The stick unplugged after an export to it leaves an empty mount point on the card: the
        // receipt holds (the copies are not looked for there).
        let stick = try Harness.offCardDir() + "/stick"
        let e2 = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e2.status, 0, e2.stderr)
        try fm.removeItem(atPath: stick)
        let p3 = try prune(dir)
        XCTAssertEqual(p3.status, 0, p3.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p3.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000002.cairn"), "the newest file is kept")
    }

    /// The third attack's sc-crypt, sc-union-mixed: a remote that wraps a folder on the card
    /// (crypt, a union with one upstream on the card and one off it) is the card; through a
    /// crypt over a folder off the card the copies are off the board.
    func testCopiesBehindAWrappingRemoteOnTheCardAreNoCopies() throws {
        let card = Harness.tempDir()
        let stick = try Harness.offCardDir()
        let conf = card + "/rclone.conf"
        let password = try XCTUnwrap(Harness.run("/usr/bin/env", ["rclone", "obscure", "secret"]).stdout.split(separator: "\n").first)
        try """
        [loc]
        type = local
        [sec]
        type = crypt
        remote = loc:\(card)/enc
        password = \(password)
        [u]
        type = union
        upstreams = \(card)/u1 \(stick)/u2
        create_policy = ff
        [far]
        type = crypt
        remote = loc:\(stick)/enc
        password = \(password)
        """.write(toFile: conf, atomically: true, encoding: .utf8)
        // A crypt over a folder on the card: refused (78), nothing written there.
        let onCard = try logs(2)
        for extra in [["--check"], []] {
            let r = try deliver(onCard, conf, "sec:rides", ["--format", "gpx", "--page", "no"] + extra)
            XCTAssertEqual(r.status, 78, "\(extra): " + r.stderr)
            XCTAssertTrue(r.stderr.contains("on the log directory's own card"), r.stderr)
        }
        XCTAssertEqual(files(card + "/enc"), [])
        for remote in ["u:rides"] {
            let dir = try logs(2)
            let check = try deliver(dir, conf, remote, ["--format", "gpx", "--page", "no", "--check"])
            XCTAssertTrue(check.stdout.contains("on the log directory's own card"), remote + ": " + check.stdout)
            let d = try deliver(dir, conf, remote, ["--format", "gpx", "--page", "no"])
            XCTAssertEqual(d.status, 0, d.stderr)
            let p = try prune(dir)
            XCTAssertEqual(p.status, 0, p.stderr)
            XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), remote + ": " + p.stderr)
            XCTAssertTrue(p.stderr.contains("only copies on the log directory's own card"), remote + ": " + p.stderr)
        }
        let dir = try logs(2)
        let d = try deliver(dir, conf, "far:rides", ["--format", "gpx", "--page", "no"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let p = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
    }

    /// Retention runs the rclone program the last delivery used (LOGDIR/delivery names it), as
    /// whoever runs `cairn prune` (root): never a program others can write, and the config it
    /// names is kept absolute (a prune from another working directory checks the same remote).
    func testRetentionRunsNoProgramOthersCanWrite() throws {
        let dir = try logs(2)
        let (_, remote, _) = try remote()
        let work = try Harness.offCardDir()
        try "[loc]\ntype = local\n".write(toFile: work + "/rclone.conf", atomically: true, encoding: .utf8)
        let wrapper = work + "/rclone-wrapper"
        let rclone = try XCTUnwrap(
            ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { $0 + "/rclone" }.first { fm.isExecutableFile(atPath: $0) })
        try "#!/bin/sh\necho ran >> \(work)/ran\nexec \(rclone) \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        let d = try Harness.run(
            Harness.cairn,
            ["deliver", "--dir", dir, "--remote", remote, "--rclone-config", "rclone.conf", "--rclone", wrapper, "--config", "none", "--page", "no"],
            cwd: work)
        XCTAssertEqual(d.status, 0, d.stderr)
        XCTAssertTrue(try String(contentsOfFile: dir + "/delivery", encoding: .utf8).contains("rclone_config = \(work)/rclone.conf"))
        try fm.removeItem(atPath: work + "/ran")  // the wrapper ran for the delivery
        // Writable by others now: retention runs rclone from PATH instead, and still checks.
        try fm.setAttributes([.posixPermissions: 0o777], ofItemAtPath: wrapper)
        let p = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: work + "/ran"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
    }

    /// The third attack's zone-widened-prune-before-recut: zones edited after trips went with
    /// their logs; the remote holds their old cut until a delivery cuts them again, which needs
    /// their logs. Prune (given today's zones, as the recorder's retention has them) keeps them
    /// until then, and deletes them once the new cut is there.
    func testPruneKeepsATripOwedANewCut() throws {
        let dir = try logs(3)
        try Harness.recorderKey(dir)
        let (conf, remote, _) = try remote()
        let extra = ["--logs", "yes", "--page", "no", "--format", "gpx"]
        let before = try deliver(dir, conf, remote, ["--config", try zoneConfig()] + extra)
        XCTAssertEqual(before.status, 0, before.stderr)
        let wider = Harness.tempDir() + "/cairn.conf"
        try "privacy-zone = 46.0,7.0,300\n".write(toFile: wider, atomically: true, encoding: .utf8)
        // A delivery with the wider zone that never reaches the remote (here rclone fails at
        // once) has said which cut it wants: a prune that is given no zones keeps the trips too.
        let cut = try deliver(dir, conf, remote, ["--config", wider, "--rclone", "/bin/false"] + extra)
        XCTAssertNotEqual(cut.status, 0, cut.stderr)
        let blind = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001", "--config", "none")
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), blind.stderr)
        XCTAssertTrue(blind.stderr.contains("cut by other privacy zones than today's"), blind.stderr)
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001", "--config", wider)
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("cut by other privacy zones than today's"), p.stderr)
        let again = try deliver(dir, conf, remote, ["--config", wider] + extra)
        XCTAssertEqual(again.status, 0, again.stderr)
        let p2 = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001", "--config", wider)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p2.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000002.cairn"), p2.stderr)
    }

    /// The config of a board with a privacy zone (far from the crafted rides: nothing is cut).
    func zoneConfig(_ extra: String = "") throws -> String {
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "privacy-zone = 46.0,7.0,200\n\(extra)".write(toFile: cfg, atomically: true, encoding: .utf8)
        return cfg
    }

    /// Finding 3: with zones (the logs stay home), a new card's trip 1 went under the old card's
    /// page key: the page step deleted the old trip 1's conversions, their only copy once the
    /// old card is gone.
    func testANewCardsTripOneLeavesTheOldCardsTripOne() throws {
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let old = try logs(2, salt: 0x10, firstDay: 1)
        let new = try logs(2, salt: 0x4400, firstDay: 20)
        try fm.copyItem(atPath: try Harness.recorderKey(old), toPath: new + "/privacy-key")  // one board
        let common = ["--board", "bike", "--format", "gpx"]
        XCTAssertEqual(try deliver(old, conf, remote, common + ["--config", cfg]).status, 0)
        let root = path + "/bike"
        let before = files(root).filter { $0.hasPrefix("gpx/") || $0.hasPrefix("pictures/") }
        XCTAssertEqual(before.count, 4, "\(files(root))")
        let r = try deliver(new, conf, remote, common + ["--config", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = files(root)
        for f in before { XCTAssertTrue(after.contains(f), "\(f) deleted: \(after) " + r.stderr) }
        XCTAssertEqual(after.filter { $0.hasPrefix("gpx/") }.count, 4, "\(after)")
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        XCTAssertEqual(index.split(separator: "\n").filter { $0.hasPrefix("bike/trip1") }.count, 2, index)
    }

    /// Finding 4: two boards without an id, zones on: both in `unnamed/`; the second deleted the
    /// first's GPX and picture while the first's receipt still said delivered. With zones, a
    /// board without an id gets a folder of its own (`unnamed-` and a tag keyed by its privacy
    /// key): the two never share one.
    func testTwoBoardsWithoutAnIdNeverDeleteEachOthersFiles() throws {
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let a = try logs(1, salt: 0x10, firstDay: 1)
        let b = try logs(1, salt: 0x5500, firstDay: 3)
        for d in [a, b] { try Harness.recorderKey(d) }
        let ra = try deliver(a, conf, remote, ["--format", "gpx", "--config", cfg])
        XCTAssertEqual(ra.status, 0, ra.stderr)
        let first = try unnamedFolder(path)
        let before = files(first)
        let rb = try deliver(b, conf, remote, ["--format", "gpx", "--config", cfg])
        XCTAssertEqual(rb.status, 0, rb.stderr)
        XCTAssertEqual(files(first), before, rb.stderr)
        let folders = try fm.contentsOfDirectory(atPath: path).filter { $0.hasPrefix("unnamed") }.sorted()
        XCTAssertEqual(folders.count, 2, "\(folders)")
        for f in folders {
            XCTAssertEqual(files(path + "/" + f).filter { $0.hasPrefix("gpx/") }.count, 1, "\(f): \(files(path + "/" + f))")
            XCTAssertEqual(files(path + "/" + f).filter { $0.hasPrefix("pictures/") }.count, 1, "\(f): \(files(path + "/" + f))")
        }
    }

    /// Found beside finding 4: two boards under one folder, zones on and `--logs yes`: the second
    /// board's privacy key replaced the first's beside the first's logs, so a laptop's convert of
    /// them cut the zones elsewhere than the board did (two cuts of one home cross at it). Two
    /// boards given the same id by mistake share it still.
    func testAnotherBoardsKeyBesideTheLogsIsNeverReplaced() throws {
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let a = try logs(1, salt: 0x10, firstDay: 1)
        // The second board's log under a name of its own: only the key is shared.
        let b = CraftedLog.directory()
        try CraftedLog.write(
            CraftedLog.file(trip: 7, salt: 0x5500, startMs: CraftedLog.june1 + 3 * day, points: 40, northOffset: 400, closed: true),
            b + "/00000007.cairn")
        for d in [a, b] { try Harness.recorderKey(d) }
        let extra = ["--format", "gpx", "--config", cfg, "--logs", "yes", "--board", "bike"]
        XCTAssertEqual(try deliver(a, conf, remote, extra).status, 0)
        let key = try data(path + "/bike/logs/privacy-key")
        XCTAssertEqual(key, try data(a + "/privacy-key"))
        // The second key goes beside it under a name of its own (an earlier card of this board
        // looks the same, attack-r22 c19: each card makes its key), the first never replaced.
        let rb = try deliver(b, conf, remote, extra)
        XCTAssertEqual(try data(path + "/bike/logs/privacy-key"), key, rb.stderr)
        XCTAssertEqual(rb.status, 0, rb.stderr)
        let keys = try fm.contentsOfDirectory(atPath: path + "/bike/logs").filter { $0.hasPrefix("privacy-key-") }
        XCTAssertEqual(keys.count, 1, "\(keys)")
        XCTAssertEqual(try data(path + "/bike/logs/" + keys[0]), try data(b + "/privacy-key"))
        XCTAssertEqual(try deliver(a, conf, remote, extra).status, 0)
        XCTAssertEqual(try data(path + "/bike/logs/privacy-key"), key)
    }

    /// Attack-r22 c19: a board's new card, zones and `--logs yes`: its key (the recorder makes
    /// one per card) goes beside the old card's, each run exits 0, nothing of the old card's is
    /// replaced; its key damaged there (under its own name) is found and sent again.
    func testANewCardsKeyGoesBesideTheOldCards() throws {
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let a = try logs(1, salt: 0x10, firstDay: 1)
        let b = try logs(1, salt: 0x77, firstDay: 3)
        for d in [a, b] { try Harness.recorderKey(d) }
        let extra = ["--format", "gpx", "--config", cfg, "--logs", "yes", "--board", "b1"]
        XCTAssertEqual(try deliver(a, conf, remote, extra).status, 0)
        let logsFolder = path + "/b1/logs"
        for run in 1...2 {
            let r = try deliver(b, conf, remote, extra)
            XCTAssertEqual(r.status, 0, "run \(run): " + r.stderr)
            XCTAssertFalse(r.stderr.contains("another key"), r.stderr)
        }
        let own = try XCTUnwrap(try fm.contentsOfDirectory(atPath: logsFolder).first { $0.hasPrefix("privacy-key-") })
        XCTAssertEqual(try data(logsFolder + "/" + own), try data(b + "/privacy-key"))
        XCTAssertEqual(try data(logsFolder + "/privacy-key"), try data(a + "/privacy-key"))
        XCTAssertEqual(try data(logsFolder + "/00000001-00000010.cairn"), try data(a + "/00000001.cairn"))
        XCTAssertEqual(try data(logsFolder + "/00000001-00000077.cairn"), try data(b + "/00000001.cairn"))
        var d = try data(logsFolder + "/" + own)
        d[d.count / 2] ^= 0x01
        try d.write(to: URL(fileURLWithPath: logsFolder + "/" + own))
        let r = try deliver(b, conf, remote, extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("this card's key, damaged there"), r.stderr)
        XCTAssertEqual(try data(logsFolder + "/" + own), try data(b + "/privacy-key"))
    }

    /// Finding 5: `--remote PARENT --board bike` where PARENT/bike is the log directory: the
    /// nesting check looked at PARENT/unnamed only; it delivered into the log directory, and
    /// prune deleted trip 1 on the strength of that "copy".
    func testTheNestingCheckLooksAtTheBoardsFolder() throws {
        let parent = Harness.tempDir()
        let dir = parent + "/bike"
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = try logs(2, dir: dir)
        let (conf, _, _) = try remote()
        let r = try deliver(dir, conf, parent, ["--board", "bike"])
        XCTAssertEqual(r.status, 78, r.stderr)
        XCTAssertTrue(r.stderr.contains("its folder"), r.stderr)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).sorted(), ["00000001.cairn", "00000002.cairn"])
        // The same through the config's board.
        let cfg = Harness.tempDir() + "/cairn.conf"
        try "board = bike\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let c = try Harness.run(
            Harness.cairn, ["deliver", "--dir", dir, "--remote", parent, "--rclone-config", conf, "--config", cfg, "--retries", "1"])
        XCTAssertEqual(c.status, 78, c.stderr)
    }

    /// Finding 6: a kill right after the privacy key's temporary upload (`--logs yes --page no`):
    /// the temporary stayed after two clean runs and the key was never sent.
    func testAKeysTemporaryIsRemovedAndTheKeySent() throws {
        let dir = try logs(2)
        try Harness.recorderKey(dir)
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let extra = ["--config", cfg, "--logs", "yes", "--page", "no", "--format", "gpx"]
        XCTAssertEqual(try deliver(dir, conf, remote, extra).status, 0)
        let board = try unnamedFolder(path)
        let logsFolder = board + "/logs"
        let key = try data(logsFolder + "/privacy-key")
        // As a kill -9 after the upload under the temporary name leaves it.
        try fm.removeItem(atPath: logsFolder + "/privacy-key")
        try key.write(to: URL(fileURLWithPath: logsFolder + "/.cairn-tmp-0123456789abcdef-privacy-key"))
        for _ in 0..<2 {
            let r = try deliver(dir, conf, remote, extra)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(files(path).filter { $0.contains(".cairn-tmp-") }, [])
        XCTAssertEqual(try? data(logsFolder + "/privacy-key"), key)
    }

    /// Attack r21 case13: with zones and the logs going (the key beside them), a byte flipped in
    /// the remote's key or page at its size was never noticed, and a run that then sent a log
    /// failed "holds another key (another board's …)" on every run though the board had its
    /// own id. Both are found by the listing's MD5 and sent again; a trip added later goes.
    func testADamagedKeyOrPageAtItsSizeIsSentAgain() throws {
        let dir = try logs(2)
        try Harness.recorderKey(dir)
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig("board = kb\n")
        let extra = ["--config", cfg, "--logs", "yes", "--format", "gpx"]
        XCTAssertEqual(try deliver(dir, conf, remote, extra).status, 0)
        let board = path + "/kb"
        for f in [board + "/logs/privacy-key", board + "/index.html"] {
            let whole = try data(f)
            var d = whole
            d[d.count / 2] ^= 0x01
            try d.write(to: URL(fileURLWithPath: f))
            let r = try deliver(dir, conf, remote, extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try data(f), whole, f + ": " + r.stderr)
        }
        XCTAssertTrue(
            try deliver(dir, conf, remote, extra).stderr.contains("(0 files, 0 bytes)"), "whole again: nothing sent")
        _ = try logs(3, dir: dir)
        let r = try deliver(dir, conf, remote, extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("holds another key"), r.stderr)
    }

    /// Finding 7: a 40 MiB index.tsv of zero bytes at the remote was read whole (262 MB
    /// resident on a 512 MB board), staged, and uploaded back, exit 0.
    func testAZeroFilledIndexAtTheRemoteIsNeitherReadWholeNorSentBack() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        try fm.createDirectory(atPath: path + "/b1", withIntermediateDirectories: true)
        let index = path + "/b1/index.tsv"
        try Data(count: 40 << 20).write(to: URL(fileURLWithPath: index))
        let measure = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.write(r.stderr.decode(errors="replace"))
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(r.returncode)
            """
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", "-c", measure, Harness.cairn, "deliver", "--dir", dir, "--remote", remote, "--rclone-config", conf,
                "--config", "none", "--retries", "1", "--board", "b1", "--format", "gpx"
            ],
            timeout: 300)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("not a cairn trip index; the page is not updated"), r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 2 trips"), r.stderr)
        let peakKiB = Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max
        XCTAssertLessThan(peakKiB, 100 * 1024, "peak resident KiB of deliver with a 40 MiB index of zeros at the remote")
        let back = try data(index)
        XCTAssertEqual(back.count, 40 << 20)
        XCTAssertFalse(fm.fileExists(atPath: path + "/b1/index.html"))
    }

    /// Finding 8: a run deferred by a ride being recorded said `waiting = 0` with two finished
    /// trips undelivered.
    func testADeferredRunCountsTheTripsWaiting() throws {
        let dir = try logs(3)
        let (conf, remote, _) = try remote()
        let lock = open(dir + "/.cairn.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(lock) }
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        let w = open(dir + "/00000003.cairn", O_WRONLY | O_APPEND | O_CLOEXEC)
        defer { close(w) }
        let r = try deliver(dir, conf, remote)
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertTrue(r.stderr.contains("2 trips left"), r.stderr)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertTrue(status.contains("waiting = 2\n"), status)
    }

    /// A remote log damaged in place after its receipt, its size and time kept (bit rot): prune
    /// finds it and keeps the trip; the next delivery replaces it (rclone took a copy of the same
    /// size and time for this one, and every run failed); prune then deletes the trip.
    func testACopyDamagedAtItsSizeAndTimeIsRepaired() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let copy = root + "/logs/00000001-00000010.cairn"
        var st = stat()
        XCTAssertEqual(stat(copy, &st), 0)
        var rotten = try data(copy)
        for i in (rotten.count / 3)..<rotten.count { rotten[i] = 0 }
        try rotten.write(to: URL(fileURLWithPath: copy))
        // To the nanosecond: rclone takes a file of the same size and time for the same.
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, copy, &times, 0), 0)
        let p = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        for _ in 0..<2 {
            let r = try deliver(dir, conf, remote, ["--format", "gpx"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(try data(copy), try data(dir + "/00000001.cairn"))
        let after = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), after.stderr)
    }

    /// A log and a GPX damaged on the remote at their sizes after their receipt (one byte
    /// flipped): the next delivery said "already there" (its listing had sizes only). The
    /// receipt keeps the MD5s the files read back with, the listing has the backend's: found,
    /// said and sent again; prune, in between, keeps the trip.
    func testACopyDamagedAtItsSizeIsFoundByTheNextDelivery() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let gpx = try XCTUnwrap(files(root + "/gpx").first)
        let wholeGpx = try data(root + "/gpx/" + gpx)
        for p in [root + "/logs/00000001-00000010.cairn", root + "/gpx/" + gpx] {
            var d = try data(p)
            d[d.count / 2] ^= 0x01
            try d.write(to: URL(fileURLWithPath: p))
        }
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("not whole") && r.stderr.contains("other bytes") && r.stderr.contains("sent again"), r.stderr)
        XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), try data(dir + "/00000001.cairn"), r.stderr)
        XCTAssertEqual(try data(root + "/gpx/" + gpx), wholeGpx, r.stderr)
        // Damaged again: prune keeps the trip, the delivery after it repairs the copy.
        var d = try data(root + "/logs/00000001-00000010.cairn")
        d[d.count / 3] ^= 0x01
        try d.write(to: URL(fileURLWithPath: root + "/logs/00000001-00000010.cairn"))
        let p = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        XCTAssertEqual(try data(root + "/logs/00000001-00000010.cairn"), try data(dir + "/00000001.cairn"))
        let again = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertTrue(again.stderr.contains("delivered 0 trips") && again.stderr.contains("2 already there"), again.stderr)
    }

    /// prune's checks of the remote (a listing a board folder, a read-back a log, where rclone
    /// keeps the folder) go through one `rclone rcd` for its run, as a delivery's (issue 37): it
    /// started one rclone for each.
    func testAPruneStartsOneRclone() throws {
        let dir = try logs(4)
        let (conf, remote, _) = try remote()
        let t = try Harness.offCardDir()
        let wrapper = try RcloneSyncHook.wrapper(in: t)
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx", "--rclone", wrapper]).status, 0)
        try fm.removeItem(atPath: t + "/calls")
        let p = try prune(dir)
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(p.stderr.contains("deleted 3 trips"), p.stderr)
        let said = try String(contentsOfFile: t + "/calls", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(said.count, 1, said.joined(separator: "\n"))
        XCTAssertTrue(said.first?.contains("rcd") == true, said.joined(separator: "\n"))
    }

    /// The files a delivery says it sent are those that reached the remote: the page's too (the
    /// first delivery said "4 files" where 7 went).
    func testTheFilesSaidSentAreThoseOnTheRemote() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let there = files(path + "/unnamed")
        let bytes = try there.reduce(0) { $0 + (try data(path + "/unnamed/" + $1)).count }
        XCTAssertTrue(r.stderr.contains("delivered 2 trips to \(remote)/unnamed (\(there.count) files, \(bytes) bytes)"), "\(there) \(r.stderr)")
    }

    /// A trip exported to a stick (gone since) and delivered, its remote copy cut after: prune
    /// deleted it on the strength of the export's receipt although it found the copy it could
    /// look at damaged in the same run.
    func testADamagedDeliveredCopyOutweighsAnExportReceipt() throws {
        let dir = try logs(2)
        let stick = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--to", stick, "--dir", dir, "--config", "none")
        XCTAssertEqual(e.status, 0, e.stderr)
        try fm.removeItem(atPath: stick)
        let (conf, remote, path) = try remote()
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let copy = path + "/unnamed/logs/00000001-00000010.cairn"
        try data(copy).prefix(100).write(to: URL(fileURLWithPath: copy))
        let p = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("not found whole"), p.stderr)
    }

    /// With zones (the logs stay home), a conversion cut or deleted on the remote after its
    /// receipt: the run said "already there" and never sent it again. The receipt names what
    /// went, with sizes, and the listing finds it so.
    func testAConversionCutOrLostAfterItsReceiptIsSentAgain() throws {
        let dir = try logs(2)
        try Harness.recorderKey(dir)
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let extra = ["--format", "gpx,fit", "--config", cfg]
        XCTAssertEqual(try deliver(dir, conf, remote, extra).status, 0)
        let root = try unnamedFolder(path)
        let before = files(root)
        let gpx = try XCTUnwrap(before.first { $0.hasPrefix("gpx/") })
        let fit = try XCTUnwrap(before.last { $0.hasPrefix("fit/") })
        let whole = try data(root + "/" + gpx)
        try whole.prefix(100).write(to: URL(fileURLWithPath: root + "/" + gpx))
        try fm.removeItem(atPath: root + "/" + fit)
        let r = try deliver(dir, conf, remote, extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("sent again"), r.stderr)
        XCTAssertEqual(files(root), before, r.stderr)
        XCTAssertEqual(try data(root + "/" + gpx), whole, r.stderr)
    }

    /// A run in which a trip could not be delivered exits 1: its status said `result = ok`.
    func testARunWithATripNotDeliveredSaysSoInItsStatus() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        // Another log under trip 2's name at the remote: trip 2 cannot go, trip 1 goes.
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x7777, startMs: CraftedLog.june1, points: 50, northOffset: 400, closed: true),
            path + "/unnamed/logs/00000002-00000020.cairn")
        try fm.removeItem(atPath: dir + "/delivered")
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertTrue(status.contains("result = failed\n") && status.contains("1 trip not delivered"), status)
    }

    /// rclone starts per run: one whatever the number of files (it was 7 a file, then 8 a run).
    func testADeliveryStartsAFewRclonesWhateverItSends() throws {
        let dir = try logs(6)
        let (conf, remote, _) = try remote()
        let t = Harness.tempDir()
        let calls = t + "/calls"
        let wrapper = t + "/rclone"
        try "#!/bin/sh\necho \"$*\" >> \(calls)\nexec rclone \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(wrapper, 0o755), 0)
        let r = try deliver(dir, conf, remote, ["--rclone", wrapper])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 6 trips"), r.stderr)
        let said = try String(contentsOfFile: calls, encoding: .utf8)
        let n = said.split(separator: "\n").count
        // One `rclone rcd` for the run, whatever it sends (issue 37; it was 8, and 7 a file before).
        XCTAssertEqual(n, 1, said)
        let again = try deliver(dir, conf, remote, ["--rclone", wrapper])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOfFile: calls, encoding: .utf8).split(separator: "\n").count - n, 1)
    }

    /// rclone starts per batch (issue 37; the fourth attack's measure-rclone-starts): a run of
    /// several batches (one trip a batch after a failed run, then more) still starts one rclone,
    /// the run's `rclone rcd` (it was 4 more a batch).
    func testEachFurtherBatchCostsNoRcloneStart() throws {
        let dir = try logs(6)
        let (conf, remote, _) = try remote()
        let t = Harness.tempDir()
        let wrapper = try RcloneSyncHook.wrapper(in: t, hook: ":")
        try "".write(toFile: t + "/fail", atomically: true, encoding: .utf8)
        XCTAssertNotEqual(try deliver(dir, conf, remote, ["--rclone", wrapper]).status, 0)
        try fm.removeItem(atPath: t + "/fail")
        try fm.removeItem(atPath: t + "/calls")
        // After a failed run one trip a batch, twice as much after each that went: 1, 2, 3.
        let r = try deliver(dir, conf, remote, ["--rclone", wrapper])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 6 trips"), r.stderr)
        let batches = Int((try? String(contentsOfFile: t + "/syncs", encoding: .utf8)) ?? "0") ?? 0
        XCTAssertGreaterThan(batches, 1, r.stderr)
        let said = try String(contentsOfFile: t + "/calls", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(said.count, 1, said.joined(separator: "\n"))
    }

    /// The board's folder on the remote a symlink to the log directory: the batch went into the
    /// log directory (the shipping folder beside it was not), and prune then deleted the trips on
    /// the strength of those "copies". The listing finds the run's marker and refuses (78).
    func testABoardFolderThatIsTheLogDirectoryThroughASymlinkIsRefused() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: path + "/bike", withDestinationPath: dir)
        let before = try fm.contentsOfDirectory(atPath: dir).sorted()
        let r = try deliver(dir, conf, remote, ["--board", "bike"])
        XCTAssertEqual(r.status, 78, r.stderr)
        XCTAssertTrue(r.stderr.contains("own storage"), r.stderr)
        // Nothing there but its lock: no copy landed in the log directory.
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).filter { $0 != ".cairn-deliver.lock" }.sorted(), before, r.stderr)
        let p = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
    }

    /// A folder on the remote under the page's index name: every trip's files went, but no trip
    /// was receipted (the whole batch had to read back), every run forever. The page is refused,
    /// said on every run; the trips go and are receipted.
    func testAFolderUnderThePagesNameHoldsNoTripBack() throws {
        let dir = try logs(2)
        let (conf, remote, path) = try remote()
        try fm.createDirectory(atPath: path + "/unnamed/index.tsv", withIntermediateDirectories: true)
        try "x".write(toFile: path + "/unnamed/index.tsv/readme", atomically: true, encoding: .utf8)
        for run in 0..<2 {
            let r = try deliver(dir, conf, remote, ["--format", "gpx"])
            XCTAssertEqual(r.status, 1, "run \(run): " + r.stderr)
            XCTAssertTrue(r.stderr.contains("index.tsv") && r.stderr.contains("folder"), "run \(run): " + r.stderr)
        }
        let receipts = try String(contentsOfFile: dir + "/delivered", encoding: .utf8)
        XCTAssertEqual(receipts.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 2, receipts)
    }

    /// With the page off, a zone added later left the uncut conversions of before (home in them)
    /// beside the cut ones: the receipts name what went, and what a trip no longer has goes.
    func testAZoneAddedLaterTakesBackWhatWentWithThePageOff() throws {
        let dir = try logs(2)
        try Harness.recorderKey(dir)
        let (conf, remote, path) = try remote()
        let root = path + "/bike"
        let common = ["--board", "bike", "--page", "no", "--format", "gpx"]
        XCTAssertEqual(try deliver(dir, conf, remote, common).status, 0)
        let before = files(root).filter { $0.hasPrefix("gpx/") }
        XCTAssertEqual(before.count, 2)
        // A zone around the trips' start (these start 400 points north of 47.0, 8.5).
        let r = try deliver(dir, conf, remote, common + ["--privacy-zone", "47.018,8.5,100", "--logs", "yes"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = files(root).filter { $0.hasPrefix("gpx/") }
        for f in before { XCTAssertFalse(after.contains(f), "\(f) uncut, still up: \(after) " + r.stderr) }
    }

    /// The fourth attack's zone-widened-retention-first: zones given only to deliver; retention
    /// (no zones of its own) deleted the trips whose copies were whole before the next delivery
    /// could cut them for the widened zone: their old cut stayed published for good. The next
    /// delivery takes down what it can no longer cut again: conversions, pictures, page entries
    /// (the logs stay); it says so, once.
    func testAZoneChangedAfterPruneTakesDownWhatCannotBeCutAgain() throws {
        let dir = try logs(3)
        try Harness.recorderKey(dir)
        let (conf, remote, path) = try remote()
        let common = ["--board", "bike", "--logs", "yes", "--format", "gpx"]
        let first = try deliver(dir, conf, remote, common + ["--privacy-zone", "46.0,7.0,200"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let root = path + "/bike"
        XCTAssertEqual(files(root).filter { $0.hasPrefix("gpx/") || $0.hasPrefix("pictures/") }.count, 6, "\(files(root))")
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001", "--config", "none")
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000002.cairn"), p.stderr)
        let r = try deliver(dir, conf, remote, common + ["--privacy-zone", "46.0,7.0,300"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Harness.count("cut for other zones are taken off", in: r.stderr), 2, r.stderr)
        let after = files(root)
        for trip in ["trip1", "trip2"] {
            XCTAssertFalse(after.contains { !$0.hasPrefix("logs/") && $0.contains(trip) }, "\(trip) still up: \(after) " + r.stderr)
        }
        XCTAssertEqual(after.filter { $0.hasPrefix("gpx/") || $0.hasPrefix("pictures/") }.count, 2, "\(after)")
        XCTAssertTrue(after.contains("logs/00000001-00000010.cairn"), "\(after)")
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        XCTAssertEqual(index.split(separator: "\n").filter { $0.hasPrefix("bike/") }.count, 1, index)
        let again = try deliver(dir, conf, remote, common + ["--privacy-zone", "46.0,7.0,300"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stderr.contains("taken off"), again.stderr)
    }

    /// The fourth attack's ship-prune-between-batches: retention ran between two batches of one
    /// delivery and deleted trips delivered before (their copies whole); the run then failed on
    /// a trip it could no longer open (exit 1, "not delivered"). A trip deleted after its receipt
    /// is no failure, and the page keeps its entry.
    func testAPruneBetweenBatchesOfADeliveryIsNoFailure() throws {
        let dir = try logs(4)
        let (conf, remote, path) = try remote()
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        // A format added: every trip goes again; a run that failed first makes it one trip a
        // batch, and retention runs while the first batch goes up.
        let t = try Harness.offCardDir()
        let wrapper = try RcloneSyncHook.wrapper(
            in: t, hook: "[ $N = 1 ] && \(Harness.cairn) prune --dir \(dir) --max-mb 0.000001 > \(t)/prune 2>&1; true")
        try "".write(toFile: t + "/fail", atomically: true, encoding: .utf8)
        let failed = try deliver(dir, conf, remote, ["--format", "gpx,csv", "--rclone", wrapper])
        XCTAssertNotEqual(failed.status, 0, failed.stderr)
        try fm.removeItem(atPath: t + "/fail")
        let r = try deliver(dir, conf, remote, ["--format", "gpx,csv", "--rclone", wrapper])
        let pruned = (try? String(contentsOfFile: t + "/prune", encoding: .utf8)) ?? ""
        XCTAssertTrue(pruned.contains("deleted 3 trips"), pruned)
        XCTAssertEqual(r.status, 0, r.stderr)
        let calls = (try? String(contentsOfFile: t + "/calls", encoding: .utf8)) ?? ""
        XCTAssertTrue(r.stderr.contains("deleted from the board since this run began"), r.stderr + calls)
        XCTAssertFalse(r.stderr.contains("not delivered"), r.stderr)
        let root = path + "/unnamed"
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        let rows = index.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("key\t") }
        XCTAssertEqual(rows.count, 4, index)
        // No dead link: every file a row names (its `files` column) is there.
        for row in rows {
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false)
            XCTAssertGreaterThan(fields.count, 11, String(row))
            for link in fields.count > 11 ? fields[11].split(separator: " ") : [] {
                XCTAssertTrue(fm.fileExists(atPath: root + "/" + link), "\(link): \(row)")
            }
        }
        let again = try deliver(dir, conf, remote, ["--format", "gpx,csv"])
        XCTAssertEqual(again.status, 0, again.stderr)
    }

    /// The fourth attack's ship-stick-unmounted-between-batches: the remote a folder on a stick,
    /// the stick unmounted between two batches of one run: the second batch went into its empty
    /// mount point on the card (exit 0), copies hidden there once the stick is back, never
    /// removed. A batch that finds the folder moved onto the log directory's file system since
    /// the run began is refused (the run fails: try later), what it wrote there removed.
    func testAStickUnmountedBetweenBatchesIsRefusedAndLeavesNothingOnTheCard() throws {
        let dir = try logs(4)
        let card = (dir as NSString).deletingLastPathComponent
        let stick = card + "/stick"
        let store = try Harness.offCardDir()
        try fm.createDirectory(atPath: stick, withIntermediateDirectories: true)
        guard try Harness.run("/bin/mount", ["--bind", store, stick]).status == 0 else {
            throw XCTSkip("no bind mounts here (needs root with CAP_SYS_ADMIN)")
        }
        defer { _ = try? Harness.run("/bin/umount", [stick]) }
        let conf = store + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        // A run that failed first makes it one trip a batch; the stick goes as the second goes up.
        let t = Harness.tempDir()
        let wrapper = try RcloneSyncHook.wrapper(in: t, hook: "[ $N = 2 ] && /bin/umount \(stick); true")
        try "".write(toFile: t + "/fail", atomically: true, encoding: .utf8)
        let remote = "loc:" + stick + "/rides"
        let extra = ["--format", "gpx", "--rclone", wrapper, "--rclone-config", conf]
        XCTAssertNotEqual(try deliver(dir, conf, remote, extra).status, 0)
        try fm.removeItem(atPath: t + "/fail")
        let r = try deliver(dir, conf, remote, extra)
        XCTAssertNotEqual(r.status, 0, r.stderr)
        // (Said once per outage under systemd: the run before failed too; the status says why.)
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertTrue(status.contains("now on the log directory's own card"), status)
        // The stick is out: what is under its mount point is on the card.
        XCTAssertEqual(files(stick), [], r.stderr)
        XCTAssertEqual(try Harness.run("/bin/mount", ["--bind", store, stick]).status, 0)
        let back = try deliver(dir, conf, remote, ["--format", "gpx", "--rclone-config", conf])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(files(store + "/rides/unnamed").filter { $0.hasPrefix("logs/") }.count, 4, back.stderr)
    }
}

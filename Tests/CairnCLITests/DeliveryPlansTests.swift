import CairnExport
import XCTest

@testable import cairn

/// Table tests of delivery's pure decisions: what a read-back shows whole, what the page's
/// reconciliation deletes, and how a run ends.
final class DeliveryPlansTests: XCTestCase {
    typealias S = DeliveryPlans.Staged

    func testVerified() {
        let staged = [S(relative: "logs/1", md5: "a", size: 1), S(relative: "gpx/x.gpx", md5: "b", size: 2)]
        let rows: [(read: [String: String], whole: Set<String>, wrong: [String])] = [
            (["logs/1": "a", "gpx/x.gpx": "b"], ["logs/1", "gpx/x.gpx"], []),
            (["logs/1": "a"], ["logs/1"], ["gpx/x.gpx: missing"]),
            (["logs/1": "z", "gpx/x.gpx": "b", "other": "q"], ["gpx/x.gpx"], ["logs/1: other bytes (MD5 z, not a)"]),
            ([:], [], ["logs/1: missing", "gpx/x.gpx: missing"])
        ]
        for r in rows {
            let v = DeliveryPlans.verified(staged, readBack: r.read)
            XCTAssertEqual(v.whole, r.whole, "\(r.read)")
            XCTAssertEqual(v.wrong, r.wrong, "\(r.read)")
        }
        XCTAssertTrue(DeliveryPlans.receipted([], whole: []))
        XCTAssertTrue(DeliveryPlans.receipted(["a"], whole: ["a", "b"]))
        XCTAssertFalse(DeliveryPlans.receipted(["a", "c"], whole: ["a", "b"]))
    }

    func testObsolete() {
        let all = ["gpx", "fit", "csv", "geojson", "kml"]
        // (before, now, hidden, formats sent, the name each format would have now, deleted)
        let rows: [(before: [String], now: [String], hidden: Bool, sent: [String], names: [String: String], deleted: [String])] = [
            // Unchanged.
            (["gpx/a.gpx", "pictures/a.svg"], ["gpx/a.gpx", "pictures/a.svg"], false, ["gpx"], [:], []),
            // A zone moved the first point: the old names go.
            (["gpx/a.gpx", "pictures/a.svg"], ["gpx/b.gpx", "pictures/b.svg"], false, ["gpx"], [:], ["gpx/a.gpx", "pictures/a.svg"]),
            // A format dropped: its file stays while its name is still the trip's.
            (["gpx/a.gpx", "csv/a.csv"], ["gpx/a.gpx"], false, ["gpx"], ["csv": "a.csv"], []),
            // A format dropped and the trip renamed by a zone: the old file showed what is cut now.
            (["gpx/a.gpx", "csv/a.csv"], ["gpx/b.gpx"], false, ["gpx"], ["csv": "b.csv"], ["gpx/a.gpx", "csv/a.csv"]),
            // Hidden whole: every conversion and the picture, whatever the formats.
            (["gpx/a.gpx", "csv/a.csv", "pictures/a.svg"], [], true, ["gpx"], [:], ["gpx/a.gpx", "csv/a.csv", "pictures/a.svg"]),
            // Never a log, a path out of the folders, or an escape.
            (["logs/00000001.cairn", "../x", "gpx/../../x", "gpx/..", "notes/a.txt", "/etc/passwd", "gpx/a\u{0}.gpx"], [], true, ["gpx"], [:], [])
        ]
        for r in rows {
            let got = DeliveryPlans.obsolete(
                before: r.before, now: r.now, hidden: r.hidden, formatsSent: r.sent, allFormats: all, picturesFolder: "pictures",
                nameNow: { r.names[$0] })
            XCTAssertEqual(got, r.deleted, "\(r.before) -> \(r.now)")
        }
    }

    func testOutcome() {
        let failing = DeliveryStatus(result: .failed, atMs: 0, failures: 2, failingSinceMs: 5)
        var ok = DeliveryPlans.Counts()
        ok.delivered = 2
        ok.sentFiles = 7
        var problems = ok
        problems.problems = 1
        problems.failedTrips = 1
        problems.firstProblem = "trip 3: gpx not made"
        // (stop, counts, previous, quiet) -> (result, exit, failures, since, lines said)
        let rows: [(Stop?, DeliveryPlans.Counts, DeliveryStatus?, Bool, DeliveryStatus.Result, Int32, Int, Int64?, Int)] = [
            (nil, ok, nil, true, .ok, ExitCode.ok, 0, nil, 1),
            (nil, ok, failing, true, .ok, ExitCode.ok, 0, nil, 2),
            // A run with a trip that failed: it fails, and says since when.
            (nil, problems, nil, true, .failed, ExitCode.failure, 1, 100, 2),
            (nil, problems, failing, true, .failed, ExitCode.failure, 3, 5, 2),
            (.remote("down"), ok, nil, true, .failed, ExitCode.tryLater, 1, 100, 1),
            // An outage going on is said once under systemd, every time at a terminal.
            (.remote("down"), ok, failing, true, .failed, ExitCode.tryLater, 3, 5, 0),
            (.remote("down"), ok, failing, false, .failed, ExitCode.tryLater, 3, 5, 1),
            (.recording("riding"), ok, nil, true, .deferred, ExitCode.tryLater, 0, nil, 1),
            // A password or a key refused: it fails the unit and is said on every run.
            (.remote("list dav:x: 401 Unauthorized"), ok, failing, true, .failed, ExitCode.failure, 3, 5, 1),
            (.remote("AccessDenied: Access Denied status code: 403"), ok, nil, true, .failed, ExitCode.failure, 1, 100, 1),
            (.remote("ssh: handshake failed: ssh: unable to authenticate"), ok, failing, true, .failed, ExitCode.failure, 3, 5, 1),
            // A full remote needs the rider: it fails (not try later), said on every run, quiet or not.
            (.remote("sync/sync: 507 Insufficient Storage"), ok, failing, true, .failed, ExitCode.failure, 3, 5, 1),
            (.remote("write: no space left on device"), ok, nil, true, .failed, ExitCode.failure, 1, 100, 1),
            (.remote("QuotaExceeded: storage quota exceeded"), ok, failing, true, .failed, ExitCode.failure, 3, 5, 1)
        ]
        for (stop, counts, previous, quiet, result, code, failures, since, lines) in rows {
            let o = DeliveryPlans.outcome(
                stop: stop, counts: counts, remote: "nas:r", base: "nas:r/bike", previous: previous, quietFailures: quiet, nowMs: 100)
            let row = "\(String(describing: stop)) \(counts.problems) \(String(describing: previous?.result))"
            XCTAssertEqual(o.result, result, row)
            XCTAssertEqual(o.exitCode, code, row)
            XCTAssertEqual(o.failures, failures, row)
            XCTAssertEqual(o.failingSinceMs, since, row)
            XCTAssertEqual(o.lines.count, lines, "\(row): \(o.lines)")
            // try_later (the LED's rides waiting) exactly when the exit code is 75 and it failed.
            XCTAssertEqual(o.tryLater, o.result == .failed && code == ExitCode.tryLater, row)
        }
        var some = ok
        some.left = 4
        let full = DeliveryPlans.outcome(
            stop: .remote("webdav: 507 Insufficient Storage"), counts: some, remote: "dav:r", base: "dav:r/bike", previous: failing,
            quietFailures: true, nowMs: 100)
        XCTAssertEqual(
            full.lines,
            [
                "the remote is full: delivery to dav:r failed: webdav: 507 Insufficient Storage; it took 2 trips (7 files, 0 bytes);"
                    + " make room on it (or deliver elsewhere); 4 trips wait"
            ])
        XCTAssertFalse(full.tryLater)
        let p = DeliveryPlans.outcome(stop: nil, counts: problems, remote: "r:", base: "r:x", previous: nil, quietFailures: true, nowMs: 1)
        XCTAssertEqual(p.reason, "1 trip not delivered: trip 3: gpx not made")
    }

    /// What a remote's failure is, the one place its exit code comes from.
    func testRemoteTrouble() {
        let rows: [(String, DeliveryPlans.RemoteTrouble, Int32)] = [
            ("dial tcp 127.0.0.1:8080: connect: connection refused", .outage, ExitCode.tryLater),
            ("no answer within 90 s, stopped", .outage, ExitCode.tryLater),
            ("x: 403 Forbidden", .setup, ExitCode.failure),
            ("Put \"http://h/x\": 507 Insufficient Storage", .full, ExitCode.failure),
            ("failed to upload: insufficient_storage", .full, ExitCode.failure),
            ("write: no space left on device", .full, ExitCode.failure),
            ("googleapi: Error 403: The user's Drive storage quota has been exceeded., storageQuotaExceeded", .full, ExitCode.failure),
            ("QuotaExceeded: Quota exceeded", .full, ExitCode.failure),
            ("not enough space on the disk", .full, ExitCode.failure),
            // attack-r21 case03: a full disk under rclone's local backend (a plain folder).
            ("send to /r/.cairn-tmp-x: preallocate: file too big for remaining disk space", .full, ExitCode.failure)
        ]
        for (text, kind, code) in rows {
            XCTAssertEqual(DeliveryPlans.RemoteTrouble(text), kind, text)
            XCTAssertEqual(DeliveryPlans.RemoteTrouble(text).exitCode, code, text)
        }
    }

    /// The files and bytes said and written in the status: every staged file that read back
    /// whole (the page's and the key too), each once; one that did not is not counted.
    func testTally() {
        let f = { (r: String, n: Int) in DeliveryPlans.Staged(relative: r, md5: "", size: n) }
        let staged = [
            f("logs/00000001.cairn", 100), f("gpx/a.gpx", 20), f("logs/00000002.cairn", 50), f("gpx/b.gpx", 10),
            f("index.html", 5), f("index.tsv", 3), f("pictures/a.svg", 7), f("logs/cairn-privacy.key", 32)
        ]
        let rows: [(Set<String>, Int, Int)] = [
            (Set(staged.map(\.relative)), 8, 227),
            ([], 0, 0),
            (["gpx/a.gpx", "index.html", "not/staged"], 2, 25)
        ]
        for (whole, files, bytes) in rows {
            let t = DeliveryPlans.tally(staged + [f("gpx/a.gpx", 20)], whole: whole)
            XCTAssertEqual(t.files, files, "\(whole)")
            XCTAssertEqual(t.bytes, bytes, "\(whole)")
        }
    }

    /// Which delivered trips a run reads back where no hashes are listed: from where the last
    /// run stopped, as many as the budget allows (at least one), wrapping, every one in turn.
    func testReadBackTurn() {
        // (sizes, from, budget) -> (chosen, next)
        let rows: [([Int], Int, Int, [Int], Int)] = [
            ([], 0, 10, [], 0),
            ([4, 4, 4], 0, 10, [0, 1], 2),
            ([4, 4, 4], 2, 10, [2, 0], 1),
            ([4, 4, 4], 0, 100, [0, 1, 2], 0),
            // One trip over the budget still goes alone: every run makes progress.
            ([50, 4], 0, 10, [0], 1),
            ([50, 4], 1, 10, [1], 0),
            // A start past the end (trips deleted since) starts over.
            ([4, 4], 7, 10, [0, 1], 0),
            ([4, 4], -3, 4, [0], 1)
        ]
        for (sizes, from, budget, chosen, next) in rows {
            let t = DeliveryPlans.readBackTurn(sizes: sizes, from: from, budget: budget)
            XCTAssertEqual(t.chosen, chosen, "\(sizes) \(from) \(budget)")
            XCTAssertEqual(t.next, next, "\(sizes) \(from) \(budget)")
        }
    }

    func testSetupFailures() {
        for t in ["Unauthorized", "x: 403 Forbidden", "open /a: permission denied", "InvalidAccessKeyId: x"] {
            XCTAssertTrue(DeliveryPlans.isSetupFailure(t), t)
        }
        for t in ["dial tcp 127.0.0.1:8080: connect: connection refused", "context deadline exceeded", "no answer within 90 s, stopped"] {
            XCTAssertFalse(DeliveryPlans.isSetupFailure(t), t)
        }
    }

    /// How much a batch stages beside the logs: a quarter of the card's free space, at most
    /// 64 MB; after a failed run one trip, then twice what went, batch after batch.
    func testBatchBytes() {
        let mb = 1 << 20
        let rows: [(free: Int?, afterFailure: Bool, bytes: Int)] = [
            (nil, false, 64 * mb), (1_000 * mb, false, 64 * mb), (100 * mb, false, 25 * mb), (0, false, 0), (1_000 * mb, true, 0)
        ]
        for r in rows {
            XCTAssertEqual(DeliveryPlans.batchBytes(freeBytes: r.free, afterFailure: r.afterFailure), r.bytes, "\(r)")
        }
        XCTAssertEqual(DeliveryPlans.grow(0, staged: 5_000, freeBytes: 1_000 * mb), 10_000)
        XCTAssertEqual(DeliveryPlans.grow(10_000, staged: 3_000, freeBytes: 1_000 * mb), 20_000)
        XCTAssertEqual(DeliveryPlans.grow(40 * mb, staged: 50 * mb, freeBytes: 1_000 * mb), 64 * mb)
        XCTAssertEqual(DeliveryPlans.grow(0, staged: 5_000, freeBytes: 8_000), 2_000, "never past a quarter of the card's free space")
    }

    typealias Stop = DeliveryPlans.Stop

    /// Where the card's key is or goes: the plain name when free or its own; beside another key
    /// under a name of its own (attack-r22 c19: a new card makes a new key); damaged where it
    /// is known to be this key's (its own name, or the plain name it went whole to).
    func testKeyThere() {
        let ours = (size: 16, md5: String(repeating: "a", count: 32))
        let plainName = "logs/privacy-key", own = "logs/privacy-key-aaaaaaaaaaaaaaaa"
        XCTAssertEqual(TripShipment.keyPath(md5: ours.md5), own)
        func listed(_ size: Int, _ md5: String?) -> RemoteCopies.FileCheck { RemoteCopies.FileCheck(name: "k", size: size, md5: md5) }
        let b = String(repeating: "b", count: 32)
        typealias K = DeliveryPlans.KeyThere
        let table: [(plain: RemoteCopies.FileCheck?, tagged: RemoteCopies.FileCheck?, logs: Bool, sentTo: String?, want: K)] = [
            (nil, nil, false, nil, .fine(plainName)),  // no logs there: nothing asks for it
            (nil, nil, true, nil, .owed(plainName)),  // a run cut before it went
            (nil, nil, true, plainName, .owed(plainName)),  // deleted there
            (listed(16, ours.md5), nil, true, plainName, .fine(plainName)),
            (listed(16, nil), nil, true, nil, .fine(plainName)),  // WebDAV: its size only (stageKey reads it)
            (listed(16, b), nil, true, plainName, .damaged(plainName)),  // a byte flipped in this key
            (listed(9, nil), nil, true, plainName, .damaged(plainName)),  // cut
            (listed(16, b), nil, true, nil, .owed(own)),  // another key there: this one beside it
            (listed(9, nil), nil, false, nil, .fine(own)),
            (listed(16, b), listed(16, ours.md5), true, nil, .fine(own)),  // beside it already
            (listed(16, b), listed(16, nil), true, own, .fine(own)),
            (listed(16, b), listed(16, b), true, nil, .damaged(own)),  // under its own name: only this key, damaged
            (listed(16, b), listed(3, nil), true, own, .damaged(own)),
            (listed(16, b), nil, true, own, .owed(own)),  // its own copy deleted there
            (nil, nil, true, own, .owed(own)),
            (listed(16, ours.md5), listed(16, b), true, plainName, .damaged(own))
        ]
        for (i, r) in table.enumerated() {
            XCTAssertEqual(
                DeliveryPlans.keyThere(ours: ours, plain: r.plain, tagged: r.tagged, holdsLogs: r.logs, sentTo: r.sentTo), r.want, "row \(i)")
        }
    }

    func testOnCard() {
        XCTAssertNil(DeliveryPlans.onCard([]), "a remote elsewhere")
        XCTAssertEqual(DeliveryPlans.onCard([("/srv/rides", true)]), "/srv/rides")
        XCTAssertEqual(DeliveryPlans.onCard([("/a", true), ("/b", true)]), "/a")
        XCTAssertNil(DeliveryPlans.onCard([("/a", true), ("/media/stick", false)]), "a union with a folder off the card")
        XCTAssertNil(DeliveryPlans.onCard([("/media/stick", false)]))
    }

    func testPageChanged() {
        let a = String(repeating: "a", count: 32), b = String(repeating: "b", count: 32)
        let sent = ["index.html": a, "index.tsv": b]
        func f(_ n: String, _ m: String?) -> RemoteCopies.FileCheck { RemoteCopies.FileCheck(name: n, size: 10, md5: m) }
        XCTAssertEqual(DeliveryPlans.pageChanged(sent: sent, listed: ["index.html": f("index.html", a), "index.tsv": f("index.tsv", b)]), [])
        XCTAssertEqual(
            DeliveryPlans.pageChanged(sent: sent, listed: ["index.html": f("index.html", b), "index.tsv": f("index.tsv", b)]), ["index.html"])
        XCTAssertEqual(DeliveryPlans.pageChanged(sent: sent, listed: ["index.html": f("index.html", nil)]), ["index.tsv"])
        XCTAssertEqual(DeliveryPlans.pageChanged(sent: [:], listed: [:]), [])
    }

    /// The shipping folders of this board's earlier cards: looked for with the log directory's
    /// first run that sends, its very first included (attack-r22 c12), once.
    func testClearOtherShipping() {
        let rows: [(cleared: Bool, stopped: Bool, sends: Bool, want: Bool)] = [
            (false, false, true, true),  // a new card's first run that sends
            (false, false, false, false),  // nothing to send: costs no listing
            (false, true, true, false),  // a ride recorded, the remote away
            (true, false, true, false)  // done before
        ]
        for r in rows {
            XCTAssertEqual(DeliveryPlans.clearOtherShipping(clearedBefore: r.cleared, stopped: r.stopped, sends: r.sends), r.want, "\(r)")
        }
    }

    /// The pictures of delivered trips the listing lacks, named after the trips' conversions.
    func testPicturesGone() {
        func f(_ n: String) -> (String, RemoteCopies.FileCheck) { (n, RemoteCopies.FileCheck(name: n, size: 10, md5: nil)) }
        let listed = Dictionary(
            uniqueKeysWithValues: [f("gpx/a-trip1.gpx"), f("fit/a-trip1.fit"), f("pictures/a-trip1.svg"), f("gpx/b-trip2.gpx"), f("fit/c-trip3.fit")])
        let cases: [([[String]], [String])] = [
            ([["gpx/a-trip1.gpx", "fit/a-trip1.fit"]], []),  // there
            ([["gpx/b-trip2.gpx"]], ["pictures/b-trip2.svg"]),  // gone
            ([["gpx/c-trip3.gpx", "fit/c-trip3.fit"]], ["pictures/c-trip3.svg"]),  // named by a conversion still there
            ([["gpx/d-trip4.gpx"]], []),  // every conversion gone too: sent again anyway
            ([[]], [])  // sent without a conversion
        ]
        for (sent, gone) in cases {
            XCTAssertEqual(DeliveryPlans.picturesGone(sent: sent, listed: listed), gone, "\(sent)")
        }
        XCTAssertNil(DeliveryPlans.picture(of: "gpx/.gpx"))
        // Damaged at its size, on a backend that lists MD5s (attack-r22 c22): by what it read
        // back with when it went; a picture sent before that was kept, or listed without MD5s,
        // by its presence only.
        let a = String(repeating: "a", count: 32), b = String(repeating: "b", count: 32)
        let hashed: [String: RemoteCopies.FileCheck] = [
            "gpx/a-trip1.gpx": .init(name: "gpx/a-trip1.gpx", size: 10, md5: a),
            "pictures/a-trip1.svg": .init(name: "pictures/a-trip1.svg", size: 10, md5: b)
        ]
        let sent = [["gpx/a-trip1.gpx"]]
        XCTAssertEqual(DeliveryPlans.picturesGone(sent: sent, md5: [["pictures/a-trip1.svg": a]], listed: hashed), ["pictures/a-trip1.svg"])
        XCTAssertEqual(DeliveryPlans.picturesGone(sent: sent, md5: [["pictures/a-trip1.svg": b]], listed: hashed), [])
        XCTAssertEqual(DeliveryPlans.picturesGone(sent: sent, md5: [[:]], listed: hashed), [])
        XCTAssertEqual(DeliveryPlans.picturesGone(sent: sent, md5: [["pictures/a-trip1.svg": a]], listed: listed), [])
    }
}

extension DeliveryStatus {
    init(result: Result, atMs: Int64, failures: Int, failingSinceMs: Int64?) {
        self.init()
        self.result = result
        self.atMs = atMs
        self.failures = failures
        self.failingSinceMs = failingSinceMs
    }
}

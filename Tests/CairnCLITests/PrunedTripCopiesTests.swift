import Foundation
import CairnExport
import CairnSystem
import XCTest

@testable import cairn

/// The copies of a trip pruned on the board (its remote log the ride's only copy), on the remote
/// in memory that fails at any call (issue 38, deliv-38g): a log flipped there at its size on a
/// backend that lists no hashes is said, run after run; conversions and pictures lost there are
/// made again from that log (`DeliveryRun.remakeGone`), counted as `remade`, and a run cut at any
/// call leaves the next to finish it.
final class PrunedTripCopiesTests: XCTestCase {
    let remote = "mem:rides"
    let log1 = "00000001-508bf26d.cairn"

    func makeDir() throws -> String {
        let d = "/tmp/cairn-pruned-copies-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        XCTAssertEqual(mkdir(d, 0o755), 0)
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/logs/format1-ride.cairn").path
        try Data(contentsOf: URL(fileURLWithPath: source)).write(to: URL(fileURLWithPath: d + "/00000001.cairn"))
        return d
    }

    func run(_ dir: String, _ r: MemoryRemote) -> Int32 {
        var run = DeliveryRun(
            dir: dir, remote: remote, board: "unnamed", transport: r, retries: 1, formats: [.gpx, .csv], copyLogs: true,
            stageOptions: ExportStageOptions(), quietFailures: true, page: true)
        return run.go()
    }

    /// Delivered whole, then the trip pruned on the board (its log deleted there).
    func deliveredAndPruned(hashes: Bool = true) throws -> (dir: String, remote: MemoryRemote, whole: [String: [UInt8]]) {
        let d = try makeDir()
        let r = MemoryRemote()
        r.hasHashes = hashes
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(unlink(d + "/00000001.cairn"), 0)
        XCTAssertEqual(run(d, r), ExitCode.ok)
        return (d, r, r.files)
    }

    func testAPrunedTripsLogFlippedAtItsSizeIsSaidOnEveryRunWithoutHashes() throws {
        let (d, r, whole) = try deliveredAndPruned(hashes: false)
        let log = "\(remote)/unnamed/logs/\(log1)"
        r.files[log]![100] ^= 0x01
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(DeliveryStatus.read(directory: d)?.damagedThere, ["logs/\(log1)"], "said the first run")
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(DeliveryStatus.read(directory: d)?.damagedThere, ["logs/\(log1)"], "and the next")
        XCTAssertEqual(r.files[log]!.count, whole[log]!.count, "never replaced, never deleted")
        r.files[log] = whole[log]
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(DeliveryStatus.read(directory: d)?.damagedThere, [], "whole again")
    }

    func testAPageRowEditedAtItsSizeIsFoundWithoutHashes() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        r.hasHashes = false
        XCTAssertEqual(run(d, r), ExitCode.ok)
        let whole = r.files
        let tsv = "\(remote)/unnamed/index.tsv"
        r.files[tsv] = try XCTUnwrap(Self.rowEdited(r.files[tsv]))
        XCTAssertNotEqual(r.files[tsv], whole[tsv])
        XCTAssertEqual(r.files[tsv]?.count, whole[tsv]?.count)
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files[tsv], whole[tsv])
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list", "readBack"], "whole again, nothing sent")
    }

    /// The index with its last row's distance edited at the same size (its 1s made 2s and back).
    static func rowEdited(_ bytes: [UInt8]?) -> [UInt8]? {
        guard let bytes else { return nil }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let last = lines.lastIndex(where: { !$0.isEmpty }) else { return nil }
        var f = lines[last].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard f.count > 5 else { return nil }
        f[5] = String(f[5].map { $0 == "1" ? "2" : $0 == "2" ? "1" : $0 })
        lines[last] = f.joined(separator: "\t")
        return Array(lines.joined(separator: "\n").utf8)
    }

    func testAPrunedTripsLostConversionIsMadeAgainAndCountedAsRemade() throws {
        let (d, r, whole) = try deliveredAndPruned()
        let gpx = try XCTUnwrap(whole.keys.first { $0.hasPrefix("\(remote)/unnamed/gpx/") })
        r.files[gpx] = nil
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files, whole, "made again, the same bytes; nothing else changed")
        let s = try XCTUnwrap(DeliveryStatus.read(directory: d))
        XCTAssertEqual(s.delivered, 0)
        XCTAssertEqual(s.remade, 1)
        XCTAssertEqual(s.damagedThere, [])
        XCTAssertTrue(s.summary.contains("made 1 pruned trip's files again"), s.summary)
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "whole again, nothing sent")
        XCTAssertEqual(DeliveryStatus.read(directory: d)?.remade, 0)
    }

    func testARemakeCutAtAnyCallIsFinishedByTheNextRun() throws {
        let (d0, r0, whole) = try deliveredAndPruned()
        let gpx = try XCTUnwrap(whole.keys.first { $0.hasPrefix("\(remote)/unnamed/gpx/") })
        r0.files[gpx] = nil
        r0.calls = []
        XCTAssertEqual(run(d0, r0), ExitCode.ok)
        let callsOfARemake = r0.calls.count
        XCTAssertGreaterThan(callsOfARemake, 2)
        for failAfterEffect in [false, true] {
            for n in 1...callsOfARemake {
                let (d, r, _) = try deliveredAndPruned()
                r.files[gpx] = nil
                r.calls = []
                r.failAt = n
                r.failAfterEffect = failAfterEffect
                _ = run(d, r)
                r.failAt = nil
                XCTAssertEqual(run(d, r), ExitCode.ok, "cut at call \(n)")
                XCTAssertEqual(r.files, whole, "cut at call \(n) (after its effect: \(failAfterEffect))")
                XCTAssertEqual(DeliveryStatus.read(directory: d)?.damagedThere, [], "cut at call \(n)")
            }
        }
    }

    func testAPrunedTripsLostPictureIsDrawnAgainFromItsLog() throws {
        for hashes in [true, false] {
            let (d, r, whole) = try deliveredAndPruned(hashes: hashes)
            let picture = try XCTUnwrap(whole.keys.first { $0.contains("/unnamed/pictures/") && $0.hasSuffix(".svg") })
            r.files[picture] = nil
            XCTAssertEqual(run(d, r), ExitCode.ok)
            XCTAssertEqual(r.files[picture], whole[picture], "drawn again, the same (hashes: \(hashes))")
            XCTAssertEqual(DeliveryStatus.read(directory: d)?.remade, 1)
            XCTAssertEqual(DeliveryStatus.read(directory: d)?.damagedThere, [])
        }
    }

    /// The page changed there (its index deleted, or a row edited): a pruned trip's row comes back
    /// from the board's kept copy of the page, its log not read; without that copy, from its log.
    func testAChangedPageReadsOnlyTheLogsOfRowsTheKeptPageLacks() throws {
        for edit in ["deleted", "a row edited"] {
            let (d, r, whole) = try deliveredAndPruned()
            let tsv = "\(remote)/unnamed/index.tsv"
            if edit == "deleted" {
                r.files[tsv] = nil
            } else {
                r.files[tsv] = try XCTUnwrap(Self.rowEdited(r.files[tsv]))
                XCTAssertNotEqual(r.files[tsv], whole[tsv])
            }
            r.readPaths = []
            XCTAssertEqual(run(d, r), ExitCode.ok)
            XCTAssertEqual(r.files[tsv], whole[tsv], edit)
            XCTAssertEqual(r.readPaths.filter { $0.hasSuffix(".cairn") }, [], "\(edit): no log read")
        }
        let (d, r, whole) = try deliveredAndPruned()
        let tsv = "\(remote)/unnamed/index.tsv"
        r.files[tsv] = nil
        for n in try POSIX.listDirectory(d) where n.hasPrefix("delivered-page-") { XCTAssertEqual(unlink(d + "/" + n), 0) }
        r.readPaths = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files[tsv], whole[tsv], "without the kept page: made from its log")
        XCTAssertEqual(r.readPaths.filter { $0.hasSuffix(".cairn") }, ["\(remote)/unnamed/logs/\(log1)"])
    }

    func testKeptRowOfGone() {
        func row(_ key: String, _ files: [String]) -> TripIndex.Entry {
            var e = TripIndex.Entry(key: key, tripId: 1, name: key)
            e.files = files
            return e
        }
        let kept = [row("a", ["gpx/a.gpx", "logs/a.cairn"]), row("b", ["gpx/b.gpx", "logs/b.cairn"]), row("c", [])]
        let listed: Set<String> = ["gpx/a.gpx", "logs/a.cairn", "logs/b.cairn", "logs/d.cairn", "gpx/d.gpx"]
        XCTAssertEqual(
            DeliveryPlans.keptRowOfGone(
                [["gpx/a.gpx", "logs/a.cairn"], ["gpx/b.gpx", "logs/b.cairn"], ["gpx/d.gpx", "logs/d.cairn"], []], kept: kept,
                listed: { listed.contains($0) }),
            // a: kept whole; b: a file of its row not listed (its log is read); d: no kept row.
            ["a", nil, nil, nil])
        // An edited row of a pruned trip comes back from the kept copy; another's stays.
        let back = DeliveryPlans.keptRows(kept, listedKeys: ["a", "b"], making: [], edited: ["a"]) { listed.contains($0) }
        XCTAssertEqual(back.map(\.key), ["a"])
    }

    func testReadBackRuns() {
        let mib = 1 << 20
        let rows: [(sizes: [Int], runs: Int)] = [
            ([], 0), ([5], 1), ([mib, mib, mib, mib], 1), ([3 * mib, 3 * mib, 3 * mib], 3), ([9 * mib], 1), ([2 * mib, 9 * mib, 2 * mib], 3)
        ]
        for r in rows { XCTAssertEqual(DeliveryPlans.readBackRuns(sizes: r.sizes, budget: 4 * mib), r.runs, "\(r.sizes)") }
    }

    func testReadWrong() {
        let f = { (p: String) in RemoteCopies.FileCheck(name: p, size: 5, md5: "aa") }
        let files = [f("logs/1.cairn"), f("gpx/1.gpx"), f("csv/1.csv")]
        let rows: [(why: String, read: [String: String], now: Set<String>, earlier: Set<String>, is: Set<String>)] = [
            ("all read whole", ["logs/1.cairn": "aa", "gpx/1.gpx": "aa", "csv/1.csv": "aa"], ["logs/1.cairn", "gpx/1.gpx", "csv/1.csv"], [], []),
            ("a log read with other bytes", ["logs/1.cairn": "bb", "gpx/1.gpx": "aa"], ["logs/1.cairn", "gpx/1.gpx"], [], ["logs/1.cairn"]),
            ("found before, not read now: still said", [:], [], ["logs/1.cairn"], ["logs/1.cairn"]),
            ("found before, read whole now: no longer", ["logs/1.cairn": "aa"], ["logs/1.cairn"], ["logs/1.cairn"], []),
            ("listed, not read back (gone meanwhile): not called damaged", [:], ["gpx/1.gpx"], [], []),
            ("found before but no longer a pruned trip's copy listed without a hash", [:], [], ["pictures/x.svg"], [])
        ]
        for r in rows {
            XCTAssertEqual(DeliveryPlans.readWrong(files, read: r.read, readNow: r.now, earlier: r.earlier), r.is, r.why)
        }
    }

    func testTheReadBackFindingsInThePlans() {
        let l = { (p: String, size: Int) in (p, RemoteCopies.FileCheck(name: p, size: size, md5: nil)) }
        let listed = Dictionary(uniqueKeysWithValues: [l("logs/1.cairn", 10), l("gpx/a.gpx", 5), l("pictures/a.svg", 7)])
        // A log read back with other bytes: said, not read to make anything from.
        XCTAssertEqual(
            DeliveryPlans.damagedGone(
                ["gpx/a.gpx": "aa", "logs/1.cairn": "cc"], logs: ["logs/1.cairn": 10], listed: listed, readWrong: ["logs/1.cairn"]),
            ["logs/1.cairn"])
        XCTAssertEqual(DeliveryPlans.damagedGone(["gpx/a.gpx": "aa"], logs: ["logs/1.cairn": 10], listed: listed), [])
        let copies = DeliveryPlans.GoneTripCopies(
            sent: ["gpx/a.gpx": "aa"], logs: ["logs/1.cairn": (size: 10, md5: "cc")], pictures: ["pictures/a.svg": "dd"])
        XCTAssertEqual(
            DeliveryPlans.goneOutcome(copies, listed: listed, rowOwed: false, readWrong: ["logs/1.cairn", "gpx/a.gpx"]),
            .say("its log there is not whole, so nothing of it can be made again"))
        XCTAssertEqual(DeliveryPlans.goneOutcome(copies, listed: listed, rowOwed: false, readWrong: ["pictures/a.svg"]), .remake(["pictures/a.svg"]))
        XCTAssertEqual(
            DeliveryPlans.goneOutcome(copies, listed: listed.filter { $0.key != "pictures/a.svg" }, rowOwed: false), .remake(["pictures/a.svg"]))
        XCTAssertEqual(DeliveryPlans.goneOutcome(copies, listed: listed, rowOwed: false), .none)
        // The page's files read back with other bytes (WebDAV): changed.
        let page = [
            "index.tsv": RemoteCopies.FileCheck(name: "index.tsv", size: 9), "index.html": RemoteCopies.FileCheck(name: "index.html", size: 9)
        ]
        XCTAssertEqual(DeliveryPlans.pageChanged(sent: ["index.tsv": "a", "index.html": "b"], listed: page, readWrong: ["index.tsv"]), ["index.tsv"])
        XCTAssertEqual(DeliveryPlans.pageChanged(sent: ["index.tsv": "a", "index.html": "b"], listed: page), [])
    }

    func testTheRemadeCountIsSaid() {
        var c = DeliveryPlans.Counts()
        c.remade = 2
        c.sentFiles = 3
        let o = DeliveryPlans.outcome(stop: nil, counts: c, remote: remote, base: remote + "/unnamed", previous: nil, quietFailures: false, nowMs: 0)
        XCTAssertEqual(
            o.lines,
            ["delivered 0 trips to \(remote)/unnamed (3 files, 0 bytes); 2 no longer on the board made again from their logs there; 0 already there"])
        var s = DeliveryStatus(result: .ok)
        s.remade = 2
        XCTAssertEqual(s.json.text.contains("\"remade\": 2"), true, s.json.text)
    }
}

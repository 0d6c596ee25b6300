import Foundation
import XCTest

/// A trip pruned on the board whose remote conversions or page row are damaged is made again
/// from its remote log, when that log reads back whole (issue 38, deliv-38f): the same names and
/// bytes as it first went up, no log sent, its receipt unchanged, nothing deleted.
extension ChangesAfterDeliveryEndToEndTests {
    /// Delivered with logs (the default) and pages, then trips 1 and 2 pruned (3, the newest, stays).
    func deliveredAndPruned(_ format: String = "gpx,fit") throws -> (dir: String, conf: String, remote: String, root: String) {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", format]).status, 0)
        let p = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000002.cairn"), p.stderr)
        return (dir, conf, remote, path + "/unnamed")
    }

    /// The remote as it was (`files`, bytes) after the run; the receipts as they were.
    func assertRemade(_ root: String, _ before: [String: Data], receipts: Data, dir: String, _ r: Harness.Result) throws {
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(root), before.keys.sorted(), r.stderr)
        for (p, d) in before where !p.hasPrefix("index.") { XCTAssertEqual(try data(root + "/" + p), d, p + ": " + r.stderr) }
        XCTAssertEqual(try data(dir + "/delivered"), receipts, "the receipts stay what they were")
        let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
        XCTAssertFalse(status.contains("damaged_there"), status)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/.deliver"), "staging removed")
    }

    func snapshot(_ root: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for p in files(root) { out[p] = try data(root + "/" + p) }
        return out
    }

    func testAConversionOfAPrunedTripDamagedThereIsMadeAgain() throws {
        let (dir, conf, remote, root) = try deliveredAndPruned()
        let before = try snapshot(root)
        let receipts = try data(dir + "/delivered")
        let fit = "fit/20250602-080000-trip1-00000010.fit"
        var bytes = before[fit]!
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: root + "/" + fit))
        let r = try deliver(dir, conf, remote, ["--format", "gpx,fit"])
        XCTAssertTrue(r.stderr.contains(fit + ": made again from its log there (trip 1, 00000001.cairn, no longer on the board)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("cannot be sent again"), r.stderr)
        try assertRemade(root, before, receipts: receipts, dir: dir, r)
        let again = try deliver(dir, conf, remote, ["--format", "gpx,fit"])
        XCTAssertFalse(again.stderr.contains("made again"), again.stderr)
        try assertRemade(root, before, receipts: receipts, dir: dir, again)
    }

    func testAConversionOfAPrunedTripDeletedThereIsMadeAgain() throws {
        let (dir, conf, remote, root) = try deliveredAndPruned()
        let before = try snapshot(root)
        let receipts = try data(dir + "/delivered")
        let gpx = "gpx/20250603-080000-trip2-00000020.gpx"
        XCTAssertNotNil(before[gpx], "\(before.keys.sorted())")
        try fm.removeItem(atPath: root + "/" + gpx)
        let r = try deliver(dir, conf, remote, ["--format", "gpx,fit"])
        XCTAssertTrue(r.stderr.contains(gpx + ": made again from its log there (trip 2, 00000002.cairn, no longer on the board)"), r.stderr)
        try assertRemade(root, before, receipts: receipts, dir: dir, r)
    }

    /// A pruned trip's row edited at its size (as attack-r24 c07 edited a trip on the board's).
    func testAPrunedTripsRowEditedAtItsSizeIsMadeAgain() throws {
        let (dir, conf, remote, root) = try deliveredAndPruned()
        let before = try snapshot(root)
        let rowsBefore = try pageRows(root)
        let receipts = try data(dir + "/delivered")
        let indexPath = root + "/index.tsv"
        let index = try String(contentsOfFile: indexPath, encoding: .utf8)
        var edited = ""
        for line in index.split(separator: "\n", omittingEmptySubsequences: false) {
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields.count > 8 && fields[1] == "1" {
                for c in [2, 5, 6, 8] { fields[c] = String(fields[c].map { $0 == "1" ? "2" : $0 == "2" ? "1" : $0 }) }
            }
            edited += fields.joined(separator: "\t") + "\n"
        }
        edited.removeLast()
        XCTAssertNotEqual(edited, index)
        XCTAssertEqual(edited.utf8.count, index.utf8.count)
        try edited.write(toFile: indexPath, atomically: false, encoding: .utf8)
        let r = try deliver(dir, conf, remote, ["--format", "gpx,fit"])
        XCTAssertEqual(try pageRows(root), rowsBefore, r.stderr)
        // Its row comes back from the board's kept copy of the page, its log not read for it
        // (deliv-38g; before, every pruned trip's log was read when the page changed).
        XCTAssertTrue(r.stderr.contains("(trip 1 (trip1-00000010)): kept on the page from the board's copy of it"), r.stderr)
        XCTAssertFalse(r.stderr.contains("no longer on the board: its row"), r.stderr)
        try assertRemade(root, before, receipts: receipts, dir: dir, r)
    }

    /// A pruned trip's row taken out of `index.tsv` before the board kept a copy of its page.
    func testAPrunedTripsRowLostBeforeTheKeptPageIsMadeAgain() throws {
        let (dir, conf, remote, root) = try deliveredAndPruned()
        let before = try snapshot(root)
        let rowsBefore = try pageRows(root)
        let receipts = try data(dir + "/delivered")
        for n in try fm.contentsOfDirectory(atPath: dir) where n.hasPrefix("delivered-page-") { try fm.removeItem(atPath: dir + "/" + n) }
        let indexPath = root + "/index.tsv"
        let index = try String(contentsOfFile: indexPath, encoding: .utf8)
        let lost = index.split(separator: "\n", omittingEmptySubsequences: false).filter {
            let f = $0.split(separator: "\t", omittingEmptySubsequences: false)
            return !(f.count > 8 && f[1] == "2")
        }.joined(separator: "\n")
        XCTAssertLessThan(lost.utf8.count, index.utf8.count)
        try lost.write(toFile: indexPath, atomically: false, encoding: .utf8)
        let r = try deliver(dir, conf, remote, ["--format", "gpx,fit"])
        XCTAssertEqual(Set(try pageRows(root)), Set(rowsBefore), r.stderr)
        XCTAssertTrue(r.stderr.contains("trip 2 (00000002.cairn), no longer on the board: its row"), r.stderr)
        try assertRemade(root, before, receipts: receipts, dir: dir, r)
    }

    /// With zones and logs delivered (`--logs yes`): a deleted conversion is made again through
    /// today's zone window, the cut copy it was, never an uncut one.
    func testAConversionOfAPrunedTripIsMadeAgainCutByTheZones() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        try Harness.recorderKey(dir)
        let cfg = try zoneConfig()
        let extra = ["--format", "gpx", "--config", cfg, "--logs", "yes"]
        XCTAssertEqual(try deliver(dir, conf, remote, extra).status, 0)
        let root = try unnamedFolder(path)
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001", "--config", cfg)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stdout + p.stderr)
        let before = try snapshot(root)
        let receipts = try data(dir + "/delivered")
        let gpx = try XCTUnwrap(before.keys.first { $0.hasPrefix("gpx/") && $0.contains("trip1-") })
        try fm.removeItem(atPath: root + "/" + gpx)
        let r = try deliver(dir, conf, remote, extra)
        XCTAssertTrue(r.stderr.contains(gpx + ": made again from its log there"), r.stderr)
        try assertRemade(root, before, receipts: receipts, dir: dir, r)
    }
}

import Foundation
import XCTest

/// The remote's copies of trips pruned on the board (issue 38, attack r24 c11): one damaged there
/// at its size cannot be sent again, but every run says so, and so does the status.
extension ChangesAfterDeliveryEndToEndTests {
    /// Its log kept on the board (`--logs no`; zones keep logs home the same way), nothing of it
    /// can be made again (deliv-38f): said, every run.
    func testACopyOfAPrunedTripDamagedThereIsSaid() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        let extra = ["--format", "gpx,fit", "--logs", "no"]
        XCTAssertEqual(try deliver(dir, conf, remote, extra).status, 0)
        let p = try Harness.cairn("prune", "--dir", dir, "--max-mb", "0.000001", "--force")
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        let fit = "fit/20250602-080000-trip1-00000010.fit"
        var bytes = try data(root + "/" + fit)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: root + "/" + fit))
        for _ in 0..<2 {
            let r = try deliver(dir, conf, remote, extra)
            XCTAssertTrue(r.stderr.contains(fit + ": damaged there") && r.stderr.contains("cannot be sent again"), r.stderr)
            XCTAssertTrue(r.stderr.contains("its log stayed on the board (not delivered), so nothing of it can be made again"), r.stderr)
            let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
            XCTAssertTrue(status.contains("damaged_there = " + fit), status)
            let s = try Harness.cairn("status", "--dir", dir)
            XCTAssertTrue((s.stdout + s.stderr).contains(fit), s.stdout + s.stderr)
        }
        // Put back as it went: said no more.
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: root + "/" + fit))
        let r = try deliver(dir, conf, remote, extra)
        XCTAssertFalse(r.stderr.contains("damaged there"), r.stderr)
        XCTAssertFalse(try String(contentsOfFile: dir + "/delivery", encoding: .utf8).contains("damaged_there"))
    }

    /// A pruned trip's log copy deleted or cut there, the local log gone too (issue 38 finding 2):
    /// the ride's last copy is lost, and every run says so plainly, line and status; nothing
    /// more is deleted.
    func testALogOfAPrunedTripGoneThereIsSaid() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let p = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        let log1 = "logs/00000001-00000010.cairn"
        let whole = try data(root + "/" + log1)
        let before = files(root)
        let half = whole.count / 2
        for (cut, said) in [
            (half, "damaged there (\(half) bytes, not the \(whole.count) delivered)"), (-1, "missing there (deleted since its delivery)")
        ] {
            if cut < 0 {
                try fm.removeItem(atPath: root + "/" + log1)
            } else {
                try whole.prefix(cut).write(to: URL(fileURLWithPath: root + "/" + log1))
            }
            let r = try deliver(dir, conf, remote, ["--format", "gpx"])
            XCTAssertTrue(
                r.stderr.contains(log1 + ": " + said) && r.stderr.contains("its trip 1 (00000001.cairn) is no longer on the board"), r.stderr)
            let status = try String(contentsOfFile: dir + "/delivery", encoding: .utf8)
            XCTAssertTrue(status.contains("damaged_there = " + log1), status)
            XCTAssertEqual(files(root), before.filter { cut >= 0 || $0 != log1 }, "nothing else deleted: " + r.stderr)
        }
        // Put back as it went: said no more.
        try whole.write(to: URL(fileURLWithPath: root + "/" + log1))
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertFalse(r.stderr.contains("there ("), r.stderr)
        XCTAssertFalse(try String(contentsOfFile: dir + "/delivery", encoding: .utf8).contains("damaged_there"))
    }
}

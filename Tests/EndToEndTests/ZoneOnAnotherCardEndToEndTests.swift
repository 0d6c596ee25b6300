import Foundation
import XCTest

/// attack-r22 c29 (issue 38): cards A and B of one board delivered without zones; a zone around
/// home is added and only card B delivers. Card A's uncut ride must no longer show home on the
/// board's page, and nothing of it is deleted unless its log reads back whole there.
final class ZoneOnAnotherCardEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func card(salt: UInt32, firstDay: Int64) throws -> String {
        let dir = CraftedLog.directory()
        try CraftedLog.write(
            CraftedLog.file(
                trip: 1, salt: salt, startMs: CraftedLog.june1 + firstDay * 86_400_000, points: 41, northOffset: 400, closed: true),
            dir + "/00000001.cairn")
        _ = try Harness.recorderKey(dir)
        return dir
    }

    func deliver(_ dir: String, _ conf: String, _ remote: String, _ extra: [String]) throws -> Harness.Result {
        try Harness.run(
            Harness.cairn,
            ["deliver", "--dir", dir, "--remote", remote, "--rclone-config", conf, "--config", "none", "--retries", "1", "--board", "bike"]
                + extra)
    }

    func files(_ root: String) -> [String] {
        ((try? fm.subpathsOfDirectory(atPath: root)) ?? []).filter {
            var d: ObjCBool = false
            return fm.fileExists(atPath: root + "/" + $0, isDirectory: &d) && !d.boolValue
        }.sorted()
    }

    /// `logs`: whether card A's log went up beside its conversions.
    func run(logs: Bool) throws -> (stderr: String, root: String, a: [String], before: [String]) {
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let remote = "loc:" + t + "/remote", root = t + "/remote/bike"
        let a = try card(salt: 0x10, firstDay: 1), b = try card(salt: 0x4400, firstDay: 20)
        let plain = ["--format", "gpx", "--logs", logs ? "yes" : "no"]
        XCTAssertEqual(try deliver(a, conf, remote, plain).status, 0)
        XCTAssertEqual(try deliver(b, conf, remote, plain).status, 0)
        let before = files(root)
        let ofA = before.filter { $0.contains("00000010") && !$0.hasPrefix("logs/") }
        XCTAssertEqual(ofA.count, 2, "\(before)")  // its GPX and picture
        // A zone around the rides' start (400 points north of 47.0, 8.5), on card B only.
        let r = try deliver(b, conf, remote, ["--format", "gpx", "--logs", "yes", "--privacy-zone", "47.018,8.5,100"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        let rowA = index.split(separator: "\n").first { $0.hasPrefix("bike/trip1-00000010") }
        XCTAssertNotNil(rowA, index)  // the ride stays on the page
        XCTAssertEqual(rowA?.split(separator: "\t", omittingEmptySubsequences: false).last, "1", index)  // withheld
        let html = try String(contentsOfFile: root + "/index.html", encoding: .utf8)
        for f in ofA { XCTAssertFalse(html.contains(f), "\(f) still on the page") }
        XCTAssertTrue(html.contains("wait for the card that recorded it"), html)
        return (r.stderr, root, ofA, before)
    }

    func testAnotherCardsUncutRideWithItsLogThereIsWithdrawn() throws {
        let r = try run(logs: true)
        let after = files(r.root)
        for f in r.a { XCTAssertFalse(after.contains(f), "\(f) still up: \(after) " + r.stderr) }
        XCTAssertTrue(after.contains("logs/00000001-00000010.cairn"), "\(after)")  // never lost
        XCTAssertTrue(r.stderr.contains("its conversions and picture are taken off"), r.stderr)
    }

    func testAnotherCardsUncutRideWithoutItsLogThereIsOnlyWithheld() throws {
        let r = try run(logs: false)
        let after = files(r.root)
        for f in r.a { XCTAssertTrue(after.contains(f), "\(f) deleted without a whole log there: \(after) " + r.stderr) }
        XCTAssertTrue(r.stderr.contains("nothing of it is deleted"), r.stderr)
    }
}

import Foundation
import XCTest

/// Retention against the remote's page (issue 38, attack r24 c05): a trip whose row the page
/// lacks is kept, its row made from its log by the next delivery.
extension ChangesAfterDeliveryEndToEndTests {
    /// c05: prune checked the picture on the remote but not the page's row: with `index.tsv`
    /// missing (or without the trip's row) it deleted the trip, and the page could never show it
    /// again. Kept while the remote's page, read in the same run, lacks its row.
    func testPruneKeepsATripThePagesIndexLacks() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        // Trip 1's row edited out, the index gone for the others.
        let rows = try pageRows(root)
        let header = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8).split(separator: "\n").prefix(2).map(String.init)
        try (header + rows.filter { !$0.contains("trip1-") }).joined(separator: "\n").appending("\n")
            .write(toFile: root + "/index.tsv", atomically: true, encoding: .utf8)
        let p = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000002.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("page"), p.stderr)
        try fm.removeItem(atPath: root + "/index.tsv")
        let p2 = try prune(dir)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p2.stderr)
        // The next delivery puts its row back; then it goes.
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(try pageRows(root).contains { $0.contains("trip1-") }, r.stderr)
        let p3 = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p3.stderr)
    }
}

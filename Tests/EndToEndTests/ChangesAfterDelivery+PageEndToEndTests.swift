import Foundation
import XCTest

/// The page's rows after the board pruned what it delivered (issue 38, attack r24 c16, c05):
/// the remote's `index.tsv` is the only record of a pruned trip's row, so the page must not
/// lose a trip whose files are there, and retention must not delete a trip the page lacks.
extension ChangesAfterDeliveryEndToEndTests {
    func pageRows(_ root: String) throws -> [String] {
        let index = try String(contentsOfFile: root + "/index.tsv", encoding: .utf8)
        // Past the version line and the columns' header.
        return index.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("key\t") }.map(String.init)
    }

    /// c16: `index.tsv` deleted by hand after trips 1 and 2 were delivered and pruned: the next
    /// delivery made the page of trip 3 alone, though trips 1 and 2's files were still there.
    func testAPrunedTripsRowOutlivesTheRemotesIndex() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let rowsBefore = try pageRows(root)
        XCTAssertEqual(rowsBefore.count, 3, "\(rowsBefore)")
        let p = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000002.cairn"), p.stderr)
        try fm.removeItem(atPath: root + "/index.tsv")
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Set(try pageRows(root)), Set(rowsBefore), r.stderr)
        let html = try String(contentsOfFile: root + "/index.html", encoding: .utf8)
        for gpx in ["20250602-080000-trip1-00000010.gpx", "20250603-080000-trip2-00000020.gpx"] {
            XCTAssertTrue(html.contains(gpx), gpx + ": " + r.stderr)
        }
        // Their rows come back from the board's kept copy of the page; their logs are not read
        // for them (deliv-38g: only a row the kept copy lacks is made from its log).
        XCTAssertTrue(r.stderr.contains("lacks 2 rows of trips whose files are there"), r.stderr)
        XCTAssertFalse(r.stderr.contains("no longer on the board: its row"), r.stderr)
        // A row whose files are gone from the remote is not made up: trip 1's GPX deleted by
        // hand, and its log (nothing to make it again from).
        try fm.removeItem(atPath: root + "/gpx/20250602-080000-trip1-00000010.gpx")
        try fm.removeItem(atPath: root + "/logs/00000001-00000010.cairn")
        try fm.removeItem(atPath: root + "/index.tsv")
        let r2 = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        let rows = try pageRows(root)
        XCTAssertEqual(rows.count, 2, "\(rows) " + r2.stderr)
        XCTAssertFalse(rows.contains { $0.contains("trip1-") }, "\(rows)")
    }

    /// attack-r24 c07/c20: a row of `index.tsv` edited at the same size on the remote (a trip's
    /// start, distance, moving time and points): the page was made again from the edited row,
    /// and later runs kept it. A trip on the board gets its row from its log.
    func testARowEditedAtItsSizeIsMadeAgainFromTheLog() throws {
        let dir = try logs(3)
        let (conf, remote, path) = try remote()
        let root = path + "/unnamed"
        XCTAssertEqual(try deliver(dir, conf, remote, ["--format", "gpx"]).status, 0)
        let rowsBefore = try pageRows(root)
        XCTAssertEqual(rowsBefore.count, 3, "\(rowsBefore)")
        let indexPath = root + "/index.tsv"
        let index = try String(contentsOfFile: indexPath, encoding: .utf8)
        // Every field of trip 2's row but its key, name and files: a digit changed for another.
        var edited = ""
        for line in index.split(separator: "\n", omittingEmptySubsequences: false) {
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields.count > 8 && fields[1] == "2" {
                for c in [2, 5, 6, 8] { fields[c] = String(fields[c].map { $0 == "1" ? "2" : $0 == "2" ? "1" : $0 }) }
            }
            edited += fields.joined(separator: "\t") + "\n"
        }
        edited.removeLast()
        XCTAssertNotEqual(edited, index)
        XCTAssertEqual(edited.utf8.count, index.utf8.count)
        try edited.write(toFile: indexPath, atomically: false, encoding: .utf8)
        let r = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try pageRows(root), rowsBefore, r.stderr)
        let r2 = try deliver(dir, conf, remote, ["--format", "gpx"])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertEqual(try pageRows(root), rowsBefore, r2.stderr)
    }
}

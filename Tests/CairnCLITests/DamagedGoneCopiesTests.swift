import CairnExport
import XCTest

@testable import cairn

/// Table tests of what a run says of the copies of trips pruned on the board
/// (`DeliveryPlans.damagedGone`, attack-r24 c11).
final class DamagedGoneCopiesTests: XCTestCase {
    func testDamagedGone() {
        let sent = ["gpx/a.gpx": "aa", "fit/a.fit": "bb", "logs/1.cairn": "cc", "pictures/a.svg": "dd"]
        func l(_ p: String, _ md5: String?) -> (String, RemoteCopies.FileCheck) { (p, RemoteCopies.FileCheck(name: p, size: 10, md5: md5)) }
        let rows: [(why: String, listed: [(String, RemoteCopies.FileCheck)], damaged: [String])] = [
            ("all as they read back", [l("gpx/a.gpx", "aa"), l("fit/a.fit", "bb"), l("logs/1.cairn", "cc"), l("pictures/a.svg", "dd")], []),
            ("a conversion at other bytes", [l("gpx/a.gpx", "aa"), l("fit/a.fit", "XX")], ["fit/a.fit"]),
            ("a log and a picture at other bytes", [l("logs/1.cairn", "XX"), l("pictures/a.svg", "YY")], ["logs/1.cairn", "pictures/a.svg"]),
            ("listed without a hash (WebDAV): not called damaged", [l("gpx/a.gpx", nil)], []),
            ("not listed: not called damaged here", [], []),
            ("another file at other bytes: not this trip's", [l("gpx/b.gpx", "XX")], [])
        ]
        for r in rows {
            XCTAssertEqual(DeliveryPlans.damagedGone(sent, listed: Dictionary(uniqueKeysWithValues: r.listed)), r.damaged, r.why)
        }
    }

    /// A pruned trip's log copy gone or cut there is said as plainly (attack-r24, issue 38
    /// finding 2): on a backend without hashes by its size; not listed at all, too.
    func testALogOfAPrunedTripGoneOrCutThere() {
        let sent = ["gpx/a.gpx": "aa", "logs/1.cairn": "cc"]
        let logs = ["logs/1.cairn": 10, "logs/2.cairn": 20]
        func l(_ p: String, _ size: Int, _ md5: String?) -> (String, RemoteCopies.FileCheck) {
            (p, RemoteCopies.FileCheck(name: p, size: size, md5: md5))
        }
        let rows: [(why: String, listed: [(String, RemoteCopies.FileCheck)], damaged: [String])] = [
            ("all there whole", [l("gpx/a.gpx", 5, "aa"), l("logs/1.cairn", 10, "cc"), l("logs/2.cairn", 20, nil)], []),
            ("a log deleted there", [l("gpx/a.gpx", 5, "aa"), l("logs/1.cairn", 10, "cc")], ["logs/2.cairn"]),
            ("a log cut there, no hash listed (WebDAV)", [l("logs/1.cairn", 4, nil), l("logs/2.cairn", 20, nil)], ["logs/1.cairn"]),
            ("a log longer there", [l("logs/1.cairn", 10, "cc"), l("logs/2.cairn", 4096, nil)], ["logs/2.cairn"]),
            ("a log at its size with other bytes", [l("logs/1.cairn", 10, "XX"), l("logs/2.cairn", 20, nil)], ["logs/1.cairn"]),
            ("a conversion gone: not called damaged (a zone may take it down)", [l("logs/1.cairn", 10, "cc"), l("logs/2.cairn", 20, nil)], []),
            ("nothing listed: both logs", [], ["logs/1.cairn", "logs/2.cairn"])
        ]
        for r in rows {
            XCTAssertEqual(DeliveryPlans.damagedGone(sent, logs: logs, listed: Dictionary(uniqueKeysWithValues: r.listed)), r.damaged, r.why)
        }
    }

    func testStatusKeepsAndSaysThem() {
        var s = DeliveryStatus()
        s.result = .ok
        s.damagedThere = ["fit/a.fit", "gpx/b.gpx"]
        XCTAssertTrue(s.summary.contains("fit/a.fit and 1 more damaged on the remote"), s.summary)
        // `status --json` and `deliver --json` say them too (a pruned trip's only copy).
        XCTAssertTrue(s.json.text.contains("\"damaged_there\": [\"fit/a.fit\", \"gpx/b.gpx\"]"), s.json.text)
        s.damagedThere = []
        XCTAssertFalse(s.summary.contains("damaged"), s.summary)
        XCTAssertTrue(s.json.text.contains("\"damaged_there\": []"), s.json.text)
    }
}

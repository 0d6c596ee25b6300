import CairnExport
import XCTest

@testable import cairn

/// Table tests of what a run does for a trip pruned on the board whose remote copies are damaged
/// (`DeliveryPlans.goneOutcome`, issue 38): made again from its remote log where that log is
/// listed whole, said otherwise, nothing when nothing is damaged.
final class GoneRemakeTests: XCTestCase {
    func testGoneOutcome() {
        let copies = DeliveryPlans.GoneTripCopies(
            sent: ["gpx/a.gpx": "aa", "fit/a.fit": "bb", "csv/a.csv": nil], logs: ["logs/1.cairn": (size: 10, md5: "cc")])
        let keptHome = DeliveryPlans.GoneTripCopies(sent: ["gpx/a.gpx": "aa"], logs: [:])
        func l(_ p: String, _ size: Int = 5, md5: String?) -> (String, RemoteCopies.FileCheck) {
            (p, RemoteCopies.FileCheck(name: p, size: size, md5: md5))
        }
        let whole = [l("gpx/a.gpx", md5: "aa"), l("fit/a.fit", md5: "bb"), l("csv/a.csv", md5: "zz"), l("logs/1.cairn", 10, md5: "cc")]
        let outcome = DeliveryPlans.GoneOutcome.self
        let rows:
            [(
                why: String, copies: DeliveryPlans.GoneTripCopies, listed: [(String, RemoteCopies.FileCheck)], rowOwed: Bool,
                is: DeliveryPlans.GoneOutcome
            )] = [
                ("all there whole", copies, whole, false, outcome.none),
                (
                    "a conversion at other bytes: remade", copies, whole.map { $0.0 == "fit/a.fit" ? l("fit/a.fit", md5: "XX") : $0 }, false,
                    .remake(["fit/a.fit"])
                ),
                ("a conversion deleted: remade", copies, whole.filter { $0.0 != "gpx/a.gpx" }, false, .remake(["gpx/a.gpx"])),
                ("no MD5 kept for it: not called damaged", copies, whole.map { $0.0 == "csv/a.csv" ? l("csv/a.csv", md5: "QQ") : $0 }, false, .none),
                (
                    "listed without a hash (WebDAV): not called damaged", copies, whole.map { $0.0 == "fit/a.fit" ? l("fit/a.fit", md5: nil) : $0 },
                    false, .none
                ),
                ("the page changed there: its row made again", copies, whole, true, .remake([])),
                (
                    "a conversion deleted, the log cut there: said", copies,
                    [l("fit/a.fit", md5: "bb"), l("csv/a.csv", md5: nil), l("logs/1.cairn", 4, md5: nil)], false,
                    .say("its log there is not whole, so nothing of it can be made again")
                ),
                (
                    "a conversion deleted, the log gone: said", copies, [l("fit/a.fit", md5: "bb")], false,
                    .say("its log there is not whole, so nothing of it can be made again")
                ),
                (
                    "the log at its size with other bytes: said", copies,
                    whole.filter { $0.0 != "gpx/a.gpx" }.map { $0.0 == "logs/1.cairn" ? l("logs/1.cairn", 10, md5: "XX") : $0 }, false,
                    .say("its log there is not whole, so nothing of it can be made again")
                ),
                (
                    "the log listed without a hash at its size: trusted to be read (checked by its CRC after)", copies,
                    whole.filter { $0.0 != "gpx/a.gpx" }.map { $0.0 == "logs/1.cairn" ? l("logs/1.cairn", 10, md5: nil) : $0 }, false,
                    .remake(["gpx/a.gpx"])
                ),
                (
                    "logs kept home (zones, or logs = no), a conversion damaged: said", keptHome, [l("gpx/a.gpx", md5: "XX")], false,
                    .say("its log stayed on the board (not delivered), so nothing of it can be made again")
                ),
                ("logs kept home, only the row owed: the kept page has it", keptHome, [l("gpx/a.gpx", md5: "aa")], true, .none)
            ]
        // WebDAV: read back with other bytes in this run (`DeliveryRun.goneUnhashed`).
        XCTAssertEqual(
            DeliveryPlans.goneOutcome(
                copies, listed: Dictionary(uniqueKeysWithValues: whole.map { $0.0 == "fit/a.fit" ? l("fit/a.fit", md5: nil) : $0 }),
                rowOwed: false, readWrong: ["fit/a.fit"]),
            .remake(["fit/a.fit"]))
        for r in rows {
            XCTAssertEqual(DeliveryPlans.goneOutcome(r.copies, listed: Dictionary(uniqueKeysWithValues: r.listed), rowOwed: r.rowOwed), r.is, r.why)
        }
    }
}

import CairnLog
import XCTest

@testable import cairn

/// Table tests of what a shipment decides the same way to a stick and to a remote: the logs, the
/// key, the cut, each trip and each conversion.
final class ShippingPlanTests: XCTestCase {
    func testLogsGo() {
        // (asked, zones, formats, destination, go)
        let rows: [(asked: Bool?, zones: Bool, formats: Int, to: ShippingPlan.Destination, go: Bool)] = [
            (nil, false, 2, .folder, true),
            (nil, false, 2, .remote, true),
            // With zones the logs stay home unless asked.
            (nil, true, 2, .folder, false),
            (nil, true, 2, .remote, false),
            // `--format none` asks a stick for the logs alone; never a remote.
            (nil, true, 0, .folder, true),
            (nil, true, 0, .remote, false),
            (nil, false, 0, .remote, true),
            // Asked outright: as asked.
            (true, true, 2, .folder, true),
            (true, true, 0, .remote, true),
            (false, false, 2, .folder, false),
            (false, false, 0, .folder, false),
            (false, false, 2, .remote, false)
        ]
        for r in rows {
            XCTAssertEqual(ShippingPlan.logsGo(asked: r.asked, zones: r.zones, formats: r.formats, to: r.to), r.go, "\(r)")
        }
    }

    func testKeyGoesOnlyWithTheLogs() {
        let rows: [(logs: Bool, key: Bool, goes: Bool)] = [(true, true, true), (true, false, false), (false, true, false), (false, false, false)]
        for r in rows { XCTAssertEqual(ShippingPlan.keyGoes(logs: r.logs, key: r.key), r.goes, "\(r)") }
    }

    func testCuts() {
        // (points, formats, page, cut)
        let rows: [(points: Int, formats: Int, page: Bool, cut: Bool)] = [
            (10, 2, true, true),
            (10, 2, false, true),
            // The page shows the trip (its picture and figures): cut with no conversion too.
            (10, 0, true, true),
            (10, 0, false, false),
            (0, 2, true, false),
            (0, 0, false, false)
        ]
        for r in rows { XCTAssertEqual(ShippingPlan.cuts(points: r.points, formats: r.formats, page: r.page), r.cut, "\(r)") }
    }

    func testTrip() {
        let rows: [(open: String?, points: Int, damaged: Int, step: ShippingPlan.TripStep)] = [
            ("recording", 10, 0, .open("recording")),
            ("recording", 0, 0, .open("recording")),
            (nil, 10, 0, .whole),
            (nil, 10, 300, .whole),
            (nil, 0, 0, .nothing),
            (nil, 0, 300, .logsOnly)
        ]
        for r in rows { XCTAssertEqual(ShippingPlan.trip(openBecause: r.open, points: r.points, damagedBytes: r.damaged), r.step, "\(r)") }
    }

    func testConversion() {
        let rows: [(points: Int, hidesAll: Bool, verified: Bool, present: Bool, step: ShippingPlan.ConversionStep)] = [
            (0, false, false, false, .none),
            (0, true, true, true, .none),
            (10, true, false, false, .hidden),
            (10, true, true, true, .hidden),
            (10, false, true, true, .there),
            // Verified, but its file is gone from the stick: written again.
            (10, false, true, false, .write),
            // There, but the trip changed since it was verified (resumed): written again.
            (10, false, false, true, .write),
            (10, false, false, false, .write)
        ]
        for r in rows {
            XCTAssertEqual(
                ShippingPlan.conversion(points: r.points, hidesAll: r.hidesAll, verified: r.verified, present: r.present), r.step, "\(r)")
        }
    }

    func testPageEntry() {
        let rows: [(wrote: Bool, current: Bool, links: Int, add: Bool)] = [
            (true, true, 2, true),
            (true, false, 2, true),
            (false, false, 2, true),
            (false, true, 2, false),
            // An entry that links nothing (every file gone, a trip wholly inside a zone) never.
            (true, false, 0, false),
            (false, false, 0, false)
        ]
        for r in rows { XCTAssertEqual(ShippingPlan.pageEntry(wroteAny: r.wrote, current: r.current, links: r.links), r.add, "\(r)") }
    }

    /// A second card's trip whose log name the stick holds for another log (attack-r24 c14c) is
    /// refused whole: no conversion or page row without its log beside the other card's.
    func testATripIsRefusedWholeWhereAnotherLogHoldsItsName() {
        let rows: [(why: String, there: [ShippingPlan.ExistingCopy], refused: String?)] = [
            // (the name and why, "NAME (WHY)")
            ("nothing there", [.none], nil),
            ("its own copy", [.same], nil),
            ("its own earlier copy", [.earlierCopy], nil),
            ("another log", [.other("another log")], "a (another log)"),
            ("its second file is another's", [.same, .other("x")], "b (x)"),
            ("no files", [], nil)
        ]
        for r in rows {
            let named = zip(["a", "b"], r.there).map { (name: $0.0, copy: $0.1) }
            let got = ShippingPlan.refusesTrip(r.there.count == 2 ? named : r.there.map { (name: "a", copy: $0) })
            XCTAssertEqual(got.map { "\($0.name) (\($0.why))" }, r.refused, r.why)
        }
    }

    func testAStickCopyIsReplacedOnlyByTheLogItBegins() {
        let ours = FileDigest(size: 300, crc: 7)
        let earlier = FileDigest(size: 100, crc: 3)
        let rows: [(found: Bool, theirs: FileDigest?, prefix: FileDigest?, copy: ShippingPlan.ExistingCopy)] = [
            (false, nil, nil, .none),
            (true, nil, nil, .other("cannot be read")),
            (true, ours, nil, .same),
            // A byte prefix of the log: the copy of an earlier export, before the trip resumed.
            (true, earlier, earlier, .earlierCopy),
            // Shorter but other bytes: another board's log, or this one damaged; never replaced.
            (true, earlier, FileDigest(size: 100, crc: 4), .other("100 bytes, not a copy of this log's 300; a log from another board?")),
            (true, earlier, nil, .other("100 bytes, not a copy of this log's 300; a log from another board?")),
            // Longer, or as long with other bytes: never replaced.
            (true, FileDigest(size: 400, crc: 7), nil, .other("400 bytes, not a copy of this log's 300; a log from another board?")),
            (true, FileDigest(size: 300, crc: 8), nil, .other("300 bytes, not a copy of this log's 300; a log from another board?"))
        ]
        for r in rows {
            XCTAssertEqual(ShippingPlan.existingCopy(found: r.found, theirs: r.theirs, ours: ours, prefix: r.prefix), r.copy, "\(r)")
        }
    }

    /// A trip's names on a stick: as it went there before; else salted only beside another
    /// card's log under its plain names (attack-r24: exported beside, not refused).
    func testStickNames() {
        let rows: [(why: String, before: Bool?, other: Bool, salted: Bool)] = [
            ("a new trip, the names free or this log's", nil, false, false),
            ("a new trip, another card's log at a plain name", nil, true, true),
            ("exported plain before: plain, whatever is there now (refused as before)", false, true, false),
            ("exported salted before", true, false, true),
            ("exported salted before, the other card's log still there", true, true, true)
        ]
        for r in rows { XCTAssertEqual(ShippingPlan.stickNames(saltedBefore: r.before, otherCard: r.other), r.salted, r.why) }
    }
}

import CairnExport
import XCTest

@testable import cairn

/// Table tests of the rows the page gets back from the board's copy of it when the remote's
/// index lacks them (`DeliveryPlans.keptRows`, attack-r24 c16).
final class KeptPageRowsTests: XCTestCase {
    func row(_ key: String, files: [String], picture: String? = nil) -> TripIndex.Entry {
        var e = TripIndex.Entry(key: key, tripId: 1, name: key)
        e.files = files
        e.picture = picture
        if picture != nil {
            e.pictureWidth = 320
            e.pictureHeight = 200
        }
        return e
    }

    func testKeptRows() {
        let a = row("trip1-10", files: ["gpx/a.gpx", "logs/1.cairn"], picture: "pictures/a.svg")
        let rows: [(why: String, listed: Set<String>, listedKeys: Set<String>, making: Set<String>, back: [String], picture: Bool)] = [
            ("every file there, the index lacks it", ["gpx/a.gpx", "logs/1.cairn", "pictures/a.svg"], [], [], ["trip1-10"], true),
            ("the index has it: left as it is", ["gpx/a.gpx", "logs/1.cairn", "pictures/a.svg"], ["trip1-10"], [], [], false),
            ("made from its log on the board", ["gpx/a.gpx", "logs/1.cairn", "pictures/a.svg"], [], ["trip1-10"], [], false),
            ("a file gone: not made up", ["logs/1.cairn", "pictures/a.svg"], [], [], [], false),
            ("nothing there", [], [], [], [], false),
            ("its picture gone: back without one", ["gpx/a.gpx", "logs/1.cairn"], [], [], ["trip1-10"], false)
        ]
        for r in rows {
            let back = DeliveryPlans.keptRows([a], listedKeys: r.listedKeys, making: r.making) { r.listed.contains($0) }
            XCTAssertEqual(back.map(\.key), r.back, r.why)
            if let b = back.first {
                XCTAssertEqual(b.picture != nil, r.picture, r.why)
                XCTAssertEqual(b.pictureWidth != nil, r.picture, r.why)
                XCTAssertEqual(b.files, a.files, r.why)
            }
        }
        // A row without files (nothing of it on the remote to show) never comes back.
        XCTAssertEqual(DeliveryPlans.keptRows([row("trip2-20", files: [])], listedKeys: [], making: []) { _ in true }, [])
    }
}

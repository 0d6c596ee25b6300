import CairnExport
import XCTest

@testable import cairn

/// Table tests of what a run with privacy zones does about another card's page rows
/// (`DeliveryPlans.otherCardRow`, attack-r22 c29).
final class OtherCardRowTests: XCTestCase {
    typealias R = DeliveryPlans.OtherRow

    func testOtherCardRow() {
        let shown = ["gpx/a.gpx", "csv/a.csv", "pictures/a.svg"]
        // (cut, inZone, logWhole, zones, action)
        let rows: [(cut: Bool, inZone: Bool?, whole: Bool, zones: Bool, action: DeliveryPlans.OtherRowAction)] = [
            // No zone: every row as it is.
            (false, true, true, false, .keep),
            (false, nil, false, false, .keep),
            // Known to stay out of every zone: kept, cut or not.
            (false, false, true, true, .keep),
            (false, false, false, true, .keep),
            // Inside a zone, its log whole there: the conversions and picture go, the log stays.
            (false, true, true, true, .withdraw(shown)),
            (true, true, true, true, .withdraw(shown)),
            // Inside a zone, no whole log there: nothing deleted, the page veils the row.
            (false, true, false, true, .veil),
            // Not read: an uncut row may show the place (c29's card A): veiled, nothing deleted.
            (false, nil, false, true, .veil),
            (false, nil, true, true, .veil),
            // Not read, but its card delivered it cut: kept.
            (true, nil, false, true, .keep)
        ]
        for r in rows {
            let row = R(key: "b1/trip1-81ca2be2", shown: shown, cut: r.cut, inZone: r.inZone, logWhole: r.whole)
            XCTAssertEqual(DeliveryPlans.otherCardRow(row, zones: r.zones), r.action, "\(r)")
        }
    }

    func testWithdrawalNeverDeletesLogsOrEscapes() {
        let shown = [
            "gpx/a.gpx", "logs/00000001-81ca2be2.cairn", "gpx/..", "../gpx/a.gpx", "gpx/a/b.gpx", "index.html", "pictures/a.svg",
            "gpx/", "csv/a\u{0}.csv", "kml/a.kml"
        ]
        let row = R(key: "k", shown: shown, cut: false, inZone: true, logWhole: true)
        XCTAssertEqual(DeliveryPlans.otherCardRow(row, zones: true), .withdraw(["gpx/a.gpx", "pictures/a.svg", "kml/a.kml"]))
    }

    /// The GPX read back from another card: a `trkpt` in a disc is in the zone; other lines,
    /// attributes that do not read, and `minlat` of the bounds are not points.
    func testGpxLinesInZone() {
        let disc = [CutCircle(lat: 47.0, lon: 8.5, radiusM: 100)]
        let rows: [(String, Bool)] = [
            ("      <trkpt lat=\"47.0000000\" lon=\"8.5000000\"><time>x</time></trkpt>\n", true),
            ("      <trkpt lat=\"47.0100000\" lon=\"8.5000000\"></trkpt>\n", false),
            ("<bounds minlat=\"47.0\" minlon=\"8.5\"/>\n", false),
            ("      <trkpt lat=\"x\" lon=\"8.5\"></trkpt>\n", false),
            ("<trkpt lat=\"47.02\" lon=\"8.5\"/>\n<trkpt lat=\"47.0003\" lon=\"8.5002\"/>\n", true)
        ]
        for (text, inside) in rows {
            XCTAssertEqual(DeliveryRun.gpxLinesInZone(Array(text.utf8)[...], disc), inside, text)
        }
    }
}

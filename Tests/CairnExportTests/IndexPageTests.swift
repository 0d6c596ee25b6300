import XCTest

@testable import CairnExport

/// The page (`index.html`): everything from the index escaped, links that stay in the folder,
/// dates in the recorder's local time, no script and nothing from elsewhere.
final class IndexPageTests: XCTestCase {
    func entry(_ id: UInt64, name: String = "bike-20250601-080000-trip1", start: Int64? = 1_748_764_800_000) -> TripIndex.Entry {
        var e = TripIndex.Entry(key: "trip\(id)", tripId: id, name: name)
        e.startMs = start
        e.distanceM = 41_364
        e.movingS = 4632.4
        e.ascentM = 320.4
        e.points = 4600
        e.activity = "ride"
        e.picture = "pictures/\(name).svg"
        e.files = ["gpx/\(name).gpx", "fit/\(name).fit", "logs/00000001.cairn"]
        return e
    }

    func testHostileNamesAreEscaped() {
        let evil = "<script>alert(1)</script>\"'&x"
        var e = entry(1, name: evil)
        e.activity = "<b>ride</b>"
        e.key = "k\"><img src=x onerror=alert(1)>"
        e.files = ["gpx/\(evil).gpx", "javascript:alert(1)", "//evil.example/x.gpx", "gpx/a b#c?d.gpx"]
        let html = IndexPage.html([e], title: "<i>board</i>")
        XCTAssertFalse(html.contains("<script"), html)
        XCTAssertFalse(html.contains("<img src=x"), html)
        XCTAssertFalse(html.contains("<b>ride"), html)
        XCTAssertFalse(html.contains("<i>board"), html)
        XCTAssertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;x"), html)
        XCTAssertTrue(html.contains("href=\"javascript%3Aalert%281%29\""), html)
        XCTAssertTrue(html.contains("href=\".///evil.example/x.gpx\""), "a path from the root stays in the folder: \(html)")
        XCTAssertTrue(html.contains("href=\"gpx/a%20b%23c%3Fd.gpx\""), html)
        // Every attribute value is quoted and holds no raw quote or angle bracket.
        for attr in html.components(separatedBy: "=\"").dropFirst() {
            let value = attr.prefix { $0 != "\"" }
            XCTAssertFalse(value.contains("<") || value.contains(">"), String(value))
        }
    }

    func testNoScriptNoOutsideResourceAndAViewport() {
        let html = IndexPage.html([entry(1), entry(2, name: "x")])
        XCTAssertFalse(html.lowercased().contains("<script"))
        XCTAssertFalse(html.contains("http:") || html.contains("https:") || html.contains("@import") || html.contains("url("), html)
        XCTAssertTrue(html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        XCTAssertTrue(html.contains("<meta charset=\"utf-8\">"))
    }

    func testLocalTimeWhenTheLogHasTheOffset() {
        var e = entry(1)
        XCTAssertEqual(IndexPage.when(e), "Sun 1 Jun 2025, 08:00 <small>UTC</small>")
        e.utcOffsetS = 7200
        XCTAssertEqual(IndexPage.when(e), "Sun 1 Jun 2025, 10:00 <small>UTC+02:00</small>")
        e.utcOffsetS = -(9 * 3600 + 1800)
        XCTAssertEqual(IndexPage.when(e), "Sat 31 May 2025, 22:30 <small>UTC-09:30</small>")
        e.utcOffsetS = 0
        XCTAssertEqual(IndexPage.when(e), "Sun 1 Jun 2025, 08:00 <small>UTC</small>")
        e.startMs = nil
        XCTAssertEqual(IndexPage.when(e), "date unknown")
        // Before 1970 the weekday still counts right (1969-12-31 was a Wednesday).
        e.startMs = -3_600_000
        e.utcOffsetS = nil
        XCTAssertEqual(IndexPage.when(e), "Wed 31 Dec 1969, 23:00 <small>UTC</small>")
    }

    func testFiguresLinksAndOrder() {
        var old = entry(1, name: "old")
        old.startMs = 1_700_000_000_000
        let html = IndexPage.html([old, entry(2, name: "new")])
        XCTAssertLessThan(html.range(of: "id=\"t-trip2\"")!.lowerBound, html.range(of: "id=\"t-trip1\"")!.lowerBound, "newest first")
        XCTAssertTrue(html.contains("<dd>41.36 km</dd>"), html)
        XCTAssertTrue(html.contains("<dd>1:17:12</dd>"), html)
        XCTAssertTrue(html.contains("<dd>+320 m</dd>"), html)
        XCTAssertTrue(html.contains("<a href=\"gpx/new.gpx\">GPX</a>"), html)
        XCTAssertTrue(html.contains("<a href=\"logs/00000001.cairn\">log 00000001.cairn</a>"), html)
        XCTAssertTrue(html.contains("<img src=\"pictures/new.svg\""), html)
        XCTAssertTrue(html.contains("2 trips · 82.73 km"), html)
        XCTAssertTrue(IndexPage.html([]).contains("No trips exported yet."))
    }
}

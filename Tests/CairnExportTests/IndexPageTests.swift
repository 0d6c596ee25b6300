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

    /// A ride's figures (issue 42): elapsed and moving time, average over moving time, top speed,
    /// climb and its source, the temperature; "–" for what an older index does not know.
    func testFiguresOfARideAndDashesForAnOlderIndex() {
        var e = entry(1)
        e.elapsedS = 5400
        e.maxSpeedMps = 14.25
        e.climbSource = "barometer"
        e.temperatureMinC = 11.4
        e.temperatureMaxC = 18.2
        let f = Dictionary(uniqueKeysWithValues: IndexPage.figures(e))
        XCTAssertEqual(f["distance"], "41.36 km")
        XCTAssertEqual(f["moving time"], "1:17:12")
        XCTAssertEqual(f["elapsed time"], "1:30:00")
        XCTAssertEqual(f["average"], "32.1 km/h", "41.364 km in 4632.4 s")
        XCTAssertEqual(f["top speed"], "51.3 km/h")
        XCTAssertEqual(f["climb (barometer)"], "+320 m")
        XCTAssertEqual(f["temperature"], "11–18 °C")
        let old = Dictionary(uniqueKeysWithValues: IndexPage.figures(entry(2)))
        XCTAssertEqual(old["elapsed time"], "–")
        XCTAssertEqual(old["top speed"], "–")
        XCTAssertEqual(old["average"], "32.1 km/h", "from the columns every index has")
        XCTAssertNil(old["temperature"], "no sensor, no line")
        var still = entry(3)
        still.movingS = 0
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: IndexPage.figures(still))["average"], "–")
    }

    /// Times rounded to the whole second from the tenths `--json` and FIT say, as `list`,
    /// `info` and the picture's own line say them: a card once read 0:03:55 above a picture
    /// saying 0:03:54 (234.6 s); `info` once said 0:10:01 beside `--json`'s 601.6 s.
    func testDurationsAreRoundedToTheSecondAsEverywhereElse() {
        XCTAssertEqual(IndexPage.duration(234.6), "0:03:55")
        XCTAssertEqual(IndexPage.duration(234.6), TripFigures.duration(234_600))
        XCTAssertEqual(IndexPage.duration(3599.999), "1:00:00")
        XCTAssertEqual(IndexPage.duration(-1), "–")
    }

    /// ISO 8601 weeks across years' ends, in the recorder's local time.
    func testISOWeeks() {
        let cases: [(String, Int64, String)] = [
            ("Sunday 2021-01-03 is in 2020's week 53", 18630, "2020-W53"),
            ("Monday 2021-01-04 starts week 1", 18631, "2021-W01"),
            ("Monday 2024-12-30 is in 2025's week 1", 20087, "2025-W01"),
            ("Thursday 2026-12-31 is in week 53", 20818, "2026-W53"),
            ("Sunday 2025-06-01", 20240, "2025-W22"),
            ("Thursday 1970-01-01", 0, "1970-W01"),
            ("Wednesday 1969-12-31", -1, "1970-W01")
        ]
        for (why, day, week) in cases { XCTAssertEqual(IndexPage.isoWeek(day).0, week, why) }
        XCTAssertEqual(IndexPage.month(20240).0, "Jun 2025")
        XCTAssertEqual(IndexPage.month(-1).0, "Dec 1969")
        // 23:30 UTC on Sunday 1 June is Monday 2 June at UTC+02:00: week 23.
        let lateSunday: Int64 = 1_748_820_600_000
        XCTAssertEqual(IndexPage.isoWeek(IndexPage.localDay(lateSunday, offsetS: nil)).0, "2025-W22")
        XCTAssertEqual(IndexPage.isoWeek(IndexPage.localDay(lateSunday, offsetS: 7200)).0, "2025-W23")
    }

    /// Totals per week and month for each activity: a drive is never added to a ride.
    func testTotalsPerWeekAndMonthKeepActivitiesApart() {
        let day: Int64 = 86_400_000
        let sunday1June: Int64 = 1_748_764_800_000  // 08:00 UTC
        func trip(_ id: UInt64, _ activity: String?, _ start: Int64, _ km: Double, climb: Double? = 100) -> TripIndex.Entry {
            var e = TripIndex.Entry(key: "trip\(id)", tripId: id, name: "n\(id)")
            e.startMs = start
            e.activity = activity
            e.distanceM = km * 1000
            e.movingS = km * 120
            e.ascentM = climb
            return e
        }
        let trips = [
            trip(1, "ride", sunday1June, 30),  // 2025-W22, Jun
            trip(2, "drive", sunday1June + 3_600_000, 80, climb: nil),  // 2025-W22, Jun
            trip(3, "ride", sunday1June + day, 20, climb: nil),  // Monday: 2025-W23, Jun
            trip(4, "ride", sunday1June + 2 * day, 10),  // 2025-W23, Jun
            trip(5, "ride", sunday1June - 2 * day, 5),  // Friday 30 May: 2025-W22, May
            trip(6, nil, sunday1June, 1),  // no activity: its own line
            trip(7, "ride", 0, 7)
        ]
        var undated = trip(8, "ride", 0, 50)
        undated.startMs = nil
        func rows(_ t: [IndexPage.Totals]) -> [String] {
            t.map {
                "\($0.period) \($0.activity) \($0.trips) \(TextFormat.trimmed($0.distanceM / 1000, 1) ?? "?") \($0.ascentM.map { "\(Int($0))" } ?? "-")"
            }
        }
        XCTAssertEqual(
            rows(IndexPage.Totals.by(.week, trips + [undated])),
            [
                "2025-W23 ride 2 30 100",
                "2025-W22 drive 1 80 -",
                "2025-W22 other 1 1 100",
                "2025-W22 ride 2 35 200",
                "1970-W01 ride 1 7 100"
            ])
        XCTAssertEqual(
            rows(IndexPage.Totals.by(.month, trips)),
            ["Jun 2025 drive 1 80 -", "Jun 2025 other 1 1 100", "Jun 2025 ride 3 60 200", "May 2025 ride 1 5 100", "Jan 1970 ride 1 7 100"])
        XCTAssertEqual(
            rows(IndexPage.Totals.byActivity(trips + [undated])), [" ride 6 122 500", " drive 1 80 -", " other 1 1 100"],
            "all time, undated trips too")
        let html = IndexPage.html(trips)
        XCTAssertTrue(html.contains("<li><b>ride</b>: 5 trips · 72.00 km · "), html)
        XCTAssertTrue(html.contains("<li><b>drive</b>: 1 trip · 80.00 km · "), html)
        XCTAssertTrue(html.contains("<td>2025-W22</td><td>drive</td><td>1</td><td>80.00 km</td><td>2:40:00</td><td>–</td>"), html)
        XCTAssertFalse(html.contains("<details>"), "3 weeks and 3 months: all shown")
        // Six weeks in a row: the newest 4 shown, 2 folded; the 2 months shown.
        let weekly = (0..<6).map { trip(UInt64(10 + $0), "ride", sunday1June + Int64($0) * 7 * day, 10) }
        let folded = IndexPage.html(weekly)
        XCTAssertTrue(folded.contains("<details><summary>2 earlier weeks</summary>"), folded)
        XCTAssertEqual(folded.components(separatedBy: "<details>").count, 2, "months not folded")
    }

    /// A zone's cut is said, the picture loads lazily at its size, and nothing else changes.
    func testZoneLinePictureSizeAndLazyLoading() {
        var e = entry(1, name: "new")
        e.leftOut = 120
        (e.pictureWidth, e.pictureHeight) = (320, 486)
        let html = IndexPage.html([e])
        XCTAssertTrue(html.contains("<p class=\"zone\">The part near home is left out"), html)
        XCTAssertTrue(html.contains("<img src=\"pictures/new.svg\" width=\"320\" height=\"486\" loading=\"lazy\""), html)
        e.leftOut = 0
        XCTAssertFalse(IndexPage.html([e]).contains("class=\"zone\""))
        e.leftOut = nil
        XCTAssertFalse(IndexPage.html([e]).contains("class=\"zone\""), "an older index: nothing said")
        XCTAssertTrue(IndexPage.html([entry(2, name: "x")]).contains("<img src=\"pictures/x.svg\" loading=\"lazy\""))
    }
}

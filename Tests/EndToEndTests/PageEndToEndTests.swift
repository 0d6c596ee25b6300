import Foundation
import XCTest

/// The page `cairn export` leaves beside its files (issue 31, item 4), on real recordings with a
/// privacy zone at the ride's start: checked in headless Chromium by Tests/tools/check-page.py
/// (loads from file://, every link and picture, nothing from outside, no sideways scrolling at
/// 360 px), and no point inside the zone anywhere in the page, its index or its pictures.
final class PageEndToEndTests: XCTestCase {
    static func real(_ name: String) -> String { Harness.repoRoot.appendingPathComponent("Tests/Fixtures/real/\(name)").path }
    let fm = FileManager.default
    let radius = 150.0

    struct Point { var lat: Double, lon: Double }

    /// The CSV's points by trip id.
    func csvPoints(_ text: String) -> [String: [Point]] {
        var lines = text.split(separator: "\n").map(String.init)
        guard !lines.isEmpty else { return [:] }
        let head = lines.removeFirst().split(separator: ",").map(String.init)
        let la = head.firstIndex(of: "lat")!, lo = head.firstIndex(of: "lon")!, ti = head.firstIndex(of: "trip")!
        var out: [String: [Point]] = [:]
        for l in lines {
            let c = l.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            out[c[ti], default: []].append(Point(lat: Double(c[la]) ?? .nan, lon: Double(c[lo]) ?? .nan))
        }
        return out
    }

    static func metres(_ a: Point, _ b: Point) -> Double {
        let rad = Double.pi / 180
        let dLat = (b.lat - a.lat) * rad, dLon = (b.lon - a.lon) * rad
        let h = pow(sin(dLat / 2), 2) + cos(a.lat * rad) * cos(b.lat * rad) * pow(sin(dLon / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// check-page.py on `dir/index.html`, its JSON summary; a 360 px screenshot beside it.
    @discardableResult
    func checkPage(_ dir: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-page.py").path, dir + "/index.html", "--screenshot",
                dir + "/page-360.png"
            ],
            timeout: 120)
        XCTAssertEqual(r.status, 0, "check-page: \(r.stderr)\n\(r.stdout)", file: file, line: line)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// The picture's map points (track, bridges, marks, start and finish) back as positions: the
    /// inverse of TrackPicture's projection, which is fitted to the written points' extent.
    func pictureTrackPoints(_ svg: String, written: [Point]) -> [Point] {
        let minLat = written.map(\.lat).min()!, maxLat = written.map(\.lat).max()!
        let minLon = written.map(\.lon).min()!, maxLon = written.map(\.lon).max()!
        let svgWidth = svg.range(of: " width=\"").flatMap { r in Double(svg[r.upperBound...].prefix { $0 != "\"" }) } ?? .nan
        let margin = 20.0, inner = svgWidth - 2 * margin, mapTop = 44.0
        let cosLat = max(cos((minLat + maxLat) / 2 * .pi / 180), 0.01)
        let spanLon = max(maxLon - minLon, 0.0005), spanLat = max(maxLat - minLat, 0.0005)
        // The page's picture is compact (TrackPicture.Options.compact): its map at most as tall as wide.
        let maxMapHeight = svgWidth < 500 ? inner : 700
        let scale = min(inner / (spanLon * cosLat), maxMapHeight / spanLat)
        let mapW = spanLon * cosLat * scale, mapH = spanLat * scale
        let ox = margin + (inner - mapW) / 2
        let cLon = (minLon + maxLon) / 2, cLat = (minLat + maxLat) / 2
        func back(_ x: Double, _ y: Double) -> Point {
            Point(lat: cLat - (y - mapTop - mapH / 2) / scale, lon: cLon + (x - ox - mapW / 2) / (cosLat * scale))
        }
        var xy: [(Double, Double)] = []
        let profileColour = "#7f6a4f"
        for el in svg.components(separatedBy: "<").dropFirst() {
            func attr(_ n: String) -> String? {
                guard let r = el.range(of: " \(n)=\"") else { return nil }
                return String(el[r.upperBound...].prefix { $0 != "\"" })
            }
            if el.hasPrefix("polyline"), attr("stroke") != profileColour, let pts = attr("points") {
                for p in pts.split(separator: " ") {
                    let c = p.split(separator: ",").compactMap { Double($0) }
                    if c.count == 2 { xy.append((c[0], c[1])) }
                }
            } else if el.hasPrefix("circle"), let x = attr("cx").flatMap(Double.init), let y = attr("cy").flatMap(Double.init) {
                xy.append((x, y))
            } else if el.hasPrefix("line"), let x1 = attr("x1").flatMap(Double.init), let y1 = attr("y1").flatMap(Double.init),
                let x2 = attr("x2").flatMap(Double.init), let y2 = attr("y2").flatMap(Double.init)
            {
                xy += [(x1, y1), (x2, y2)]
            } else if el.hasPrefix("rect class=\"finish\""), let x = attr("x").flatMap(Double.init), let y = attr("y").flatMap(Double.init) {
                xy.append((x + 6, y + 6))
            }
        }
        return xy.map { back($0.0, $0.1) }
    }

    func testExportLeavesAPageThatWorksAndShowsNothingInsideTheZone() throws {
        let logs = Harness.tempDir() + "/logs"
        let ride = try Harness.record(Self.real("edge810.nmea"), dir: logs)
        XCTAssertEqual(ride.status, 0, ride.stderr)
        // The zone: around the ride's first point (home).
        let all = try Harness.cairn("convert", logs, "--to", "csv", "--config", "none", "-o", "-")
        XCTAssertEqual(all.status, 0, all.stderr)
        let recorded = csvPoints(all.stdout)
        let home = try XCTUnwrap(recorded["1"]?.first)
        let recordedInside = recorded["1"]!.filter { Self.metres($0, home) < radius }.count
        XCTAssertGreaterThan(recordedInside, 10, "the ride starts at home")
        let zone = ["--privacy-zone", "\(home.lat),\(home.lon),\(Int(radius))", "--config", "none"]

        let out = Harness.tempDir() + "/stick"
        // Recorded without a zone, so the recorder made no key; fixed bytes, so the cut is the same every run.
        XCTAssertFalse(fm.fileExists(atPath: logs + "/privacy-key"), "no zone, no key")
        try PrivacyZoneEndToEndTests.boardKey(logs)
        let e = try Harness.run(Harness.cairn, ["export", "--dir", logs, "--to", out, "--format", "gpx,csv"] + zone)
        XCTAssertEqual(e.status, 0, e.stderr)
        for f in ["index.html", "index.tsv", "pictures"] { XCTAssertTrue(fm.fileExists(atPath: out + "/" + f), f) }
        let names = try fm.contentsOfDirectory(atPath: out + "/csv").filter { !$0.hasPrefix(".") }
        XCTAssertEqual(names.count, 1)
        let stem = String(names[0].dropLast(4))
        let picture = out + "/pictures/" + stem + ".svg"
        XCTAssertTrue(fm.fileExists(atPath: picture), "pictures/<conversion name>.svg")

        let check = try checkPage(out)
        XCTAssertEqual(check["trips"] as? Int, 1)
        XCTAssertEqual((check["images"] as? [Any])?.count, 1)
        XCTAssertEqual(check["links"] as? Int, 3, "the picture and two conversions (no logs with zones)")

        // What was written holds nothing inside the zone; the page's figures are its figures.
        let written = csvPoints(try String(contentsOfFile: out + "/csv/" + names[0], encoding: .utf8))["1"] ?? []
        XCTAssertGreaterThan(written.count, 1000)
        XCTAssertTrue(written.allSatisfy { Self.metres($0, home) >= radius })
        let tsv = try String(contentsOfFile: out + "/index.tsv", encoding: .utf8)
        let row = tsv.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let head = row[1]
        XCTAssertEqual(row.count, 3, tsv)
        XCTAssertEqual(row[2][head.firstIndex(of: "points")!], String(written.count), "the figures are those of what was written")
        let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let km = (Double(row[2][head.firstIndex(of: "distance_m")!])! / 1000)
        XCTAssertTrue(html.contains("<dd>\(String(format: "%.2f", km)) km</dd>"), html)
        // Issue 42: the cut is said, the picture's axis reads the headline's distance (it read
        // the hop across the left-out stretch), the ride's figures are all there.
        XCTAssertTrue(html.contains("<p class=\"zone\">The part near home is left out"), html)
        // Only that the cut left points out: a count beside the public page is the time hidden
        // near home (attack-r20: 503 points = 8:23 of riding at the door's end).
        XCTAssertEqual(row[2][head.firstIndex(of: "left_out")!], "1", tsv)
        for dt in ["elapsed time", "average", "top speed"] { XCTAssertTrue(html.contains("<dt>\(dt)</dt>"), dt) }
        XCTAssertFalse(html.contains("<dd>–</dd>"), "every figure known: \(html)")
        XCTAssertTrue(html.contains("loading=\"lazy\""), html)

        // No coordinate in the page or its index; the picture holds only screen positions (one
        // decimal; two in its summary line's kilometres), and none of them maps back inside the zone.
        let coordinate = try NSRegularExpression(pattern: "[0-9]\\.[0-9]{4,}")
        for text in [html, tsv] {
            XCTAssertEqual(coordinate.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text)), 0, text)
        }
        let svg = try String(contentsOfFile: picture, encoding: .utf8)
        XCTAssertTrue(svg.contains(">\(String(format: "%.1f", km)) km</text>"), "the axis under the \(km) km headline: \(svg)")
        XCTAssertEqual(coordinate.numberOfMatches(in: svg, range: NSRange(svg.startIndex..., in: svg)), 0, "no coordinate written into the picture")
        let drawn = pictureTrackPoints(svg, written: written)
        XCTAssertGreaterThan(drawn.count, 100)
        // One picture pixel in metres: the tolerance of positions printed to 0.1 px.
        let spanM = Self.metres(
            Point(lat: written.map(\.lat).min()!, lon: written.map(\.lon).min()!),
            Point(lat: written.map(\.lat).max()!, lon: written.map(\.lon).max()!))
        let pixel = spanM / 600
        let nearest = drawn.map { Self.metres($0, home) }.min()!
        XCTAssertGreaterThanOrEqual(nearest, radius - pixel, "a drawn point \(nearest) m from home (zone \(radius) m, a pixel \(pixel) m)")
        // The inverse is right: the start mark lands on the first written point.
        let startMark = drawn.first { p in written.contains { Self.metres($0, p) < 2 * pixel } }
        XCTAssertNotNil(startMark)

        // A walk recorded later; the ride's log deleted on the board (retention): the page keeps
        // the ride and adds the walk.
        let walk = try Harness.record(Self.real("pixel6-walk.nmea"), dir: logs)
        XCTAssertEqual(walk.status, 0, walk.stderr)
        try fm.removeItem(atPath: logs + "/00000001.cairn")
        let e2 = try Harness.run(Harness.cairn, ["export", "--dir", logs, "--to", out, "--format", "gpx,csv"] + zone)
        XCTAssertEqual(e2.status, 0, e2.stderr)
        let check2 = try checkPage(out)
        XCTAssertEqual(check2["trips"] as? Int, 2, "\(check2)")
        XCTAssertEqual((check2["images"] as? [Any])?.count, 2)
        let tsv2 = try String(contentsOfFile: out + "/index.tsv", encoding: .utf8)
        XCTAssertTrue(tsv2.hasPrefix(tsv), "the ride's line is kept as it was")
        XCTAssertEqual(tsv2.split(separator: "\n").count, 4, tsv2)

        // --page no: no page.
        let plain = Harness.tempDir() + "/plain"
        let e3 = try Harness.run(Harness.cairn, ["export", "--dir", logs, "--to", plain, "--format", "gpx", "--page", "no"] + zone)
        XCTAssertEqual(e3.status, 0, e3.stderr)
        XCTAssertFalse(fm.fileExists(atPath: plain + "/index.html"))
        XCTAssertFalse(fm.fileExists(atPath: plain + "/index.tsv"))
        XCTAssertEqual(try Harness.cairn("export", "--to", plain, "--page", "maybe").status, 64)
    }

    /// An index someone edited: its bad lines are said, kept, and the page is still made.
    func testAnEditedIndexIsKeptAndThePageStillMade() throws {
        let logs = Harness.tempDir() + "/logs"
        let ride = try Harness.record(Self.real("pixel6-walk.nmea"), dir: logs)
        XCTAssertEqual(ride.status, 0, ride.stderr)
        let out = Harness.tempDir() + "/stick"
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        let junk = "# cairn trip index, version 1\nkey\ttrip\nnot a line\n<script>x</script>\t7\n"
        try junk.write(toFile: out + "/index.tsv", atomically: true, encoding: .utf8)
        let e = try Harness.run(Harness.cairn, ["export", "--dir", logs, "--to", out, "--format", "fit", "--config", "none"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("index.tsv: line 3: 1 field, the header names 2; kept as it is"), e.stderr)
        let tsv = try String(contentsOfFile: out + "/index.tsv", encoding: .utf8)
        XCTAssertTrue(tsv.contains("\nnot a line\n"), tsv)
        let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        XCTAssertFalse(html.contains("<script>x"), html)
        let check = try checkPage(out)
        XCTAssertEqual(check["trips"] as? Int, 2, "the edited line's trip 7 and the walk")
        // The log copies are on the page with the FIT.
        XCTAssertTrue(html.contains("href=\"logs/00000001.cairn\""), html)
    }
}

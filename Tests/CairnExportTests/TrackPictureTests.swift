import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class TrackPictureTests: XCTestCase {
    /// A drive through the four car bands, 30, 70, 100 and 130 km/h, a minute each.
    func drive() -> [Fix] {
        var out: [Fix] = []
        var lat = 47.0, t: Int64 = 1_748_764_800_000
        for kmh in [30.0, 70, 100, 130, 70] {
            for _ in 0..<60 {
                let v = kmh / 3.6
                lat += v / 111_195
                out.append(
                    Fix(
                        timeMs: t, lat: lat, lon: 8 + 0.002 * sin(lat * 3000), mode: 3, altMSL: 400 + (lat - 47) * 2000, eph: 8, epv: 6, speed: v,
                        track: 0))
                t += 1000
            }
        }
        return out
    }

    func render(_ dir: String, _ options: TrackPicture.Options? = nil) throws -> (String, TripSummary) {
        let trip = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        let path = dir + "/trip.svg"
        let sink = try OutputSink(creating: path, force: true)
        let s = try TrackPicture.render(trip, options: options ?? .defaults(activity: "drive"), to: sink)
        XCTAssertNoThrow(try sink.finish())
        return (try String(contentsOfFile: path, encoding: .utf8), s)
    }

    func polylines(_ svg: String) -> [(colour: String, points: [String])] {
        svg.components(separatedBy: "<polyline stroke=\"").dropFirst().map { part in
            let colour = String(part.prefix(7))
            let pts = part.components(separatedBy: "points=\"")[1].components(separatedBy: "\"")[0]
            return (colour, pts.split(separator: " ").map(String.init))
        }
    }

    func testDriveIsDrawnInCarColoursWithOverlappingPieces() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, activity: "drive", segments: [(.start, drive())]), dir: dir)
        let (svg, _) = try render(dir)
        let lines = polylines(svg)
        XCTAssertEqual(lines.map(\.colour), ["#1a9641", "#f4d03f", "#f39c12", "#d7191c", "#f4d03f"])
        for (a, b) in zip(lines, lines.dropFirst()) {
            XCTAssertEqual(a.points.last, b.points.first, "neighbouring pieces share their boundary point")
        }
        XCTAssertTrue(svg.contains("class=\"start\"") && svg.contains("class=\"finish\""))
        XCTAssertTrue(svg.contains("Trip 1 · drive"))
        XCTAssertTrue(svg.contains("(GPS)"), "the profile of trusted GPS heights")
        let checker = ExportSupport.repoRoot.appendingPathComponent("Tests/tools/check-picture.py").path
        var args = ["python3", checker, dir + "/trip.svg", dir + "/trip.png"]
        for c in TrackPicture.Options.carColours { args += ["--colour", c] }
        let r = try ExportSupport.run("/usr/bin/env", args)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testStopsPausesAndGapsAreMarked() throws {
        let dir = ExportSupport.tempDir()
        var ride = ExportSupport.ride(1200)
        // Standing five minutes at point 400 (one kept point at each end of the stand).
        for i in 401..<ride.count { ride[i].timeMs += 300_000 }
        let part2 = ExportSupport.ride(300, seed: 2, startMs: ride.last!.timeMs + 900_000, lat: ride.last!.lat, lon: ride.last!.lon)
        let part3 = ExportSupport.ride(300, seed: 3, startMs: part2.last!.timeMs + 120_000, lat: part2.last!.lat + 0.002, lon: part2.last!.lon)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ride), (.pause, part2), (.gap, part3)]), dir: dir)
        let (svg, s) = try render(dir, .defaults(activity: "ride"))
        XCTAssertEqual(s.stats.segments, 3)
        XCTAssertTrue(svg.contains("class=\"pause\""), "the pause is marked")
        XCTAssertTrue(svg.contains("pause 15 min"))
        XCTAssertTrue(svg.contains("class=\"stop\"") && svg.contains("stop 5 min"), "the stand inside the segment is marked")
        XCTAssertTrue(svg.contains("stroke-dasharray"), "the gap is bridged by a dashed line")
    }

    /// The profile's axis under a zone and a pause (issue 42): it read the hop across the left-out
    /// stretch and across the pause (39.1 km under a 34.48 km headline); now it reads the
    /// figures' distance, the same written points.
    func testTheAxisReadsTheFiguresDistanceWithAZoneAndAPause() throws {
        let dir = ExportSupport.tempDir()
        let ride = ExportSupport.ride(1200)
        // After the pause the rider starts again 2 km north: no distance across a pause.
        let part2 = ExportSupport.ride(600, seed: 2, startMs: ride.last!.timeMs + 900_000, lat: ride.last!.lat + 0.018, lon: ride.last!.lon)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ride), (.pause, part2)]), dir: dir)
        var options = TrackPicture.Options.defaults(activity: "ride")
        // A zone round a point in the middle of the first part: a stretch left out mid-ride.
        let home = ride[600]
        options.privacy = PrivacyWindow(zones: [PrivacyZone(lat: home.lat, lon: home.lon, radiusM: 300)])
        let (svg, s) = try render(dir, options)
        XCTAssertLessThan(s.stats.points, 1800, "the zone left points out")
        let axis = try XCTUnwrap(
            svg.components(separatedBy: "text-anchor=\"end\">").compactMap { part -> String? in
                let t = part.components(separatedBy: "</text>")[0]
                return t.hasSuffix(" km") ? t : nil
            }.first)
        XCTAssertEqual(axis, (TextFormat.fixed(s.stats.distanceM / 1000, 1) ?? "?") + " km", "the axis reads the figures' distance")
        // Without a zone too: the pause's hop is not on the axis.
        let (plain, whole) = try render(dir, .defaults(activity: "ride"))
        XCTAssertTrue(plain.contains(">" + (TextFormat.fixed(whole.stats.distanceM / 1000, 1) ?? "?") + " km</text>"), plain)
    }

    /// The page's picture (issue 42): drawn at about the width it is shown on a 360 px phone, with
    /// no text under 11 px, the legend inside the picture, no taller map than wide.
    func testCompactPictureHasLabelsOfAtLeast11PxAtItsWidth() throws {
        let dir = ExportSupport.tempDir()
        // North to south: the map as tall as it may be.
        let fixes = ExportSupport.ride(1500).enumerated().map { i, f -> Fix in
            var g = f
            g.lat = 47 - Double(i) * 0.0001
            g.lon = 8
            return g
        }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, fixes)]), dir: dir)
        var options = TrackPicture.Options.defaults(activity: "ride")
        options.width = 320
        options.compact = true
        let (svg, _) = try render(dir, options)
        let height = try XCTUnwrap(svg.components(separatedBy: " height=\"").dropFirst().first.flatMap { Int($0.prefix { $0 != "\"" }) })
        XCTAssertTrue(svg.contains("width=\"320\" height=\"\(height)\""), svg)
        // The map at most as tall as wide (280), the profile 90, the rest 44 + 36 + 24 + 24 + a legend row.
        XCTAssertLessThanOrEqual(height, 44 + 280 + 36 + 90 + 24 + 24 + 18 * 2)
        let sizes = svg.components(separatedBy: "font-size=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        XCTAssertFalse(sizes.isEmpty)
        XCTAssertGreaterThanOrEqual(sizes.min() ?? 0, 11, "no label under 11 px: \(sizes)")
        XCTAssertFalse(svg.contains("Trip 1 ·"), "the page shows the figures; the picture a short line")
        XCTAssertFalse(svg.contains(">cairn 0"), "no file name: the page links the log")
        // Every legend key starts inside the picture and its text ends inside it.
        let legend = TrackPicture.legendLayout(options, width: 320)
        for (b, p) in legend.places.enumerated() {
            XCTAssertLessThanOrEqual(p.x + 22 + Double(options.bands.label(b).count) * 6.5, 320 - 20 + 0.1, "band \(b) at \(p)")
        }
    }

    func testSixHourRideStaysSmallAndCellsAreBehind() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(6 * 3600))]), dir: dir, batch: 256)
        var notes: [String] = []
        var o = TrackPicture.Options.defaults(activity: "ride")
        o.cells =
            ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, settleNs: 0, problem: { XCTFail($0) }, note: { notes.append($0) }).cells
        let (svg, s) = try render(dir, o)
        XCTAssertEqual(s.stats.points, 6 * 3600)
        XCTAssertLessThan(svg.utf8.count, 400_000, "a 6-hour ride is a few hundred KB at most")
        XCTAssertGreaterThan(svg.components(separatedBy: "<rect x=").count, 100, "explored cells drawn")
        let ogr = try ExportSupport.run("/usr/bin/env", ["xmllint", "--noout", dir + "/trip.svg"])
        XCTAssertEqual(ogr.status, 0, ogr.stderr)
    }

    /// A ride east across ±180° (Taveuni, Fiji): drawn the short way, finish right of the start,
    /// the map as tall as the ride, its cells behind it. The map used to span the longitudes
    /// from -180 to 180: the ride a flat line round the world, going west.
    func testATripAcrossTheAntimeridianIsDrawnTheShortWay() throws {
        let dir = ExportSupport.tempDir()
        let fixes = (0..<40).map { i -> Fix in
            var lon = 179.996 + Double(i) * 0.0002
            if lon > 180 { lon -= 360 }
            return Fix(
                timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: -16.8 + Double(i) * 0.0001, lon: lon, mode: 3,
                altMSL: 100, eph: 5, epv: 6, speed: 7, track: 80)
        }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, fixes)]), dir: dir)
        var o = TrackPicture.Options.defaults(activity: "ride")
        o.cells =
            ExploredCells.collect(
                paths: [dir], precision: 7, prefix: nil, saveIndex: false, settleNs: 0,
                problem: { XCTFail($0) }, note: { _ in }
            ).cells
        let (svg, _) = try render(dir, o)
        func number(after needle: String, _ attr: String) -> Double? {
            guard let r = svg.range(of: needle) else { return nil }
            let rest = svg[r.upperBound...]
            guard let a = rest.range(of: attr + "=\"") else { return nil }
            return Double(rest[a.upperBound...].prefix { $0 != "\"" })
        }
        let startX = number(after: "class=\"start\"", "cx") ?? -1, finishX = number(after: "class=\"finish\"", "x") ?? -1
        XCTAssertLessThan(startX, finishX, "the ride went east: the finish is right of the start")
        let ys = polylines(svg).flatMap(\.points).compactMap { Double($0.split(separator: ",").last ?? "") }
        XCTAssertGreaterThan((ys.max() ?? 0) - (ys.min() ?? 0), 100, "the map is as tall as the ride")
        let cellXs = svg.components(separatedBy: "<rect x=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        XCTAssertFalse(cellXs.isEmpty, "the cells on both sides of ±180° are drawn")
        XCTAssertTrue(cellXs.allSatisfy { $0 > -50 && $0 < 1050 }, "\(cellXs)")
        let r = try ExportSupport.run("/usr/bin/env", ["xmllint", "--noout", dir + "/trip.svg"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// A ride due east along a road: the map is thinner than one 150 m cell. The cells used to
    /// be drawn whole, over the summary line above and into the profile below, and the start's
    /// label (left of the mark, at the left edge) and the finish's (right of it) were cut off.
    func testARideAlongAParallelKeepsCellsAndLabelsInThePicture() throws {
        let dir = ExportSupport.tempDir()
        let fixes = (0..<400).map { i in
            Fix(
                timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47.0, lon: 8.0 + Double(i) * 0.0001, mode: 3,
                altMSL: 400, eph: 5, epv: 6, speed: 7.6, track: 90)
        }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, fixes)]), dir: dir)
        var o = TrackPicture.Options.defaults(activity: "ride")
        o.cells =
            ExploredCells.collect(
                paths: [dir], precision: 7, prefix: nil, saveIndex: false, settleNs: 0,
                problem: { XCTFail($0) }, note: { _ in }
            ).cells
        let (svg, _) = try render(dir, o)
        func attr(_ tag: Substring, _ name: String) -> Double? {
            guard let a = tag.range(of: " " + name + "=\"") else { return nil }
            return Double(tag[a.upperBound...].prefix { $0 != "\"" })
        }
        let profileTop = attr(svg.components(separatedBy: "<g class=\"profile\"><rect").last![...], "y") ?? 0
        let group = svg.components(separatedBy: "<g fill=\"#dfe7ef\"").last!.components(separatedBy: "</g>")[0]
        let cells = group.components(separatedBy: "<rect x=\"").dropFirst()
        XCTAssertGreaterThan(cells.count, 10)
        for c in cells {
            let tag = Substring(" x=\"" + c.prefix { $0 != ">" })
            let y = attr(tag, "y") ?? -1, h = attr(tag, "height") ?? -1, x = attr(tag, "x") ?? -1, w = attr(tag, "width") ?? -1
            XCTAssertGreaterThan(y, 30, "a cell over the summary line")
            XCTAssertLessThan(y + h, profileTop, "a cell over the profile")
            XCTAssertGreaterThanOrEqual(x, 0)
            XCTAssertLessThanOrEqual(x + w, 1000)
        }
        for (label, width) in [("start", 34.0), ("finish", 42.0)] {
            guard let r = svg.range(of: ">\(label)</text>") else { XCTFail("no \(label) label"); continue }
            let tag = svg[..<r.lowerBound].components(separatedBy: "<text").last![...]
            let x = attr(tag, "x") ?? -1
            let (from, to) = tag.contains("text-anchor=\"end\"") ? (x - width, x) : (x, x + width)
            XCTAssertGreaterThanOrEqual(from, 0, "\(label) is cut off on the left")
            XCTAssertLessThanOrEqual(to, 1000, "\(label) is cut off on the right")
        }
    }

    func testTripWithoutPointsIsAnError() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [], close: false), dir: dir)
        XCTAssertThrowsError(try render(dir)) { e in
            XCTAssertTrue("\(e)".contains("no points") && "\(e)".contains("00000001.cairn"), "\(e)")
        }
    }

    func testFuel() {
        let f = FuelRate(litresPer100Km: 6.5, pricePerLitre: 1.8)
        XCTAssertEqual(f.litres(distanceM: 200_000), 13, accuracy: 1e-9)
        XCTAssertEqual(f.cost(distanceM: 200_000)!, 23.4, accuracy: 1e-9)
        XCTAssertTrue(FuelRate.applies(to: "drive"))
        XCTAssertFalse(FuelRate.applies(to: "ride"))
    }
}

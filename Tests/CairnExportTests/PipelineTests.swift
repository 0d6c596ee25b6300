import CairnCore
import Foundation
import XCTest

@testable import CairnExport

/// `convert --smooth` / `--fill-gaps` on the export side: the pipeline's stages in order, and how
/// each format flags smoothed and made-up points.
final class PipelineTests: XCTestCase {
    static let plane = LocalPlane(lat: 47.3769, lon: 8.5417)

    static func fix(_ t: Int, _ e: Double, _ n: Double, speed: Double = 6, course: Double = 90) -> Fix {
        let g = plane.global(east: e, north: n)
        return Fix(
            timeMs: 1_748_764_800_000 + Int64(t) * 1000, lat: g.lat, lon: g.lon, mode: 3, altMSL: 420,
            eph: 19, epv: 30, speed: speed, track: course)
    }

    /// A segment east at 6 m/s with a 20 s dropout, a pause, and a second short segment.
    static var events: [TripEvent] {
        var e: [TripEvent] = [.segment(.start)]
        for t in 0..<30 { e.append(.point(fix(t, 6 * Double(t), 0))) }
        for t in 50..<80 { e.append(.point(fix(t, 6 * Double(t), 0))) }
        e.append(.segment(.pause))
        for t in 400..<410 { e.append(.point(fix(t, 6 * Double(t), 100))) }
        return e
    }

    func run(smooth: Bool, fill: Bool) -> [TrackItem] {
        let p = TrackPipeline(smooth: smooth, fillGaps: fill, activity: "ride")
        var out: [TrackItem] = []
        for e in Self.events { p.push(e) { out.append($0) } }
        p.finish { out.append($0) }
        return out
    }

    func testTheStagesRunInOrderAndKeepTheSegments() {
        let plain = run(smooth: false, fill: false)
        XCTAssertEqual(plain.count, Self.events.count)
        XCTAssertTrue(plain.allSatisfy { if case .point(_, let o) = $0 { return o == .measured } else { return true } })

        let both = run(smooth: true, fill: true)
        var origins: [PointOrigin: Int] = [:]
        var segments: [SegmentReason] = []
        var lastTime: Int64 = .min
        for item in both {
            switch item {
            case .segment(let r): segments.append(r)
            case .point(let f, let o):
                origins[o, default: 0] += 1
                XCTAssertGreaterThan(f.timeMs, lastTime)
                lastTime = f.timeMs
            }
        }
        XCTAssertEqual(segments, [.start, .pause])
        XCTAssertEqual(origins[.smoothed], 70)
        XCTAssertEqual(origins[.interpolated], 20, "the dropout (29 s to 50 s) gets a point a second; nothing across the pause")
        XCTAssertNil(origins[.measured])
    }

    /// With the trip's raw fixes, a long step the rules only thinned (too_close fixes every
    /// second between its points) is no dropout: nothing is filled there, smoothed or not; a real
    /// dropout (no fix, or only fixes dropped as bad) is filled as without them.
    func testThinnedStepsAreNotFilledWhenTheRawFixesSaySo() {
        let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)
        func judged(_ t: Int, _ v: Verdict) -> TripEvent {
            .raw(RawFix(fix: Self.fix(t, 6 * Double(t), 0), arrivalMs: 0, verdict: v, settings: settings))
        }
        var events: [TripEvent] = [.segment(.start)]
        var raw: [TripEvent] = []
        // Points at 0, 15 (thinned between), 30, 50 (a 20 s dropout: spikes only), 51..60.
        for t in [0, 15, 30, 50] + Array(51...60) {
            events.append(.point(Self.fix(t, 6 * Double(t), 0)))
        }
        for t in 0...60 {
            if [0, 15, 30, 50].contains(t) || t > 50 {
                raw.append(judged(t, .kept))
            } else if t < 30 {
                raw.append(judged(t, .dropped(.tooClose)))
            } else if t % 5 == 0 {
                raw.append(judged(t, .dropped(.spike)))
            }
        }
        for smooth in [false, true] {
            for usesRaw in [false, true] {
                let p = TrackPipeline(smooth: smooth, fillGaps: true, activity: "ride", usesRaw: usesRaw)
                var out: [TrackItem] = []
                // The raw fixes after the points, as a sync writes them.
                for e in events + raw { p.push(e) { out.append($0) } }
                p.finish { out.append($0) }
                let made = out.compactMap { i -> Int64? in
                    if case .point(let f, .interpolated) = i { return (f.timeMs - Self.fix(0, 0, 0).timeMs) / 1000 } else { return nil }
                }
                let kept = out.filter { if case .point(_, let o) = $0 { return o != .interpolated } else { return false } }.count
                XCTAssertEqual(kept, 14, "smooth \(smooth), raw \(usesRaw): every point once")
                if usesRaw {
                    XCTAssertEqual(made, Array(31...49), "smooth \(smooth): only the dropout")
                } else {
                    XCTAssertEqual(made, Array(1...14) + Array(16...29) + Array(31...49), "smooth \(smooth): every long step")
                }
            }
        }
    }

    /// A dropout at the edge of a privacy zone (its start point left out, its end the first point
    /// kept): its made-up points lie before the kept stretch and none is written, so it is not
    /// filled, and the counts (the stderr line, GeoJSON's figures) say what the export holds.
    /// Was: "filled 1 gap with 20 interpolated points" for a file without any.
    func testADropoutIntoAPrivacyZoneIsNotCounted() {
        var w = PrivacyWindow(zones: [PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 200)])
        for case .point(let f) in Self.events { w.see(f) }
        XCTAssertEqual(w.leftOut, 30)
        for smooth in [false, true] {
            let p = TrackPipeline(smooth: smooth, fillGaps: true, activity: "ride", window: w)
            var written: [PointOrigin] = []
            var stages = ExportStages(window: w, laps: .none)
            func put(_ i: TrackItem) { stages.feed(i, segment: { _ in }, point: { _, x in written.append(x.origin) }) }
            for e in Self.events { p.push(e, emit: put) }
            p.finish(emit: put)
            XCTAssertEqual(written.count, 40, "smooth \(smooth)")
            XCTAssertEqual(p.filled?.points, written.filter { $0 == .interpolated }.count, "smooth \(smooth)")
            XCTAssertEqual(p.filled?.gaps, 0, "smooth \(smooth)")
        }
    }

    func render(_ writer: (OutputSink) -> TrackExporter, summary: TripSummary? = nil, path: String = ExportSupport.tempDir() + "/out") throws
        -> String
    {
        let sink = try OutputSink(creating: path, force: false)
        let w = writer(sink)
        w.begin()
        try w.beginTrip(TripHeading(id: 1, activity: "ride", summary: summary))
        for item in run(smooth: true, fill: true) {
            switch item {
            case .segment(let r): w.beginSegment(r)
            case .point(let f, let o): w.point(f, PointExtras(f, origin: o))
            }
        }
        XCTAssertNoThrow(try w.endTrip())
        XCTAssertNoThrow(try w.end())
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func testGPXSaysWhereEachPointComesFrom() throws {
        let gpx = try render { GPXWriter(sink: $0, creator: "cairn test") }
        XCTAssertEqual(gpx.components(separatedBy: "<src>cairn smoothed</src>").count - 1, 70)
        XCTAssertEqual(gpx.components(separatedBy: "<src>cairn interpolated</src>").count - 1, 20)
        XCTAssertEqual(gpx.components(separatedBy: "<cairn:interpolated>1</cairn:interpolated>").count - 1, 20)
        // GPX's sequence: ele, time, src, fix.
        XCTAssertTrue(gpx.contains("Z</time><src>cairn interpolated</src><fix>3d</fix>"), gpx)
    }

    func testCSVHasAnOriginColumnOnlyWhenAsked() throws {
        let csv = try render { CSVWriter(sink: $0, origins: true) }
        let rows = csv.split(separator: "\n")
        XCTAssertEqual(String(rows[0]) + "\n", CSVWriter.header(laps: false, origins: true))
        XCTAssertEqual(rows.filter { $0.hasSuffix(",interpolated") }.count, 20)
        XCTAssertEqual(rows.filter { $0.hasSuffix(",smoothed") }.count, 70)
        let plain = try render { CSVWriter(sink: $0) }
        XCTAssertTrue(plain.hasPrefix(CSVWriter.header))
        XCTAssertFalse(plain.contains("interpolated"))
    }

    /// The trip's figures as `convert` gives them to a format that puts them first.
    func summary() -> TripSummary {
        var s = TripSummary(id: 1, files: [])
        var st = TripStats()
        for item in run(smooth: true, fill: true) {
            switch item {
            case .segment(let r): st.startSegment(r)
            case .point(let f, _): st.add(f)
            }
        }
        s.stats = st
        s.smoothed = true
        s.filledGaps = 1
        s.interpolatedPoints = 20
        return s
    }

    func testEveryFormatWithFlaggedPointsPassesItsReaders() throws {
        let dir = ExportSupport.tempDir()
        for (name, format, make) in [
            ("a.gpx", "gpx", { GPXWriter(sink: $0, creator: "cairn test") as TrackExporter }),
            ("a.csv", "csv", { CSVWriter(sink: $0, origins: true) }),
            ("a.geojson", "geojson", { GeoJSONWriter(sink: $0) }),
            ("b.geojson", "geojson", { GeoJSONWriter(sink: $0, colouring: .auto) }),
            ("b.kml", "kml", { KMLWriter(sink: $0, creator: "cairn test", colouring: .auto) })
        ] as [(String, String, (OutputSink) -> TrackExporter)] {
            _ = try render(make, summary: summary(), path: dir + "/" + name)
            let r = try ExportSupport.check(format, dir + "/" + name)
            if format == "gpx" { XCTAssertEqual(r["interpolated"] as? Int, 20) }
            if format == "csv" { XCTAssertEqual((r["origins"] as? [String: Int])?["interpolated"], 20) }
            if name == "a.geojson" { XCTAssertEqual(r["interpolated"] as? Int, 20) }
        }
    }

    func testGeoJSONListsTheMadeUpPointsAndTheFiguresSaySo() throws {
        let s = summary()
        let text = try render({ GeoJSONWriter(sink: $0) }, summary: s)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        let props = ((json["features"] as! [[String: Any]])[0]["properties"] as! [String: Any])
        XCTAssertEqual(props["smoothed"] as? Bool, true)
        XCTAssertEqual(props["filled_gaps"] as? Int, 1)
        XCTAssertEqual(props["interpolated_points"] as? Int, 20)
        let flags = (props["coordinateProperties"] as! [String: Any])["interpolated"] as! [[Bool]]
        XCTAssertEqual(flags.map(\.count), [80, 10])
        XCTAssertEqual(flags[0].filter { $0 }.count, 20)
        XCTAssertEqual(flags[0][30], true)
        XCTAssertEqual(flags[0][29], false)
        XCTAssertTrue(TripFigures.line(s).contains("smoothed, 1 gap filled with 20 interpolated points"), TripFigures.line(s))
        // The recorded track's figures name none of it.
        XCTAssertFalse(TripFigures.json(TripSummary(id: 1, files: [])).contains { $0.0 == "smoothed" || $0.0 == "filled_gaps" })
    }
}

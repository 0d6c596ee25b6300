import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Issue 27, finding 12: text and numbers a crafted log or a smoother can put into the XML
/// writers, `--laps` as Sources/CairnExport/Writers/UPLOADS.md promises it, and `info --why` in time order.
final class HostileTextTests: XCTestCase {
    /// Parses a file with Python's expat (what most XML readers are built on); nil when it reads.
    func xmlError(_ path: String) throws -> String? {
        let script = "import sys, xml.dom.minidom\ntry:\n    xml.dom.minidom.parse(sys.argv[1])\nexcept Exception as e:\n    print(e)\n"
        let r = try ExportSupport.run("/usr/bin/env", ["python3", "-c", script, path])
        let out = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return out.isEmpty ? nil : out
    }

    func testNoncharactersInTheActivityLeaveGPXKMLAndSVGReadable() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let activity = "ri\u{FFFE}de\u{FFFF}\u{1}"
        try ExportSupport.writeLog(TripSpec(activity: activity, segments: [(.start, ExportSupport.ride(60))]), dir: dir)
        let trip = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })[0]
        for format in ["gpx", "kml"] {
            let path = dir + "/t." + format
            let sink = try OutputSink(creating: path, force: true)
            let w: TrackExporter =
                format == "gpx"
                ? GPXWriter(sink: sink, creator: "cairn \u{FFFF}test") : KMLWriter(sink: sink, creator: "cairn \u{FFFE}", colouring: .none)
            w.begin()
            let s = try TripCatalog.read(trip)
            try w.beginTrip(TripHeading(id: trip.id, activity: activity, summary: s))
            _ = try TripCatalog.read(trip) { e in
                switch e {
                case .segment(let r): w.beginSegment(r)
                case .point(let f): w.point(f, .none)
                case .raw: break
                }
            }
            XCTAssertNoThrow(try w.endTrip())
            XCTAssertNoThrow(try w.end())
            XCTAssertNil(try xmlError(path), format)
            XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("ri\u{FFFD}de\u{FFFD}"), format)
        }
        let svg = dir + "/t.svg"
        let sink = try OutputSink(creating: svg, force: true)
        _ = try TrackPicture.render(trip, options: .defaults(activity: activity), to: sink)
        XCTAssertNoThrow(try sink.finish())
        XCTAssertNil(try xmlError(svg), "svg")
    }

    func testLongitudesAreInGPXsRangeAfterRounding() throws {
        XCTAssertEqual(TextFormat.longitude(179.99999996, decimals: 7), 179.99999996 - 360)
        XCTAssertEqual(TextFormat.longitude(180, decimals: 7), -180)
        XCTAssertEqual(TextFormat.longitude(-180, decimals: 7), -180)
        XCTAssertEqual(TextFormat.longitude(179.9999999, decimals: 7), 179.9999999)
        XCTAssertEqual(TextFormat.longitude(181, decimals: 7), -179)
        XCTAssertEqual(TextFormat.longitude(-181, decimals: 7), 179)
        XCTAssertEqual(TextFormat.latitude(90.0000001), 90)
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/t.gpx"
        let w = GPXWriter(sink: try OutputSink(creating: path, force: true), creator: "cairn test")
        w.begin()
        w.beginTrip(TripHeading(id: 1, activity: "ride"))
        w.beginSegment(.start)
        // What `--smooth` can give near the antimeridian: rounds to 180 at 7 decimals.
        for (i, lon) in [179.99999996, 180.0, 180.00000001, -179.9999].enumerated() {
            w.point(Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 10, lon: lon, mode: 3), .none)
        }
        w.endTrip()
        XCTAssertNoThrow(try w.end())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(text.contains("lon=\"180"), text)
        XCTAssertEqual(text.components(separatedBy: "lon=\"-180\"").count - 1, 2, text)
        try ExportSupport.check("gpx", path)
    }

    func testLapsTakeAnyDistanceFromAHundredthToAThousandOfEitherUnit() {
        XCTAssertEqual(LapRule.parse("1000mi"), .distance(1000 * 1609.344))
        XCTAssertEqual(LapRule.parse("1000km"), .distance(1_000_000))
        XCTAssertEqual(LapRule.parse("0.01mi"), .distance(0.01 * 1609.344))
        XCTAssertEqual(LapRule.parse("0.01km"), .distance(10))
        XCTAssertNil(LapRule.parse("1000.1km"))
        XCTAssertNil(LapRule.parse("1000.01mi"))
        XCTAssertNil(LapRule.parse("0.009km"))
        XCTAssertNil(LapRule.parse("0mi"))
    }

    /// A trip closed at a standstill whose last raw fixes (the standing before the close) were
    /// framed after its end record, as a crafted or an older log has them: `info --why` tells
    /// the end after them, in time order.
    func testTheTripsEndComesAfterTheStandingFixesBeforeIt() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ride = ExportSupport.ride(30)
        let settings = RawSettings(clockIsFix: false, closeAfterMs: 300_000)
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0001))
        try w.append(.tripStart(activity: "ride", software: "cairn tests", utcOffsetS: nil))
        try w.append(.segmentStart(.start, timeMs: ride[0].timeMs))
        try w.append(.points(ride))
        func raws(_ fixes: [Fix], _ verdict: Verdict) throws {
            let enc = RawBatchEncoder(activity: "ride")
            for chunk in stride(from: 0, to: fixes.count, by: 100) {
                for f in fixes[chunk..<min(chunk + 100, fixes.count)] {
                    enc.add(RawFix(fix: f, arrivalMs: f.timeMs + 200, verdict: verdict, settings: settings))
                }
                var body: [UInt8] = []
                enc.finish(leftOutBefore: 0, into: &body)
                try w.append(.rawFixes(RawBatch(encoded: body, activity: "ride")))
            }
        }
        try raws(ride, .kept)
        var standing: [Fix] = []
        for k in 1...300 {
            var f = ride.last!
            f.timeMs += Int64(k) * 1000
            f.speed = 0
            standing.append(f)
        }
        var stats = TripStats()
        for f in ride { stats.add(f) }
        try w.append(
            .tripEnd(
                TripEnd(
                    reason: .standstill, points: UInt64(stats.points), distanceM: stats.distanceM,
                    movingTimeMs: stats.movingTimeMs, firstTimeMs: stats.firstTimeMs, lastTimeMs: stats.lastTimeMs)))
        try raws(standing, .dropped(.standing))
        _ = try w.sync()
        w.close()
        let trip = RefilterTests.trips(dir)[0]
        var events: [TimelineEvent] = []
        try TripTimeline.read(trip) { events.append($0) }
        XCTAssertEqual(
            events.suffix(2),
            [
                .dropped(.standing, count: 300, fromMs: standing[0].timeMs, toMs: standing[299].timeMs, beforeStart: false),
                .ended(.standstill, atMs: ride.last!.timeMs)
            ])
    }
}

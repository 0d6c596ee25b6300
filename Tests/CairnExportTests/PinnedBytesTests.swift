import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Every writer's bytes on a fixed ride, pinned: a change to how a writer is built or laid out
/// (the FIT message schemas, the format table) must leave the files as they were. The ride has
/// two trips (three segments with a pause and a gap; a walk), barometer values, laps by pause and
/// a recorded UTC offset, so every FIT message and field is written.
final class PinnedBytesTests: XCTestCase {
    var dir = ""
    var out = ""

    override func setUpWithError() throws {
        dir = ExportSupport.tempDir()
        out = ExportSupport.tempDir()
        let a = ExportSupport.ride(300)
        let b = ExportSupport.ride(200, seed: 2, startMs: a.last!.timeMs + 180_000, lat: a.last!.lat, lon: a.last!.lon)
        let c = ExportSupport.ride(40, seed: 3, startMs: b.last!.timeMs + 60_000, lat: b.last!.lat, lon: b.last!.lon)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, a), (.pause, b), (.gap, c)], utcOffsetS: 7200), dir: dir, number: 1)
        let walk = ExportSupport.ride(50, seed: 4, startMs: 1_750_000_000_000, lat: -16.8, lon: 179.9998)
        try ExportSupport.writeLog(TripSpec(id: 2, activity: "walk", segments: [(.start, walk)]), dir: dir, number: 2)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: out)
    }

    /// FNV-1a, 64 bits: enough to tell two files apart, and the same on every platform.
    func fingerprint(_ path: String) -> String {
        let bytes = FileManager.default.contents(atPath: path) ?? Data()
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return "\(bytes.count):" + String(h, radix: 16)
    }

    /// The barometer's values on every third second, and a lap number that follows the segments.
    func extras(_ f: Fix) -> PointExtras {
        var e = f.timeMs % 3000 == 0 ? PointExtras(pressurePa: 96_512.4, temperatureC: 17.6) : .none
        e.lap = f.timeMs < 1_748_764_800_000 + 400_000 ? 1 : 2
        return e
    }

    func testFITBytesArePinned() throws {
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.9.1", laps: .pause)
        try ExportSupport.export(dir, w, extras: extras)
        XCTAssertEqual(w.written.count, 2)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(files.map { fingerprint(out + "/" + $0) }, ["18391:3c77c2d925e68888", "2258:4680c08daac6c7f4"])
    }

    func testFITBytesWithAGivenZoneArePinned() throws {
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.9.1", utcOffsetS: -19_800, laps: .distance(1000))
        try ExportSupport.export(dir, w)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(files.map { fingerprint(out + "/" + $0) }, ["17347:c03f007e1abf511c", "2100:96064255aac081dd"])
    }

    func testTextFormatBytesArePinned() throws {
        var got: [String] = []
        for (name, make) in [
            ("gpx", { (s: OutputSink) -> TrackExporter in GPXWriter(sink: s, creator: "cairn 0.9.1") }),
            ("geojson", { GeoJSONWriter(sink: $0, laps: true) }),
            ("kml", { KMLWriter(sink: $0, creator: "cairn 0.9.1") }),
            ("csv", { CSVWriter(sink: $0, laps: true) })
        ] {
            let path = out + "/all." + name
            let sink = try OutputSink(creating: path, force: false)
            try ExportSupport.export(dir, make(sink), extras: extras)
            got.append(name + " " + fingerprint(path))
            if name == "csv" {
                // The board column (issue 31) is the only change since the pin before it: without
                // it, the bytes of before.
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let without = text.split(separator: "\n").map { row -> String in
                    var cells = row.split(separator: ",", omittingEmptySubsequences: false)
                    XCTAssertTrue(cells[11] == "board" || cells[11].isEmpty, String(row))
                    cells.remove(at: 11)
                    return cells.joined(separator: ",") + "\n"
                }.joined()
                try without.write(toFile: path + ".before", atomically: true, encoding: .utf8)
                XCTAssertEqual(fingerprint(path + ".before"), "45194:bc1ad125f6a64ea4")
            }
        }
        XCTAssertEqual(
            got,
            [
                "gpx 194133:8d1615ea08a87c01", "geojson 37953:32c4a8a05c523b70", "kml 61818:67ad1d2333d4959f",
                "csv 45790:ac0d58fd445a4658"
            ])
    }
}

extension PinnedBytesTests {
    /// The pinned trips' timer events and session agree (attack on round 24: the pinned walk's
    /// start-to-stop spans summed to 538 s against a total_timer_time of 525.7 s).
    func testThePinnedTripsTimerSpansAreTheirTimer() throws {
        let w = FITWriter(target: .directory(out), force: false, softwareVersion: "0.9.1", laps: .pause)
        try ExportSupport.export(dir, w, extras: extras)
        for path in w.written {
            let seen = try ExportSupport.check("fit", path)
            let session = try XCTUnwrap(seen["session_figures"] as? [String: Any])
            let timer = try XCTUnwrap(session["total_timer_time"] as? Double)
            XCTAssertEqual(try XCTUnwrap(seen["timer_running_s"] as? Double), timer, accuracy: 1, path)
            XCTAssertEqual(try XCTUnwrap(seen["fitdecode_timer_running_s"] as? Double), timer, accuracy: 1, path)
        }
    }
}

import XCTest
import Foundation

/// Generated rides with a known truth (Tests/tools/make-ride.py) through a real gpsd as NMEA:
/// the rules judged end to end, with gpsd's own error model (eph = HDOP × 19 m) in between.
final class GeneratedRideEndToEndTests: XCTestCase {
    struct Truth: Decodable {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        var distance_m: Double  // make-ride.py's key
        var start: Double
        var stops: [[Int]]
        var track: [[Double]]
    }

    struct Point { var t: Double; var lat: Double; var lon: Double }

    func make(_ minutes: Double, _ args: [String]) throws -> (String, Truth) {
        let dir = Harness.tempDir()
        let log = dir + "/ride.nmea", truth = dir + "/truth.json"
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path,
                String(minutes / 60), log, "--truth", truth
            ] + args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return (log, try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: truth))))
    }

    func points(_ dir: String) throws -> [Point] {
        let out = Harness.tempDir() + "/x.gpx"
        XCTAssertEqual(try Harness.cairn("convert", dir, "--to", "gpx", "-o", out).status, 0)
        let gpx = try String(contentsOfFile: out, encoding: .utf8)
        let iso = ISO8601DateFormatter()
        return gpx.components(separatedBy: "<trkpt ").dropFirst().map { s in
            func attr(_ name: String) -> Double {
                let part = s.components(separatedBy: "\(name)=\"")[1]
                return Double(part.prefix(while: { $0 != "\"" }))!
            }
            let time = s.components(separatedBy: "<time>")[1].prefix(while: { $0 != "<" })
            return Point(t: iso.date(from: String(time))!.timeIntervalSince1970, lat: attr("lat"), lon: attr("lon"))
        }
    }

    /// Metres from `p` to the truth track within 30 s of its time.
    func offTrack(_ p: Point, _ truth: Truth) -> Double {
        let i = Int(p.t - truth.start)
        let k = 111_195.0 * cos(truth.track[0][0] * .pi / 180)
        var best = Double.infinity
        for j in max(0, i - 30)..<min(truth.track.count - 1, i + 30) {
            let a = truth.track[j], b = truth.track[j + 1]
            let ax = 0.0, ay = 0.0
            let bx = (b[1] - a[1]) * k, by = (b[0] - a[0]) * 111_195.0
            let px = (p.lon - a[1]) * k, py = (p.lat - a[0]) * 111_195.0
            let len2 = bx * bx + by * by
            let u = len2 > 0 ? min(1, max(0, (px * bx + py * by) / len2)) : 0
            best = min(best, ((ax + u * bx - px) * (ax + u * bx - px) + (ay + u * by - py) * (ay + u * by - py)).squareRoot())
        }
        return best
    }

    func testRideWithLightsAndACafeStop() throws {
        // 15 minutes: two stops at lights (inside the segment), a 5-minute café stop (a pause).
        let (log, truth) = try make(15, ["--seed", "3", "--stop", "200:40", "--stop", "420:300", "--stop", "800:45"])
        let r = try Harness.record(log)
        XCTAssertEqual(r.status, 0, r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1)
        guard let t = trips.first else { return }
        let d = t["distance_m"] as! Double
        XCTAssertEqual(d, truth.distance_m, accuracy: truth.distance_m * 0.01, "distance within 1 % of the truth")
        XCTAssertEqual(t["segments"] as? Int, 2, "the café stop is a pause: a new segment")
        let pts = try points(r.dir)
        let cafe = pts.filter { $0.t > truth.start + 422 && $0.t < truth.start + 718 }
        XCTAssertLessThanOrEqual(cafe.count, 1, "a 5-minute stop leaves no scribble")
        XCTAssertEqual(pts.filter { offTrack($0, truth) > 30 }.count, 0)
        let moving = t["moving_time_s"] as! Double
        XCTAssertEqual(moving, 15 * 60 - 385, accuracy: 20, "moving time leaves out the stops")
    }

    func testSpikesThroughGpsdAreDropped() throws {
        let (log, truth) = try make(10, ["--seed", "5", "--spikes", "0.03"])
        let r = try Harness.record(log)
        XCTAssertEqual(r.status, 0, r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1)
        let pts = try points(r.dir)
        XCTAssertEqual(pts.filter { offTrack($0, truth) > 30 }.count, 0, "no spike survives")
        let d = trips.first?["distance_m"] as? Double ?? 0
        XCTAssertEqual(d, truth.distance_m, accuracy: truth.distance_m * 0.01)
        let dropped = trips.first?["dropped"] as? [String: Int] ?? [:]
        XCTAssertGreaterThan((dropped["spike"] ?? 0) + (dropped["jump"] ?? 0), 5, "\(dropped)")
    }
}

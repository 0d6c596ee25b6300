import XCTest
import Foundation

/// Real recordings from other people's receivers and devices (Tests/Fixtures/real, see its
/// SOURCES.md), replayed through a private gpsd into `cairn record`, judged against the devices'
/// own figures. None of them was written for cairn.
final class RealRecordingEndToEndTests: XCTestCase {
    static func real(_ name: String) -> String { Harness.repoRoot.appendingPathComponent("Tests/Fixtures/real/\(name)").path }
    static func truth(_ name: String) -> String { Harness.repoRoot.appendingPathComponent("Tests/Fixtures/truth/\(name)").path }

    /// A truth file's path length (m, on cairn's mean Earth) and its fastest 3-second chord (m/s).
    func truthPath(_ name: String) throws -> (length: Double, top3s: Double) {
        let text = try String(contentsOfFile: Self.truth(name), encoding: .utf8)
        var rows: [(t: Double, lat: Double, lon: Double)] = []
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",").compactMap { Double($0) }
            if f.count >= 3 { rows.append((f[0], f[1], f[2])) }
        }
        func d(_ a: (t: Double, lat: Double, lon: Double), _ b: (t: Double, lat: Double, lon: Double)) -> Double {
            let r = 6_371_008.8, k = Double.pi / 180
            let x = (b.lon - a.lon) * k * cos((a.lat + b.lat) / 2 * k), y = (b.lat - a.lat) * k
            return r * (x * x + y * y).squareRoot()
        }
        var length = 0.0, top = 0.0
        for i in 1..<rows.count { length += d(rows[i - 1], rows[i]) }
        for i in 3..<rows.count where rows[i].t > rows[i - 3].t { top = max(top, d(rows[i - 3], rows[i]) / (rows[i].t - rows[i - 3].t)) }
        return (length, top)
    }

    func recordOneTrip(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> (trip: [String: Any], dir: String) {
        let rec = try Harness.record(Self.real(name), file: file, line: line)
        XCTAssertEqual(rec.status, 0, rec.stderr, file: file, line: line)
        let trips = try Harness.trips(rec.dir, file: file, line: line)
        XCTAssertEqual(trips.count, 1, "\(trips) / \(rec.stderr)", file: file, line: line)
        return (trips.first ?? [:], rec.dir)
    }

    /// gpxpy's 2-D length of the exported GPX (what GPX readers measure: inside segments only),
    /// brought to cairn's Earth: gpxpy measures on a sphere of the equatorial radius (6378.137 km),
    /// cairn on the mean one (6371.0088 km), which alone makes gpxpy read 0.11 % longer.
    func gpxpyLength(_ dir: String) throws -> Double {
        let gpx = Harness.tempDir() + "/t.gpx"
        let c = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", gpx])
        XCTAssertEqual(c.status, 0, c.stderr)
        let py = try Harness.run("/usr/bin/env", ["python3", "-c", "import gpxpy,sys; print(gpxpy.parse(open(sys.argv[1])).length_2d())", gpx])
        XCTAssertEqual(py.status, 0, py.stderr)
        return (Double(py.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1) * 6_371_008.8 / 6_378_137
    }

    /// A Garmin Edge 810 road ride (78 min): its own totals are 41.38 km from its positions and
    /// 514 m of (barometric) ascent. Heights at VDOP 1.2 must be trusted: GPS-only climb.
    func testEdge810RideDistanceClimbOneSegment() throws {
        let (t, dir) = try recordOneTrip("edge810.nmea")
        let d = t["distance_m"] as? Double ?? 0
        XCTAssertEqual(d, 41_380, accuracy: 41_380 * 0.01, "distance within 1 % of the device's")
        let ascent = try XCTUnwrap(t["ascent_m"] as? Double, "a climb from GPS heights alone: \(t)")
        XCTAssertEqual(ascent, 514, accuracy: 514 * 0.15, "ascent within 15 % of the device's barometric 514 m")
        XCTAssertEqual(t["segments"] as? Int, 1)
        let moving = t["moving_time_s"] as? Double ?? 0, maxSpeed = t["max_speed_mps"] as? Double ?? 0
        XCTAssertLessThanOrEqual(d / moving, maxSpeed, "average moving speed never above the maximum")
        XCTAssertEqual(try gpxpyLength(dir), d, accuracy: d * 0.001, "GPX readers measure what cairn does")
    }

    /// A Pixel 4 in a car (29 min, 40.1 km, mostly freeway, about 2 minutes standing) beside a
    /// survey-grade GNSS/INS reference: distance within 0.5 % of the reference's path, one trip
    /// in one segment, and a top speed within 5 % of the reference's fastest 3 seconds.
    func testPixel4DriveAgainstTheSPANTruth() throws {
        let (truthM, truthTop) = try truthPath("gsdc-mtv-0514-pixel4.truth-1hz.csv")
        for activity in ["drive", "ride"] {
            let rec = try Harness.record(Self.truth("gsdc-mtv-0514-pixel4.nmea"), extra: ["--activity", activity])
            XCTAssertEqual(rec.status, 0, rec.stderr)
            let trips = try Harness.trips(rec.dir)
            XCTAssertEqual(trips.count, 1, "\(activity): \(trips)")
            let t = trips.first ?? [:]
            let d = t["distance_m"] as? Double ?? 0
            XCTAssertEqual(d, truthM, accuracy: truthM * 0.005, "\(activity): distance against the SPAN's \(truthM) m")
            XCTAssertEqual(t["segments"] as? Int, 1, "\(activity)")
            let top = t["max_speed_mps"] as? Double ?? 0
            XCTAssertEqual(top, truthTop, accuracy: truthTop * 0.05, "\(activity): top speed against the SPAN's \(truthTop) m/s")
        }
    }

    /// A tablet standing on a surveyed point under forest canopy for 5 minutes, its doppler
    /// saying up to 2 m/s and its positions wandering 10-30 m: no trip (or, at most, no distance
    /// worth the name), whatever the activity.
    func testTabletStandingUnderTreesRecordsNoTrip() throws {
        for activity in ["ride", "walk"] {
            let rec = try Harness.record(Self.truth("forest-s11-galaxytaba.nmea"), extra: ["--activity", activity])
            XCTAssertEqual(rec.status, 0, rec.stderr)
            let trips = try Harness.trips(rec.dir)
            let metres = trips.reduce(0.0) { $0 + ($1["distance_m"] as? Double ?? 0) }
            XCTAssertLessThanOrEqual(metres, 5, "\(activity): it stood on the point the whole time: \(trips)")
        }
    }

    /// A car dashcam's receiver in city traffic (6 min, VDOP 1.39-1.45, GGA/GSA/RMC/VTG/GSV).
    func testDashcamDriveHasAClimbAndOneSegment() throws {
        let (t, dir) = try recordOneTrip("dashcam-spb.nmea")
        XCTAssertNotNil(t["ascent_m"] as? Double, "heights at VDOP 1.4 are trusted: \(t)")
        XCTAssertEqual(t["segments"] as? Int, 1)
        let d = t["distance_m"] as? Double ?? 0
        XCTAssertEqual(d, 2_340, accuracy: 2_340 * 0.02, "within 2 % of the raw track")
        XCTAssertEqual(try gpxpyLength(dir), d, accuracy: d * 0.001)
    }

    /// A phone logging one fix every 12 s while walking (9.4 min, 0.61 km raw).
    func testSparsePhoneWalkIsATrip() throws {
        for activity in ["ride", "walk"] {
            let rec = try Harness.record(Self.real("pixel6-walk.nmea"), extra: ["--activity", activity])
            let trips = try Harness.trips(rec.dir)
            XCTAssertEqual(trips.count, 1, "\(activity): \(rec.stderr)")
            let d = trips.first?["distance_m"] as? Double ?? 0
            XCTAssertEqual(d, 610, accuracy: 610 * 0.2, "\(activity): within 20 % of its raw length")
        }
    }

    /// The dashcam again with the speed taken out of RMC and VTG dropped: gpsd then computes a
    /// speed from positions, which is no doppler (no max speed from one position's jitter).
    func testSpeedGpsdDerivedFromPositionsIsNotTrusted() throws {
        var out: [String] = []
        let text = try String(contentsOfFile: Self.real("dashcam-spb.nmea"), encoding: .utf8)
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = String(raw).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.hasPrefix("$GPVTG") { continue }
            if line.hasPrefix("$GPRMC"), let star = line.firstIndex(of: "*") {
                var f = line[line.index(after: line.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                f[7] = ""; f[8] = ""
                let body = f.joined(separator: ",")
                let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
                line = "$" + body + "*" + String(format: "%02X", sum)
            }
            out.append(line)
        }
        let path = Harness.tempDir() + "/nospeed.nmea"
        try (out.joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        let rec = try Harness.record(path)
        let t = try XCTUnwrap(try Harness.trips(rec.dir).first)
        XCTAssertEqual(t["distance_m"] as? Double ?? 0, 2_340, accuracy: 2_340 * 0.02)
        XCTAssertLessThan(t["max_speed_mps"] as? Double ?? 99, 13.5, "the car never went faster than 12 m/s: \(t)")
        XCTAssertEqual(t["segments"] as? Int, 1)
    }

    /// The Pixel 4 drive as a receiver without doppler sends it (RMC without speed or course, no
    /// VTG: gpsd derives speeds from the positions), with a position excursion injected on the
    /// freeway at 89 km/h (issue 39): the positions run ahead along the road at 166 km/h for 6 s
    /// and come back at 34 km/h over 8 s. That is no top speed: it stays within 5 % of the SPAN's
    /// fastest 3 seconds, for a drive and for a ride, and `info` says the same as `list`.
    func testAPositionExcursionOfAGGAOnlyDriveIsNoTopSpeed() throws {
        let (_, truthTop) = try truthPath("gsdc-mtv-0514-pixel4.truth-1hz.csv")
        let text = try String(contentsOfFile: Self.truth("gsdc-mtv-0514-pixel4.nmea"), encoding: .utf8)
        func degrees(_ v: String, _ hemi: String, _ wide: Int) -> Double {
            let d = Double(v.prefix(wide)) ?? 0, m = Double(v.dropFirst(wide)) ?? 0
            return (d + m / 60) * (hemi == "S" || hemi == "W" ? -1 : 1)
        }
        func nmea(_ deg: Double, _ wide: Int) -> String {
            let a = abs(deg), d = Int(a)
            return String(format: "%0\(wide)d%09.6f", d, (a - Double(d)) * 60)
        }
        var epochs: [[String]] = []
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = String(raw).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let star = line.firstIndex(of: "*") else { continue }
            let f = line[line.index(after: line.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if f[0].hasSuffix("GGA") { epochs.append(f) } else if f[0].hasSuffix("RMC"), !epochs.isEmpty { epochs[epochs.count - 1] += ["|"] + f }
        }
        // Epoch 183 is on the freeway at 89 km/h; the road's direction from the fixes around the excursion.
        let start = 183, length = 14
        let ll = epochs.map { (lat: degrees($0[2], $0[3], 2), lon: degrees($0[4], $0[5], 3)) }
        let a = ll[start - 1], b = ll[start + length + 1]
        let k = cos(a.lat * .pi / 180)
        let e = (b.lon - a.lon) * k, n = b.lat - a.lat, norm = (e * e + n * n).squareRoot()
        var out: [String] = []
        for (i, f) in epochs.enumerated() {
            let j = i - start
            let ahead = j < 0 || j >= length ? 0 : j < 6 ? 21.7 * Double(j + 1) : max(0, 130.2 - 15.6 * Double(j - 5))
            let lat = ll[i].lat + ahead / 111_195 * n / norm, lon = ll[i].lon + ahead / 111_195 * e / norm / k
            let split = f.firstIndex(of: "|") ?? f.count
            var gga = Array(f[..<split]), rmc = split < f.count ? Array(f[(split + 1)...]) : []
            gga[2] = nmea(lat, 2); gga[4] = nmea(lon, 3)
            if !rmc.isEmpty { rmc[3] = nmea(lat, 2); rmc[5] = nmea(lon, 3); rmc[7] = ""; rmc[8] = "" }
            for body in [gga, rmc] where !body.isEmpty {
                let joined = body.joined(separator: ",")
                out.append("$" + joined + "*" + String(format: "%02X", joined.utf8.reduce(UInt8(0)) { $0 ^ $1 }))
            }
        }
        let path = Harness.tempDir() + "/excursion.nmea"
        try (out.joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        for activity in ["drive", "ride"] {
            let rec = try Harness.record(path, extra: ["--activity", activity])
            XCTAssertEqual(rec.status, 0, rec.stderr)
            let t = try XCTUnwrap(try Harness.trips(rec.dir).first)
            let top = t["max_speed_mps"] as? Double ?? 0
            XCTAssertEqual(top, truthTop, accuracy: truthTop * 0.05, "\(activity): no 130 km/h from an excursion: \(t)")
            let info = try Harness.cairn("info", rec.dir, "--json")
            XCTAssertTrue(info.stdout.contains("\"max_speed_mps\": \(String(format: "%.2f", top))"), "\(activity): \(info.stdout)")
            // FIT's session and laps (1 km laps: one holds the excursion) say no more.
            let fit = Harness.tempDir() + "/t.fit"
            XCTAssertEqual(try Harness.cairn("convert", rec.dir, "--to", "fit", "--laps", "1km", "-o", fit).status, 0)
            let script = """
                import fitdecode, sys
                for f in fitdecode.FitReader(sys.argv[1]):
                    if isinstance(f, fitdecode.FitDataMessage) and f.name in ('session', 'lap'): print(f.get_value('enhanced_max_speed'))
                """
            let py = try Harness.run("/usr/bin/env", ["python3", "-c", script, fit])
            let fitTops = py.stdout.split(separator: "\n").compactMap { Double($0) }
            XCTAssertGreaterThan(fitTops.count, 30, py.stderr)
            XCTAssertLessThanOrEqual(fitTops.max() ?? 99, top + 0.01, "\(activity): FIT's laps and session")
        }
    }

    /// `convert --smooth --fill-gaps` on each real recording, to every format: every file passes
    /// its readers, every recorded point comes out once (smoothed), and smoothing changes the
    /// length by under 1 % (these receivers smooth their own output: little noise to take off).
    func testEveryRealRecordingSmoothsAndFillsInEveryFormat() throws {
        for (name, activity) in [("edge810.nmea", "ride"), ("dashcam-spb.nmea", "drive"), ("pixel6-walk.nmea", "walk")] {
            let rec = try Harness.record(Self.real(name), extra: ["--activity", activity])
            XCTAssertEqual(rec.status, 0, rec.stderr)
            let trips = try Harness.trips(rec.dir)
            let points = trips.reduce(0) { $0 + ($1["points"] as? Int ?? 0) }
            let recorded = trips.reduce(0.0) { $0 + ($1["distance_m"] as? Double ?? 0) }
            let out = Harness.tempDir()
            for format in ["gpx", "csv", "geojson", "kml", "fit"] {
                let path = out + "/" + (format == "fit" ? "fit" : "t." + format)
                let r = try Harness.run(Harness.cairn, ["convert", rec.dir, "--to", format, "--smooth", "--fill-gaps", "-o", path])
                XCTAssertEqual(r.status, 0, "\(name) \(format): \(r.stderr)")
                XCTAssertFalse(r.stderr.contains("no raw fixes"), r.stderr)
                let files = format == "fit" ? try FileManager.default.contentsOfDirectory(atPath: path).map { path + "/" + $0 } : [path]
                for f in files {
                    var args = ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-export.py").path, format, f]
                    if format == "gpx" { args += ["--gpx-schema", Harness.gpxSchema] }
                    let c = try Harness.run("/usr/bin/env", args)
                    XCTAssertEqual(c.status, 0, "\(name) \(format) rejected: \(c.stderr)")
                    if format == "gpx", let j = try JSONSerialization.jsonObject(with: Data(c.stdout.utf8)) as? [String: Any] {
                        XCTAssertEqual((j["src"] as? [String: Int])?["cairn smoothed"], points, "\(name): every point smoothed, once")
                    }
                }
                if format == "geojson" {
                    let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
                    let props = ((j?["features"] as? [[String: Any]]) ?? []).compactMap { $0["properties"] as? [String: Any] }
                    let smoothed = props.reduce(0.0) { $0 + ($1["distance_m"] as? Double ?? 0) }
                    XCTAssertEqual(smoothed, recorded, accuracy: recorded * 0.01, "\(name): smoothed and filled length against the recorded")
                }
            }
        }
    }
}

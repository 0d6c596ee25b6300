import XCTest
import Foundation

/// The real binary against a private gpsd replaying real receiver logs (gpsd's regression suite).
final class RecordEndToEndTests: XCTestCase {
    /// Converts the recorded trips to GPX and checks it against the official schema and the list.
    func checkGPX(_ dir: String, trips: [[String: Any]], file: StaticString = #filePath, line: UInt = #line) throws {
        let out = Harness.tempDir() + "/ride.gpx"
        let c = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(c.status, 0, c.stderr, file: file, line: line)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: Harness.gpxSchema),
            "GPX schema missing: run Tests/tools/install-deps.sh", file: file, line: line)
        let v = try Harness.run("/usr/bin/xmllint", ["--noout", "--schema", Harness.gpxSchema, out])
        XCTAssertEqual(v.status, 0, "xmllint: \(v.stderr)", file: file, line: line)
        let gpx = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertEqual(Harness.count("<trk>", in: gpx), trips.count, file: file, line: line)
        XCTAssertEqual(Harness.count("<trkpt ", in: gpx), trips.reduce(0) { $0 + ($1["points"] as! Int) }, file: file, line: line)
        XCTAssertEqual(Harness.count("<trkseg>", in: gpx), trips.reduce(0) { $0 + ($1["segments"] as! Int) }, file: file, line: line)
        // Writing over an existing file needs --force.
        let again = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(again.status, 1, file: file, line: line)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr, file: file, line: line)
    }

    /// The times of every point in the GPX of `dir`, one array per trip (`<trk>`).
    func gpxTimes(_ dir: String) throws -> [[Double]] {
        let out = Harness.tempDir() + "/x.gpx"
        let c = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out)
        if try Harness.trips(dir).isEmpty {
            // No trip, no document: exit 1 and nothing written.
            XCTAssertEqual(c.status, 1, c.stderr)
            XCTAssertTrue(c.stderr.contains("nothing written"), c.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            return []
        }
        XCTAssertEqual(c.status, 0, c.stderr)
        guard c.status == 0 else { return [] }
        let gpx = try String(contentsOfFile: out, encoding: .utf8)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return gpx.components(separatedBy: "<trk>").dropFirst().map { trk in
            trk.components(separatedBy: "<trkpt").dropFirst().compactMap { pt -> Double? in
                guard let r = pt.range(of: "<time>") else { return nil }
                var text = String(pt[r.upperBound...].prefix(while: { $0 != "<" }))
                if !text.contains(".") { text = text.replacingOccurrences(of: "Z", with: ".000Z") }
                return iso.date(from: text)!.timeIntervalSince1970
            }
        }
    }

    /// What every recording must satisfy: times only increase within a trip, one point per time,
    /// and every point is one of the fixes gpsd reported that pass the basic gates (nothing
    /// invented).
    func checkInvariants(_ log: String, _ dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let trips = try gpxTimes(dir)
        for trip in trips {
            XCTAssertEqual(trip, trip.sorted(), "\(log): times must increase within a trip", file: file, line: line)
        }
        let times = trips.flatMap { $0 }
        XCTAssertEqual(Set(times).count, times.count, "\(log): one point per time", file: file, line: line)
        let usable = Set(try Oracle.keptPoints(log).map(\.t))
        XCTAssertTrue(times.allSatisfy { usable.contains($0) }, "\(log): a point that gpsd never reported as usable", file: file, line: line)
    }

    func testMovingRideIsRecordedAndConverts() throws {
        let r = try Harness.record("haicom-305N.log")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(r.stopSeconds, 5, "SIGTERM to exit must take under 5 s")
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, r.stderr)
        guard let t = trips.first else { return }
        // 67 distinct fix times; 4 have eph 401 m (HDOP 21), beyond the accuracy gate. The other
        // 63 (eph 21-143 m, i.e. 4-26 m at 68 %) are spaced by the distance filter.
        let usable = try Oracle.keptPoints("haicom-305N.log")
        XCTAssertEqual(usable.count, 63)
        let points = t["points"] as! Int
        XCTAssertGreaterThanOrEqual(points, 3)
        XCTAssertLessThanOrEqual(points, usable.count)
        XCTAssertEqual(t["status"] as? String, "closed")
        // The path through the 37 better fixes (eph up to 78 m, HDOP 4) includes their jitter;
        // through the HDOP 7.5 ones it would be mostly jitter.
        let better = try Oracle.keptPoints("haicom-305N.log", maxEph: 80)
        XCTAssertEqual(better.count, 37)
        XCTAssertEqual(
            t["distance_m"] as! Double, Oracle.distance(better), accuracy: Oracle.distance(better) * 0.25,
            "within a quarter of the path through the better fixes")
        for key in [
            "id", "file", "start", "end", "points", "segments", "distance_m", "moving_time_s", "elapsed_s",
            "ascent_m", "descent_m", "max_speed_mps", "status"
        ] {
            XCTAssertNotNil(t[key], "list --json lacks \(key)")
        }
        XCTAssertTrue((t["start"] as! String).hasSuffix("Z"))
        let dropped = t["dropped"] as? [String: Any] ?? [:]
        XCTAssertEqual(dropped["duplicate"] as? Int ?? 0 > 0, true, "gpsd sends 2 TPVs per time here")
        XCTAssertEqual(dropped["rough"] as? Int, 4, "eph over 271 m (HDOP 14.3: 50 m at 68 %)")
        let v = try Harness.cairn("verify", r.dir)
        XCTAssertEqual(v.status, 0, v.stdout + v.stderr)
        XCTAssertTrue(v.stdout.contains("clean, trip closed"), v.stdout)
        let info = try Harness.cairn("info", t["file"] as! String)
        XCTAssertEqual(info.status, 0)
        XCTAssertTrue(info.stdout.contains("distance:"), info.stdout)
        XCTAssertTrue(info.stdout.contains("rough 4"), info.stdout)
        try checkGPX(r.dir, trips: trips)
        try checkInvariants("haicom-305N.log", r.dir)
    }

    func testManyReportsPerEpochCollapse() throws {
        // Many NMEA talkers: gpsd never learns the cycle end and sends up to 19 TPVs per time.
        let r = try Harness.record("bundg_zeus_9.log")
        XCTAssertEqual(r.status, 0, r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1)
        let usable = try Oracle.keptPoints("bundg_zeus_9.log")
        XCTAssertLessThanOrEqual(trips.first?["points"] as? Int ?? 999, usable.count, "one point per distinct time at most")
        XCTAssertEqual(
            trips.first?["distance_m"] as? Double ?? 0, Oracle.distance(usable), accuracy: Oracle.distance(usable) * 0.1,
            "a 427 m walk")
        try checkGPX(r.dir, trips: trips)
        try checkInvariants("bundg_zeus_9.log", r.dir)
    }

    func testReportsWithoutTimeRecordNothing() throws {
        let r = try Harness.record("sounder.log")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Harness.trips(r.dir).count, 0)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: r.dir)) ?? []
        XCTAssertEqual(files.filter { $0.hasSuffix(".cairn") }, [], "nothing is written while there is no usable fix")
    }

    /// attack-r21 slow F8: a receiver with GGA and GSA only (no RMC, no ZDA: no date). gpsd's
    /// fixes have no time and nothing is recorded; the recorder said nothing of why and, at the
    /// stop, blamed "the card is full or failing". Through a private gpsd, replayed at 10 Hz.
    func testAReceiverWithoutADateIsToldWhyNothingIsRecorded() throws {
        let work = Harness.tempDir(), log = work + "/gga-gsa.nmea"
        func sentence(_ body: String) -> String {
            "$" + body + "*" + String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 })
        }
        var lines = ["# GGA and GSA only: a time of day, no date"]
        for i in 0..<90 {
            let t = String(format: "07%02d%02d.00", i / 60, i % 60)
            let lat = String(format: "4723.%06d", 100 * i)
            lines.append(sentence("GPGGA,\(t),\(lat),N,00832.000000,E,1,08,0.9,400.0,M,47.0,M,,"))
            lines.append(sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.5,0.9,1.2"))
        }
        try (lines.joined(separator: "\r\n") + "\r\n").write(toFile: log, atomically: true, encoding: .utf8)
        let r = try Harness.record(log, rate: 10, extra: ["--clock", "system"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Harness.trips(r.dir).count, 0)
        XCTAssertTrue(r.stderr.contains("fixes in a row without a time or date"), r.stderr)
        XCTAssertTrue(r.stderr.contains("enable RMC or ZDA"), r.stderr)
        XCTAssertTrue(r.stderr.contains("stopped; no trip was open: "), r.stderr)
        XCTAssertFalse(r.stderr.contains("card is full or failing"), r.stderr)
    }

    func testStationaryReceiversRecordNoDistance() throws {
        // A receiver on a table: jitter of a few metres, doppler near zero. Nothing to record.
        for log in ["telit-he910.log", "ublox-neo-m9n-nmea.log"] {
            let r = try Harness.record(log)
            XCTAssertEqual(r.status, 0, r.stderr)
            let trips = try Harness.trips(r.dir)
            let d = trips.reduce(0.0) { $0 + ($1["distance_m"] as? Double ?? 0) }
            XCTAssertLessThan(d, 5, "\(log): a stationary receiver records (almost) no distance")
            if log == "telit-he910.log" {
                let raw = Oracle.distance(try Oracle.keptPoints(log))
                XCTAssertGreaterThan(raw, 8, "keeping every fix would have scribbled \(raw) m")
            }
        }
    }

    /// Issue 39: a receiver without doppler (GGA, GSA and ZDA only) standing 10 minutes under a
    /// wander of σ 15 m over ~30 s, claiming HDOP 1. gpsd derives a speed from its positions
    /// (1-4 m/s of noise); it opened a trip at the first fix, 400 m-4 km of it. Now: no trip.
    func testStandingReceiverWithoutDopplerOpensNoTrip() throws {
        let nmea = Harness.tempDir() + "/standing-gga.nmea"
        try Self.standingGGA(seconds: 600, sigma: 15, tau: 30, seed: 39).write(toFile: nmea, atomically: true, encoding: .utf8)
        let r = try Harness.record(nmea)
        XCTAssertEqual(r.status, 0, r.stderr)
        let trips = try Harness.trips(r.dir)
        let d = trips.reduce(0.0) { $0 + ($1["distance_m"] as? Double ?? 0) }
        XCTAssertEqual(trips.count, 0, "a standing receiver opened \(trips.count) trip(s), \(d) m")
    }

    /// GGA + GSA + ZDA (a date, no speed) at 1 Hz from a receiver standing at 47° N 8.5° E,
    /// its positions wandering (Gauss-Markov per axis, `sigma` metres, `tau` seconds).
    static func standingGGA(seconds: Int, sigma: Double, tau: Double, seed: UInt64) -> String {
        var state = seed
        func uniform() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        func gauss() -> Double { (-2 * log(max(uniform(), 1e-300))).squareRoot() * cos(2 * .pi * uniform()) }
        func sentence(_ body: String) -> String {
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
        }
        let a = exp(-1 / tau), q = (1 - a * a).squareRoot()
        var de = gauss(), dn = gauss()
        var out = ""
        for i in 0..<seconds {
            de = a * de + q * gauss()
            dn = a * dn + q * gauss()
            let lat = 47.0 + sigma * dn / 111_320, lon = 8.5 + sigma * de / (111_320 * cos(47.0 * .pi / 180))
            let hms = String(format: "%02d%02d%02d.00", 8 + i / 3600, (i / 60) % 60, i % 60)
            let la = String(format: "%02d%09.6f", Int(lat), (lat - Double(Int(lat))) * 60)
            let lo = String(format: "%03d%09.6f", Int(lon), (lon - Double(Int(lon))) * 60)
            out += sentence("GPZDA,\(hms),07,12,2026,00,00")
            out += sentence("GPGGA,\(hms),\(la),N,\(lo),E,1,10,1.0,\(String(format: "%.1f", 420 + 1.5 * sigma * dn)),M,48.0,M,,")
            out += sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,09,10,,,1.6,1.0,1.3")
        }
        return out
    }

    func testPathologicalLogsNeverGoBackInTime() throws {
        // bt451: a receiver date bug (a jump of +83278 s, then back a day); humminbird: time
        // back 13 s and 2-D epochs; a cold boot with one usable fix; a 307 s gap at a standstill.
        for log in ["bt451.log", "humminbird-M37.log", "gp-320fw-2019-04-07-coldboot.log", "ublox-lea-4h.log"] {
            let r = try Harness.record(log)
            XCTAssertEqual(r.status, 0, r.stderr)
            let trips = try Harness.trips(r.dir)
            if !trips.isEmpty { try checkGPX(r.dir, trips: trips) }
            try checkInvariants(log, r.dir)
        }
        // One fix in a whole cold boot confirms nothing: no trip.
        let cold = try Harness.record("gp-320fw-2019-04-07-coldboot.log")
        XCTAssertEqual(try Harness.trips(cold.dir).count, 0)
    }

    func testGpsdRestartedMidRideIsOneTripAndOneLine() throws {
        let r = try Harness.record("haicom-305N.log", restartAt: [0.35, 0.7])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.replayOutput.contains("RESTARTED"), r.replayOutput)
        XCTAssertTrue(r.stderr.contains("connection lost"), r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, "a gpsd restart must not split the trip")
        XCTAssertEqual(trips.first?["segments"] as? Int, 1, "a dropout while riding keeps the line")
        try checkGPX(r.dir, trips: trips)
    }

    func testKilledRecorderTripIsResumedByTheNextRun() throws {
        // The first half of a ride, then power is cut (SIGKILL: no trip end); the recorder comes
        // back and the rider moves on: one trip in two files, nothing lost that was synced.
        let text = try String(contentsOfFile: Harness.fixture("haicom-305N.log"), encoding: .isoLatin1)
        let lines = text.components(separatedBy: "\n")
        let tmp = Harness.tempDir()
        let half = lines.count * 7 / 10  // the first usable fixes come 37 s in
        try lines[..<half].joined(separator: "\n").write(toFile: tmp + "/a.log", atomically: true, encoding: .isoLatin1)
        try lines[half...].joined(separator: "\n").write(toFile: tmp + "/b.log", atomically: true, encoding: .isoLatin1)
        let dir = tmp + "/logs"
        let first = try Harness.record(tmp + "/a.log", dir: dir, stopSignal: SIGKILL)
        XCTAssertEqual(first.status, SIGKILL)
        let cut = try Harness.trips(dir)
        XCTAssertEqual(cut.first?["status"] as? String, "open", "no trip end after a power cut")
        let second = try Harness.record(tmp + "/b.log", dir: dir)
        XCTAssertEqual(second.status, 0, second.stderr)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1, "the interrupted trip continues")
        XCTAssertEqual((trips.first?["files"] as? [String])?.count, 2)
        XCTAssertEqual(trips.first?["status"] as? String, "recovered")
        XCTAssertGreaterThan(trips.first?["points"] as? Int ?? 0, cut.first?["points"] as? Int ?? 0)
        XCTAssertEqual(try Harness.cairn("verify", dir).status, 0)
        try checkGPX(dir, trips: trips)
    }

    func testSecondRunStartsANewFileAndNeverOverwrites() throws {
        // Two recorder runs into one directory; the second continues, never overwrites.
        let dir = Harness.tempDir() + "/logs"
        // A privacy zone far away: the recorder makes the board's key only with a zone configured.
        let conf = Harness.tempDir() + "/cairn.conf"
        try "privacy-zone = -45.0,170.0,200\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let first = try Harness.record("haicom-305N.log", dir: dir, extra: ["--config", conf])
        XCTAssertEqual(first.status, 0)
        let before = try Harness.trips(dir)
        let second = try Harness.record("bundg_zeus_9.log", dir: dir, extra: ["--config", conf])
        XCTAssertEqual(second.status, 0)
        let after = try Harness.trips(dir)
        XCTAssertEqual(after.count, 2, "a closed trip is not resumed: a new trip starts")
        XCTAssertEqual(after.first?["points"] as? Int, before.first?["points"] as? Int, "the first trip is untouched")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(files, [".cairn.lock", "00000001.cairn", "00000002.cairn", "privacy-key"], "the log files, the recorder's lock and the key")
        // The board's privacy key: made by the first run (said), kept by the second (issue 38:
        // only the recorder makes it, in its own log directory). Without a zone, none.
        XCTAssertTrue(first.stderr.contains("made a new privacy key \(dir)/privacy-key"), first.stderr)
        XCTAssertFalse(second.stderr.contains("made a new privacy key"), second.stderr)
        let attrs = try FileManager.default.attributesOfItem(atPath: dir + "/privacy-key")
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attrs[.size] as? NSNumber)?.intValue, 16)
        let plain = Harness.tempDir() + "/logs"
        XCTAssertEqual(try Harness.record("haicom-305N.log", dir: plain).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain + "/privacy-key"))
    }
}

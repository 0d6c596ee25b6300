import XCTest
import Foundation

/// `cairn record --baro PATH` with a fake IIO device (the real file names and formats) whose
/// pressure this test changes while a ride is replayed through gpsd in real time.
final class BarometerEndToEndTests: XCTestCase {
    /// Writes a pressure profile into the fake device as time passes, on its own thread.
    final class PressureScript: @unchecked Sendable {
        let dir: String
        let profile: (Double) -> Double  // seconds since start → metres above the start
        private let lock = NSLock()
        private var running = true
        private var hiddenFrom: Double = .infinity, hiddenTo: Double = .infinity

        init(dir: String, profile: @escaping (Double) -> Double) {
            self.dir = dir
            self.profile = profile
        }

        /// The device disappears (unbound) between these seconds.
        func hide(from: Double, to: Double) { lock.lock(); hiddenFrom = from; hiddenTo = to; lock.unlock() }
        func stop() { lock.lock(); running = false; lock.unlock() }

        func start() {
            let t0 = Date()
            Thread.detachNewThread { [self] in
                var hidden = false
                while true {
                    lock.lock(); let go = running, hf = hiddenFrom, ht = hiddenTo; lock.unlock()
                    guard go else { break }
                    let t = Date().timeIntervalSince(t0)
                    let hide = t >= hf && t < ht
                    if hide != hidden {
                        hidden = hide
                        _ = hide ? rename(dir, dir + ".unbound") : rename(dir + ".unbound", dir)
                    }
                    if !hidden {
                        // ISA: 95 kPa at the start, in kPa with nine decimals as bmp280 prints it.
                        let a0 = 44_330.77 * (1 - pow(95.0 / 101.325, 1 / 5.25588))
                        let kPa = 101.325 * pow(1 - (a0 + self.profile(t)) / 44_330.77, 5.25588)
                        let text = String(format: "%.9f\n", kPa)
                        try? text.write(toFile: dir + "/in_pressure_input.tmp", atomically: false, encoding: .utf8)
                        rename(dir + "/in_pressure_input.tmp", dir + "/in_pressure_input")
                    }
                    usleep(50_000)
                }
                if hidden { rename(dir + ".unbound", dir) }
            }
        }
    }

    /// Reports read as they come (`--sync 1` reads every second): the barometer is read once a
    /// second.
    func testRecordedAscentFollowsTheBarometer() throws {
        try recordAscent(stretch: 1, extra: [])
    }

    /// The default batches (`--sync 5`, reports read every 5 s): the barometer is read with
    /// each batch, and each fix gets the pressure between the readings around it. The air's
    /// hills are twice as long, so that a 5 s reading sees each level stretch.
    func testRecordedAscentWithReadingsEveryFiveSeconds() throws {
        try recordAscent(stretch: 2, extra: ["--sync", "5"])
    }

    /// A 13-minute ride replayed at 20 epochs a second (40 s) × `stretch`; meanwhile the air
    /// says: level for 4 s, up 40 m over 12 s, level 6 s, down 15 m over 8 s, level again, all
    /// × `stretch` (the filter's 2.5 s average sees real seconds, so the test's hills are
    /// minutes long in ride time). The device vanishes for 1.5 s × `stretch`² on the last level
    /// stretch: longer than one reading apart.
    private func recordAscent(stretch k: Double, extra: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        // The device: sysfs layout, bmp280 formats.
        let root = Harness.tempDir()
        let dev = root + "/iio:device0"
        try FileManager.default.createDirectory(atPath: dev, withIntermediateDirectories: true)
        try "bmp280\n".write(toFile: dev + "/name", atomically: true, encoding: .utf8)
        try "95.000000000\n".write(toFile: dev + "/in_pressure_input", atomically: true, encoding: .utf8)
        try "23450\n".write(toFile: dev + "/in_temp_input", atomically: true, encoding: .utf8)

        let profile: (Double) -> Double = { t in
            switch t / k {
            case ..<4: return 0
            case ..<16: return 40 * (t / k - 4) / 12
            case ..<22: return 40
            case ..<30: return 40 - 15 * (t / k - 22) / 8
            default: return 25
            }
        }
        // The ride's GPS heights follow hills of their own, not the air's: at VDOP 4 they are not
        // trusted, so the altimeter's slow pull towards trusted GPS heights (which takes out the
        // weather on a real ride) does not bend the air's profile here.
        let ride = Harness.tempDir() + "/ride.nmea"
        let r0 = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path,
                "0.22", ride, "--seed", "7", "--vdop", "4"
            ])
        XCTAssertEqual(r0.status, 0, r0.stderr, file: file, line: line)
        let script = PressureScript(dir: dev, profile: profile)
        script.hide(from: 32 * k, to: 32 * k + 1.5 * k * k)
        script.start()
        defer { script.stop() }
        let r = try Harness.record(ride, rate: 60 / k, extra: ["--baro", dev] + extra)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, file: file, line: line)
        guard let t = trips.first else { return }
        let ascent = t["ascent_m"] as? Double ?? -1, descent = t["descent_m"] as? Double ?? -1
        if ProcessInfo.processInfo.environment["BARO_DEBUG"] != nil {
            print(r.stderr)
            print(try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "csv"]).stdout)
        }
        XCTAssertEqual(ascent, 40, accuracy: 2, "ascent from the barometer: \(r.stderr)", file: file, line: line)
        XCTAssertEqual(descent, 15, accuracy: 2, file: file, line: line)
        // The vanishing sensor is reported once, and its return once; the ride goes on.
        XCTAssertEqual(Harness.count("climb from GPS heights until it answers again", in: r.stderr), 1, r.stderr, file: file, line: line)
        XCTAssertEqual(Harness.count("answers again; climb from the barometer", in: r.stderr), 1, r.stderr, file: file, line: line)
        // The pressure is in the log, and in the exports.
        let csv = try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "csv"])
        XCTAssertEqual(csv.status, 0, csv.stderr, file: file, line: line)
        let rows = csv.stdout.split(separator: "\n").dropFirst()
        XCTAssertGreaterThan(
            rows.filter { $0.split(separator: ",", omittingEmptySubsequences: false)[7].hasPrefix("9") }.count, 10,
            "hPa values in the pressure column", file: file, line: line)
        // Uploads keep the barometer's climb: Strava's "with barometer" creator, FIT's barometer device.
        let out = Harness.tempDir()
        let gpx = try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "gpx", "-o", out + "/t.gpx"])
        XCTAssertEqual(gpx.status, 0, gpx.stderr, file: file, line: line)
        let g = try Harness.checkExport("gpx", out + "/t.gpx", file: file, line: line)
        XCTAssertTrue((g["creator"] as? String ?? "").hasSuffix(" with barometer"), "\(g["creator"] ?? "")", file: file, line: line)
        XCTAssertEqual(g["gpxpy_creator"] as? String, g["creator"] as? String, file: file, line: line)
        let fit = try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "fit", "-o", out + "/t.fit"])
        XCTAssertEqual(fit.status, 0, fit.stderr, file: file, line: line)
        let f = try Harness.checkExport("fit", out + "/t.fit", file: file, line: line)
        let devices = f["device_infos"] as? [[String: Any]] ?? []
        XCTAssertEqual(devices.last?["local_device_type"] as? String, "barometer", "\(devices)", file: file, line: line)
        XCTAssertEqual(f["manufacturer"] as? String, "development", file: file, line: line)
        // The session's climb is the one `list` and `info` say (over every fix kept or thinned
        // out), in whole metres, and its laps add up to it.
        let session = f["session_figures"] as? [String: Any] ?? [:]
        XCTAssertEqual(Double(session["total_ascent"] as? Int ?? -9), ascent, accuracy: 0.55, "\(session)", file: file, line: line)
        XCTAssertEqual(Double(session["total_descent"] as? Int ?? -9), descent, accuracy: 0.55, file: file, line: line)
        XCTAssertEqual((f["lap_sums"] as? [String: Any])?["total_ascent"] as? Int, session["total_ascent"] as? Int, file: file, line: line)
        // The sensor's temperature (in_temp_input, 23450 m°C) is in the log and in every export.
        let withPressure = rows.filter { !$0.split(separator: ",", omittingEmptySubsequences: false)[7].isEmpty }.count
        let toCSV = try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "csv", "-o", out + "/t.csv"])
        XCTAssertEqual(toCSV.status, 0, toCSV.stderr, file: file, line: line)
        let c = try Harness.checkExport("csv", out + "/t.csv", file: file, line: line)
        XCTAssertEqual(c["with_temp"] as? Int, withPressure, "a temperature wherever there is a pressure", file: file, line: line)
        let range = c["temp_range"] as? [Double] ?? []
        XCTAssertEqual(range.first ?? 0, 23.45, accuracy: 0.051, file: file, line: line)
        XCTAssertEqual(range.last ?? 0, 23.45, accuracy: 0.051, file: file, line: line)
        XCTAssertEqual(g["with_atemp"] as? Int, withPressure, "TrackPointExtension v1 atemp", file: file, line: line)
        XCTAssertEqual(g["gpsbabel_temperatures"] as? Int, withPressure, "gpsbabel reads atemp", file: file, line: line)
        XCTAssertEqual(g["last_atemp"] as? Double ?? 0, 23.45, accuracy: 0.051, file: file, line: line)
        XCTAssertEqual(f["records_with_temperature"] as? Int, withPressure, file: file, line: line)
        XCTAssertEqual((f["last_record"] as? [String: Any])?["temperature"] as? Int, 23, file: file, line: line)
        let geo = try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "geojson", "-o", out + "/t.geojson"])
        XCTAssertEqual(geo.status, 0, geo.stderr, file: file, line: line)
        let j = try Harness.checkExport("geojson", out + "/t.geojson", file: file, line: line)
        XCTAssertEqual(j["with_temperature"] as? Int, withPressure, file: file, line: line)
    }

    func testNoBarometerAndBadPaths() throws {
        // auto with an empty sysfs: climb from GPS, said once.
        let empty = Harness.tempDir()
        let r = try Harness.record("haicom-305N.log", extra: ["--baro", "auto", "--sysfs-root", empty])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Harness.count("barometer: none found", in: r.stderr), 1, r.stderr)
        // --check says what record would do with a path that is no pressure sensor: a warning.
        let check = try Harness.cairn("record", "--check", "--baro", empty)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(
            check.stderr.contains("warning: --baro") && check.stderr.contains(empty)
                && check.stderr.contains("not an IIO pressure sensor"), check.stderr)
        let conf = Harness.tempDir() + "/cairn.conf"
        try "baro = \(empty)/gone\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let fromFile = try Harness.cairn("record", "--check", "--config", conf)
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertTrue(fromFile.stderr.contains("warning: --baro (\(conf):1)"), fromFile.stderr)
    }

    /// A configured barometer that is missing at start-up does not stop the recorder (a restart
    /// loop would record nothing): reported once, and taken when it appears.
    func testMissingNamedBarometerIsReportedOnceAndTakenWhenItAppears() throws {
        let root = Harness.tempDir()
        let device = root + "/iio:device0"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Harness.cairn)
        p.arguments = ["record", "--gpsd", "127.0.0.1:1", "--dir", root + "/logs", "--baro", device, "--sync", "1"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        let lines = Harness.Lines(err.fileHandleForReading)
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        XCTAssertNotNil(lines.wait(prefix: "cairn: barometer: \(device)", timeout: 10), lines.text)
        XCTAssertNotNil(lines.wait(prefix: "cairn: cannot connect to gpsd", timeout: 10), lines.text)
        XCTAssertFalse(Harness.waitUntil(timeout: 1) { !p.isRunning }, "a missing barometer must not stop the recorder: \(lines.text)")
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "bmp280\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try "95.000000000\n".write(toFile: device + "/in_pressure_input", atomically: true, encoding: .utf8)
        XCTAssertNotNil(lines.wait(prefix: "cairn: barometer: using bmp280 at \(device)", timeout: 12), lines.text)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, lines.text)
        XCTAssertEqual(Harness.count("recording without it", in: lines.text), 1, "reported once: \(lines.text)")
    }
}

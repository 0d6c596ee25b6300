import Foundation
import XCTest

/// Faults at the edges, against the real binary: a gpsd that sends malformed or absurd data, a
/// gpsd killed and restarted 20 times, a full card, a read-only card, hostile files.
/// Uses Tests/tools/fake-gpsd.py (gpsd's JSON protocol on 127.0.0.1; starts in ~0.1 s).
final class FaultEndToEndTests: XCTestCase {
    static let fake = Harness.repoRoot.appendingPathComponent("Tests/tools/fake-gpsd.py").path

    /// A running fake gpsd.
    final class FakeGpsd {
        let process = Process()
        let lines: Harness.Lines
        let port: Int
        init(_ args: [String], port: Int = 0) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", FaultEndToEndTests.fake, "--port", String(port)] + args
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            lines = Harness.Lines(out.fileHandleForReading)
            try process.run()
            guard let ready = lines.wait(prefix: "READY", timeout: 10), let p = Int(ready.split(separator: " ")[1]) else {
                process.terminate()
                throw NSError(domain: "fake-gpsd did not start", code: 1)
            }
            self.port = p
        }
        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// A running `cairn record` with its stderr.
    final class Recorder {
        let process = Process()
        let err: Harness.Lines
        init(port: Int, dir: String, extra: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: Harness.cairn)
            process.arguments =
                [
                    "record", "--gpsd", "127.0.0.1:\(port)", "--dir", dir, "--baro", "none",
                    "--clock", "fix", "--sync", "1", "--verbose"
                ] + extra
            let e = Pipe()
            process.standardError = e
            process.standardOutput = FileHandle.nullDevice
            err = Harness.Lines(e.fileHandleForReading)
            try process.run()
        }
        /// SIGTERM; true if it exited within `timeout` seconds.
        func stop(timeout: TimeInterval = 5) -> Bool {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit(); return false }
            process.waitUntilExit()
            return true
        }
    }

    /// TPV i of fake-gpsd's ride (see ride_tpv there).
    static func rideLines(_ range: Range<Int>) throws -> [String] {
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import importlib.util, sys
                s = importlib.util.spec_from_file_location("f", "\(fake)"); f = importlib.util.module_from_spec(s); s.loader.exec_module(f)
                for i in range(\(range.lowerBound), \(range.upperBound)): print(f.ride_tpv(i))
                """
            ])
        return r.stdout.split(separator: "\n").map(String.init)
    }

    static func tpv(_ time: String, lat: String, lon: String, eph: String = "5") -> String {
        "{\"class\":\"TPV\",\"device\":\"/dev/fake\",\"mode\":3,\"time\":\"\(time)\",\"lat\":\(lat),\"lon\":\(lon),\"eph\":\(eph)}"
    }

    /// Point times (ms) of every trip in dir, via `cairn convert --to gpx`: one array per trip.
    static func gpxTimes(_ dir: String) throws -> [String] {
        let out = Harness.tempDir() + "/x.gpx"
        let r = try Harness.run(Harness.cairn, ["convert", dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(r.status, 0, "convert: \(r.stderr)")
        guard r.status == 0, let gpx = try? String(contentsOfFile: out, encoding: .utf8) else { return [] }
        return gpx.components(separatedBy: "<time>").dropFirst().map { String($0.prefix(while: { $0 != "<" })) }
    }

    // MARK: gpsd sending malformed or absurd data

    func testMalformedAndAbsurdGpsdDataIsDroppedAndRecordingGoesOn() throws {
        var lines = try Self.rideLines(0..<10)  // 08:00:00 ... 08:00:09
        lines += [
            "{\"class\":\"TPV\",\"device\":\"/dev/fake\",\"mode\":3,\"time\":\"2025-06-01T08:00:10.000Z\",\"lat\":NaN,\"lon\":8.5}",
            Self.tpv("2025-06-01T08:00:10.200Z", lat: "91.0", lon: "8.5"),  // latitude out of range
            Self.tpv("2025-06-01T08:00:10.400Z", lat: "47.0", lon: "181.0"),  // longitude out of range
            Self.tpv("2025-06-01T08:00:03.000Z", lat: "47.0", lon: "8.5"),  // time going backwards
            Self.tpv("1980-01-06T00:00:00.000Z", lat: "47.0", lon: "8.5"),  // year 1980
            Self.tpv("2025-06-01T08:00:10.600Z", lat: "47.0", lon: "8.5", eph: "1e308"),  // absurd uncertainty
            "{\"class\":\"TPV\",\"device\":\"/dev/fake\",\"mode\":3,\"time\":\"2025-06-01T08:00:10.700Z\",\"lat\":47.",
            "$GPGGA,080000.00,4700.000,N,00830.000,E,1,08,0.9,420.0,M,48.0,M,,*47",
            "\u{01}\u{02} binary junk \u{7f}",
            "",
            "{\"class\":\"FOO\",\"x\":1}",
            "{\"class\":\"SKY\",\"device\":\"/dev/fake\",\"satellites\":[{\"PRN\":1,\"used\":true}]}",
            // Lines on which Debian's libgps 3.22 parser spins forever (found by the fuzzer):
            // cairn must never hand them to libgps.
            "{\"c\"class\":\"RTCM2\":mod",
            "{\"class\":\"TPV\",ic {\"class\":\"TPV\":o3idSep\":46.803.00\u{0}cl}",
            String(repeating: "x", count: 100_000)  // a 100 kB line: dropped whole
        ]
        // 19 reports for one time (gpsd does this with many NMEA talkers): one point.
        let nineteen = try Self.rideLines(10..<11)[0]
        lines += Array(repeating: nineteen, count: 19)
        lines += try Self.rideLines(11..<20)
        let tmp = Harness.tempDir()
        try lines.joined(separator: "\n").appending("\n").write(toFile: tmp + "/lines", atomically: true, encoding: .utf8)
        // The control: the same 20 good reports alone. Bad data must change nothing.
        try (try Self.rideLines(0..<20)).joined(separator: "\n").appending("\n").write(toFile: tmp + "/good", atomically: true, encoding: .utf8)
        let control = try FakeGpsd(["--lines", tmp + "/good", "--rate", "50"])
        let crec = try Recorder(port: control.port, dir: tmp + "/control")
        XCTAssertNotNil(control.lines.wait(prefix: "DONE", timeout: 20))
        usleep(1_500_000)
        XCTAssertTrue(crec.stop())
        control.stop()
        let want = try Self.gpxTimes(tmp + "/control")
        XCTAssertGreaterThan(want.count, 5)
        let gpsd = try FakeGpsd(["--lines", tmp + "/lines", "--rate", "50"])
        defer { gpsd.stop() }
        let rec = try Recorder(port: gpsd.port, dir: tmp + "/logs")
        XCTAssertNotNil(gpsd.lines.wait(prefix: "DONE", timeout: 20))
        usleep(1_500_000)
        XCTAssertTrue(rec.process.isRunning, "the recorder must not exit on bad data: \(rec.err.text)")
        XCTAssertTrue(rec.stop(), "SIGTERM must stop the recorder within 5 s")
        XCTAssertEqual(rec.process.terminationStatus, 0, rec.err.text)
        let trips = try Harness.trips(tmp + "/logs")
        XCTAssertEqual(trips.count, 1)
        let times = try Self.gpxTimes(tmp + "/logs")
        // Only good reports' times (whole seconds of the ride), in order; the rules may thin
        // a little differently around the bad ones, so the count is compared loosely.
        XCTAssertTrue(times.allSatisfy { $0.hasPrefix("2025-06-01T08:00:") && !$0.contains(".") }, "\(times)")
        XCTAssertEqual(times, times.sorted())
        XCTAssertEqual(Set(times).count, times.count)
        XCTAssertLessThanOrEqual(abs(times.count - want.count), 2, "\(times) vs control \(want)")
        XCTAssertFalse(times.contains { $0.hasPrefix("1980") })
        XCTAssertEqual(try Harness.cairn("verify", tmp + "/logs").status, 0)
    }

    /// A gpsd-compatible server that writes its JSON with spaces (`"class": "TPV", "mode": 3`)
    /// records the same points as gpsd's compact lines.
    func testSpacedTPVLinesRecordTheSameRide() throws {
        let compact = try Self.rideLines(0..<40)
        let spaced = compact.map { $0.replacingOccurrences(of: "\":", with: "\": ").replacingOccurrences(of: ",\"", with: ", \"") }
        XCTAssertTrue(spaced[0].hasPrefix("{\"class\": \"TPV\", "), spaced[0])
        var got: [[String]] = []
        for lines in [compact, spaced] { got.append(try Self.gpxTimes(try record(lines).dir)) }
        XCTAssertGreaterThan(got[0].count, 10)
        XCTAssertEqual(got[1], got[0], "the spaced lines give the same points")
    }

    // MARK: hostile time

    /// The ride's TPVs with their times moved by `shift` seconds from line `from` on.
    static func shifted(_ lines: [String], from: Int, by shift: Int, only one: Bool = false) -> [String] {
        lines.enumerated().map { i, line in
            guard i >= from, !one || i == from, let r = line.range(of: "\"time\":\"2025-06-01T08:") else { return line }
            let mm = Int(line[r.upperBound...].prefix(2))!, ss = Int(line[line.index(r.upperBound, offsetBy: 3)...].prefix(2))!
            let t = 1_748_764_800 + mm * 60 + ss + shift
            var tm = tm(), tt = time_t(t)
            gmtime_r(&tt, &tm)
            let stamp = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)
            return line.replacingOccurrences(of: String(line[line.index(r.lowerBound, offsetBy: 8)...].prefix(19)), with: stamp)
        }
    }

    func record(_ lines: [String], extra: [String] = []) throws -> (dir: String, err: String) {
        let tmp = Harness.tempDir()
        try lines.joined(separator: "\n").appending("\n").write(toFile: tmp + "/lines", atomically: true, encoding: .utf8)
        let gpsd = try FakeGpsd(["--lines", tmp + "/lines", "--rate", "50"])
        defer { gpsd.stop() }
        let rec = try Recorder(port: gpsd.port, dir: tmp + "/logs", extra: extra)
        XCTAssertNotNil(gpsd.lines.wait(prefix: "DONE", timeout: 20))
        usleep(1_500_000)
        XCTAssertTrue(rec.stop())
        XCTAssertEqual(rec.process.terminationStatus, 0, rec.err.text)
        return (tmp + "/logs", rec.err.text)
    }

    func testOneFixTenYearsAheadLosesNothing() throws {
        let lines = Self.shifted(try Self.rideLines(0..<60), from: 20, by: 10 * 365 * 86_400, only: true)
        XCTAssertTrue(lines[20].contains("\"time\":\"2035-"), lines[20])
        let r = try record(lines)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, r.err)
        XCTAssertTrue((trips.first?["end"] as? String ?? "").hasPrefix("2025-06-01T08:00:5"), "the trip ends with the ride: \(trips)")
        XCTAssertEqual((trips.first?["dropped"] as? [String: Any])?["time_jump"] as? Int, 1, "\(trips)")
        XCTAssertGreaterThan(trips.first?["points"] as? Int ?? 0, 20)
    }

    func testReceiverTimeGoingBackAnHourStartsANewTripThatIsKept() throws {
        let lines = Self.shifted(try Self.rideLines(0..<80), from: 40, by: -3_600)
        let r = try record(lines)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 2, "\(trips) \(r.err)")
        let points = trips.map { $0["points"] as? Int ?? 0 }
        XCTAssertTrue(points.allSatisfy { $0 > 20 }, "both halves recorded and read back: \(points)")
        // Every format reads both trips: the second is not hidden behind the first's later times.
        let out = Harness.tempDir() + "/all.gpx"
        let c = try Harness.run(Harness.cairn, ["convert", r.dir, "--to", "gpx", "-o", out])
        XCTAssertEqual(c.status, 0, c.stderr)
        let gpx = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertEqual(gpx.components(separatedBy: "<trkpt").count - 1, points.reduce(0, +))
    }

    // MARK: gpsd killed and restarted 20 times

    func testGpsdKilledAndRestarted20TimesIsOneTrip() throws {
        let dir = Harness.tempDir() + "/logs"
        var gpsd = try FakeGpsd(["--ride", "--rate", "100", "--count", "30"])
        let port = gpsd.port
        let rec = try Recorder(port: port, dir: dir)
        var start = 0
        for restart in 0...20 {
            XCTAssertNotNil(gpsd.lines.wait(prefix: "DONE", timeout: 20), "restart \(restart)")
            usleep(300_000)
            gpsd.stop()
            XCTAssertTrue(rec.process.isRunning, "the recorder must survive gpsd going away (\(restart))")
            if restart == 20 { break }
            start += 30
            usleep(100_000)
            gpsd = try FakeGpsd(["--ride", "--rate", "100", "--count", "30", "--start", String(start)], port: port)
        }
        usleep(300_000)
        XCTAssertTrue(rec.stop())
        XCTAssertEqual(rec.process.terminationStatus, 0)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1, "one trip across 20 gpsd restarts: \(rec.err.text.suffix(2000))")
        // The fix rules may hold back the first fixes after each reconnect; most are kept.
        XCTAssertGreaterThan(trips.first?["points"] as? Int ?? 0, 21 * 30 / 2)
        XCTAssertEqual(trips.first?["segments"] as? Int, 1, "each outage is a dropout while riding: the line goes on")
        let times = try Self.gpxTimes(dir)
        XCTAssertEqual(times, times.sorted())
        XCTAssertEqual(Set(times).count, times.count)
        // Every outage is reported, one line each: 21 at least (the recorder can also catch a
        // fake gpsd in its last moments, connect, and lose it again: one more real outage, and
        // every "lost" follows its own "connected").
        let lost = Harness.count("connection lost", in: rec.err.text)
        XCTAssertGreaterThanOrEqual(lost, 21, rec.err.text)
        XCTAssertEqual(Harness.count("connected to gpsd", in: rec.err.text), lost, rec.err.text)
        XCTAssertEqual(try Harness.cairn("verify", dir).status, 0)
    }

    // MARK: two recorders, a hang-up

    /// One recorder per directory: a second one exits at once with 73, naming the directory and
    /// the holder's PID, and writes nothing; after kill -9 of the first, the lock file it left
    /// does not block a restart, which resumes the trip.
    func testSecondRecorderIsRefusedAndAStaleLockNeverBlocksARestart() throws {
        let dir = Harness.tempDir() + "/logs"
        let gpsd = try FakeGpsd(["--ride", "--rate", "50"])
        defer { gpsd.stop() }
        let first = try Recorder(port: gpsd.port, dir: dir)
        XCTAssertNotNil(first.err.wait(prefix: "cairn: synced", timeout: 10), first.err.text)
        let logs = { (try? FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".cairn") }.sorted()) ?? [] }
        let before = logs()
        let second = try Harness.run(Harness.cairn, ["record", "--gpsd", "127.0.0.1:\(gpsd.port)", "--dir", dir, "--baro", "none"], timeout: 10)
        XCTAssertEqual(second.status, 73, second.stderr)
        XCTAssertTrue(second.stderr.contains(dir) && second.stderr.contains("PID \(first.process.processIdentifier)"), second.stderr)
        XCTAssertTrue(first.process.isRunning)
        XCTAssertEqual(logs(), before, "the refused recorder created no file")
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/.cairn.lock"), "the lock file stays behind after kill -9")
        let third = try Recorder(port: gpsd.port, dir: dir)
        XCTAssertNotNil(third.err.wait(prefix: "cairn: synced", timeout: 10), third.err.text)
        XCTAssertTrue(third.stop())
        XCTAssertEqual(third.process.terminationStatus, 0, third.err.text)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1, "the restart resumes the trip")
        // Closed by the third recorder; "recovered" because the killed one's file has a torn tail.
        XCTAssertTrue(["closed", "recovered"].contains(trips.first?["status"] as? String ?? ""), "\(trips)")
        // The readers take the lock file for what it is: not a log.
        let v = try Harness.cairn("verify", dir)
        XCTAssertTrue(v.status == 0 || v.status == 2, v.stdout + v.stderr)
        XCTAssertFalse(v.stdout.contains(".cairn.lock") || v.stderr.contains(".cairn.lock"), v.stdout + v.stderr)
    }

    /// SIGHUP (a closed ssh session) is ignored: the recorder keeps recording and syncing, and a
    /// SIGTERM after it closes the trip with every point.
    func testHangUpIsIgnoredAndTheTripClosesWithEveryPoint() throws {
        let dir = Harness.tempDir() + "/logs"
        let gpsd = try FakeGpsd(["--ride", "--rate", "100", "--count", "600"])
        defer { gpsd.stop() }
        let rec = try Recorder(port: gpsd.port, dir: dir)
        XCTAssertNotNil(rec.err.wait(prefix: "cairn: synced", timeout: 10), rec.err.text)
        let syncsBefore = Harness.count("cairn: synced", in: rec.err.text)
        kill(rec.process.processIdentifier, SIGHUP)
        XCTAssertNotNil(gpsd.lines.wait(prefix: "DONE", timeout: 20))
        XCTAssertTrue(
            Harness.waitUntil(timeout: 10) { Harness.count("cairn: synced", in: rec.err.text) > syncsBefore },
            "it goes on syncing after SIGHUP: \(rec.err.text)")
        XCTAssertTrue(rec.process.isRunning, "SIGHUP must not stop the recorder: \(rec.err.text)")
        XCTAssertTrue(rec.stop())
        XCTAssertEqual(rec.process.terminationStatus, 0, rec.err.text)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1)
        XCTAssertEqual(trips.first?["status"] as? String, "closed")
        let times = try Self.gpxTimes(dir)
        let iso = ISO8601DateFormatter()
        let secs = times.compactMap { iso.date(from: $0).map { Int($0.timeIntervalSince1970) } }
        XCTAssertGreaterThan(secs.count, 100)
        // The ride's 600 fixes are 600 s: no hole, and the trip runs to its last seconds.
        let maxStep = zip(secs, secs.dropFirst()).map { $1 - $0 }.max() ?? 0
        XCTAssertLessThanOrEqual(maxStep, 5, "a hole in the track")
        XCTAssertGreaterThanOrEqual((secs.last ?? 0) - (secs.first ?? 0), 590, "the points after SIGHUP are all there")
    }

    // MARK: a full card, a read-only card

    /// Mounts a small tmpfs (root only); nil when mounting is not possible here.
    func mountTmpfs(_ options: String) throws -> String? {
        let mnt = Harness.tempDir()
        let r = try Harness.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", mnt])
        return r.status == 0 ? mnt : nil
    }

    func unmount(_ mnt: String) { _ = try? Harness.run("/bin/umount", [mnt]) }

    func testFullCardKeepsRecordingAndResumesWhenSpaceReturns() throws {
        guard let mnt = try mountTmpfs("size=256k") else { throw XCTSkip("cannot mount a tmpfs here (needs root)") }
        defer { unmount(mnt) }
        let dir = mnt + "/logs"
        // Fill the card but for one 4 KiB page, and one more for the recorder's lock file (its
        // PID). (A card that fills up under a running recorder meets its 64 KiB of zeros
        // written ahead first, and needs a new page only minutes later.)
        let filler = mnt + "/filler"
        _ = try Harness.run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k", "count=1000"])
        XCTAssertEqual(try Harness.run("/usr/bin/truncate", ["-s", "-8K", filler]).status, 0)
        let gpsd = try FakeGpsd(["--ride", "--rate", "100"])
        defer { gpsd.stop() }
        let rec = try Recorder(port: gpsd.port, dir: dir)
        XCTAssertNotNil(rec.err.wait(prefix: "cairn: synced", timeout: 10))
        // The zeros the writer keeps ahead of its data do not fit: it gives them up and appends.
        // tmpfs is not padded (SyncPadding): the appends fill that page (~250 B a second
        // here) before a write needs a new one and meets ENOSPC.
        XCTAssertNotNil(rec.err.wait(prefix: "cairn: log: \(dir)", timeout: 60), "the full card must be reported: \(rec.err.text)")
        XCTAssertFalse(Harness.waitUntil(timeout: 3) { !rec.process.isRunning }, "a full card must not stop the recorder")
        // Space returns.
        try FileManager.default.removeItem(atPath: filler)
        XCTAssertNotNil(rec.err.wait(prefix: "cairn: log: writing again", timeout: 10), rec.err.text)
        // Recording goes on: a sync after the card took writes again.
        XCTAssertTrue(
            Harness.waitUntil(timeout: 10) {
                rec.err.text.components(separatedBy: "cairn: log: writing again").last?.contains("cairn: synced") ?? false
            }, rec.err.text)
        XCTAssertTrue(rec.stop())
        XCTAssertEqual(rec.process.terminationStatus, 0, rec.err.text)
        XCTAssertTrue(rec.err.text.contains("ENOSPC"), rec.err.text)
        // No damaged frame anywhere (torn tails of abandoned files are allowed), one trip, and no
        // point lost: the fix times are consecutive seconds from the first to the last.
        let v = try Harness.cairn("verify", dir)
        XCTAssertTrue(v.status == 0 || v.status == 2, v.stdout + v.stderr)
        XCTAssertFalse(v.stdout.contains("DAMAGED"), v.stdout)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1, rec.err.text)
        let times = try Self.gpxTimes(dir)
        let iso = ISO8601DateFormatter()
        let secs = times.compactMap { iso.date(from: $0).map { Int($0.timeIntervalSince1970) } }
        XCTAssertEqual(secs.count, times.count)
        XCTAssertGreaterThan(secs.count, 100)
        // The ride runs at 100 fix-seconds per wall second: points lost during the seconds the
        // card was full would leave a hole of hundreds of seconds. (The rules thin a few.)
        let maxStep = zip(secs, secs.dropFirst()).map { $1 - $0 }.max() ?? 0
        XCTAssertLessThanOrEqual(maxStep, 5, "a hole in the track: points were lost while the card was full")
        XCTAssertEqual(secs, secs.sorted())
        // The outage is in the log itself.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        let notes = try String(contentsOfFile: dir + "/" + files.last!, encoding: .isoLatin1)
        XCTAssertTrue(notes.contains("ENOSPC"), "the new file's note names the failure: \(files) \(rec.err.text.suffix(1500))")
        // Nothing left behind that a reader would trip over.
        let l = try Harness.cairn("list", dir)
        XCTAssertEqual(l.status, 0, l.stderr)
    }

    /// A card with no room for the lock file (no inode left): the recorder still starts and
    /// waits for space, saying it records without the one-recorder check.
    func testNoRoomForTheLockFileStillRecords() throws {
        guard let mnt = try mountTmpfs("size=256k,nr_inodes=2") else { throw XCTSkip("cannot mount a tmpfs here (needs root)") }
        defer { unmount(mnt) }
        try FileManager.default.createDirectory(atPath: mnt + "/logs", withIntermediateDirectories: false)
        let rec = try Recorder(port: 1, dir: mnt + "/logs")
        XCTAssertNotNil(rec.err.wait(prefix: "cairn: cannot connect to gpsd", timeout: 10), rec.err.text)
        XCTAssertFalse(Harness.waitUntil(timeout: 1) { !rec.process.isRunning }, rec.err.text)
        XCTAssertTrue(
            rec.err.text.contains(".cairn.lock: cannot open the lock file") && rec.err.text.contains("recording without the check"), rec.err.text)
        XCTAssertTrue(rec.stop())
        XCTAssertEqual(rec.process.terminationStatus, 0)
    }

    /// A lock file another user left (a recorder once run by hand as root) does not keep the
    /// service's user from recording, nor from being refused while a root recorder runs.
    func testLockFileOfAnotherUserStillLocks() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to run as nobody") }
        let top = Harness.tempDir()
        let dir = top + "/logs"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(top, 0o755), 0)
        XCTAssertEqual(chmod(dir, 0o777), 0)
        // Under qemu-user the Swift runtime opens its own file, which a clone in a private
        // directory (mktemp -d) hides from nobody ("Unable to obtain Swift runtime path"): nobody
        // runs a copy where it can reach it.
        var bin = Harness.cairn
        if Harness.isEmulated {
            bin = top + "/cairn"
            try FileManager.default.copyItem(atPath: Harness.cairn, toPath: bin)
        }
        let root = try Recorder(port: 1, dir: dir)
        XCTAssertNotNil(root.err.wait(prefix: "cairn: recording to", timeout: 10), root.err.text)
        // setpriv execs the binary itself (no wrapper process to take the signals).
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        func asNobody() throws -> Harness.Result {
            try Harness.run(
                "/usr/bin/setpriv", nobody + [bin, "record", "--gpsd", "127.0.0.1:1", "--dir", dir, "--baro", "none"],
                timeout: 10)
        }
        let refused = try asNobody()
        XCTAssertEqual(refused.status, 73, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("PID \(root.process.processIdentifier)"), refused.stderr)
        XCTAssertTrue(root.stop())
        // Root's lock file stays (root's, 0644); nobody records all the same.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = nobody + [bin, "record", "--gpsd", "127.0.0.1:1", "--dir", dir, "--baro", "none"]
        let err = Pipe()
        p.standardError = err
        let lines = Harness.Lines(err.fileHandleForReading)
        try p.run()
        XCTAssertNotNil(lines.wait(prefix: "cairn: cannot connect to gpsd", timeout: 10), lines.text)
        XCTAssertFalse(Harness.waitUntil(timeout: 1) { !p.isRunning }, lines.text)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, lines.text)
    }

    func testReadOnlyCardIsAClearErrorAtStart() throws {
        guard let mnt = try mountTmpfs("size=64k,ro") else { throw XCTSkip("cannot mount a tmpfs here (needs root)") }
        defer { unmount(mnt) }
        let r = try Harness.cairn("record", "--dir", mnt, "--baro", "none", "--gpsd", "127.0.0.1:9")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains(mnt) && r.stderr.contains("not writable"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one clear line: \(r.stderr)")
    }

    // MARK: hostile files

    func testHostileFilesGiveClearMessagesAndDistinctExitCodes() throws {
        let dir = Harness.tempDir()
        // A clean log to derive the others from.
        let gpsd = try FakeGpsd(["--ride", "--rate", "200", "--count", "300"])
        let rec = try Recorder(port: gpsd.port, dir: dir + "/clean")
        XCTAssertNotNil(gpsd.lines.wait(prefix: "DONE", timeout: 20))
        usleep(1_500_000)
        XCTAssertTrue(rec.stop())
        gpsd.stop()
        let clean = try Data(contentsOf: URL(fileURLWithPath: dir + "/clean/00000001.cairn"))
        let b = [UInt8](clean)
        func file(_ name: String, _ bytes: [UInt8]) -> String {
            let p = dir + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: p, contents: Data(bytes)))
            return p
        }
        var g = SystemRandomNumberGenerator()
        var corrupted = b
        corrupted[b.count / 2] ^= 0x10
        // A frame header claiming the largest length (65,535 bytes) in front of the records.
        let bigLength = Array(b[0..<32]) + [0x11, 0x22, 0x33, 0x44, 0xFF, 0xFF, 0x03] + Array(b[32...])
        // Cut 5 bytes before the last byte that is not zero: into the last frame's header where
        // syncs are padded (a padding frame's body is zeros, and cutting zeros off and putting
        // zeros back gives the same, clean file), into the last record where they are not.
        let cut = (b.lastIndex { $0 != 0 } ?? b.count - 1) + 1 - 5
        let cases: [(String, [UInt8], Int32, String)] = [
            ("clean", b, 0, "clean"),
            // A file whose recorder lost power ends in the zeros it had written ahead: clean.
            ("zero-tail", b + [UInt8](repeating: 0, count: 65_536), 0, "65536 bytes of zeros"),
            ("truncated", Array(b[0..<cut]), 2, "torn"),
            ("truncated-then-zeros", Array(b[0..<cut]) + [UInt8](repeating: 0, count: 4096), 2, "torn"),
            ("zero-length", [], 2, "torn"),
            ("half-header", Array(b[0..<20]), 2, "torn"),
            ("corrupted", corrupted, 3, "DAMAGED"),
            ("random", (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &g) }, 1, "not a cairn log"),
            ("length-65535", bigLength, 3, "DAMAGED"),
            ("header-then-garbage", Array(b[0..<32]) + (0..<1_000_000).map { _ in UInt8.random(in: 0...255, using: &g) }, 2, "torn"),
            ("text", Array("hello, I am not a log\n".utf8), 1, "not a cairn log")
        ]
        for (name, bytes, want, words) in cases {
            let p = file(name + ".cairn", bytes)
            let v = try Harness.run(Harness.cairn, ["verify", p])
            XCTAssertEqual(v.status, want, "\(name): \(v.stdout) \(v.stderr)")
            XCTAssertTrue((v.stdout + v.stderr).contains(words), "\(name): \(v.stdout) \(v.stderr)")
            XCTAssertTrue((v.stdout + v.stderr).contains(p), "\(name): the file is named")
            for args in [["list", p, "--json"], ["info", p], ["convert", p, "--to", "gpx", "-o", "-"]] {
                let r = try Harness.run(Harness.cairn, args)
                XCTAssertTrue(r.status == 0 || r.status == 1, "\(name) \(args[0]): exit \(r.status) \(r.stderr)")
                if r.status == 1 { XCTAssertTrue(r.stderr.contains(name), "\(name) \(args[0]) names the file: \(r.stderr)") }
            }
        }
        // Memory stays bounded on the largest of them (1 MB of garbage; 200k records below): each
        // command's own peak, by GNU time (the test process's RUSAGE_CHILDREN would count every
        // child any earlier test ran, a headless Chromium among them).
        // (Not under AddressSanitizer, whose shadow memory inflates every RSS.)
        if dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") == nil {
            let largest = dir + "/header-then-garbage.cairn"
            let out = dir + "/peak-rss"
            for args in [["verify", largest], ["list", largest, "--json"], ["info", largest], ["convert", largest, "--to", "gpx", "-o", "-"]] {
                _ = try Harness.run("/usr/bin/time", ["-f", "%M", "-o", out, Harness.cairn] + args)
                let kB = Int((try String(contentsOfFile: out, encoding: .utf8)).split(separator: "\n").last.map(String.init) ?? "") ?? .max
                XCTAssertLessThan(kB, 100_000, "peak RSS of cairn \(args[0]) on 1 MB of garbage, kB")
            }
        }
    }
}

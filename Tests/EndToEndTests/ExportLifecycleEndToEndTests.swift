import Foundation
import XCTest

/// No ride lost between the card and the stick (issue 27, finding 1): a trip is exported when it
/// is over (closed, or no recorder writes its last file), never because another file exists; a
/// trip counts as exported only while its files are the ones whose copies were verified; prune
/// deletes nothing else, whatever the clock says.
final class ExportLifecycleEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func logDir() -> String { CraftedLog.directory() }

    func names(_ dir: String) -> [String] { ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted() }

    func state(_ dir: String) -> String { (try? String(contentsOfFile: dir + "/exported", encoding: .utf8)) ?? "" }

    /// Holds the directory's recorder lock and has `file` open for writing, as `cairn record`
    /// does while it records into it; released when the returned closure runs.
    func recorderHolds(_ dir: String, writing file: String) -> () -> Void {
        let lock = open(dir + "/.cairn.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        let w = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(w, 0)
        return {
            close(w)
            close(lock)
        }
    }

    func gpxPoints(_ path: String) throws -> Int {
        Harness.count("<trkpt ", in: try String(contentsOfFile: path, encoding: .utf8))
    }

    /// The ride: trip 1 recording (the recorder holds the lock and writes 00000001), a log
    /// from another board copied in as 00000002. Export took trip 1 as finished ("not the
    /// newest"), copied 31 points and marked it. Now trip 1 waits, the copied-in log goes; once the
    /// ride is over (82 points, closed) the next export copies it whole.
    func testRecordingTripIsNotExportedThoughALaterLogIsCopiedIn() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 31, closed: false), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 - 86_400_000, points: 5, closed: true), dir + "/00000002.cairn")
        let release = recorderHolds(dir, writing: dir + "/00000001.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("trip 1 (00000001.cairn): still open (the recorder (PID \(getpid())) is writing it)"), e.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000002.cairn"], e.stderr)
        XCTAssertFalse(state(dir).contains("00000001.cairn 1 "), state(dir))
        // Ride over: the recorder closed the trip and let go.
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 82, closed: true), dir + "/00000001.cairn")
        release()
        let e2 = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e2.status, 0, e2.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn", "00000002.cairn"], e2.stderr)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: stick + "/logs/00000001.cairn")),
            try Data(contentsOf: URL(fileURLWithPath: dir + "/00000001.cairn")))
        XCTAssertEqual(try gpxPoints(stick + "/gpx/20250601-080000-trip1.gpx"), 82)
    }

    /// A file from another board claiming a later part of the trip being recorded (same trip id,
    /// part 1) joined that trip as its last file: the trip is still being written, so it waits.
    func testCopiedInLaterPartDoesNotFinishTheRecordingTrip() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 31, closed: false), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 - 86_400_000, points: 5, closed: true), dir + "/00000002.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 1, part: 1, salt: 0x99, startMs: CraftedLog.june1 + 60_000, points: 5, northOffset: 60, closed: true),
            dir + "/00000003.cairn")
        let release = recorderHolds(dir, writing: dir + "/00000001.cairn")
        defer { release() }
        let stick = try Harness.offCardDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("trip 1 (00000001.cairn, 00000003.cairn): still open"), e.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000002.cairn"], e.stderr)
    }

    /// A battery pulled mid-ride: trip 1 never got its close record, and it is the newest file.
    /// With no recorder running it is over: exported (it never was, as "the newest trip"). With
    /// the next boot's recorder writing trip 3 in a new file, trip 1 is exported and trip 3 not.
    func testTripOfAPulledBatteryIsExported() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 40, closed: false), dir + "/00000001.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("exported 1 trip to"), e.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn"])
        XCTAssertEqual(try gpxPoints(stick + "/gpx/20250601-080000-trip1.gpx"), 40)

        let other = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 40, closed: false), other + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x33, startMs: CraftedLog.june1 + 86_400_000, points: 10, closed: false), other + "/00000002.cairn")
        let release = recorderHolds(other, writing: other + "/00000002.cairn")
        defer { release() }
        let stick2 = try Harness.offCardDir() + "/stick"
        let e2 = try Harness.cairn("export", "--dir", other, "--to", stick2)
        XCTAssertEqual(e2.status, 0, e2.stderr)
        XCTAssertEqual(names(stick2 + "/logs"), ["00000001.cairn"], e2.stderr)
        XCTAssertTrue(e2.stderr.contains("trip 2 (00000002.cairn): still open"), e2.stderr)
    }

    /// Export run by another user than the recorder's cannot see the recorder's open files: a trip
    /// without a close written since the recorder started waits; one last written before (the
    /// pulled battery's, from the boot before) goes.
    func testRecorderOfAnotherUserFallsBackToFileTimes() throws {
        try XCTSkipIf(Harness.isEmulated, "under qemu-user the emulator cannot run the binary as nobody")
        try XCTSkipIf(getuid() != 0 || !fm.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run export as nobody")
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 20, closed: false), dir + "/00000001.cairn")
        var old = [timeval(tv_sec: time(nil) - 3600, tv_usec: 0), timeval(tv_sec: time(nil) - 3600, tv_usec: 0)]
        XCTAssertEqual(utimes(dir + "/00000001.cairn", &old), 0)
        let two = CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 86_400_000, points: 20, closed: false)
        try CraftedLog.write(two.prefix(200), dir + "/00000002.cairn")
        let release = recorderHolds(dir, writing: dir + "/00000002.cairn")
        defer { release() }
        usleep(20_000)
        try CraftedLog.write(two, dir + "/00000002.cairn")  // written since the recorder started
        chmod(dir, 0o777)
        let stick = try Harness.offCardDir() + "/stick"
        try fm.createDirectory(atPath: stick, withIntermediateDirectories: true)
        chmod(stick, 0o777)
        let e = try Harness.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Harness.cairn, "export", "--dir", dir, "--to", stick])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("trip 2 (00000002.cairn): still open (the recorder (PID \(getpid())) may be writing it"), e.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn"], e.stderr)
    }

    /// Trip 1 exported after a power cut (part 0, no close), then resumed in a new part
    /// (00000003). Prune deleted it by the old mark, new part and all, though the stick never
    /// got the part; now it is kept until an export copies the part and rewrites the GPX.
    func testTripResumedAfterExportIsExportedAgainAndNotPrunedBefore() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 30, closed: false), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir + "/00000002.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn", "00000002.cairn"], e.stderr)
        XCTAssertEqual(try gpxPoints(stick + "/gpx/20250601-080000-trip1.gpx"), 30)
        // The next boot resumes trip 1 in a new file; a later trip makes it not the newest.
        try CraftedLog.write(
            CraftedLog.file(trip: 1, part: 1, salt: 0x13, startMs: CraftedLog.june1 + 40_000, points: 20, northOffset: 40, closed: true),
            dir + "/00000003.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 4, salt: 0x44, startMs: CraftedLog.june1 + 7_200_000, points: 5, closed: true), dir + "/00000004.cairn")
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(p.stderr.contains("retention: trip 1 (00000001.cairn) is over the limit"), p.stderr)
        XCTAssertTrue(p.stderr.contains("but changed since it was exported"), p.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn") && fm.fileExists(atPath: dir + "/00000003.cairn"), p.stderr)
        XCTAssertTrue(p.stderr.contains("retention: deleted trip 2 (00000002.cairn"), p.stderr)

        let e2 = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e2.status, 0, e2.stderr)
        XCTAssertTrue(e2.stderr.contains("exported 2 trips"), e2.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn", "00000002.cairn", "00000003.cairn", "00000004.cairn"])
        XCTAssertEqual(try gpxPoints(stick + "/gpx/20250601-080000-trip1.gpx"), 50, "the conversion is rewritten with the new part")
        let p2 = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p2.stderr.contains("retention: deleted trip 1 (00000001.cairn, 00000003.cairn;"), p2.stderr)
        XCTAssertEqual(names(dir).filter { $0.hasSuffix(".cairn") }, ["00000004.cairn"])
    }

    /// A log that changed after its export (same size, one byte different; or grown) is not the
    /// file that was copied: prune keeps it. A grown log's earlier copy is replaced by the next
    /// export; a same-size copy that differs is refused, never taken as "already there".
    func testLogChangedAfterExportIsNotPrunedAndCopiesAreCompared() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 30, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(CraftedLog.file(trip: 2, salt: 0x22, points: 30, northOffset: 5, closed: true), dir + "/00000002.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 3, salt: 0x33, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir + "/00000003.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        XCTAssertEqual(try Harness.cairn("export", "--dir", dir, "--to", stick).status, 0)
        // Trip 1: one byte of a point changed in place. Trip 2: grown by a resumed ride's points.
        var one = try Data(contentsOf: URL(fileURLWithPath: dir + "/00000001.cairn"))
        one[one.count - 30] ^= 0x40
        try one.write(to: URL(fileURLWithPath: dir + "/00000001.cairn"))
        let open30 = CraftedLog.file(trip: 2, salt: 0x22, points: 30, northOffset: 5, closed: false)
        // The stick holds a copy taken mid-ride; the log has grown past it since.
        try open30.write(to: URL(fileURLWithPath: stick + "/logs/00000002.cairn"))
        try CraftedLog.write(CraftedLog.file(trip: 2, salt: 0x22, points: 45, northOffset: 5, closed: false), dir + "/00000002.cairn")
        XCTAssertTrue(
            try Data(contentsOf: URL(fileURLWithPath: dir + "/00000002.cairn")).starts(with: open30), "the copy is a prefix of the grown log")

        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(p.stderr.contains("deleted 0 trips"), p.stderr)
        XCTAssertEqual(names(dir).filter { $0.hasSuffix(".cairn") }.count, 3)

        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 1, e.stderr)
        XCTAssertTrue(
            e.stderr.contains("\(stick)/logs/00000001.cairn: exists and is another file (") && e.stderr.contains("not replaced"), e.stderr)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: stick + "/logs/00000002.cairn")),
            try Data(contentsOf: URL(fileURLWithPath: dir + "/00000002.cairn")),
            "the earlier copy of the grown log is replaced")
        XCTAssertTrue(e.stderr.contains("\(stick)/logs/00000002.cairn: an earlier copy of this log, which has grown since; replaced"), e.stderr)
        XCTAssertEqual(try gpxPoints(stick + "/gpx/20250601-080000-trip2.gpx"), 45)
        let p2 = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p2.stderr.contains("retention: deleted trip 2 ("), p2.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), "trip 1's copy differs: kept")
    }

    /// A stick whose copy has the right size and salt but other bytes (a failing stick, a file
    /// from elsewhere) was taken as "already there" and the trip marked: prune then deleted the
    /// only good copy. A stick that fills up marks nothing either.
    func testExportToABadOrFullStickMarksNothing() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 60, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir + "/00000002.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        try fm.createDirectory(atPath: stick + "/logs", withIntermediateDirectories: true)
        var bad = try Data(contentsOf: URL(fileURLWithPath: dir + "/00000001.cairn"))
        bad[200] ^= 0x01
        try bad.write(to: URL(fileURLWithPath: stick + "/logs/00000001.cairn"))
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 1, e.stderr)
        XCTAssertTrue(e.stderr.contains("\(stick)/logs/00000001.cairn: exists and is another file"), e.stderr)
        XCTAssertFalse(state(dir).contains("00000001.cairn 1 "), state(dir))
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p.stderr.contains("deleted 0 trips"), p.stderr)

        try XCTSkipIf(Harness.isEmulated, "under qemu-user the emulator itself takes SIGXFSZ")
        // The stick fills up: the logs fit, the conversions do not.
        let full = Harness.tempDir() + "/full"
        let f = try Harness.run(
            "/bin/sh", ["-c", "ulimit -f 4 && exec \"$0\" \"$@\"", Harness.cairn, "export", "--dir", dir, "--to", full, "--format", "gpx"])
        XCTAssertEqual(f.status, 1, f.stderr)
        XCTAssertTrue(f.stderr.contains("File too large"), f.stderr)
        XCTAssertFalse(state(dir).contains("00000001.cairn 1 "), state(dir))
        let p2 = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p2.stderr.contains("deleted 0 trips"), p2.stderr)
    }

    /// The stick vanishes mid-export and another directory takes its path (a stick swapped, or
    /// unmounted under a directory the export then writes on): every trip was marked, though the
    /// first ones went to the stick that is gone. Now nothing is marked.
    func testDestinationReplacedMidExportMarksNothing() throws {
        let dir = logDir()
        for i in 1...30 {
            try CraftedLog.write(
                CraftedLog.file(trip: UInt64(i), salt: UInt32(i), startMs: CraftedLog.june1 + Int64(i) * 86_400_000, points: 3000, closed: true),
                dir + String(format: "/%08d.cairn", i))
        }
        let base = Harness.tempDir()
        let stick = base + "/stick"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Harness.cairn)
        p.arguments = ["export", "--dir", dir, "--to", stick, "--format", "gpx"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        let started = Harness.waitUntil(timeout: 30) { !names(stick + "/gpx").isEmpty }
        XCTAssertTrue(started)
        XCTAssertEqual(rename(stick, base + "/gone"), 0)
        for d in ["", "/logs", "/gpx"] { try fm.createDirectory(atPath: stick + d, withIntermediateDirectories: true) }
        p.waitUntilExit()
        try XCTSkipIf(names(stick + "/gpx").isEmpty, "the export was done before the swap: nothing tested")
        XCTAssertEqual(p.terminationStatus, 1)
        XCTAssertFalse(state(dir).contains(" v2 "), state(dir))
        let prune = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(prune.stderr.contains("deleted 0 trips"), prune.stderr)
    }

    /// Rides dated after the wall clock (a clock set back, a board without a real-time clock):
    /// "now" was taken as the newest trip's end, so trip 1 looked 150 days old and went. Now the
    /// age of no trip counts while the clock is behind the newest ride.
    func testClockBehindTheTripsMakesNothingOld() throws {
        let dir = logDir()
        let y2099: Int64 = 4_070_908_800_000  // 2099-01-01
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, startMs: y2099, points: 10, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: y2099 + 150 * 86_400_000, points: 10, closed: true), dir + "/00000002.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 3, salt: 0x33, startMs: y2099 + 151 * 86_400_000, points: 10, closed: true), dir + "/00000003.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        XCTAssertEqual(try Harness.cairn("export", "--dir", dir, "--to", stick).status, 0)
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "30")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(p.stderr.contains("deleted 0 trips"), p.stderr)
        XCTAssertTrue(p.stderr.contains("before the newest trip's end 2099-06-01T00:00:09Z"), p.stderr)
        XCTAssertEqual(names(dir).filter { $0.hasSuffix(".cairn") }.count, 3)
    }

    /// With privacy zones the logs stay off the stick by default (they hold home), the trips are
    /// not safe to delete, and the conversions are named by their first exported point.
    func testZonesLeaveTheLogsOffAndNameByTheFirstExportedPoint() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 500, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, northOffset: 200, closed: true),
            dir + "/00000002.cairn")
        try PrivacyZoneEndToEndTests.boardKey(dir)  // the same cut on every run
        let stick = try Harness.offCardDir() + "/stick"
        // 100 m around the start: at least points 0-20 (5 m apart) are inside its cut.
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick, "--privacy-zone", "47.0,8.5,100", "--format", "gpx")
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertFalse(fm.fileExists(atPath: stick + "/logs"), "no raw log on the stick")
        XCTAssertTrue(e.stderr.contains("log files left off the stick"), e.stderr)
        let gpx = names(stick + "/gpx")
        XCTAssertEqual(gpx.count, 2, "\(gpx)")
        // Named by the first point written, later than the ride's start (the 500 s ride leaves the cut within it).
        XCTAssertTrue(gpx.contains { $0.hasPrefix("20250601-080") && $0.hasSuffix("-trip1.gpx") && $0 != "20250601-080000-trip1.gpx" }, "\(gpx)")
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p.stderr.contains("but was exported without its log files (--logs no)"), p.stderr)
        XCTAssertTrue(p.stderr.contains("deleted 0 trips"), p.stderr)
        // Asked for, the logs go too; then the trip may go.
        let e2 = try Harness.cairn("export", "--dir", dir, "--to", stick, "--privacy-zone", "47.0,8.5,100", "--format", "gpx", "--logs", "yes")
        XCTAssertEqual(e2.status, 0, e2.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn", "00000002.cairn", "privacy-key"], "the key goes with the logs")
        XCTAssertEqual(names(stick + "/gpx"), gpx, "the conversions were there already")
        let p2 = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p2.stderr.contains("retention: deleted trip 1 ("), p2.stderr)
        let nothing = try Harness.cairn("export", "--dir", dir, "--to", stick, "--logs", "no", "--format", "none")
        XCTAssertEqual(nothing.status, 64, nothing.stderr)
        XCTAssertTrue(nothing.stderr.contains("'--format none' with '--logs no' leaves nothing to export"), nothing.stderr)
        let bad = try Harness.cairn("export", "--dir", dir, "--to", stick, "--logs", "maybe")
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("The value 'maybe' is invalid for '--logs <yes|no>'"), bad.stderr)
    }

    /// A state file of cairn 0.3 (no sizes, no checksums): its trips cannot be verified, so prune
    /// keeps them; the next export checks the stick's copies byte for byte and records them.
    func testOldStateLinesAreKeptUntilAnExportVerifiesThem() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 30, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir + "/00000002.cairn")
        let stick = try Harness.offCardDir() + "/stick"
        try fm.createDirectory(atPath: stick + "/logs", withIntermediateDirectories: true)
        try fm.copyItem(atPath: dir + "/00000001.cairn", toPath: stick + "/logs/00000001.cairn")
        try "# trips copied off this directory by 'cairn export': first-file trip-id salt destination\n00000001.cairn 1 11 \(stick)\n"
            .write(toFile: dir + "/exported", atomically: true, encoding: .utf8)
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p.stderr.contains("but was exported by an earlier cairn that kept no checksum"), p.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"))
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(state(dir).contains("00000001.cairn 1 11 v2 logs 00000001.cairn/11/"), state(dir))
        let p2 = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p2.stderr.contains("retention: deleted trip 1 (00000001.cairn;"), p2.stderr)
    }

    /// attack-r20: after `export --to STICK` and the stick emptied (or lost, or not mounted),
    /// prune deleted the trips on the strength of the export's receipt alone: the only copies.
    /// Now a trip is deleted only when one of its destinations holds its log copies whole in
    /// this run; a copy changed there (same size, one byte) counts as none.
    func testPruneDeletesOnlyWhatTheStickHoldsWholeNow() throws {
        let dir = logDir()
        for n in 1...3 {
            try CraftedLog.write(
                CraftedLog.file(trip: UInt64(n), salt: 0x50 + UInt32(n), startMs: CraftedLog.june1 + Int64(n) * 3_600_000, points: 20, closed: true),
                dir + "/0000000\(n).cairn")
        }
        let stick = try Harness.offCardDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 0, e.stderr)
        // Trip 1's copy gone, trip 2's changed in place (same size), trip 3's whole.
        try fm.removeItem(atPath: stick + "/logs/00000001.cairn")
        var two = try Data(contentsOf: URL(fileURLWithPath: stick + "/logs/00000002.cairn"))
        two[two.count - 3] ^= 0x40
        try two.write(to: URL(fileURLWithPath: stick + "/logs/00000002.cairn"))
        try CraftedLog.write(
            CraftedLog.file(trip: 4, salt: 0x54, startMs: CraftedLog.june1 + 5 * 3_600_000, points: 5, closed: true), dir + "/00000004.cairn")
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertEqual(p.status, 0, p.stderr)
        for n in 1...2 { XCTAssertTrue(fm.fileExists(atPath: dir + "/0000000\(n).cairn"), "trip \(n) kept: " + p.stderr) }
        XCTAssertTrue(p.stderr.contains("retention: trip 1 (00000001.cairn) is over the limit"), p.stderr)
        XCTAssertTrue(p.stderr.contains("its log copies were not found whole where they went in this run"), p.stderr)
        XCTAssertTrue(p.stderr.contains("retention: deleted trip 3 (00000003.cairn"), p.stderr)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000003.cairn"))
        // The next export puts trip 1's copy back; the changed copy it does not overwrite (it
        // might be another board's log): moved away, the export copies it again. Then they go.
        try fm.moveItem(atPath: stick + "/logs/00000002.cairn", toPath: stick + "/changed-00000002.cairn")
        let e2 = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e2.status, 0, e2.stderr)
        let p2 = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertTrue(p2.stderr.contains("retention: deleted trip 1 (00000001.cairn"), p2.stderr)
        XCTAssertTrue(p2.stderr.contains("retention: deleted trip 2 (00000002.cairn"), p2.stderr)
    }
}

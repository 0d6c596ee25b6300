import Foundation
import XCTest

/// What the round 10 attack on export and prune found (Tests/crash/RESULTS.md): a live trip
/// finished by a copied-in part's trip end when export cannot see the recorder's files; a copy
/// damaged on the stick after a verified export taken as "already there"; a trip without a
/// readable point marked exported with no copy made. Each let prune delete the only good copy.
final class ExportAttackEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func logDir() -> String { CraftedLog.directory() }

    func cairnFiles(_ dir: String) -> [String] {
        ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".cairn") }.sorted()
    }

    /// The recorder writes trip 1 (00000001); another board's trip 1 part 1, closed, is copied
    /// in. Export and prune run as `nobody`, who cannot read the recorder's open files: the copied
    /// part's trip end made the live trip "finished", and prune deleted it mid-ride.
    func testACopiedInTripEndDoesNotFinishALiveTripForAnotherUser() throws {
        try XCTSkipIf(Harness.isEmulated, "under qemu-user the emulator cannot run the binary as nobody")
        try XCTSkipIf(getuid() != 0 || !fm.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run as nobody")
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 10, closed: false), dir + "/00000001.cairn")
        let lock = open(dir + "/.cairn.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        let w = open(dir + "/00000001.cairn", O_WRONLY | O_APPEND | O_CLOEXEC)
        defer {
            close(w)
            close(lock)
        }
        usleep(20_000)
        // Written since the recorder started, as a live trip is.
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 30, closed: false), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 1, part: 1, salt: 0x99, startMs: CraftedLog.june1 + 60_000, points: 5, northOffset: 60, closed: true),
            dir + "/00000099.cairn")
        chmod(dir, 0o777)
        let stick = Harness.tempDir() + "/stick"
        try fm.createDirectory(atPath: stick, withIntermediateDirectories: true)
        chmod(stick, 0o777)
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", Harness.cairn]
        let e = try Harness.run(asNobody[0], Array(asNobody.dropFirst()) + ["export", "--dir", dir, "--to", stick])
        XCTAssertTrue(e.stderr.contains("trip 1 (00000001.cairn, 00000099.cairn): still open"), e.stderr)
        XCTAssertFalse(fm.fileExists(atPath: stick + "/logs/00000001.cairn"), e.stderr)
        let p = try Harness.run(asNobody[0], Array(asNobody.dropFirst()) + ["prune", "--dir", dir, "--max-mb", "0.000001", "--force"])
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
    }

    /// A copy verified by one export and damaged on the stick since (one byte, same size): the
    /// next export took it as "already there" by its size, and prune deleted the log.
    func testACopyDamagedOnTheStickIsNamedAndTheTripKept() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 30, closed: true), dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir + "/00000002.cairn")
        let stick = Harness.tempDir() + "/stick"
        XCTAssertEqual(try Harness.cairn("export", "--dir", dir, "--to", stick).status, 0)
        var copy = try Data(contentsOf: URL(fileURLWithPath: stick + "/logs/00000001.cairn"))
        copy[100] ^= 0x01
        try copy.write(to: URL(fileURLWithPath: stick + "/logs/00000001.cairn"))
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertEqual(e.status, 1, e.stderr)
        XCTAssertTrue(e.stderr.contains("\(stick)/logs/00000001.cairn: exists and is another file"), e.stderr)
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), "its only good copy: \(p.stderr)")
    }

    /// A closed trip whose point records are all damaged has no point to convert: it was marked
    /// exported "with its logs" though no copy was made, and `prune --max-mb` deleted it. Now its
    /// log is copied (and read back) like any other.
    func testATripWithoutAReadablePointIsCopiedBeforeItCanBePruned() throws {
        let dir = logDir()
        var bad = CraftedLog.file(trip: 1, salt: 0x11, points: 60, closed: true)
        for i in 75..<(bad.count - 40) { bad[i] ^= 0x5A }
        try CraftedLog.write(bad, dir + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir + "/00000002.cairn")
        let stick = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick)
        XCTAssertTrue(e.stderr.contains("no points (an empty or damaged trip); no conversion, its log copied"), e.stderr)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: stick + "/logs/00000001.cairn")),
            try Data(contentsOf: URL(fileURLWithPath: dir + "/00000001.cairn")))
        // Left off the stick (--logs no), it is kept by retention.
        let dir2 = logDir()
        try CraftedLog.write(bad, dir2 + "/00000001.cairn")
        try CraftedLog.write(
            CraftedLog.file(trip: 2, salt: 0x22, startMs: CraftedLog.june1 + 3_600_000, points: 5, closed: true), dir2 + "/00000002.cairn")
        _ = try Harness.cairn("export", "--dir", dir2, "--to", Harness.tempDir() + "/stick", "--logs", "no")
        let p = try Harness.cairn("prune", "--dir", dir2, "--max-mb", "0.000001")
        XCTAssertTrue(fm.fileExists(atPath: dir2 + "/00000001.cairn"), p.stderr)
    }

    /// A state file that is not one (garbage lines) is said, naming it, instead of read silently
    /// as "nothing exported".
    func testADamagedStateFileIsNamed() throws {
        let dir = logDir()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 10, closed: true), dir + "/00000001.cairn")
        try "garbage\nmore garbage here\n".write(toFile: dir + "/exported", atomically: false, encoding: .utf8)
        let p = try Harness.cairn("prune", "--dir", dir, "--keep-days", "1", "--dry-run")
        XCTAssertTrue(p.stderr.contains("\(dir)/exported: 2 lines not understood, ignored"), p.stderr)
        let e = try Harness.cairn("export", "--dir", dir, "--to", Harness.tempDir() + "/stick")
        XCTAssertTrue(e.stderr.contains("\(dir)/exported: 2 lines not understood, ignored"), e.stderr)
    }
}

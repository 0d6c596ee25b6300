import Foundation
import XCTest

/// The wheel's circumference end to end (issue 40): `record --check` shows it and where it came
/// from; a bad value stops `record` with an error naming the option, or the config file's line.
final class WheelEndToEndTests: XCTestCase {
    func testTheWheelIsCheckedAndShown() throws {
        let tmp = Harness.tempDir()
        let byDefault = try Harness.cairn("record", "--dir", tmp + "/logs", "--check")
        XCTAssertEqual(byDefault.status, 0, byDefault.stderr)
        XCTAssertTrue(byDefault.stdout.contains("wheel = 2.105 m  (default)"), byDefault.stdout)
        let conf = tmp + "/cairn.conf"
        try "dir = \(tmp)/logs\nwheel = 2.07\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let fromFile = try Harness.cairn("record", "--config", conf, "--check")
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertTrue(fromFile.stdout.contains("wheel = 2.07 m  (\(conf):2)"), fromFile.stdout)
        try "dir = \(tmp)/logs\nwheel = 2105\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let bad = try Harness.cairn("record", "--config", conf, "--check")
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("\(conf):2: The value '2105' is invalid for '--wheel <metres>'"), bad.stderr)
        let badOption = try Harness.cairn("record", "--dir", tmp + "/logs", "--wheel", "0.3", "--check")
        XCTAssertEqual(badOption.status, 64, badOption.stderr)
        XCTAssertTrue(badOption.stderr.contains("The value '0.3' is invalid for '--wheel <metres>': the wheel's circumference"), badOption.stderr)
    }

    /// A trainer's trip (Tests/Fixtures/logs/trainer: WheelExportTests' log, kept with
    /// CAIRN_TRAINER_LOG_OUT: ten minutes at 8 m/s, 140 bpm, 200 W, no point) through the CLI:
    /// listed with the wheel's distance and time, clean, skipped by GPX with a line, converted to
    /// FIT; `export` to formats that cannot hold it, its logs not copied, does not mark it exported.
    func testATrainersTripThroughTheCLI() throws {
        let tmp = Harness.tempDir()
        let dir = tmp + "/logs"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Harness.repoRoot.appendingPathComponent("Tests/Fixtures/logs/trainer/00000001.cairn").path, toPath: dir + "/00000001.cairn")
        let list = try Harness.cairn("list", dir)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("4.79 km    0:09:59  0       closed"), list.stdout)
        let info = try Harness.cairn("info", dir)
        XCTAssertTrue(info.stdout.contains("distance:   4.79 km from the wheel (no positions: a trainer)"), info.stdout)
        XCTAssertTrue(info.stdout.contains("heart rate: avg 140 bpm, max 140 bpm"), info.stdout)
        let verify = try Harness.cairn("verify", dir)
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertTrue(verify.stdout.contains("0 points, clean, trip closed"), verify.stdout)
        let gpx = try Harness.cairn("convert", dir, "--to", "gpx", "-o", tmp + "/t.gpx")
        XCTAssertTrue(
            gpx.stderr.contains("trip 1: no positions (a trainer ride: 4.79 km from the wheel); GPX cannot hold a trip without positions"),
            gpx.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp + "/t.gpx"))
        let fit = try Harness.cairn("convert", dir, "--to", "fit", "-o", tmp + "/t.fit")
        XCTAssertEqual(fit.status, 0, fit.stderr)
        let seen = try Harness.checkExport("fit", tmp + "/t.fit")
        XCTAssertEqual((seen["session_figures"] as? [String: Any])?["sub_sport"] as? String, "indoor_cycling")
        let notHeld = try Harness.cairn("export", "--dir", dir, "--to", tmp + "/stick", "--format", "gpx,kml", "--logs", "no")
        XCTAssertNotEqual(notHeld.status, 0, notHeld.stderr)
        XCTAssertTrue(notHeld.stderr.contains("not exported: no format asked for holds a trip without positions"), notHeld.stderr)
        let held = try Harness.cairn("export", "--dir", dir, "--to", tmp + "/stick", "--format", "fit,csv", "--logs", "no")
        XCTAssertEqual(held.status, 0, held.stderr)
        let fits = try FileManager.default.contentsOfDirectory(atPath: tmp + "/stick/fit")
        XCTAssertEqual(fits.count, 1, "\(fits)")
    }

    /// A trainer ride on a board whose clock was never set (Tests/Fixtures/logs/trainer-1970:
    /// WheelExportTests' ride at 1970-01-01T00:05:00Z, kept with CAIRN_TRAINER_1970_LOG_OUT;
    /// attack r21 F8). Before: `convert --to fit` said "wrote 1 FIT file", rc 0, and the file
    /// had no session, lap or record; `export` wrote it and its index claimed 4.79 km. Now no
    /// conversion is written, a line says why; `export` is not failed by it, run after run, and
    /// marks it exported only with its log copied.
    func testATrainerRideOnAClockNeverSetIsSaidAndNeverWrittenEmpty() throws {
        let tmp = Harness.tempDir()
        let dir = tmp + "/logs"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Harness.repoRoot.appendingPathComponent("Tests/Fixtures/logs/trainer-1970/00000001.cairn").path,
            toPath: dir + "/00000001.cairn")
        let why = "trip 1: a trainer ride of 4.79 km from the wheel on a clock that was never set (it starts 1970-01-01T00:05:00Z"
        let fit = try Harness.cairn("convert", dir, "--to", "fit", "-o", tmp + "/t.fit")
        XCTAssertEqual(fit.status, 1, fit.stderr)
        XCTAssertTrue(fit.stderr.contains(why), fit.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp + "/t.fit"))
        for run in 1...2 {
            let e = try Harness.cairn("export", "--dir", dir, "--to", tmp + "/stick", "--format", "fit,csv", "--logs", "no", "--config", "none")
            XCTAssertEqual(e.status, 0, "run \(run): \(e.stderr)")
            XCTAssertTrue(e.stderr.contains("(00000001.cairn): a trainer ride of 4.79 km") && e.stderr.contains("(--logs yes copies it)"), e.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp + "/stick/fit"), [], "no empty FIT")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp + "/stick/csv"), [], "no empty CSV")
        }
        let logs = try Harness.cairn("export", "--dir", dir, "--to", tmp + "/stick", "--format", "fit,csv", "--logs", "yes", "--config", "none")
        XCTAssertEqual(logs.status, 0, logs.stderr)
        XCTAssertTrue(logs.stderr.contains("its log keeps it (and is copied)"), logs.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: tmp + "/stick/logs/00000001.cairn"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp + "/stick/fit"), [])
    }
}

import Foundation
import XCTest

/// The config's zones and the key, through the binary, for every command that shows positions
/// (issue 27's round 10 attack): `--config FILE` for render, cells, info and convert alike; a
/// key that is a FIFO refused at once; a key others may read said.
final class PrivacyKeyConfigEndToEndTests: XCTestCase {
    let zone = "\(PrivacyZoneEndToEndTests.home.lat),\(PrivacyZoneEndToEndTests.home.lon),300"

    func rides() throws -> String {
        let d = Harness.tempDir() + "/logs"
        let r = try Harness.run(
            "/usr/bin/env", ["python3", PrivacyZoneEndToEndTests.script, Harness.cairn, "--make", d, "--rides", "2", "--radius", "300"])
        XCTAssertEqual(r.status, 0, r.stderr)
        try PrivacyZoneEndToEndTests.boardKey(d)  // the board's, as the recorder makes it (fixed bytes: the same cut every run)
        return d
    }

    func testEveryCommandTakesTheConfigsZones() throws {
        let d = try rides()
        let out = Harness.tempDir()
        let conf = out + "/cairn.conf"
        try "# the recorder's\nprivacy-zone = \(zone)\n".write(toFile: conf, atomically: true, encoding: .utf8)

        let viaConfig = try Harness.cairn("render", d + "/00000001.cairn", "--config", conf, "-o", out + "/c.svg")
        XCTAssertEqual(viaConfig.status, 0, viaConfig.stderr)
        let viaOption = try Harness.cairn("render", d + "/00000001.cairn", "--privacy-zone", zone, "-o", out + "/z.svg")
        XCTAssertEqual(viaOption.status, 0, viaOption.stderr)
        let none = try Harness.cairn("render", d + "/00000001.cairn", "--config", "none", "-o", out + "/n.svg")
        XCTAssertEqual(none.status, 0, none.stderr)
        let svg = { (p: String) in try String(contentsOfFile: out + "/" + p, encoding: .utf8) }
        XCTAssertEqual(try svg("c.svg"), try svg("z.svg"), "the config's zone is cut as --privacy-zone's")
        XCTAssertNotEqual(try svg("c.svg"), try svg("n.svg"))

        let cells = try Harness.cairn("cells", d, "--config", conf)
        let plain = try Harness.cairn("cells", d, "--config", "none")
        XCTAssertEqual(cells.status, 0, cells.stderr)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertLessThan(cells.stdout.split(separator: "\n").count, plain.stdout.split(separator: "\n").count, cells.stdout)

        let info = try Harness.cairn("info", "1", "--dir", d, "--config", conf)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("figures:    exported part only (privacy zones)"), info.stdout)
        let infoNone = try Harness.cairn("info", "1", "--dir", d, "--config", "none")
        XCTAssertEqual(infoNone.status, 0, infoNone.stderr)
        XCTAssertFalse(infoNone.stdout.contains("figures: "), infoNone.stdout)

        let csv = try Harness.cairn("convert", d, "--to", "csv", "--config", conf, "--privacy-key", d + "/privacy-key")
        XCTAssertEqual(csv.status, 0, csv.stderr)
        XCTAssertTrue(csv.stderr.contains("privacy zones: left out"), csv.stderr)
        for c in ["convert", "render", "cells", "info", "export"] {
            // Help is wrapped to 80 columns: its words read as one line.
            let help = try Harness.cairn(c, "--help").stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
            XCTAssertTrue(help.contains("(default: /etc/cairn.conf when it exists"), c)
        }
    }

    /// A FIFO as the key blocked `convert` forever; now it is refused at once, naming it.
    func testAKeyThatIsNoRegularFileIsRefusedAtOnce() throws {
        let d = try rides()
        let fifo = Harness.tempDir() + "/privacy-key"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let r = try Harness.run(Harness.cairn, ["convert", d, "--to", "csv", "--privacy-zone", zone, "--privacy-key", fifo], timeout: 10)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(fifo): not a privacy key (not a regular file)"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    /// A key its group or others may read is used, with one warning naming it.
    func testAKeyOthersMayReadIsSaid() throws {
        let d = try rides()
        let key = try PrivacyZoneEndToEndTests.boardKey(Harness.tempDir())
        XCTAssertEqual(chmod(key, 0o644), 0)
        let r = try Harness.cairn("convert", d, "--to", "csv", "--privacy-zone", zone, "--privacy-key", key)
        XCTAssertEqual(r.status, 0, r.stderr)
        let warning = "the privacy key \(key) can be read by others; chmod 600 \(key)"
        XCTAssertEqual(r.stderr.components(separatedBy: warning).count - 1, 1, r.stderr)
        XCTAssertEqual(chmod(key, 0o600), 0)
        let quiet = try Harness.cairn("convert", d, "--to", "csv", "--privacy-zone", zone, "--privacy-key", key)
        XCTAssertFalse(quiet.stderr.contains("can be read by others"), quiet.stderr)
        XCTAssertEqual(quiet.stdout, r.stdout)
    }

    /// Issue 38: logs copied to a laptop and converted with zones but without the board's key
    /// were cut with a key made in ~/.config, silently: two cuts of one home, which together
    /// put it within 24 m. Now convert stops, says how to bring the key, and makes none.
    func testConvertWithoutTheBoardsKeyIsAnErrorNotANewKey() throws {
        let d = try rides()
        let copied = Harness.tempDir() + "/copied"
        try FileManager.default.createDirectory(atPath: copied, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: d + "/00000001.cairn", toPath: copied + "/00000001.cairn")
        let home = Harness.tempDir() + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let r = try Harness.run(
            "/usr/bin/env", ["HOME=" + home, Harness.cairn, "convert", copied + "/00000001.cairn", "--to", "gpx", "--privacy-zone", zone])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout, "", "nothing written")
        XCTAssertTrue(r.stderr.contains("privacy zones need the board's privacy key"), r.stderr)
        XCTAssertTrue(r.stderr.contains(copied + "/privacy-key"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--privacy-key FILE"), r.stderr)
        XCTAssertFalse(r.stderr.contains("made a new privacy key"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/.config/cairn/privacy-key"), "no laptop key")
        XCTAssertFalse(FileManager.default.fileExists(atPath: copied + "/privacy-key"))
        // The board's key brought beside the logs: the board's cut.
        let key = try PrivacyZoneEndToEndTests.boardKey(d)
        try FileManager.default.copyItem(atPath: key, toPath: copied + "/privacy-key")
        let a = try Harness.run(
            "/usr/bin/env", ["HOME=" + home, Harness.cairn, "convert", copied + "/00000001.cairn", "--to", "gpx", "--privacy-zone", zone])
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try Harness.cairn("convert", d + "/00000001.cairn", "--to", "gpx", "--privacy-zone", zone, "--privacy-key", key)
        XCTAssertEqual(a.stdout, b.stdout, "cut as on the board")
    }

    /// A delivery's logs folder copied to a laptop holds each card's key (`privacy-key` and
    /// `privacy-key-<16 hex>`, attack-r22 c19): which key cut which log is not written there, so
    /// convert guesses none (a wrong one makes a second cut of home) and asks for --privacy-key.
    func testAFolderWithSeveralCardsKeysNamesNone() throws {
        let d = try rides()
        let folder = Harness.tempDir() + "/logs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: d + "/00000001.cairn", toPath: folder + "/00000001-00000010.cairn")
        let key = try PrivacyZoneEndToEndTests.boardKey(d)
        try FileManager.default.copyItem(atPath: key, toPath: folder + "/privacy-key")
        // The same key under its own name too: no second key, converted as before.
        try FileManager.default.copyItem(atPath: key, toPath: folder + "/privacy-key-0123456789abcdef")
        let same = try Harness.cairn("convert", folder + "/00000001-00000010.cairn", "--to", "gpx", "--privacy-zone", zone)
        XCTAssertEqual(same.status, 0, same.stderr)
        let other = try PrivacyZoneEndToEndTests.boardKey(d, name: "card-b-key")
        try FileManager.default.copyItem(atPath: other, toPath: folder + "/privacy-key-fedcba9876543210")
        let r = try Harness.cairn("convert", folder + "/00000001-00000010.cairn", "--to", "gpx", "--privacy-zone", zone)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout, "", "nothing written")
        XCTAssertTrue(r.stderr.contains("holds the privacy keys of several cards (privacy-key, privacy-key-fedcba9876543210)"), r.stderr)
        let given = try Harness.cairn(
            "convert", folder + "/00000001-00000010.cairn", "--to", "gpx", "--privacy-zone", zone, "--privacy-key", folder + "/privacy-key")
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertEqual(given.stdout, same.stdout)
    }
}

import Foundation
import XCTest

/// `--name-prefix TEXT` (issue 30, item 6): `export` puts TEXT in front of each conversion's name
/// and `convert --to fit -o DIR` in front of each file it makes; a log copy keeps its name; a
/// bad TEXT, or a prefix where `-o` names the file, is a usage error naming the option.
final class NamePrefixEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func names(_ dir: String) -> [String] { ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted() }

    /// A log directory with one closed trip of 40 points from 2025-06-01T08:00:00Z.
    func logDir() throws -> String {
        let dir = CraftedLog.directory()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 40, closed: true), dir + "/00000001.cairn")
        return dir
    }

    func testExportPutsThePrefixBeforeEachConversionAndKeepsTheLogsName() throws {
        let dir = try logDir()
        let stick = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick, "--format", "gpx,fit,csv", "--name-prefix", "bike-")
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("exported 1 trip to"), e.stderr)
        XCTAssertEqual(names(stick + "/logs"), ["00000001.cairn"])
        for format in ["gpx", "fit", "csv"] {
            XCTAssertEqual(names(stick + "/" + format), ["bike-20250601-080000-trip1." + format], e.stderr)
        }
        let gpx = try String(contentsOfFile: stick + "/gpx/bike-20250601-080000-trip1.gpx", encoding: .utf8)
        XCTAssertEqual(Harness.count("<trkpt ", in: gpx), 40)

        // Run again with the same prefix: nothing new to write.
        let again = try Harness.cairn("export", "--dir", dir, "--to", stick, "--format", "gpx,fit,csv", "--name-prefix", "bike-")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("exported 0 trips") && again.stderr.contains("1 already there"), again.stderr)
    }

    func testConvertToFITInADirectoryPutsThePrefixBeforeEachFile() throws {
        let dir = try logDir()
        let out = Harness.tempDir() + "/fit"
        let c = try Harness.cairn("convert", dir, "--to", "fit", "-o", out, "--name-prefix", "B_2")
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(names(out), ["B_220250601-080000-trip1.fit"])
    }

    func testBadPrefixOrANamedFileIsAUsageErrorNamingTheOption() throws {
        let dir = try logDir()
        let tmp = Harness.tempDir()
        let invalid = "is invalid for '--name-prefix <text>': use 1 to 32 letters, digits, '-' or '_'"
        let cases: [([String], String)] = [
            (["export", "--dir", dir, "--to", tmp + "/stick", "--name-prefix", "a/b"], "The value 'a/b' " + invalid),
            (["export", "--dir", dir, "--to", tmp + "/stick", "--name-prefix", "vélo"], "The value 'vélo' " + invalid),
            (["export", "--dir", dir, "--to", tmp + "/stick", "--name-prefix", String(repeating: "x", count: 33)], invalid),
            (["export", "--dir", dir, "--to", tmp + "/stick", "--name-prefix="], "The value '' " + invalid),
            (["convert", dir, "--to", "fit", "-o", tmp + "/fit", "--name-prefix", "my bike"], "The value 'my bike' " + invalid),
            (["convert", dir, "--to", "fit", "-o", tmp + "/fit", "--name-prefix", ".hidden"], "The value '.hidden' " + invalid),
            (
                ["convert", dir, "--to", "gpx", "-o", tmp + "/r.gpx", "--name-prefix", "bike-"],
                "'--name-prefix' applies to the files --to fit makes in a directory, not to gpx"
            ),
            (
                ["convert", dir, "--to", "fit", "-o", tmp + "/one.fit", "--name-prefix", "bike-"],
                "'--name-prefix' applies to the files --to fit makes in a directory, not to -o \(tmp)/one.fit"
            )
        ]
        for (args, message) in cases {
            let r = try Harness.run(Harness.cairn, args)
            XCTAssertEqual(r.status, 64, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("Usage: cairn \(args[0])"), r.stderr)
        }
        // Nothing was written by any of them.
        XCTAssertEqual(names(tmp), [])
        for command in ["convert", "export"] {
            let help = try Harness.cairn(command, "--help")
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.stdout.contains("--name-prefix <text>"), help.stdout)
        }
    }
}

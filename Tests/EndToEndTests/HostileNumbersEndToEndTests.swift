import Foundation
import XCTest

/// Issue 27, finding 8 and `--close-after`: numbers and text from files and options that must
/// never trap nor reach the terminal raw.
final class HostileNumbersEndToEndTests: XCTestCase {
    func statusFile(_ lines: [String]) throws -> String {
        let path = Harness.tempDir() + "/status"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAStatusFileWithNumbersOutOfRangeIsShownNotTrapped() throws {
        for pid in ["2147483648", "99999999999999", "-1", "4294967296"] {
            let path = try statusFile([
                "state=recording", "refresh_s=99999999999999", "moving_time_s=999999999999999", "distance_m=1e308",
                "pid=\(pid)"
            ])
            let r = try Harness.cairn("status", path)
            XCTAssertTrue(r.status == 0 || r.status == 2, "pid=\(pid): exit \(r.status) \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("pid \(pid)"), r.stdout)
        }
    }

    func testAStatusFilesControlCharactersAreNeverPrinted() throws {
        let esc = "\u{1B}]0;owned\u{07}\u{1B}[2J"
        let path = try statusFile(["state=recording\(esc)", "trip_file=/x/\(esc)00000001.cairn", "gpsd=\u{9B}31m", "pid=1"])
        for args in [[path], [path, "--raw"]] {
            let r = try Harness.run(Harness.cairn, ["status"] + args)
            XCTAssertTrue(r.status == 0 || r.status == 2, r.stderr)
            for c in ["\u{1B}", "\u{07}", "\u{9B}"] { XCTAssertFalse(r.stdout.contains(c), "\(args): \(r.stdout.debugDescription)") }
            XCTAssertTrue(r.stdout.contains("\u{FFFD}]0;owned"), r.stdout)
        }
    }

    func testCloseAfterIsReadStrictlyByConvert() throws {
        let dir = Harness.tempDir()
        for v in ["+30", " 30", "30 ", "0x1e"] {
            let r = try Harness.run(Harness.cairn, ["convert", dir, "--to", "csv", "--refilter", "--close-after", v, "-o", "-"])
            XCTAssertTrue(r.stderr.contains("The value '\(v)' is invalid for '--close-after"), "\(v): \(r.status) \(r.stderr)")
        }
    }
}

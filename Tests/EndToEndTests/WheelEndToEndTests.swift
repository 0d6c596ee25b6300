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
}

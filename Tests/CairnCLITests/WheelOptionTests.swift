import XCTest

@testable import cairn

/// `wheel` (`record --wheel`): the circumference in metres, 0.5 to 3.5; anything else a usage
/// error naming the option (the config file's line is added by `record`, as for every key).
final class WheelOptionTests: XCTestCase {
    func testTheCircumferenceAndItsErrors() throws {
        XCTAssertEqual(try RecordCommand.wheelCircumference("2.105"), 2.105)
        XCTAssertEqual(try RecordCommand.wheelCircumference("0.5"), 0.5)
        XCTAssertEqual(try RecordCommand.wheelCircumference("3.5"), 3.5)
        XCTAssertEqual(try RecordCommand.wheelCircumference("2.0954"), 2.095, "to the millimetre")
        for bad in ["0.49", "3.6", "2105", "-2", "", "2,1", "nan", "1e400", "inf"] {
            XCTAssertThrowsError(try RecordCommand.wheelCircumference(bad), bad) { e in
                XCTAssertTrue(
                    (e as? UsageError)?.message.hasPrefix("The value '\(bad)' is invalid for '--wheel <metres>': the wheel's circumference") == true,
                    "\(e)")
            }
        }
        let file = try ConfigFile(path: "/etc/cairn.conf", text: "wheel = 2.07\n", options: RecordCommand.options)
        var a = try parseArguments([], options: RecordCommand.options)
        let origin = file.merge(into: &a)
        XCTAssertEqual(a.value("--wheel"), "2.07")
        XCTAssertEqual(origin["--wheel"], "/etc/cairn.conf:1")
    }
}

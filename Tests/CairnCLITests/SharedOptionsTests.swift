import CairnCore
import CairnExport
import XCTest

@testable import cairn

/// `SharedOptions`: a value several commands take is read one way, with one message naming
/// the option.
final class SharedOptionsTests: XCTestCase {
    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch let e as UsageError { return e.message } catch { return "\(error)" }
        return nil
    }

    func testCloseAfterIsStrict() throws {
        XCTAssertEqual(try SharedOptions.closeAfterMs("5"), 300_000)
        XCTAssertEqual(try SharedOptions.closeAfterMs("1440"), 86_400_000)
        for bad in ["4", "1441", "+5", "0x10", "1e1", "5.0", " 5", "", "five"] {
            XCTAssertEqual(
                message { _ = try SharedOptions.closeAfterMs(bad) },
                "The value '\(bad)' is invalid for '--close-after <minutes>': use whole minutes from 5 to 1440", bad)
        }
    }

    func testActivity() throws {
        XCTAssertEqual(try SharedOptions.activity("hike"), .walk)
        XCTAssertEqual(try SharedOptions.activity("drive"), .drive)
        XCTAssertEqual(
            message { _ = try SharedOptions.activity("swim") },
            "The value 'swim' is invalid for '--activity <activity>': use ride, run, walk or drive")
    }

    func testFormats() throws {
        XCTAssertEqual(try SharedOptions.formats("fit,gpx,fit"), [.fit, .gpx])
        XCTAssertEqual(try SharedOptions.formats("none"), [])
        XCTAssertEqual(
            message { _ = try SharedOptions.formats("gpx,svg") },
            "The value 'svg' is invalid for '--format <formats>': use gpx, fit, geojson, kml, csv or none")
    }

    func testNamePrefix() throws {
        for good in ["bike-", "B_2", "a", String(repeating: "x", count: 32), "-x", "_"] {
            XCTAssertEqual(try SharedOptions.namePrefix(good), good)
        }
        for bad in ["", String(repeating: "x", count: 33), "bike ", "a/b", "../x", ".bike", "a.b", "vélo", "a\nb", "a:b", "*"] {
            XCTAssertEqual(
                message { _ = try SharedOptions.namePrefix(bad) },
                "The value '\(bad)' is invalid for '--name-prefix <text>': use 1 to 32 letters, digits, '-' or '_'", bad)
        }
    }

    /// convert and export show the same option, from one spec.
    func testNamePrefixIsOneOptionOfConvertAndExport() {
        for options in [ConvertCommand.options, ExportCommand.options] {
            XCTAssertEqual(options.filter { $0.name == "--name-prefix" }.map(\.help), [SharedOptions.namePrefixOption.help])
        }
    }

    /// Help text broken at spaces to a width; a word longer than the width stays whole.
    func testWrapped() {
        XCTAssertEqual(wrapped("a bb ccc dddd", width: 6, indent: 2), "a bb\n  ccc\n  dddd\n")
        XCTAssertEqual(wrapped("short", width: 80, indent: 4), "short\n")
        XCTAssertEqual(wrapped("x averyveryverylongword y", width: 8, indent: 0), "x\naveryveryverylongword\ny\n")
        let help = helpText(
            overview: "o", usage: "u", options: [OptionSpec(name: "--a", valueName: nil, help: "one two three four five six")], width: 40)
        XCTAssertEqual(
            help,
            "OVERVIEW: o\n\nUSAGE: u\n\nOPTIONS:\n  --a                     one two three\n                          four five six\n  -h, --help              Show help\n                          information.\n"
        )
    }
}

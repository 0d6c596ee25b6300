import CairnExport
import Foundation
import XCTest

@testable import cairn

/// `--board` and the config's `board` line: one parser, errors naming the option or the line;
/// the option wins over the file.
final class BoardOptionsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-board-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return (error as? UsageError)?.message ?? (error as? Failure)?.message ?? "\(error)" }
        return "no error"
    }

    func conf(_ text: String) throws -> String {
        let path = dir + "/cairn.conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testTheOptionNamesItselfInItsError() throws {
        XCTAssertEqual(try SharedOptions.board("rpi4-3fa9c2"), "rpi4-3fa9c2")
        XCTAssertEqual(
            message { _ = try SharedOptions.board("a/b") },
            "The value 'a/b' is invalid for '--board <id>': a board id holds only letters, digits, '.', '_' and '-' (not '/')")
        XCTAssertEqual(
            message { _ = try SharedOptions.board("") }, "The value '' is invalid for '--board <id>': a board id must not be empty")
        XCTAssertEqual(
            message { _ = try SharedOptions.board("-x") },
            "The value '-x' is invalid for '--board <id>': a board id must not start with '.' or '-' (\"-x\")")
    }

    func testTheConfigLineAndTheOption() throws {
        let path = try conf("# the board\ngpsd = 127.0.0.1:2947\nboard = pi-north\n")
        let convert = { (args: [String]) throws -> String? in
            try ExportStageOptions.board(try parseArguments(args, options: ConvertCommand.options), defaultConfig: path)
        }
        XCTAssertEqual(try convert([]), "pi-north", "the default config's line")
        XCTAssertEqual(try convert(["--board", "given"]), "given", "the option wins")
        XCTAssertNil(try convert(["--config", "none"]))
        XCTAssertEqual(try convert(["--config", path]), "pi-north")
        let bad = try conf("gpsd = 127.0.0.1:2947\n\nboard = my board\n")
        XCTAssertEqual(
            message { _ = try convert(["--config", bad]) },
            "\(bad):3: board: a board id holds only letters, digits, '.', '_' and '-' (not ' ')")
        // The option is checked even when the file has a good one.
        XCTAssertEqual(
            message { _ = try convert(["--config", path, "--board", ".x"]) },
            "The value '.x' is invalid for '--board <id>': a board id must not start with '.' or '-' (\".x\")")
    }

    /// record, convert and export take it; convert and export from one spec.
    func testEveryCommandThatNamesTripsTakesIt() {
        XCTAssertEqual(RecordCommand.options.filter { $0.name == "--board" }.count, 1)
        XCTAssertTrue(RecordCommand.usage.contains("[--board <id>]"))
        for (options, usage) in [(ConvertCommand.options, ConvertCommand.usage), (ExportCommand.options, ExportCommand.usage)] {
            XCTAssertEqual(options.filter { $0.name == "--board" }.map(\.help), [SharedOptions.boardOption.help])
            XCTAssertTrue(usage.contains("[--board <id>]"), usage)
        }
    }
}

import CairnExport
import Foundation
import XCTest

@testable import cairn

/// The zones and key of every command that shows positions (`ExportStageOptions`): the
/// recorder's config by default for all of them, and no second key made without a word
/// (issue 27's attack: a mistyped `--privacy-key` or a read-only card made another key, whose
/// cut crossed the first near home).
final class ExportStageOptionsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-stage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func parsed(_ args: [String]) throws -> ParsedArguments { try parseArguments(args, options: ExportStageOptions.options) }

    func message(_ e: Error) -> String { (e as? Failure)?.message ?? (e as? UsageError)?.message ?? "\(e)" }

    func config(_ name: String, _ zone: String) throws -> String {
        let path = dir + "/" + name
        try "privacy-zone = \(zone)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testTheDefaultConfigsZonesApplyUnlessNone() throws {
        let conf = try config("cairn.conf", "47.3769,8.5417,300")
        let other = try config("other.conf", "46.1,7.2,200")
        let logs = dir + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        ExportStageOptions.ensureKey(directory: logs) { _ in }  // the recorder's
        let byDefault = try ExportStageOptions.parse(try parsed([]), logDirectory: logs, defaultConfig: conf)
        XCTAssertEqual(byDefault.zones.zones, [PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 300)], "--config absent: the default file")
        XCTAssertNotNil(byDefault.zones.key)
        XCTAssertTrue(try ExportStageOptions.parse(try parsed(["--config", "none"]), logDirectory: logs, defaultConfig: conf).zones.isEmpty)
        XCTAssertEqual(
            try ExportStageOptions.parse(try parsed(["--config", other]), logDirectory: logs, defaultConfig: conf).zones.zones,
            [PrivacyZone(lat: 46.1, lon: 7.2, radiusM: 200)], "--config FILE instead of the default")
        XCTAssertTrue(try ExportStageOptions.parse(try parsed([]), logDirectory: logs, defaultConfig: dir + "/absent.conf").zones.isEmpty)
        let both = try ExportStageOptions.zones(
            try parsed(["--privacy-zone", "1,2,100"]), logDirectory: logs, defaultConfig: conf)
        XCTAssertEqual(both.zones.count, 2, "the default config's zones and --privacy-zone both count")
        XCTAssertThrowsError(try ExportStageOptions.parse(try parsed(["--config", ""]), logDirectory: logs, defaultConfig: conf))
    }

    /// One `--config` option, from the shared spec, on every command that shows positions.
    func testEveryCommandThatShowsPositionsTakesTheConfig() {
        let commands: [any Command.Type] = [ConvertCommand.self, ExportCommand.self, RenderCommand.self, CellsCommand.self, InfoCommand.self]
        for c in commands {
            let configs = c.options.filter { $0.name == "--config" }
            XCTAssertEqual(configs.count, 1, c.name)
            XCTAssertTrue(configs.first?.help.contains("(default: /etc/cairn.conf when it exists") == true, c.name)
            XCTAssertTrue(c.usage.contains("[--config <file|none>]"), c.name)
        }
        XCTAssertEqual(ExportStageOptions.defaultConfig, "/etc/cairn.conf")
    }

    func testAnExplicitKeyThatDoesNotExistIsAnErrorAndNeverMade() throws {
        let missing = dir + "/typo-key"
        let a = try parsed(["--privacy-zone", "47.3769,8.5417,300", "--privacy-key", missing])
        XCTAssertThrowsError(try ExportStageOptions.parse(a, logDirectory: dir, defaultConfig: dir + "/absent.conf")) { e in
            XCTAssertTrue(message(e).contains("\(missing): no such privacy key"), message(e))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/privacy-key"), "nor one in the log directory")
    }

    /// Issue 38: a log directory without the board's key (logs copied off without it) got a new
    /// key from `export`, `info`, `render` or `cells`; now only the recorder makes one
    /// (`ensureKey`), and the others say how to bring the board's, never the user's key instead.
    func testALogDirectoryWithoutTheKeyIsAnErrorAndGetsNone() throws {
        let home = dir + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let saved = ProcessInfo.processInfo.environment["HOME"]
        setenv("HOME", home, 1)
        defer { if let saved { setenv("HOME", saved, 1) } else { unsetenv("HOME") } }
        let a = try parsed(["--privacy-zone", "47.3769,8.5417,300"])
        for logs in [dir, "/sys"] {
            XCTAssertThrowsError(try ExportStageOptions.parse(a, logDirectory: logs, defaultConfig: dir + "/absent.conf")) { e in
                XCTAssertTrue(message(e).contains("privacy zones need the board's privacy key, and there is none at \(logs)/privacy-key"), message(e))
                XCTAssertTrue(message(e).contains("--privacy-key FILE"), message(e))
                XCTAssertTrue(message(e).contains("cairn record"), message(e))
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/privacy-key"), "no key made in the log directory")
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/.config/cairn/privacy-key"), "no user's key made instead")
        // The recorder's part makes it once (0600), and keeps it.
        var said: [String] = []
        ExportStageOptions.ensureKey(directory: dir) { said.append($0) }
        let made = try Data(contentsOf: URL(fileURLWithPath: dir + "/privacy-key"))
        XCTAssertEqual(made.count, 16)
        XCTAssertEqual(said, ["made a new privacy key \(dir)/privacy-key (keep it: it places the zones' cuts; one board, one key)"])
        ExportStageOptions.ensureKey(directory: dir) { said.append($0) }
        XCTAssertEqual(said.count, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/privacy-key")), made)
        XCTAssertEqual(try ExportStageOptions.parse(a, logDirectory: dir, defaultConfig: dir + "/absent.conf").zones.key?.bytes, [UInt8](made))
        // A directory that cannot hold it: said, never thrown (the recorder records anyway).
        ExportStageOptions.ensureKey(directory: "/sys") { said.append($0) }
        XCTAssertEqual(said.count, 2)
        XCTAssertTrue(said.last?.contains("/sys/privacy-key") == true, said.last ?? "")
    }

    /// Issue 38: `convert` of logs away from the board (a laptop) with zones but without the
    /// board's key made a key of its own in ~/.config, silently: the same rides cut with two
    /// keys put home within 24 m. Now it is an error saying how to bring the key; no key is made.
    func testConvertWithoutTheBoardsKeyIsAnErrorAndMakesNoKey() throws {
        let home = dir + "/home", logs = dir + "/copied"
        for d in [home, logs] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        let saved = ProcessInfo.processInfo.environment["HOME"]
        setenv("HOME", home, 1)
        defer { if let saved { setenv("HOME", saved, 1) } else { unsetenv("HOME") } }
        let a = try parsed(["--privacy-zone", "47.3769,8.5417,300"])
        XCTAssertThrowsError(try ExportStageOptions.parse(a, inputs: [logs + "/00000001.cairn"], defaultConfig: dir + "/absent.conf")) { e in
            XCTAssertTrue(message(e).contains("privacy zones need the board's privacy key"), message(e))
            XCTAssertTrue(message(e).contains(logs + "/privacy-key"), message(e))
            XCTAssertTrue(message(e).contains("--privacy-key FILE"), message(e))
            XCTAssertTrue(message(e).contains("export --logs yes"), message(e))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/.config/cairn/privacy-key"), "no user's key made instead")
        XCTAssertFalse(FileManager.default.fileExists(atPath: logs + "/privacy-key"), "nor one beside the logs")
        // The board's key beside the logs is taken; without zones no key is needed.
        let board = [UInt8](repeating: 7, count: 16)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: logs + "/privacy-key", contents: Data(board), attributes: [.posixPermissions: 0o600]))
        let o = try ExportStageOptions.parse(a, inputs: [logs + "/00000001.cairn"], defaultConfig: dir + "/absent.conf")
        XCTAssertEqual(o.zones.key?.bytes, board)
        XCTAssertTrue(try ExportStageOptions.parse(try parsed([]), inputs: [home], defaultConfig: dir + "/absent.conf").zones.isEmpty)
    }

    /// attack-r20: `convert A/*.cairn B/*.cairn` cut B's rides with A's key, silently: two
    /// boards' (or cards') logs given together, B's rides then a second cut of B's home. Inputs
    /// whose directories hold different keys are an error naming both; the same key, or an
    /// input without one beside it, is as before.
    func testInputsBesideTwoDifferentKeysAreAnError() throws {
        let a = dir + "/a", b = dir + "/b", c = dir + "/c", bare = dir + "/bare"
        for d in [a, b, c, bare] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        for (d, byte) in [(a, UInt8(7)), (b, 9), (c, 7)] {
            XCTAssertTrue(
                FileManager.default.createFile(
                    atPath: d + "/privacy-key", contents: Data(repeating: byte, count: 16), attributes: [.posixPermissions: 0o600]))
        }
        let zone = try parsed(["--privacy-zone", "47.3769,8.5417,300"])
        let absent = dir + "/absent.conf"
        XCTAssertThrowsError(
            try ExportStageOptions.parse(zone, inputs: [a + "/00000001.cairn", b + "/00000001.cairn"], defaultConfig: absent)
        ) { e in
            XCTAssertTrue(message(e).contains("\(a)/privacy-key and \(b)/privacy-key are two different privacy keys"), message(e))
            XCTAssertTrue(message(e).contains("--privacy-key FILE"), message(e))
        }
        XCTAssertThrowsError(try ExportStageOptions.parse(zone, inputs: [c, a, b], defaultConfig: absent), "any two that differ")
        for inputs in [[a + "/00000001.cairn", c + "/00000002.cairn"], [a, bare], [a + "/1.cairn", a + "/2.cairn"]] {
            XCTAssertEqual(
                try ExportStageOptions.parse(zone, inputs: inputs, defaultConfig: absent).zones.key?.bytes, [UInt8](repeating: 7, count: 16))
        }
        // The key given outright wins; without zones no key is read at all.
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: dir + "/given", contents: Data(repeating: 9, count: 16), attributes: [.posixPermissions: 0o600]))
        let given = try parsed(["--privacy-zone", "47.3769,8.5417,300", "--privacy-key", dir + "/given"])
        XCTAssertEqual(try ExportStageOptions.parse(given, inputs: [a, b], defaultConfig: absent).zones.key?.bytes, [UInt8](repeating: 9, count: 16))
        XCTAssertTrue(try ExportStageOptions.parse(try parsed([]), inputs: [a, b], defaultConfig: absent).zones.isEmpty)
    }
}

import XCTest

@testable import cairn

/// The config's `sensor` lines: one per sensor, all kept, any on the command line winning over
/// all of them.
final class SensorOptionsTests: XCTestCase {
    func merged(_ text: String, _ args: [String] = []) throws -> (ParsedArguments, [String: String]) {
        let file = try ConfigFile(path: "/etc/cairn.conf", text: text, options: RecordCommand.options)
        var a = try parseArguments(args, options: RecordCommand.options)
        let origin = file.merge(into: &a)
        return (a, origin)
    }

    func testEverySensorLineIsKept() throws {
        let (a, origin) = try merged("sensor = C0:FF:EE:00:00:01 random\ndir = /x\nsensor = C0:FF:EE:00:00:02\n")
        XCTAssertEqual(a.all("--sensor"), ["C0:FF:EE:00:00:01 random", "C0:FF:EE:00:00:02"])
        XCTAssertEqual(origin["--sensor"], "/etc/cairn.conf:1,3")
    }

    func testTheCommandLineWins() throws {
        let (a, _) = try merged("sensor = C0:FF:EE:00:00:01\nsensor = C0:FF:EE:00:00:02\n", ["--sensor", "AA:BB:CC:DD:EE:FF"])
        XCTAssertEqual(a.all("--sensor"), ["AA:BB:CC:DD:EE:FF"])
    }

    func testOtherKeysStillMayNotRepeat() {
        XCTAssertThrowsError(try merged("dir = /a\ndir = /b\n"))
    }
}

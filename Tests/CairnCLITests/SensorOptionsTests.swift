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

    /// One sensor twice (audit of issue 40: `sensor = AA:..` and `sensor = aa:.. random` were
    /// both taken, two links to one sensor): an error naming the option and the file's lines.
    func testASensorGivenTwiceIsAnError() throws {
        let (a, origin) = try merged("sensor = C0:FF:EE:00:00:01\nsensor = c0:ff:ee:00:00:01 random\n")
        XCTAssertThrowsError(
            try RecordCommand.sensorList(a.all("--sensor")) { UsageError(inFile: origin["--sensor"]! + ": " + $0) }
        ) { e in
            XCTAssertEqual(
                (e as? UsageError)?.message,
                "/etc/cairn.conf:1,2: The value 'c0:ff:ee:00:00:01 random' is invalid for '--sensor <address>': "
                    + "the sensor C0:FF:EE:00:00:01 is given twice (one sensor line each)")
        }
        let two = try RecordCommand.sensorList(["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02 random"]) { UsageError($0) }
        XCTAssertEqual(two.map(\.description), ["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02 random"])
        XCTAssertThrowsError(try RecordCommand.sensorList(["C0:FF:EE"]) { UsageError($0) })
    }

    func testOtherKeysStillMayNotRepeat() {
        XCTAssertThrowsError(try merged("dir = /a\ndir = /b\n"))
    }
}

import Foundation
import XCTest

@testable import CairnDevice

/// `record --timezone auto` reads /etc/localtime: missing means UTC; there but unusable means no
/// offset recorded, with the reason (the recorder says it once and records on). Never a hang,
/// never a stop.
final class LocalZoneTests: XCTestCase {
    func dir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-tz-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func reason(_ path: String) -> String? {
        if case .unusable(let why) = TimeZoneFile.local(path) { return why }
        return nil
    }

    func testMissingIsUTCAndAZoneFileIsRead() throws {
        let d = dir()
        guard case .utc = TimeZoneFile.local(d + "/localtime") else { return XCTFail("a missing file is UTC") }
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Zurich", toPath: d + "/localtime")
        guard case .zone(let z) = TimeZoneFile.local(d + "/localtime") else { return XCTFail("a zone file is read") }
        XCTAssertEqual(z.offset(atUnixMs: 1_751_371_200_000), 7200)  // 2025-07-01T12:00Z: CEST
    }

    func testUnusableFilesGiveTheirReasonAndNeverHang() throws {
        let d = dir()
        // A directory, a FIFO with no writer, an empty file, text, a TZif cut short, a device.
        try FileManager.default.createDirectory(atPath: d + "/dir", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(d + "/fifo", 0o644), 0)
        _ = FileManager.default.createFile(atPath: d + "/empty", contents: Data())
        _ = FileManager.default.createFile(atPath: d + "/text", contents: Data("Europe/Zurich\n".utf8))
        let zurich = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Zurich"))
        _ = FileManager.default.createFile(atPath: d + "/cut", contents: zurich.prefix(60))
        let start = Date()
        for (name, needle) in [("dir", "Is a directory"), ("fifo", "not a TZif zone file"), ("empty", "not a TZif zone file"),
                               ("text", "no TZif magic"), ("cut", "not a TZif zone file")] {
            let why = reason(d + "/" + name)
            XCTAssertNotNil(why, name)
            XCTAssertTrue(why?.contains(d + "/" + name) == true, "names the file: \(why ?? "")")
            XCTAssertTrue(why?.contains(needle) == true, "\(name): \(why ?? "")")
        }
        XCTAssertTrue(reason("/dev/zero")?.contains("over 1 MiB") == true, "an endless device is given up on")
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "nothing blocks")
        // Unreadable: only for a user the permission applies to (root reads it anyway).
        if geteuid() != 0 {
            try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Zurich", toPath: d + "/locked")
            chmod(d + "/locked", 0)
            XCTAssertTrue(reason(d + "/locked")?.contains("Permission denied") == true)
        }
    }
}

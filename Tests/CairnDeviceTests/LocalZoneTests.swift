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

    /// /etc/localtime a link to a zone file that is not there (tzdata removed, a zone renamed):
    /// the link names a zone, so it is unusable (no offset recorded), not UTC. It used to record
    /// +00:00 for every trip, a local time off by the rider's offset.
    func testALinkToAMissingZoneIsUnusableNotUTC() throws {
        let d = dir()
        try FileManager.default.createSymbolicLink(atPath: d + "/localtime", withDestinationPath: d + "/zoneinfo/Europe/Zurich")
        let why = reason(d + "/localtime")
        XCTAssertNotNil(why, "a dangling link is not UTC")
        XCTAssertTrue(why?.contains("zoneinfo/Europe/Zurich") == true && why?.contains("does not exist") == true, why ?? "")
    }

    /// Zones of odd offsets, a TZif without transitions, a version-1 file and one with leap
    /// seconds read as the C library reads them.
    func testOddZonesAndFilesWithoutTransitions() throws {
        let july = Int64(1_751_371_200_000)  // 2025-07-01T12:00Z
        let jan = Int64(1_735_732_800_000)  // 2025-01-01T12:00Z
        for (zone, summer, winter) in [
            ("Asia/Kathmandu", 20700, 20700), ("Australia/Lord_Howe", 37800, 39600),
            ("America/St_Johns", -9000, -12600), ("right/Europe/Zurich", 7200, 3600)
        ] {
            let path = "/usr/share/zoneinfo/" + zone
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let z = try TimeZoneFile.load(path)
            XCTAssertEqual(z.offset(atUnixMs: july), summer, zone)
            XCTAssertEqual(z.offset(atUnixMs: jan), winter, zone)
        }
        // Version 1, no transitions, one type of +05:45; and version 2 with a footer of +05:45.
        func tzif(version: UInt8, footer: String?) -> [UInt8] {
            func be32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
            func block() -> [UInt8] {
                var b = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
                for c in [0, 0, 0, 0, 1, 4] as [Int32] { b += be32(c) }  // isut, isstd, leap, time, type, char
                return b + be32(20700) + [0, 0] + Array("+0545".utf8.prefix(3)) + [0]
            }
            var b = block()
            if version >= 0x32 { b += block() + Array("\n\(footer ?? "")\n".utf8) }
            return b
        }
        let d = dir()
        for (name, bytes) in [
            ("v1", tzif(version: 0, footer: nil)), ("v2", tzif(version: 0x32, footer: "<+0545>-5:45")),
            ("v2-empty-footer", tzif(version: 0x32, footer: ""))
        ] {
            _ = FileManager.default.createFile(atPath: d + "/" + name, contents: Data(bytes))
            let z = try TimeZoneFile.load(d + "/" + name)
            XCTAssertEqual(z.offset(atUnixMs: july), 20700, name)
            XCTAssertEqual(z.offset(atUnixMs: 0), 20700, name)
            XCTAssertEqual(z.offset(atUnixMs: 4_294_967_296_000), 20700, name)  // 2106
        }
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
        for (name, needle) in [
            ("dir", "Is a directory"), ("fifo", "not a TZif zone file"), ("empty", "not a TZif zone file"),
            ("text", "no TZif magic"), ("cut", "not a TZif zone file")
        ] {
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

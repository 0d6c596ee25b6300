import XCTest
import Foundation
@testable import CairnDevice

/// TZif zone files as Debian ships them (tzdata), read by cairn's own parser.
final class TimeZoneFileTests: XCTestCase {
    func ms(_ iso: String) -> Int64 {
        let f = ISO8601DateFormatter()
        return Int64(f.date(from: iso)!.timeIntervalSince1970 * 1000)
    }

    func testDebianZoneFilesGiveTheirOffsets() throws {
        let zurich = try TimeZoneFile.load("/usr/share/zoneinfo/Europe/Zurich")
        XCTAssertEqual(zurich.offset(atUnixMs: ms("2025-06-01T08:00:00Z")), 7200, "summer time")
        XCTAssertEqual(zurich.offset(atUnixMs: ms("2025-01-15T08:00:00Z")), 3600)
        XCTAssertEqual(zurich.offset(atUnixMs: ms("2025-03-30T00:59:59Z")), 3600, "the second before the switch")
        XCTAssertEqual(zurich.offset(atUnixMs: ms("2025-03-30T01:00:00Z")), 7200, "the switch, 01:00 UTC")
        let ny = try TimeZoneFile.load("/usr/share/zoneinfo/America/New_York")
        XCTAssertEqual(ny.offset(atUnixMs: ms("2025-07-04T16:00:00Z")), -14_400)
        XCTAssertEqual(ny.offset(atUnixMs: ms("2025-12-24T16:00:00Z")), -18_000)
        let kathmandu = try TimeZoneFile.load("/usr/share/zoneinfo/Asia/Kathmandu")
        XCTAssertEqual(kathmandu.offset(atUnixMs: ms("2025-06-01T08:00:00Z")), 20_700)
        XCTAssertEqual(kathmandu.offset(atUnixMs: ms("2090-06-01T08:00:00Z")), 20_700, "past the last transition: the footer's fixed +05:45")
        let utc = try TimeZoneFile.load("/usr/share/zoneinfo/Etc/UTC")
        XCTAssertEqual(utc.offset(atUnixMs: ms("2025-06-01T08:00:00Z")), 0)
        XCTAssertEqual(TimeZoneFile.fixedOffset(posixTZ: Array("<+0545>-5:45".utf8)), 20_700)
        XCTAssertEqual(TimeZoneFile.fixedOffset(posixTZ: Array("EST5".utf8)), -18_000)
        XCTAssertNil(TimeZoneFile.fixedOffset(posixTZ: Array("CET-1CEST,M3.5.0,M10.5.0/3".utf8)))
    }

    func testWhatIsNoZoneFileIsAnErrorNamingTheFile() throws {
        let dir = NSTemporaryDirectory() + "tz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Zurich"))
        for (name, bytes) in [
            ("text", Data("Europe/Zurich\n".utf8)), ("empty", Data()), ("cut", good.prefix(200)),
            ("header", good.prefix(44))
        ] {
            let p = dir + "/" + name
            try bytes.write(to: URL(fileURLWithPath: p))
            XCTAssertThrowsError(try TimeZoneFile.load(p), name) { e in
                XCTAssertTrue("\(e)".hasPrefix(p + ": not a TZif zone file"), "\(e)")
            }
        }
        XCTAssertThrowsError(try TimeZoneFile.load(dir + "/missing")) { e in XCTAssertTrue("\(e)".contains("No such file"), "\(e)") }
    }
}

import CairnDevice
import Foundation
import XCTest

/// The kernel's boot id, which tells a recorder restart from a power cut (issue 40).
final class BootIdTests: XCTestCase {
    func testTheBootIdIsReadOnceAndTheSameEachTime() throws {
        let id = try XCTUnwrap(SystemClock.bootId(), "Linux has /proc/sys/kernel/random/boot_id")
        XCTAssertEqual(id.count, 36)
        XCTAssertEqual(SystemClock.bootId(), id)
    }

    func testAMissingOrMalformedBootIdIsNone() throws {
        XCTAssertNil(SystemClock.bootId(path: "/nonexistent/boot_id"))
        let path = NSTemporaryDirectory() + "boot_id-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "not a uuid\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNil(SystemClock.bootId(path: path))
        try "7494aef7-b191-4125-8d38-aa24a270e73f\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(SystemClock.bootId(path: path), "7494aef7-b191-4125-8d38-aa24a270e73f")
    }
}

import Foundation
import XCTest

@testable import CairnSystem

/// The privacy key's file: made once with mode 0600, read back whole, never silently replaced.
final class SecretFileTests: XCTestCase {
    func testMadeOnceReadBackAndDamageNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-secret-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/privacy-key"
        XCTAssertNil(try SecretFile.read(path, count: 16))
        let made = try SecretFile.create(path, count: 16)
        XCTAssertTrue(made.created)
        XCTAssertEqual(made.bytes.count, 16)
        XCTAssertEqual(try SecretFile.read(path, count: 16), made.bytes)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        // A second maker finds the first one's key.
        let second = try SecretFile.create(path, count: 16)
        XCTAssertFalse(second.created)
        XCTAssertEqual(second.bytes, made.bytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["privacy-key"], "no temporary file left")
        XCTAssertNotEqual(SecretFile.randomBytes(16), SecretFile.randomBytes(16))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try SecretFile.read(path, count: 16)) { e in
            XCTAssertTrue("\(e)".contains("\(path): not a privacy key (3 bytes"), "\(e)")
        }
    }
}

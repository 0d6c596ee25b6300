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

    /// A FIFO named as the key blocked `convert` forever (issue 27's attack); a directory or
    /// device is no key either. Each is refused at once, naming the file.
    func testOnlyARegularFileIsAKeyAndAFIFODoesNotBlock() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-secret-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fifo = dir + "/privacy-key"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let started = Date()
        XCTAssertThrowsError(try SecretFile.read(fifo, count: 16)) { e in
            XCTAssertTrue("\(e)".contains("\(fifo): not a privacy key (not a regular file)"), "\(e)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertThrowsError(try SecretFile.create(fifo, count: 16), "a FIFO is not replaced by a key either")
        for other in [dir, "/dev/null"] {
            XCTAssertThrowsError(try SecretFile.read(other, count: 16)) { e in
                XCTAssertTrue("\(e)".contains("not a privacy key"), "\(e)")
            }
        }
    }

    /// A key its group or others can read is said (the caller warns), an owner-only one not.
    func testAKeyOthersMayReadIsFlagged() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-secret-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/privacy-key"
        _ = try SecretFile.create(path, count: 16)
        XCTAssertEqual(try SecretFile.readChecked(path, count: 16)?.othersMayRead, false)
        for mode in [0o640, 0o604, 0o644] {
            XCTAssertEqual(chmod(path, mode_t(mode)), 0)
            XCTAssertEqual(try SecretFile.readChecked(path, count: 16)?.othersMayRead, true, String(mode, radix: 8))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

final class POSIXTests: XCTestCase {
    func testPaths() {
        XCTAssertEqual(POSIX.join("", "a"), "a")
        XCTAssertEqual(POSIX.join("d", "a"), "d/a")
        XCTAssertEqual(POSIX.join("d/", "a"), "d/a")
        XCTAssertEqual(POSIX.join("/", "a"), "/a")
        XCTAssertEqual(POSIX.parent(of: "a"), ".")
        XCTAssertEqual(POSIX.parent(of: "/a"), "/")
        XCTAssertEqual(POSIX.parent(of: "d/e/a"), "d/e")
    }

    func testWriteReadAndSync() throws {
        let dir = "/tmp/cairn-system-\(getpid())"
        mkdir(dir, 0o755)
        defer { _ = unlink(dir + "/f"); _ = rmdir(dir) }
        XCTAssertTrue(POSIX.isDirectory(dir))
        XCTAssertFalse(POSIX.isDirectory(dir + "/f"))
        let fd = try POSIX.open(dir + "/f", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        defer { POSIX.close(fd) }
        XCTAssertThrowsError(try POSIX.open(dir + "/f", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)) {
            XCTAssertEqual($0 as? Errno, .fileExists)
        }
        let text = Array(repeating: Array("cairn\n".utf8), count: 5000).flatMap { $0 }
        try text.withUnsafeBytes { try POSIX.writeAll(fd, $0) }
        try Array("CAIRN".utf8).withUnsafeBytes { try POSIX.writeAll(fd, $0, at: 6) }
        var back = [UInt8](repeating: 0, count: text.count + 10)
        let n = try back.withUnsafeMutableBytes { try POSIX.readFully(fd, into: $0, at: 0) }
        XCTAssertEqual(n, text.count)
        XCTAssertEqual(Array(back[0..<12]), Array("cairn\nCAIRN\n".utf8))
        lseek(fd, 0, SEEK_SET)
        XCTAssertEqual(try POSIX.readToEnd(fd, limit: 1 << 20).count, text.count)
        lseek(fd, 0, SEEK_SET)
        XCTAssertGreaterThan(try POSIX.readToEnd(fd, limit: 100).count, 100)  // over the limit: the caller can tell
        XCTAssertNoThrow(try POSIX.syncDirectory(dir))
        XCTAssertThrowsError(try POSIX.syncDirectory(dir + "/missing")) { e in
            guard case .open(let code)? = e as? POSIX.DirectorySyncError else { return XCTFail("\(e)") }
            XCTAssertEqual(code, .noSuchFile)
        }
    }

    func testFileSystemMagic() throws {
        XCTAssertEqual(try POSIX.fileSystemMagic("/proc"), 0x9FA0)  // PROC_SUPER_MAGIC
        XCTAssertThrowsError(try POSIX.fileSystemMagic("/no-such-dir-\(getpid())")) { XCTAssertEqual($0 as? Errno, .noSuchFile) }
    }
}

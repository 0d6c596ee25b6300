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

    func testDirectoriesNamesAndLinks() throws {
        let dir = "/tmp/cairn-posix-names-\(getpid())"
        try POSIX.makeDirectory(dir)
        try POSIX.makeDirectory(dir)  // there already: fine
        XCTAssertThrowsError(try POSIX.makeDirectory(dir, existingIsFine: false)) { XCTAssertEqual($0 as? Errno, .fileExists) }
        defer {
            for n in (try? POSIX.listDirectory(dir)) ?? [] { POSIX.unlink(POSIX.join(dir, n)) }
            rmdir(dir)
        }
        XCTAssertEqual(try POSIX.listDirectory(dir), [])
        XCTAssertThrowsError(try POSIX.listDirectory(dir + "/none")) { XCTAssertEqual($0 as? Errno, .noSuchFile) }
        let a = POSIX.join(dir, "a"), b = POSIX.join(dir, "b"), l = POSIX.join(dir, "l")
        let fd = try POSIX.open(a, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try POSIX.writeAll(fd, Array("abc".utf8))
        try POSIX.fsync(fd)
        try POSIX.fdatasync(fd)
        try POSIX.truncate(fd, to: 2)
        XCTAssertEqual(try POSIX.status(fd).st_size, 2)
        POSIX.close(fd)
        try POSIX.link(a, b)
        XCTAssertThrowsError(try POSIX.link(a, b)) { XCTAssertEqual($0 as? Errno, .fileExists) }
        XCTAssertEqual(try POSIX.status(a).st_nlink, 2)
        XCTAssertNil(POSIX.unlink(b))
        XCTAssertEqual(POSIX.unlink(b), .noSuchFile)
        try POSIX.rename(a, b)
        XCTAssertFalse(POSIX.exists(a))
        XCTAssertTrue(POSIX.exists(b))
        XCTAssertEqual(symlink("b", l), 0)
        XCTAssertEqual(try POSIX.readLink(l), "b")
        XCTAssertEqual(try POSIX.status(l, followLinks: false).st_mode & S_IFMT, S_IFLNK)
        XCTAssertEqual(try POSIX.status(l).st_mode & S_IFMT, S_IFREG)
        XCTAssertEqual(Set(try POSIX.listDirectory(dir)), ["b", "l"])
        XCTAssertNoThrow(try POSIX.checkAccess(dir, W_OK | X_OK))
        XCTAssertThrowsError(try POSIX.checkAccess(a, F_OK)) { XCTAssertEqual($0 as? Errno, .noSuchFile) }
    }
}

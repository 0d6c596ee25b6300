#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

/// The file calls beside open, read and write: locks, temporary files, offsets, paths.
final class FileCallTests: XCTestCase {
    /// A second exclusive lock on the same file through another open file is refused at once
    /// with `.wouldBlock`, which `DirectoryLock` reports as "another recorder".
    func testLockExclusivelyRefusesASecondHolderWithWouldBlock() throws {
        let path = "/tmp/cairn-lock-\(POSIX.processID)-\(UInt32.random(in: 0 ... .max))"
        defer { POSIX.unlink(path) }
        let a = try POSIX.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        let b = try POSIX.open(path, O_RDWR | O_CLOEXEC)
        defer {
            POSIX.close(a)
            POSIX.close(b)
        }
        try POSIX.lockExclusively(a)
        XCTAssertThrowsError(try POSIX.lockExclusively(b)) { XCTAssertEqual($0 as? Errno, .wouldBlock) }
    }

    /// The temporary file is new, 0600, named from the prefix, and its descriptor does not
    /// reach a program cairn starts (close-on-exec); a missing directory is `.noSuchFile`.
    func testMakeTemporaryFile() throws {
        let t = try POSIX.makeTemporaryFile(prefix: "/tmp/cairn-spool-test-")
        defer {
            POSIX.close(t.fd)
            POSIX.unlink(t.path)
        }
        XCTAssertTrue(t.path.hasPrefix("/tmp/cairn-spool-test-"))
        XCTAssertEqual(t.path.utf8.count, "/tmp/cairn-spool-test-".utf8.count + 6)
        XCTAssertEqual(try POSIX.status(t.path).st_mode & 0o777, 0o600)
        XCTAssertEqual(fcntl(t.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
        XCTAssertThrowsError(try POSIX.makeTemporaryFile(prefix: "/nonexistent-cairn/x-")) { XCTAssertEqual($0 as? Errno, .noSuchFile) }
    }

    /// One pwrite at an offset, then a seek back: what a FIT header rewrite and a spool's rewind do.
    func testWriteAtAndSeek() throws {
        let t = try POSIX.makeTemporaryFile(prefix: "/tmp/cairn-write-at-")
        defer {
            POSIX.close(t.fd)
            POSIX.unlink(t.path)
        }
        try POSIX.writeAll(t.fd, Array("abcdef".utf8))
        let n = try Array("XY".utf8).withUnsafeBytes { try POSIX.write(t.fd, $0, at: 2) }
        XCTAssertEqual(n, 2)
        XCTAssertEqual(try POSIX.seek(t.fd, to: 0), 0)
        XCTAssertEqual(try POSIX.readToEnd(t.fd, limit: 100), Array("abXYef".utf8))
    }

    /// `realPath` resolves a link; a missing path is `.noSuchFile`; the working directory is
    /// its own real path.
    func testRealPathAndCurrentDirectory() throws {
        let link = "/tmp/cairn-realpath-\(POSIX.processID)"
        POSIX.unlink(link)
        XCTAssertEqual(symlink("/tmp", link), 0)
        defer { POSIX.unlink(link) }
        XCTAssertEqual(try POSIX.realPath(link), try POSIX.realPath("/tmp"))
        XCTAssertThrowsError(try POSIX.realPath("/nonexistent-cairn")) { XCTAssertEqual($0 as? Errno, .noSuchFile) }
        XCTAssertEqual(try POSIX.currentDirectory(), try POSIX.realPath("."))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

final class ErrnoTests: XCTestCase {
    func testNameAndText() {
        XCTAssertEqual(Errno.noSpace.name, "ENOSPC")
        XCTAssertEqual(Errno.noSpace.text, "No space left on device")
        XCTAssertEqual("\(Errno.noSpace)", "No space left on device (ENOSPC)")
        XCTAssertEqual("\(Errno(rawValue: EINTR))", "Interrupted system call (EINTR)")
        // A value without a name is its text alone.
        XCTAssertNil(Errno(rawValue: EXDEV).name)
        XCTAssertEqual("\(Errno(rawValue: EXDEV))", Errno(rawValue: EXDEV).text)
    }
}

final class SystemCallTests: XCTestCase {
    func testInterruptedCallsAreRetriedAndOtherFailuresReturned() {
        var calls = 0
        let r = valueOrErrno { () -> Int32 in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        XCTAssertEqual(try r.get(), 7)
        XCTAssertEqual(calls, 3)

        calls = 0
        let once = valueOrErrno(retryOnInterrupt: false) { () -> Int32 in calls += 1; errno = EINTR; return -1 }
        XCTAssertEqual(calls, 1)
        XCTAssertThrowsError(try once.get()) { XCTAssertEqual($0 as? Errno, .interrupted) }

        let full = valueOrErrno { () -> Int in errno = ENOSPC; return -1 }
        XCTAssertThrowsError(try full.get()) { XCTAssertEqual($0 as? Errno, .noSpace) }
    }

    func testNegatedErrnoCalls() {
        var calls = 0
        let r = valueOrNegatedErrno { calls += 1; return calls < 2 ? -Int(EINTR) : 5 }
        XCTAssertEqual(try r.get(), 5)
        XCTAssertEqual(calls, 2)
        XCTAssertThrowsError(try valueOrNegatedErrno { -Int(EIO) }.get()) { XCTAssertEqual($0 as? Errno, .ioError) }
    }
}

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

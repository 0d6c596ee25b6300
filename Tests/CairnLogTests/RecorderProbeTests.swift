import Foundation
import XCTest

@testable import CairnLog

/// `DirectoryLock.recorder(in:)`: whether a recorder holds a directory's lock and which files it
/// has open, found without taking the lock.
final class RecorderProbeTests: XCTestCase {
    func testLockTableLines() {
        let table = """
            1: POSIX  ADVISORY  WRITE 6904 fe:00:16220852 0 EOF
            2: FLOCK  ADVISORY  READ 8000 fe:00:42 0 EOF
            3: FLOCK  ADVISORY  WRITE 8231 fe:00:42 0 EOF
            3: -> FLOCK  ADVISORY  WRITE 9999 fe:00:42 0 EOF
            4: FLOCK  ADVISORY  WRITE 1234 103:02:42 0 EOF
            """
        XCTAssertEqual(DirectoryLock.holder(in: table, major: 0xfe, minor: 0, inode: 42), 8231)
        XCTAssertEqual(DirectoryLock.holder(in: table, major: 0x103, minor: 2, inode: 42), 1234)
        XCTAssertNil(DirectoryLock.holder(in: table, major: 0xfe, minor: 0, inode: 43))
        XCTAssertNil(DirectoryLock.holder(in: "garbage\n1: FLOCK\n", major: 0xfe, minor: 0, inode: 42))
    }

    func testProbeSeesTheHolderAndItsFiles() throws {
        let dir = NSTemporaryDirectory() + "cairn-probe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(DirectoryLock.recorder(in: dir), .absent, "no lock file")
        let log = dir + "/00000001.cairn"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: Data([1])))
        var lock: DirectoryLock? = try DirectoryLock(directory: dir)
        let fd = open(log, O_WRONLY | O_CLOEXEC)
        defer { close(fd) }
        guard case .running(let pid, let files, let since) = DirectoryLock.recorder(in: dir) else {
            return XCTFail("the lock is held: \(DirectoryLock.recorder(in: dir))")
        }
        XCTAssertEqual(pid, getpid())
        XCTAssertNotNil(since)
        XCTAssertEqual(files?.contains(DirectoryLock.FileKey(path: log)!), true)
        withExtendedLifetime(lock) {}
        lock = nil
        XCTAssertEqual(DirectoryLock.recorder(in: dir), .absent, "released: no recorder")
        // The probe never took the lock: a recorder can still start.
        XCTAssertNoThrow(try DirectoryLock(directory: dir))
    }
}

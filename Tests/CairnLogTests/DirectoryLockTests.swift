import CairnSystem
import Foundation
import XCTest

@testable import CairnLog

final class DirectoryLockTests: LogTestCase {
    /// The calls a lock makes, in order: "open", "truncate", "write", "fsync", "syncDirectory".
    final class Calls: @unchecked Sendable {
        let lock = NSLock()
        var names: [String] = []
        func add(_ n: String) {
            lock.lock()
            names.append(n)
            lock.unlock()
        }
    }

    func recording(_ calls: Calls) -> FileIO {
        FileIO(
            open: { p, f, m throws(Errno) in
                calls.add("open"); return try POSIX.open(p, f, m)
            },
            write: { fd, b, o throws(Errno) in
                calls.add("write"); return try FileIO.pwrite(fd, b, o)
            },
            fdatasync: { fd throws(Errno) in
                calls.add("fdatasync"); try FileIO.system.fdatasync(fd)
            },
            fsync: { fd throws(Errno) in
                calls.add("fsync"); try FileIO.system.fsync(fd)
            },
            truncate: { fd, n throws(Errno) in
                calls.add("truncate"); try FileIO.system.truncate(fd, n)
            },
            syncDirectory: { d throws(POSIX.DirectorySyncError) in
                calls.add("syncDirectory"); try POSIX.syncDirectory(d)
            })
    }

    /// A power cut on a FAT card soon after a start left `.cairn.lock` with a directory entry
    /// pointing at a cluster the FAT still called free (Tests/crash/RESULTS.md, the board in a
    /// box): the PID write was never synced. The lock file and its entry are synced once, at
    /// the start, after the PID is written.
    func testTheLockFileIsSyncedAfterThePIDIsWritten() throws {
        let calls = Calls()
        let lock = try DirectoryLock(directory: dir, io: recording(calls))
        XCTAssertEqual(calls.names, ["open", "truncate", "write", "fsync", "syncDirectory"])
        XCTAssertEqual(String(decoding: try bytes(lock.path), as: UTF8.self), "\(getpid())\n")
    }

    func testALockFileLeftByACutNeverBlocksAStart() throws {
        // What fsck.vfat leaves (the file truncated to 0 bytes), and a dead recorder's PID.
        for left in [[], Array("4194304\n".utf8), [0xFF, 0x00, 0x31]] as [[UInt8]] {
            try put(left, DirectoryLock.fileName)
            let lock = try DirectoryLock(directory: dir)
            XCTAssertEqual(String(decoding: try bytes(lock.path), as: UTF8.self), "\(getpid())\n")
        }
    }

    func testASecondLockIsRefusedNamingTheHolder() throws {
        let first = try DirectoryLock(directory: dir)
        XCTAssertThrowsError(try DirectoryLock(directory: dir)) { e in
            guard case .held(_, let holder)? = e as? DirectoryLock.Failure else { return XCTFail("\(e)") }
            XCTAssertEqual(holder, "\(getpid())")
        }
        withExtendedLifetime(first) {}
    }
}

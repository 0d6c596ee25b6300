#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
@testable import CairnLog

final class SyncPaddingTests: XCTestCase {
    func testPaddingFollowsTheFileSystem() {
        // procfs is no file system cairn knows: padded, as an unknown card would be.
        XCTAssertEqual(SyncPadding.forDirectory("/proc").bytes, 512)
        // A directory not created yet is judged by its nearest existing ancestor.
        let root = SyncPadding.forDirectory("/")
        XCTAssertEqual(SyncPadding.forDirectory("/no-such-dir-\(getpid())/a/b").fileSystem, root.fileSystem)
        let shm = SyncPadding.forDirectory("/dev/shm")
        XCTAssertEqual(shm.fileSystem, "tmpfs")
        XCTAssertEqual(shm.bytes, 0)
    }
}

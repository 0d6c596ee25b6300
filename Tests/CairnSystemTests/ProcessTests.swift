#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

final class ProcessTests: XCTestCase {
    /// A PID no process has is gone (ESRCH); this process is not.
    func testAPidNoProcessHasIsGoneAndThisOneIsNot() {
        XCTAssertFalse(POSIX.processIsGone(POSIX.processID))
        XCTAssertTrue(POSIX.processIsGone(Int32.max))
        XCTAssertEqual(POSIX.sendSignal(0, to: Int32.max), Errno(rawValue: ESRCH))
    }

    func testEnvironmentGivesAValueOrNilWhenUnset() {
        setenv("CAIRN_TEST_VARIABLE", "value", 1)
        XCTAssertEqual(POSIX.environment("CAIRN_TEST_VARIABLE"), "value")
        unsetenv("CAIRN_TEST_VARIABLE")
        XCTAssertNil(POSIX.environment("CAIRN_TEST_VARIABLE"))
    }
}

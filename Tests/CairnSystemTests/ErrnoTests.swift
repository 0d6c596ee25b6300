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

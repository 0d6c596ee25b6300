#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

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
        let once = valueOrErrno(retryOnInterrupt: false) { () -> Int32 in
            calls += 1; errno = EINTR; return -1
        }
        XCTAssertEqual(calls, 1)
        XCTAssertThrowsError(try once.get()) { XCTAssertEqual($0 as? Errno, .interrupted) }

        let full = valueOrErrno { () -> Int in
            errno = ENOSPC; return -1
        }
        XCTAssertThrowsError(try full.get()) { XCTAssertEqual($0 as? Errno, .noSpace) }
    }

    func testRetryingInterruptsRetriesOnlyEINTR() {
        var calls = 0
        XCTAssertEqual(
            try retryingInterrupts { () throws(Errno) -> Int in
                calls += 1
                if calls < 2 { throw .interrupted }
                return 5
            }, 5)
        XCTAssertEqual(calls, 2)
        XCTAssertThrowsError(try retryingInterrupts { () throws(Errno) -> Int in throw .ioError }) { XCTAssertEqual($0 as? Errno, .ioError) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

// The pipe the test's SIGALRM handler wakes (a handler may touch only C-compatible globals).
nonisolated(unsafe) private var alarmWakeFd: Int32 = -1

final class SignalsAndSocketsTests: XCTestCase {
    /// A handler installed by `Signals.handle` has no SA_RESTART: the signal ends `POSIX.poll`
    /// with EINTR, thrown as `.interrupted` (not retried), and the byte `Signals.wake` wrote
    /// from the handler then makes the pipe readable.
    func testASignalEndsPollWithInterruptedAndWakeMakesThePipeReadable() throws {
        let p = try POSIX.makePipe(nonBlocking: true)
        defer {
            POSIX.close(p.read)
            POSIX.close(p.write)
        }
        alarmWakeFd = p.write
        Signals.handle(SIGALRM) { _ in Signals.wake(alarmWakeFd) }
        defer { signal(SIGALRM, SIG_DFL) }
        var fds = [pollfd(fd: p.read, events: Int16(POLLIN), revents: 0)]
        ualarm(50_000, 0)
        XCTAssertThrowsError(try fds.withUnsafeMutableBufferPointer { try POSIX.poll($0.baseAddress!, count: 1, timeoutMs: 5000) }) {
            XCTAssertEqual($0 as? Errno, .interrupted)
        }
        let ready = try fds.withUnsafeMutableBufferPointer { try POSIX.poll($0.baseAddress!, count: 1, timeoutMs: 0) }
        XCTAssertEqual(ready, 1)
        XCTAssertEqual(fds[0].revents & Int16(POLLIN), Int16(POLLIN))
    }

    /// `Signals.wake` leaves errno as the interrupted code had it, even when its write fails.
    func testWakeKeepsErrno() {
        errno = EDOM
        Signals.wake(-1)  // EBADF inside
        XCTAssertEqual(errno, EDOM)
    }

    /// `receive` on an empty socket with MSG_DONTWAIT throws `.wouldBlock`; after a `send` it
    /// returns the bytes.
    func testReceiveMapsAnEmptySocketToWouldBlock() throws {
        var sv: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_DGRAM.rawValue)
        #else
        let type = SOCK_DGRAM
        #endif
        XCTAssertEqual(socketpair(AF_UNIX, type, 0, &sv), 0)
        defer {
            POSIX.close(sv[0])
            POSIX.close(sv[1])
        }
        var buf = [UInt8](repeating: 0, count: 16)
        XCTAssertThrowsError(
            try buf.withUnsafeMutableBytes { try POSIX.receive(sv[0], into: $0.baseAddress!, count: $0.count, flags: Int32(MSG_DONTWAIT)) }
        ) { XCTAssertEqual($0 as? Errno, .wouldBlock) }
        try POSIX.writeAll(sv[1], Array("hi".utf8))
        let n = try buf.withUnsafeMutableBytes { try POSIX.receive(sv[0], into: $0.baseAddress!, count: $0.count, flags: Int32(MSG_DONTWAIT)) }
        XCTAssertEqual(Array(buf[0..<n]), Array("hi".utf8))
    }

    /// What `record --gpsd` accepts as a host: numeric addresses only (no DNS in a static binary).
    func testNumericAddresses() {
        XCTAssertTrue(POSIX.isIPv4Address("127.0.0.1"))
        XCTAssertFalse(POSIX.isIPv4Address("::1"))
        XCTAssertTrue(POSIX.isIPv6Address("::1"))
        XCTAssertFalse(POSIX.isIPv6Address("localhost"))
    }
}

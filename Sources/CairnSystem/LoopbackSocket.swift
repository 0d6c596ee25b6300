#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A TCP connection to a server on this machine (127.0.0.1), every wait bounded by a deadline on
/// the monotonic clock: a server that stops answering costs its caller the deadline, never more.
public final class LoopbackSocket {
    private let fd: Int32
    /// CLOCK_MONOTONIC seconds after which every wait fails with ETIMEDOUT.
    /// Moved on by a caller that watches progress by other means between waits.
    public var deadline: Double

    /// Connects to 127.0.0.1:`port` (non-blocking, close-on-exec) by `deadline`.
    public init(port: UInt16, deadline: Double) throws(Errno) {
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        #else
        let type = SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK
        #endif
        let s = try valueOrErrno { socket(AF_INET, type, 0) }.get()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        fd = s
        self.deadline = deadline
        if rc != 0 {
            let e = Errno.current
            guard e.rawValue == EINPROGRESS else {
                close(s)
                throw e
            }
            do { try Self.wait(s, POLLOUT, deadline: deadline) } catch {
                close(s)
                throw error
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(s, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError != 0 {
                close(s)
                throw Errno(rawValue: soError)
            }
        }
    }

    deinit { close(fd) }

    private func wait(_ events: Int32) throws(Errno) { try Self.wait(fd, events, deadline: deadline) }

    private static func wait(_ fd: Int32, _ events: Int32, deadline: Double) throws(Errno) {
        while true {
            let left = deadline - Subprocess.monotonicSeconds()
            if left <= 0 { throw Errno(rawValue: ETIMEDOUT) }
            var p = pollfd(fd: fd, events: Int16(events), revents: 0)
            let n = poll(&p, 1, Int32(min(left * 1000 + 1, 60_000)))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .current }
            if n > 0 { return }
        }
    }

    /// Sends all of `bytes` (MSG_NOSIGNAL: a server gone is EPIPE).
    public func sendAll(_ bytes: [UInt8]) throws(Errno) {
        var sent = 0
        while sent < bytes.count {
            let r = bytes.withUnsafeBytes { b in send(fd, b.baseAddress! + sent, b.count - sent, Int32(MSG_NOSIGNAL)) }
            if r >= 0 {
                sent += r
                continue
            }
            let e = Errno.current
            if e.rawValue == EINTR { continue }
            guard e.rawValue == EAGAIN else { throw e }
            try wait(POLLOUT)
        }
    }

    /// Receives what comes next into `buffer`: the bytes received, 0 when the server closed.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        while true {
            let r = recv(fd, buffer.baseAddress, buffer.count, 0)
            if r >= 0 { return r }
            let e = Errno.current
            if e.rawValue == EINTR { continue }
            guard e.rawValue == EAGAIN else { throw e }
            try wait(POLLIN)
        }
    }
}

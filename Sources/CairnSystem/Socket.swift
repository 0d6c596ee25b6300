#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sockets, pipes and waiting on descriptors. `poll` and `receive` sit on the record loop's
/// per-fix path: inlinable, nothing allocated, EINTR thrown for the caller (a stop signal
/// interrupts the wait, and the caller looks at it).
extension POSIX {
    /// One poll(2) over `count` descriptors at `fds` for up to `timeoutMs` (-1: no limit): how
    /// many are ready. EINTR is thrown, not retried.
    @inlinable
    public static func poll(_ fds: UnsafeMutablePointer<pollfd>, count: Int, timeoutMs: Int32) throws(Errno) -> Int32 {
        try valueOrErrno(retryOnInterrupt: false) { cPoll(fds, nfds_t(count), timeoutMs) }.get()
    }

    /// One recv(2) into `count` bytes at `buffer` with `flags` (MSG_DONTWAIT, ...): the bytes
    /// received, 0 when the peer closed. EINTR is thrown, not retried.
    @inlinable
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, flags: Int32) throws(Errno) -> Int {
        try valueOrErrno(retryOnInterrupt: false) { recv(fd, buffer, count, flags) }.get()
    }

    /// setsockopt(2) SO_RCVLOWAT: a read of the socket waits until `bytes` are queued.
    public static func setReceiveLowWater(_ fd: Int32, bytes: Int32) throws(Errno) {
        var v = bytes
        _ = try valueOrErrno { setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, socklen_t(MemoryLayout<Int32>.size)) }.get()
    }

    /// socket(2): a Unix datagram socket, close-on-exec.
    public static func unixDatagramSocket() throws(Errno) -> Int32 {
        #if canImport(Glibc)
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_DGRAM | SOCK_CLOEXEC
        #endif
        return try valueOrErrno { socket(AF_UNIX, type, 0) }.get()
    }

    /// One sendto(2) of `bytes` to `address` (`length` bytes of it), MSG_NOSIGNAL: a peer gone
    /// is EPIPE, not SIGPIPE. The bytes sent.
    public static func send(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, to address: UnsafePointer<sockaddr>, length: socklen_t
    ) throws(Errno) -> Int {
        try valueOrErrno { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length) }.get()
    }

    /// pipe(2): both ends non-blocking (when `nonBlocking`) and close-on-exec.
    public static func makePipe(nonBlocking: Bool) throws(Errno) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { throw .current }
        for fd in fds {
            if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }

    /// Whether `text` is a numeric IPv4 address ("192.0.2.1"; inet_pton(3)).
    public static func isIPv4Address(_ text: String) -> Bool { parsesAsAddress(AF_INET, text) }

    /// Whether `text` is a numeric IPv6 address ("::1"; inet_pton(3)).
    public static func isIPv6Address(_ text: String) -> Bool { parsesAsAddress(AF_INET6, text) }

    private static func parsesAsAddress(_ family: Int32, _ text: String) -> Bool {
        var buf = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, text, &buf) == 1
    }
}

// Inside `POSIX` its own `poll` wins.
@inlinable
func cPoll(_ fds: UnsafeMutablePointer<pollfd>, _ n: nfds_t, _ timeout: Int32) -> Int32 { poll(fds, n, timeout) }

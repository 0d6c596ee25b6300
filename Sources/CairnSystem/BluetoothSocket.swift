#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem

/// The kernel's Bluetooth LE sockets: an L2CAP socket on the ATT fixed channel (CID 4), one per
/// sensor (Sources/CairnDevice/Bluetooth/DECISION.md). The structures are built in `CSystem`.
extension POSIX {
    /// A non-blocking, close-on-exec L2CAP socket for ATT, with the kernel's receive times on.
    public static func attSocket() throws(Errno) -> Int32 {
        try valueOrErrno { cairn_l2cap_att_socket() }.get()
    }

    /// Starts connecting `fd` to `address` (the 48 bits, `AA:...` most significant) of
    /// `addressType` (1 LE public, 2 LE random) on the ATT channel. True when connected at once,
    /// false while the kernel connects (EINPROGRESS: the socket turns writable, or reports the
    /// error, when it is done).
    public static func attConnect(_ fd: Int32, address: UInt64, addressType: UInt8) throws(Errno) -> Bool {
        var le: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            UInt8(truncatingIfNeeded: address), UInt8(truncatingIfNeeded: address >> 8),
            UInt8(truncatingIfNeeded: address >> 16), UInt8(truncatingIfNeeded: address >> 24),
            UInt8(truncatingIfNeeded: address >> 32), UInt8(truncatingIfNeeded: address >> 40)
        )
        let r = withUnsafeBytes(of: &le) { b in
            valueOrErrno { cairn_l2cap_att_connect(fd, b.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(addressType)) }
        }
        do throws(Errno) { _ = try r.get() } catch {
            if error.rawValue == EINPROGRESS || error.rawValue == EAGAIN { return false }
            throw error
        }
        return true
    }

    /// Where a pending connect of `fd` stands: `nil` still connecting, `.success` connected,
    /// `.failure` the errno it failed with. One poll(2) without waiting, then SO_ERROR.
    public static func connectOutcome(_ fd: Int32) -> Result<Void, Errno>? {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let n = valueOrErrno { cPoll(&p, 1, 0) }
        guard case .success(let ready) = n, ready > 0 else { return nil }
        let e = cairn_socket_error(fd)
        if e != 0 { return .failure(Errno(rawValue: e)) }
        if p.revents & Int16(POLLHUP | POLLERR) != 0 { return .failure(Errno(rawValue: ENOTCONN)) }
        return p.revents & Int16(POLLOUT) != 0 ? .success(()) : nil
    }

    /// One packet from `fd` into `buffer`, without waiting, and the kernel's receive time of it
    /// (CLOCK_REALTIME nanoseconds; nil when the kernel gave none). EAGAIN is `.wouldBlock`.
    public static func receivePacket(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(Errno) -> (count: Int, kernelRealNs: Int64?) {
        var s: Int64 = -1
        var ns = 0
        let n = try valueOrErrno { cairn_receive_timestamped(fd, buffer.baseAddress, UInt(buffer.count), &s, &ns) }.get()
        return (n, s >= 0 ? s * 1_000_000_000 + Int64(ns) : nil)
    }

    /// The Bluetooth management socket (scanning: `cairn sensors`), non-blocking.
    public static func managementSocket() throws(Errno) -> Int32 {
        try valueOrErrno { cairn_management_socket() }.get()
    }

    /// One send(2) of one packet, without waiting (MSG_DONTWAIT | MSG_NOSIGNAL).
    public static func sendPacket(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        let n = try bytes.withUnsafeBytes { b in
            valueOrErrno { cSend(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        }.get()
        if n != bytes.count { throw .ioError }
    }
}

@inlinable
func cSend(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ flags: Int32) -> Int { send(fd, p, n, flags) }

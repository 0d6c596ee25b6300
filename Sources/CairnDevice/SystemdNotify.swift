#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// sd_notify(3) without libsystemd: one datagram per message to the Unix socket named by
/// `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Without the variable (not
/// started by systemd, or `Type=simple`) every call does nothing.
///
/// Messages: `READY=1` once started, `WATCHDOG=1` from the main loop at half of `$WATCHDOG_USEC`
/// (only when `$WATCHDOG_PID` is unset or ours), `STATUS=...` for `systemctl status`,
/// `STOPPING=1` at shutdown.
public final class SystemdNotify {
    private let fd: Int32
    private var address = sockaddr_un()
    private var addressLength: socklen_t = 0
    /// The interval at which `watchdogIfDue` pings: half of `WATCHDOG_USEC`; nil when off.
    public let watchdogIntervalMs: Int64?
    private var lastWatchdogMs: Int64 = .min
    private var lastStatus = ""
    /// The socket path as given (for messages), or nil when notification is off.
    public let socketPath: String?
    /// Messages that could not be sent (the manager went away): counted, never fatal.
    public private(set) var failures = 0

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from the environment.
    public convenience init() {
        self.init(
            socket: POSIX.environment("NOTIFY_SOCKET"), watchdogUsec: POSIX.environment("WATCHDOG_USEC"),
            watchdogPid: POSIX.environment("WATCHDOG_PID"))
    }

    public init(socket socketName: String?, watchdogUsec: String?, watchdogPid: String?) {
        var interval: Int64?
        if let u = watchdogUsec.flatMap({ Int64($0) }), u > 0 {
            if let p = watchdogPid, let pid = Int32(p), pid != POSIX.processID {
                interval = nil  // the watchdog is meant for another process
            } else {
                interval = max(u / 2000, 1)
            }
        }
        watchdogIntervalMs = interval
        guard let path = socketName, !path.isEmpty, path.hasPrefix("/") || path.hasPrefix("@"),
            path.utf8.count < MemoryLayout.size(ofValue: address.sun_path)
        else {
            fd = -1
            socketPath = nil
            return
        }
        socketPath = path
        fd = (try? POSIX.unixDatagramSocket()) ?? -1
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            // Abstract namespace: a leading NUL instead of '@', and no terminating NUL counted.
            if bytes[0] == UInt8(ascii: "@") { raw[0] = 0 }
        }
        let base = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        addressLength = socklen_t(base + bytes.count + (bytes[0] == UInt8(ascii: "@") ? 0 : 1))
    }

    deinit { if fd >= 0 { POSIX.close(fd) } }

    public var isEnabled: Bool { fd >= 0 }

    /// Sends one message (newline-separated `KEY=VALUE` assignments). Returns false if not sent.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard fd >= 0 else { return false }
        var m = message
        let sent = m.withUTF8 { p -> Bool in
            withUnsafePointer(to: &address) { a in
                a.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    (try? POSIX.send(fd, UnsafeRawBufferPointer(p), to: $0, length: addressLength)) != nil
                }
            }
        }
        if !sent { failures += 1; return false }
        return true
    }

    public func ready(status: String? = nil) {
        send("READY=1" + (status.map { "\nSTATUS=" + $0 } ?? ""))
    }

    public func stopping(status: String? = nil) {
        send("STOPPING=1" + (status.map { "\nSTATUS=" + $0 } ?? ""))
    }

    /// Sends `STATUS=` only when the text changed.
    public func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        send("STATUS=" + text)
    }

    /// Pings the watchdog when half its interval has passed since the last ping.
    /// Milliseconds until the next WATCHDOG=1 is due (`.max` without a watchdog).
    public func msUntilWatchdog(monoMs: Int64) -> Int64 {
        guard let every = watchdogIntervalMs else { return .max }
        return lastWatchdogMs == .min ? 0 : max(0, lastWatchdogMs + every - monoMs)
    }

    public func watchdogIfDue(monoMs: Int64) {
        guard let every = watchdogIntervalMs else { return }
        if lastWatchdogMs == .min || monoMs - lastWatchdogMs >= every {
            lastWatchdogMs = monoMs
            send("WATCHDOG=1")
        }
    }
}

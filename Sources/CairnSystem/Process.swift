#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// This process and others: its ID, its environment, signals sent to another, its end.
extension POSIX {
    /// getpid(2).
    public static var processID: Int32 { getpid() }

    /// geteuid(2): whose rights this process has.
    public static var effectiveUserID: uid_t { geteuid() }

    /// getenv(3): the variable's value, nil when it is not set.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// kill(2): sends `signal` to `pid` (0 only asks whether it could: whether the process is
    /// there). The error, if any.
    @discardableResult
    public static func sendSignal(_ signal: Int32, to pid: Int32) -> Errno? {
        kill(pid, signal) == 0 ? nil : .current
    }

    /// Whether no process `pid` exists (kill(2) with signal 0 fails with ESRCH). A process of
    /// another user (EPERM) is there.
    public static func processIsGone(_ pid: Int32) -> Bool {
        sendSignal(0, to: pid) == Errno(rawValue: ESRCH)
    }

    /// exit(3): ends the process with `status`.
    public static func exit(_ status: Int32) -> Never {
        cExit(status)
    }
}

private func cExit(_ status: Int32) -> Never { exit(status) }

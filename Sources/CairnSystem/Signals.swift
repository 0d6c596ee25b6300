#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Signal dispositions: a handler installed, a signal ignored, and the one thing a handler may do
/// besides setting a flag (write a byte to a pipe).
public enum Signals {
    /// sigaction(2): `handler` runs on `signal`, without SA_RESTART (a blocking call it interrupts
    /// returns EINTR, so a wait ends promptly) and with no other signal blocked while it runs.
    public static func handle(_ sig: Int32, with handler: @convention(c) (Int32) -> Void) {
        var sa = sigaction()
        sa.__sigaction_handler.sa_handler = handler
        sigemptyset(&sa.sa_mask)
        sa.sa_flags = 0
        sigaction(sig, &sa, nil)
    }

    /// signal(2) SIG_IGN: `signal` is ignored (a write to a closed pipe fails with EPIPE, one
    /// over the file size limit with EFBIG).
    public static func ignore(_ sig: Int32) {
        _ = signal(sig, SIG_IGN)
    }

    /// From a signal handler: one byte written to `fd` (a pipe a wait polls), errno kept for
    /// the code the signal interrupted. Async-signal-safe: write(2) only, nothing allocated.
    public static func wake(_ fd: Int32) {
        let saved = errno
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
        errno = saved
    }
}

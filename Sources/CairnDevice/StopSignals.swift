#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Set from the signal handler; read by the main loop. C-compatible globals are the only things a
// signal handler may touch.
nonisolated(unsafe) private var stopRequested: sig_atomic_t = 0
// The stop pipe (see `StopSignals.wakeFd`): the handler writes a byte into `stopPipeWrite`.
nonisolated(unsafe) private var stopPipeRead: Int32 = -1
nonisolated(unsafe) private var stopPipeWrite: Int32 = -1

/// SIGTERM and SIGINT ask the recorder to sync, close the trip and exit. The handlers are
/// installed without SA_RESTART so a blocking wait returns promptly with EINTR. SIGHUP and
/// SIGPIPE are ignored.
public enum StopSignals {
    public static func install() {
        if stopPipeRead < 0 {
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                for fd in fds {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                stopPipeRead = fds[0]
                stopPipeWrite = fds[1]
            }
        }
        for sig in [SIGTERM, SIGINT] {
            var sa = sigaction()
            sa.__sigaction_handler.sa_handler = { _ in
                stopRequested = 1
                // The interrupted code may be about to read errno.
                let saved = errno
                var byte: UInt8 = 1
                if stopPipeWrite >= 0 { _ = write(stopPipeWrite, &byte, 1) }
                errno = saved
            }
            sigemptyset(&sa.sa_mask)
            sa.sa_flags = 0
            sigaction(sig, &sa, nil)
        }
        // A display reading our status through a pipe must not kill us when it goes away.
        signal(SIGPIPE, SIG_IGN)
        // A closed ssh session or terminal (SIGHUP) must not end a ride: the recorder goes on,
        // and the config is not reloaded (restart the service for that).
        signal(SIGHUP, SIG_IGN)
    }

    public static var requested: Bool { stopRequested != 0 }

    /// Readable once a stop was requested (-1 before `install`): a wait that polls it as well
    /// ends at once even when the signal came just before the wait began (during a sync, say),
    /// when EINTR alone would leave it to run its whole timeout.
    public static var wakeFd: Int32 { stopPipeRead }
}

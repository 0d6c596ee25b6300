#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

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
        if stopPipeRead < 0, let fds = try? POSIX.makePipe(nonBlocking: true) {
            stopPipeRead = fds.read
            stopPipeWrite = fds.write
        }
        for sig in [SIGTERM, SIGINT] {
            Signals.handle(sig) { _ in
                stopRequested = 1
                // `wake` keeps errno: the interrupted code may be about to read it.
                if stopPipeWrite >= 0 { Signals.wake(stopPipeWrite) }
            }
        }
        // A display reading our status through a pipe must not kill us when it goes away.
        Signals.ignore(SIGPIPE)
        // A closed ssh session or terminal (SIGHUP) must not end a ride: the recorder goes on,
        // and the config is not reloaded (restart the service for that).
        Signals.ignore(SIGHUP)
    }

    public static var requested: Bool { stopRequested != 0 }

    /// Readable once a stop was requested (-1 before `install`): a wait that polls it as well
    /// ends at once even when the signal came just before the wait began (during a sync, say),
    /// when EINTR alone would leave it to run its whole timeout.
    public static var wakeFd: Int32 { stopPipeRead }
}

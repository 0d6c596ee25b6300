#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Set from the signal handler; read by the main loop. A C-compatible global is the only thing a
// signal handler may touch.
nonisolated(unsafe) private var stopRequested: sig_atomic_t = 0

/// SIGTERM and SIGINT ask the recorder to sync, close the trip and exit. The handlers are
/// installed without SA_RESTART so a blocking wait returns promptly with EINTR. SIGHUP and
/// SIGPIPE are ignored.
public enum StopSignals {
    public static func install() {
        for sig in [SIGTERM, SIGINT] {
            var sa = sigaction()
            sa.__sigaction_handler.sa_handler = { _ in stopRequested = 1 }
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
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Clocks and sleeping. Inlinable: the record loop reads the monotonic clock every turn.
extension POSIX {
    /// clock_gettime(2) of `clock` (CLOCK_MONOTONIC, CLOCK_REALTIME, ...).
    @inlinable
    public static func time(_ clock: clockid_t) -> timespec {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return ts
    }

    /// One nanosleep(2) of `nanoseconds` (under a second); a signal ends it early, not resumed
    /// (a caller that sleeps in steps looks at its stop flag between them).
    @inlinable
    public static func sleep(nanoseconds: Int) {
        var ts = timespec(tv_sec: 0, tv_nsec: nanoseconds)
        nanosleep(&ts, nil)
    }

    /// Sleeps `seconds` whole: a signal that ends nanosleep(2) early resumes it for what is left
    /// (delivery's back-off between retries, which no signal of ours should shorten).
    public static func sleep(seconds: UInt32) {
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: 0)
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }
}

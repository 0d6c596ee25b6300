#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// Clocks and sleeping. Monotonic time drives the sync cadence and back-off; the wall clock
/// judges fix age and retention's "days ago", and stamps the status (it never names a file).
public enum SystemClock {
    public static func monotonicMs() -> Int64 {
        let ts = POSIX.time(CLOCK_MONOTONIC)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    public static func wallClockMs() -> Int64 {
        let ts = POSIX.time(CLOCK_REALTIME)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The kernel's id of this boot (a random UUID each boot), nil when it cannot be read: what
    /// tells a restart of the recorder (the monotonic clock runs on) from a power cut.
    public static func bootId(path: String = "/proc/sys/kernel/random/boot_id") -> String? {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { _ = POSIX.close(fd) }
        guard let bytes = try? POSIX.readToEnd(fd, limit: 64) else { return nil }
        let id = String(decoding: bytes, as: UTF8.self).filter { $0.isHexDigit || $0 == "-" }
        return id.count == 36 ? id : nil
    }

    /// Sleeps up to `ms`, waking early (in steps of 100 ms) when `stop()` says so.
    public static func sleep(ms: Int64, until stop: () -> Bool) {
        var left = ms
        while left > 0 && !stop() {
            let step = min(left, 100)
            POSIX.sleep(nanoseconds: Int(step) * 1_000_000)
            left -= step
        }
    }
}

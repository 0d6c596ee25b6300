#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnSystem

/// Delivery as the recorder sees it, for the LED: read from what `cairn deliver` already leaves
/// in the log directory, so the data flows one way (delivery writes, the recorder reads; the
/// recorder's only word to delivery is `trip-closed`). A run holds `.cairn-deliver.lock` and
/// writes its PID into it as it starts (the file's mtime: the run's start); it ends by replacing
/// `delivery`, whose `at_ms` is the run's end. A lock written after the last end is a run going
/// on (for 2 hours at most, the unit's own limit: a run killed outright leaves no end).
public final class DeliveryWatch {
    public let directory: String
    private var firstAtMs: Int64?
    private var lastAtMs: Int64?
    private var result: String?
    private var waiting = 0
    private var closedSince = false

    /// Takes its first look now: a run that ended before this recorder started is no news.
    public init(directory: String) {
        self.directory = directory
        firstAtMs = readIfChanged()
    }

    /// This recorder closed a trip: waiting to go up until a run ends after it.
    public func tripClosed() { closedSince = true }

    /// The phase now (`wallClockMs`: to age a run that never ended). Two stats, and a read of
    /// `delivery` when its run's end changed.
    public func phase(wallClockMs: Int64) -> DeliveryPhase {
        let atMs = readIfChanged()
        let newThisRun = atMs != nil && atMs != firstAtMs
        var running = false
        if let st = try? POSIX.status(POSIX.join(directory, ".cairn-deliver.lock")) {
            let startMs = Int64(st.st_mtim.tv_sec) * 1000 + Int64(st.st_mtim.tv_nsec) / 1_000_000
            running = startMs > (atMs ?? .min) && wallClockMs - startMs < 2 * 3_600_000
        }
        return LedPlan.delivery(running: running, result: result, waiting: waiting, newThisRun: newThisRun, closedSince: closedSince)
    }

    /// The last run's end (`at_ms`), the file read again only when it was replaced (its inode:
    /// delivery renames a new one over it) or its size or mtime moved.
    private var seen: (UInt64, Int64, Int, Int)?
    private func readIfChanged() -> Int64? {
        let path = POSIX.join(directory, "delivery")
        guard let st = try? POSIX.status(path) else {
            result = nil
            return nil
        }
        let key = (UInt64(st.st_ino), Int64(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec), Int(st.st_size))
        if let s = seen, s == key { return lastAtMs }
        seen = key
        var at: Int64?
        var res: String?
        var wait = 0
        var tryLater = false
        if let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) {
            defer { POSIX.close(fd) }
            let bytes = (try? POSIX.readToEnd(fd, limit: 65536)) ?? []
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                let k = line[..<eq].filter { $0 != " " }, v = String(line[line.index(after: eq)...].filter { $0 != " " })
                switch k {
                case "result": res = v
                case "try_later": tryLater = v == "yes"
                case "at_ms": at = Int64(v)
                case "waiting": wait = Int(v) ?? 0
                default: continue
                }
            }
        }
        // A remote out of reach (the run's "try later") is the rides waiting, not delivery
        // failing: only a setup refused (a password, a key) or a trip that failed is.
        result = res == "failed" && tryLater ? "deferred" : res
        waiting = wait
        // A run ended after this recorder's close: that trip went (or is counted in waiting).
        if at != lastAtMs { closedSince = false }
        lastAtMs = at
        return at
    }
}

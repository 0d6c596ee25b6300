/// While gpsd is away: how long to wait before the next try (250 ms, doubling to 8 s, so that
/// a restarted gpsd is found at once and one that stays away costs few wake-ups), and whether
/// the outage was said, so that it is said once rather than at every try.
struct ReconnectBackoff {
    static let firstMs: Int64 = 250
    static let longestMs: Int64 = 8000
    private var delayMs = firstMs
    /// Whether the operator was told gpsd is away (reset once connected).
    var reportedDown = false

    /// The wait before the next try; the one after it is twice as long, up to `longestMs`.
    mutating func nextDelayMs() -> Int64 {
        let d = delayMs
        delayMs = min(delayMs * 2, Self.longestMs)
        return d
    }

    /// Connected: the next outage starts again from the shortest wait.
    mutating func connected() {
        reportedDown = false
        delayMs = Self.firstMs
    }
}

/// The seam where the fix rules live: the recorder asks a `FixFilter` about every collapsed fix,
/// and keeps it only when the answer is nil. The full rule set (first-fix quality, jumps,
/// out-and-back spikes, standstill, distance filter) implements this same protocol.
public protocol FixFilter {
    /// Judge `fix` against the last kept point of the current segment. `nowMs` is the recorder's
    /// clock (system time, or the newest fix time with `--clock fix`).
    mutating func judge(_ fix: Fix, lastKept: Fix?, nowMs: Int64) -> DropReason?
    /// A new segment begins (after a gap, a pause, a reconnect): rules that compare with the
    /// previous point start afresh.
    mutating func reset()
}

/// The minimal rules every recorder needs: a sane, fresh, accurate-enough fix.
///
/// - **Sanity** (`invalid`): latitude within ±90°, longitude within ±180°, everything finite,
///   a time after 2000-01-01 (a receiver without a date reports 1980 or similar).
/// - **Age** (`stale`): a fix more than `maxAgeMs` (60 s) older than the recorder's clock.
/// - **Accuracy** (`rough`): a 68 % horizontal uncertainty (see `Accuracy`) over `maxAccuracy68M`
///   (50 m). A fix without any error estimate passes: some receivers send none.
/// - **Order** (`timeNotAfter`): a time not after the last kept point's: a track never goes back.
public struct BasicFixFilter: FixFilter {
    public static let earliestValidMs: Int64 = 946_684_800_000  // 2000-01-01T00:00:00Z
    public var maxAgeMs: Int64 = 60_000
    public var maxAccuracy68M = 50.0

    public init() {}

    public mutating func judge(_ fix: Fix, lastKept: Fix?, nowMs: Int64) -> DropReason? {
        guard fix.lat.isFinite, fix.lon.isFinite, abs(fix.lat) <= 90, abs(fix.lon) <= 180,
              fix.timeMs >= Self.earliestValidMs else { return .invalid }
        if nowMs - fix.timeMs > maxAgeMs { return .stale }
        if let a = Accuracy.horizontal68(fix), !(a <= maxAccuracy68M) { return .rough }
        if let last = lastKept, fix.timeMs <= last.timeMs { return .timeNotAfter }
        return nil
    }

    public mutating func reset() {}
}

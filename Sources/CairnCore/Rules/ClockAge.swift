/// Rule 2, **no old fixes** (`stale`): a fix older than `RuleLimits.maxAgeMs` (60 s) by the
/// recorder's clock when it arrives is dropped. A run of `RuleLimits.staleBeforeClockIsOff` (5)
/// late fixes in a row, each late by the same amount as the one before (within 5 s), is a
/// receiver whose time disagrees with the clock (or a clock that is off), not old positions: the
/// clock is then taken to be that far off, and the ride goes on.
///
/// The rest of rule 2 is judged elsewhere: worse than `RuleLimits.maxAccuracyM` (50 m) or a
/// receiver saying worse than `Accuracy.absurdM` is `rough` (`FixRules.isRough`); out-of-range or
/// non-finite values and dates outside `FixBounds` are `invalid`, and a speed or course outside
/// `FixBounds` is taken as none (`FixRules.offer`); a time not after the previous one's is
/// `time_not_after` (`TimeLine`).
struct ClockAge {
    /// How far the fix times are taken to be behind the recorder's clock.
    var offsetMs: Int64 = 0
    private var equallyLateInRow = 0
    private var lastStaleLagMs: Int64?

    /// Whether `f` is young enough, learning the clocks' offset from a run of equally late fixes.
    mutating func isFresh(_ f: Fix, nowMs: Int64, maxAgeMs: Int64, lateBeforeClockIsOff: Int) -> Bool {
        let lag = nowMs - offsetMs - f.timeMs
        guard lag > maxAgeMs else {
            equallyLateInRow = 0
            return true
        }
        if let p = lastStaleLagMs, abs(lag - p) <= 5_000 { equallyLateInRow += 1 } else { equallyLateInRow = 1 }
        lastStaleLagMs = lag
        guard equallyLateInRow >= lateBeforeClockIsOff else { return false }
        offsetMs += lag
        equallyLateInRow = 0
        return true
    }
}

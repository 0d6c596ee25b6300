/// Rule 12, **time that cannot poison a ride** (`time_jump`), and rule 2's order test
/// (`time_not_after`).
///
/// A fix time more than `RuleLimits.timeJumpMs` (an hour) ahead of where the arrival clock puts
/// it, more than `RuleLimits.timeBackMs` (60 s) or a gap (rule 9, `Cadence`) behind the newest
/// time, or (the first fix, when the recorder's clock looks set, from 2000) more than an hour from
/// that clock, is held. If its next `RuleLimits.timeJumpConfirmations` (2) successors follow on
/// from it (each after the last, neither such a jump nor, after a step back, a gap ahead of it),
/// the receiver's time really moved (a reset, a week rollover fixed by gpsd): the trip ends there
/// and they start afresh. If one does not, what was held was an outlier (`time_jump`).
///
/// A fix ahead by less than an hour but by more than a gap beyond the arrival clock is held the
/// same way: followed on from, it ended a silence and is judged as one (rule 9); else it was one
/// fix stamped minutes ahead, which must not make the ride after it "not after" it
/// (`time_jump`). At the end (`flush`) such fixes with a successor are kept as after a silence.
///
/// A time on the line but not after the newest is `time_not_after`.
struct TimeLine {
    /// Fixes held because their time left the line, with their arrival times.
    private(set) var suspects: [(fix: Fix, arrivalMs: Int64?)] = []
    /// The held fixes only ran ahead of the arrival clock by more than a gap (not an hour): if
    /// their successors agree, it was a silence, not a new time line.
    private(set) var suspectsAreGap = false
    /// The newest time that passed, and its arrival time.
    private var lastTimeMs: Int64?
    private var lastTimeArrivalMs: Int64?
    /// The first fix was already judged against the recorder's clock (after a time jump).
    var firstChecked = false

    enum Verdict {
        /// On the line: judge it.
        case onLine
        /// Held, or dropped here.
        case held
        /// The held fixes followed on from each other after a step ahead: a silence.
        case gapConfirmed
        /// The held fixes followed on from each other: the receiver's time moved.
        case jumpConfirmed
    }

    mutating func judge(
        _ f: Fix, nowMs: Int64, arrivalMs: Int64?, gapMs: Int64, limits: RuleLimits,
        emit: (RuleOutput) -> Void
    ) -> Verdict {
        if !suspects.isEmpty {
            let last = suspects[suspects.count - 1]
            // (After a step back, a successor that runs a gap ahead again is no follower: two
            // time lines interleaved must not confirm each other.)
            if f.timeMs > last.fix.timeMs && !isTimeJump(f.timeMs, arrivalMs, from: last.fix.timeMs, last.arrivalMs, limits)
                && (suspectsAreGap || !isAhead(f.timeMs, arrivalMs, from: last.fix.timeMs, last.arrivalMs, gapMs: gapMs))
            {
                suspects.append((f, arrivalMs))
                if suspects.count >= limits.timeJumpConfirmations + 1 { return suspectsAreGap ? .gapConfirmed : .jumpConfirmed }
                return .held
            }
            // Back on the old line (or somewhere else again): what was held was the outlier.
            dropSuspects(emit: emit)
        }
        if let t = lastTimeMs {
            // Back by more than a gap, too: a receiver whose clock steps back (GPS time corrected
            // to UTC, 18 s) would otherwise lose that many seconds as "not after" and then the
            // line to the jump rule.
            if isTimeJump(f.timeMs, arrivalMs, from: t, lastTimeArrivalMs, limits) || t - f.timeMs > gapMs {
                suspects.append((f, arrivalMs))
                suspectsAreGap = false
                return .held
            }
            if f.timeMs <= t {
                emit(.drop(.timeNotAfter, f))
                return .held
            }
            // Ahead of the arrival clock by more than a gap: a real silence, or one fix stamped
            // minutes ahead. Taken as the line, the latter would make every fix after it "not
            // after" it (or a jump back that ends the trip): its successors decide here too.
            if isAhead(f.timeMs, arrivalMs, from: t, lastTimeArrivalMs, gapMs: gapMs) {
                suspects.append((f, arrivalMs))
                suspectsAreGap = true
                return .held
            }
        } else if nowMs >= limits.earliestValidMs, abs(f.timeMs - nowMs) > limits.timeJumpMs, !firstChecked {
            // The first fix, far from a clock that looks set: judged by its successors too.
            suspects.append((f, arrivalMs))
            return .held
        }
        advance(to: f.timeMs, arrivalMs: arrivalMs)
        return .onLine
    }

    /// The line moves on to `timeMs` (a fix on it, or a held one now accepted).
    mutating func advance(to timeMs: Int64, arrivalMs: Int64?) {
        lastTimeMs = timeMs
        lastTimeArrivalMs = arrivalMs
    }

    /// Hands the held fixes over (they were confirmed).
    mutating func takeSuspects() -> [(fix: Fix, arrivalMs: Int64?)] {
        let held = suspects
        suspects.removeAll()
        return held
    }

    mutating func dropSuspects(emit: (RuleOutput) -> Void) {
        for s in suspects { emit(.drop(.timeJump, s.fix)) }
        suspects.removeAll()
    }

    /// The receiver's time moved: there is no line until the held fixes make one.
    mutating func forgetLine() {
        lastTimeMs = nil
        firstChecked = true
    }

    /// A time more than `timeJumpMs` ahead of where the arrival clock puts it, or more than
    /// `timeBackMs` behind the line.
    @inline(__always) private func isTimeJump(
        _ t: Int64, _ arrival: Int64?, from line: Int64, _ lineArrival: Int64?, _ limits: RuleLimits
    ) -> Bool {
        var elapsed: Int64 = 0
        if let a = arrival, let b = lineArrival, a > b { elapsed = a - b }
        return t - line > elapsed + limits.timeJumpMs || line - t > limits.timeBackMs
    }

    /// `t` runs ahead of the line by more than a gap beyond the time that passed on arrival.
    @inline(__always) private func isAhead(_ t: Int64, _ arrival: Int64?, from line: Int64, _ lineArrival: Int64?, gapMs: Int64) -> Bool {
        var elapsed: Int64 = 0
        if let a = arrival, let b = lineArrival, a > b { elapsed = a - b }
        return t - line > elapsed + gapMs
    }
}

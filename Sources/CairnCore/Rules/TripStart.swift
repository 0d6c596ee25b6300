/// Rule 1, **good first fix** (`first_fix`). A trip starts only at a fix within
/// `RuleLimits.firstFixM` (20 m), or, after `RuleLimits.firstFixPatienceMs` (30 s) of trying
/// (counted from the first usable fix), within `RuleLimits.firstFixPatientM` (50 m); a fix with
/// no figure passes. It must have been taken while moving: the positions over the window moved
/// as the doppler says (rule 6, `MovementWindow.moved`). And it must be confirmed by its
/// successor: one within `RuleLimits.confirmWithinMs` (5 s, or two intervals and a half second),
/// within the jump limit (rule 4), displaced about as far as the measured speed says (within
/// half of it plus both fixes' uncertainty and 2 m), and, before the trip, itself moved by
/// displacement: a stale cached position never starts a trip. After a stop that was left by
/// displacement (rule 6) before a trip, the jump limit alone confirms.
///
/// A fix not yet good enough waits in a small ring (64; 360 from a receiver that sends no speed,
/// whose trip opens only on minutes of way: `MovementWindow.movedOverMinutes`); once the trip starts at a good fix,
/// the waiting fixes that lead to it consistently (each within a gap and confirming the next as
/// above, newest back to oldest) are kept too, so a start in poor sky is not cut short; the rest
/// are dropped.
struct TripStart {
    /// Fixes that passed every gate but the first-fix tests, before the trip started.
    /// (Minutes of them without a speed, which opens a trip only on minutes of way; 64 else: the
    /// ring grows to 360 only for those, so a receiver with a doppler holds no more than before.)
    var waiting = RingBuffer<Fix>(capacity: Self.waitingWithSpeed)
    static let waitingWithSpeed = 64
    static let waitingWithoutSpeed = 360
    var started = false
    /// When the first usable fix came (the patience counts from it).
    var waitingSinceMs: Int64?
    /// The way out of a standstill before the trip was confirmed by displacement: its first
    /// fixes need no further confirmation than the jump limit.
    var confirmed = false
    /// Minutes of way shown (`FixRules.movedOverMinutesLastingly`): where their window began,
    /// how far they went, and when; and until when the way is proved.
    var wayShown: (lat: Double, lon: Double, d: Double, ms: Int64)?
    var wayProvedUntilMs: Int64?

    /// The accuracy test (rule 1's 20 m, or 50 m after 30 s).
    @inline(__always) func isGoodFirstFix(_ f: Fix, limits: RuleLimits) -> Bool {
        guard let a = Accuracy.horizontal68(f) else { return true }
        let patient = f.timeMs - (waitingSinceMs ?? f.timeMs) >= limits.firstFixPatienceMs
        return a <= limits.firstFixM || (patient && a <= limits.firstFixPatientM)
    }

    /// A fix waits for the start (the oldest waiting one is dropped when there are too many).
    /// `minutes`: `f` has no speed from a receiver that sends none (its trip opens only on
    /// minutes of way); any other keeps 64 waiting, as before issue 39.
    mutating func wait(_ f: Fix, minutes: Bool, emit: (RuleOutput) -> Void) {
        while !minutes, waiting.count >= Self.waitingWithSpeed, let oldest = waiting.popFirst() { emit(.drop(.firstFix, oldest)) }
        if minutes, waiting.capacity < Self.waitingWithoutSpeed {
            var longer = RingBuffer<Fix>(capacity: Self.waitingWithoutSpeed)
            for i in 0..<waiting.count { longer.append(waiting[i]) }
            waiting = longer
        }
        if let oldest = waiting.first, waiting.isFull { emit(.drop(.firstFix, oldest)) }
        waiting.append(f)
    }

    mutating func dropWaiting(emit: (RuleOutput) -> Void) {
        for i in 0..<waiting.count { emit(.drop(.firstFix, waiting[i])) }
        waiting.removeAll()
    }

    mutating func reset() {
        waiting.removeAll()
        confirmed = false
        started = false
        waitingSinceMs = nil
        wayShown = nil
        wayProvedUntilMs = nil
    }
}

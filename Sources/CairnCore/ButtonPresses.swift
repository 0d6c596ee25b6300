/// What the rider's button asks for (issue 41, item 3): a short press marks a lap, a long one
/// (`longMs`, 2 s) ends the trip now. Fed the key's edges with the kernel's own times (evdev
/// stamps each event, on the monotonic clock) whenever the record loop is awake anyway, so a
/// press is judged by how long it was held, not by when the loop read it.
///
/// A press counts once the button has been released and then left alone for `settleMs`: a
/// contact that bounces (presses shorter than `bounceMs`, or a second press straight after
/// the first) is one press, and a button that chatters (`chatterPresses` presses with no rest
/// of `settleMs` between them) acts on none of them. A button held down past `stuckMs` is stuck.
/// Stuck and chattering are said once each (`.stuck`, `.chattering`), every press ignored until
/// the button is released and rests for `recoverMs` (`.recovered`).
public struct ButtonPresses: Sendable {
    /// One edge of the key: pressed (`down`) or released, at `monoMs` (the event's own time).
    public struct Edge: Sendable, Equatable {
        public var monoMs: Int64
        public var down: Bool
        public init(monoMs: Int64, down: Bool) {
            self.monoMs = monoMs
            self.down = down
        }
    }

    /// What a press, or a faulty button, asks of the recorder. Times are the press's start.
    public enum Action: Sendable, Equatable {
        case lap(atMonoMs: Int64)
        case endTrip(atMonoMs: Int64)
        /// Held down since `sinceMonoMs`, longer than any press: ignored until released and rested.
        case stuck(sinceMonoMs: Int64)
        /// Pressed again and again without rest: ignored until it rests.
        case chattering(atMonoMs: Int64)
        /// A stuck or chattering button has rested: presses count again.
        case recovered(atMonoMs: Int64)
    }

    public var longMs: Int64 = 2000
    public var bounceMs: Int64 = 30
    public var settleMs: Int64 = 600
    public var stuckMs: Int64 = 15_000
    public var chatterPresses = 6
    public var recoverMs: Int64 = 10_000

    private var downAtMs: Int64?
    /// The press waiting for the button to settle: its start and whether it was long.
    private var pending: (atMs: Int64, long: Bool)?
    private var lastUpMs: Int64?
    /// Presses since the button last rested `settleMs`.
    private var burst = 0
    private var faulty = false

    public init() {}

    /// Takes the edges read at one wake-up (oldest first), then judges at `nowMonoMs`: a press
    /// settled by then acts, a button held too long is stuck. Repeated edges (a second down
    /// while down: a key's auto-repeat) change nothing.
    public mutating func take(_ edges: [Edge], nowMonoMs: Int64) -> [Action] {
        var out: [Action] = []
        for e in edges {
            settle(before: e.monoMs, into: &out)
            if e.down {
                guard downAtMs == nil else { continue }
                downAtMs = e.monoMs
                burst += 1
                // A press straight after the last one is the same press (a bounce) when short.
                if let up = lastUpMs, e.monoMs - up < bounceMs { burst -= 1 }
                if !faulty && burst >= chatterPresses {
                    faulty = true
                    pending = nil
                    out.append(.chattering(atMonoMs: e.monoMs))
                }
            } else {
                guard let down = downAtMs else { continue }
                downAtMs = nil
                lastUpMs = e.monoMs
                let held = e.monoMs - down
                if !faulty && held >= stuckMs {
                    faulty = true
                    pending = nil
                    out.append(.stuck(sinceMonoMs: down))
                }
                if faulty || held < bounceMs { continue }
                // A second press before the first settled: the first was a bounce or a double
                // press; one action, the earlier press's time, long if either was.
                let long = held >= longMs || (pending?.long ?? false)
                pending = (pending?.atMs ?? down, long)
            }
        }
        settle(before: nowMonoMs, into: &out)
        if let down = downAtMs, !faulty, nowMonoMs - down >= stuckMs {
            faulty = true
            pending = nil
            out.append(.stuck(sinceMonoMs: down))
        }
        return out
    }

    /// The device went away at `monoMs` (a read error; evdev sends no key state when it is back):
    /// a press in progress is lost with it, as if released then without a press, so the next
    /// press counts and the lost release makes no "stuck". A press already made still acts.
    public mutating func deviceLost(atMonoMs monoMs: Int64) {
        guard downAtMs != nil else { return }
        downAtMs = nil
        lastUpMs = max(lastUpMs ?? monoMs, monoMs)
    }

    /// What the rest up to `t` decides: a pending press acts once `settleMs` passed with the
    /// button up; a faulty button recovers after `recoverMs` of rest.
    private mutating func settle(before t: Int64, into out: inout [Action]) {
        guard downAtMs == nil, let up = lastUpMs else { return }
        if faulty {
            if t - up >= recoverMs {
                faulty = false
                burst = 0
                out.append(.recovered(atMonoMs: up + recoverMs))
            }
            return
        }
        guard t - up >= settleMs else { return }
        burst = 0
        if let p = pending {
            pending = nil
            out.append(p.long ? .endTrip(atMonoMs: p.atMs) : .lap(atMonoMs: p.atMs))
        }
    }
}

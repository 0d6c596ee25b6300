/// Rule 6, **nothing while standing still** (`standing`). Below the activity's standing speed
/// (`ActivityProfile.standingSpeedMps`, ~1 km/h) measured, or (inside a trip) when the positions
/// stand by displacement (`MovementWindow.stands`) on three windows in a row with a doppler (one
/// without), the receiver is standing: the first fix of the stop is kept so the track reaches the
/// place, then nothing is added. Before a trip, a standing receiver starts nothing; its newest
/// still fix waits to be where the trip sets off from.
///
/// The stop ends, when the positions also moved by displacement (`MovementWindow.moved`), on:
/// the measured speed at the activity's walking-off speed (`ActivityProfile.movingSpeedMps`)
/// four times in a row (four seconds' worth of fixes at a faster cadence: a blip lasts as long
/// at 10 Hz); or two times in a row (two seconds' worth) with the position leaving the spot
/// where it last stood still (beyond 1.5 × the fix's uncertainty, at least 3 m) the way the
/// measured course points (within 45°, unless the course is not trusted) and at least 30 % as
/// far as the speed says; or a displacement from the stop's anchor beyond twice the fix's
/// uncertainty (at least 10 m) that, with a speed, leaves likewise. Below the walking-off speed
/// nothing else leaves: drift among buildings wanders tens of metres in an hour and doppler
/// blips come singly. An anchor the next fixes cannot have come from (beyond the jump limit,
/// rule 4: a cold start's stale position) is replaced by the newest fix.
///
/// The way out: the fixes rolling since the last still one that lead consistently to the one
/// that ended the stop (each within the gap and confirmed by the next as a start is, rule 1)
/// are the metres ridden meanwhile (rule 1's back-fill); the others are dropped. After a pause
/// or before the trip, the last still fix is kept first and the chain goes through the rules;
/// after a short stop, only those of the chain beyond the noise from the stop fix (10 m or
/// twice their uncertainty) go through the distance filter, the rest are dropped (the rolling
/// fixes beside it would add their noise to a step of a few metres; "between buildings" lost
/// about 5 points a ride at its stops, and smoothing from the points alone fell from 30.7 % to
/// 26.7 % less cross-track error; now 28.9 %).
///
/// A stop longer than the pause limit (`ActivityProfile.pauseAfterMs`) starts a new segment
/// (nothing drawn across); one longer than the close limit (`ActivityProfile.closeAfterMs`)
/// ends the trip (`RuleOutput.closeTrip`), and the next movement starts a new one under rule 1.
/// A closed trip forgets the stop (a stand goes on being recognised from the next fixes).
///
/// A receiver that has proved no doppler (`Cadence.speedsProved`) stands inside its trip too
/// when its positions stood over minutes (`MovementWindow.standsOverMinutes`; issue 39): the stop
/// is counted from the window's start, and left only on minutes of way
/// (`MovementWindow.movedOverMinutes`), the evidence its trip opens on; its wander leaves any
/// window of seconds.
struct Standstill {
    private(set) var standing = false
    /// When the stop began, and where displacement from it is measured.
    private(set) var startMs: Int64 = 0
    var anchor: Fix?
    /// The newest still fix of the stop, and newer ones with some speed (the rider already
    /// rolling, not yet confirmed): where the way on starts. Not yet judged.
    private(set) var lastStill: Fix?
    private(set) var rolling = RingBuffer<Fix>(capacity: 32)
    /// Fixes in a row at the walking-off speed during the stop.
    var movingFixesInRow = 0
    /// Windows in a row that stood by displacement while moving.
    private var standsInRow = 0

    /// The stop was found over minutes by a receiver without doppler
    /// (`MovementWindow.standsOverMinutes`): it is left on minutes of way only
    /// (`MovementWindow.movedOverMinutes`), as its trip would open.
    private(set) var byMinutes = false

    /// A stop begins at `f`, counted from `sinceMs` (earlier when found over minutes).
    mutating func begin(_ f: Fix, sinceMs: Int64? = nil) {
        standing = true
        standsInRow = 0
        byMinutes = sinceMs != nil
        startMs = sinceMs ?? f.timeMs
        anchor = f
        movingFixesInRow = 0
    }

    /// The stop ended: hands over the last still fix (the rolling ones stay until `clearRolling`).
    mutating func end() -> Fix? {
        standing = false
        byMinutes = false
        let still = lastStill
        lastStill = nil
        return still
    }

    /// A gap was ridden through, or a time jump ends the trip: not standing, with nothing judged.
    mutating func leave() {
        standing = false
        byMinutes = false
    }

    mutating func clearRolling() { rolling.removeAll() }

    /// Counts a window that stood by displacement (`stands`): three in a row with a speed, one
    /// without, make a stand.
    mutating func standsInRow(_ stands: Bool, withSpeed: Bool) -> Bool {
        standsInRow = stands ? standsInRow + 1 : 0
        return standsInRow >= (withSpeed ? 3 : 1)
    }

    /// Keeps back the newest still fix, and the rolling ones after it; drops the rest.
    mutating func hold(_ f: Fix, standingSpeedMps: Double, emit: (RuleOutput) -> Void) {
        if let s = f.speed, s >= standingSpeedMps {
            if let s = rolling.first, rolling.isFull { emit(.drop(.standing, s)) }
            rolling.append(f)
        } else {
            dropHeld(emit: emit)
            lastStill = f
        }
    }

    /// Drops the still and rolling fixes kept back.
    mutating func dropHeld(emit: (RuleOutput) -> Void) {
        if let s = lastStill { emit(.drop(.standing, s)) }
        for i in 0..<rolling.count { emit(.drop(.standing, rolling[i])) }
        lastStill = nil
        rolling.removeAll()
    }

    mutating func reset() {
        lastStill = nil
        rolling.removeAll()
        standing = false
        byMinutes = false
        startMs = 0
        anchor = nil
        movingFixesInRow = 0
        standsInRow = 0
    }
}

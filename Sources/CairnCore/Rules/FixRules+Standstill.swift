// Rule 6 (`Standstill`): where a stop starts, goes on and ends, and what of the way out is kept.
extension FixRules {
    /// Judges `f` against the stop. Returns nil when `f` was held or dropped here (standing),
    /// else whether it goes on forced (the first fix of a stop inside a trip).
    mutating func judgeStandstill(_ f: Fix, emit: (RuleOutput) -> Void) -> Bool? {
        if stop.standing {
            if stillStanding(f) {
                if start.started, f.timeMs - stop.startMs >= closeLimitMs(standingAt: f) {
                    releaseHeld(emit: emit)
                    distance.releaseSkipped(emit: emit)
                    stop.dropHeld(emit: emit)
                    emit(.drop(.standing, f))
                    emit(.closeTrip)
                    tripClosed()
                    return nil
                }
                stop.hold(f, standingSpeedMps: profile.standingSpeedMps, emit: emit)
                return nil
            }
            leaveStop(f, emit: emit)
            return false
        }
        // (Without a speed, not before the stretch has shown its scatter: `PositionScatter.mature`.)
        let stands =
            (f.speed.map { $0 < profile.standingSpeedMps } ?? false)
            || (start.started && standsByDisplacementInRow(f) && (f.speed != nil || !scatter.unsettled))
        // (A receiver without doppler: over minutes too, the stop counted from their start.)
        let sinceMs = stands ? nil : standsOverMinutes(f)
        guard stands || sinceMs != nil else { return false }
        stop.begin(f, sinceMs: sinceMs)
        dropHeldBesideStop(f, emit: emit)
        // Before a trip, a standing receiver starts nothing (its newest fix waits to be where
        // the trip sets off from); inside one, the first fix of the stop is kept so the track
        // reaches the place.
        if !start.started {
            if start.waitingSinceMs == nil { start.waitingSinceMs = f.timeMs }
            stop.hold(f, standingSpeedMps: profile.standingSpeedMps, emit: emit)
            return nil
        }
        return true
    }

    /// A stop found without a speed (by displacement, seconds after the receiver stood still):
    /// a fix held since the last point kept, no nearer to where the receiver stands than that
    /// point and within twice its own uncertainty of it (at most 10 m), is the stand's noise, not
    /// the way to it, and goes (issue 39: a 3-minute stand kept a fix 3.5 m from the stop point,
    /// 13 s into the stand, and measured it as way, `StandDistanceTests` seed 6). Not where a
    /// doppler was disowned (a walk whose speeds read 0.0 under a wander read 1.8 % shorter
    /// with it), nor beyond 10 m (a receiver standing at HDOP 8-9 under σ 35 m recorded 2 m more).
    private mutating func dropHeldBesideStop(_ f: Fix, emit: (RuleOutput) -> Void) {
        guard start.started, f.speed == nil, !stillDoppler.disowned, let k = distance.lastKept, let b = hold.held, b.speed == nil,
            !hold.heldForced, hold.secondHeld == nil, Geodesy.distance(b, f) >= Geodesy.distance(k, f),
            Geodesy.distance(k, b) <= min(2 * uncertainty(b), 10)
        else { return }
        emit(.drop(.standing, b))
        hold.held = nil
    }

    /// How long a stand at `f` lasts before it closes the trip: the home's stand inside it, the
    /// close-after time elsewhere.
    func closeLimitMs(standingAt f: Fix) -> Int64 {
        HomePlace.closeLimitMs(home: profile.home, standingAt: f, closeAfterMs: profile.closeAfterMs)
    }

    /// `f` ended the stop: the way out (see `Standstill`).
    private mutating func leaveStop(_ f: Fix, emit: (RuleOutput) -> Void) {
        let still = stop.end()
        let pause = start.started && f.timeMs - stop.startMs >= profile.pauseAfterMs
        if pause {
            releaseHeld(emit: emit)
            distance.releaseSkipped(emit: emit)
            emit(.segment(.pause))
            hold.jumpRef = nil
            hold.jumpsInRow = 0
        }
        // The way out was confirmed by displacement some seconds after it began: the rolling
        // fixes that lead consistently to this one are the metres ridden meanwhile.
        let rolling = stop.rolling
        var chain = 0
        var next = f
        while chain < rolling.count {
            let p = rolling[rolling.count - 1 - chain]
            guard next.timeMs - p.timeMs <= gapMs, confirms(p, next) else { break }
            next = p
            chain += 1
        }
        for i in 0..<(rolling.count - chain) { emit(.drop(.standing, rolling[i])) }
        if !start.started { start.confirmed = true }
        // After a pause (a new segment) or before the trip, the way on starts where the
        // receiver last stood still. After a short stop the line from the stop fix does.
        if let d = still {
            if (pause && start.started) || (!start.started && start.isGoodFirstFix(d, limits: limits)) {
                push(d, forced: true, emit: emit)
            } else {
                emit(.drop(.standing, d))
            }
        }
        // After a short stop too, those that have left the stop beyond the noise go through
        // the distance filter: displacement ends the stop seconds after the wheels turn, and
        // the metres ridden meanwhile (often a turn off the stop) would otherwise be one long
        // step with no point. Those still beside the stop fix would add their noise.
        for i in (rolling.count - chain)..<rolling.count {
            let d = rolling[i]
            let left = start.started && distance.lastKept.map { Geodesy.distance($0, d) > max(10, 2 * uncertainty(d)) } ?? false
            if pause || left || (!start.started && start.isGoodFirstFix(d, limits: limits)) {
                push(d, forced: false, emit: emit)
            } else {
                emit(.drop(.standing, d))
            }
        }
        stop.clearRolling()
    }

    /// A receiver that has proved no doppler, inside its trip, without speed at `f`, stands over
    /// minutes (`MovementWindow.standsOverMinutes`): since when, or nil.
    private func standsOverMinutes(_ f: Fix) -> Int64? {
        guard start.started, f.speed == nil, !cadence.speedsProved else { return nil }
        return window.standsOverMinutes(f)
    }

    /// Whether the stop goes on at `f` (see `Standstill` for what leaves it).
    private mutating func stillStanding(_ f: Fix) -> Bool {
        // A stop found over minutes without a doppler is left on minutes of way, as its trip
        // opens: its wander leaves the anchor and the window of seconds every minute or so.
        if stop.byMinutes, f.speed == nil, !cadence.speedsProved {
            return !window.movedOverMinutes(f, noise: scatter.radius68)
        }
        // An anchor the next fixes cannot have come from (a cold start's stale position) is
        // replaced: displacement is measured from where the receiver really is.
        if let a = stop.anchor, !withinJump(a, f) { stop.anchor = f }
        if let s = f.speed {
            stop.movingFixesInRow = s >= profile.movingSpeedMps ? stop.movingFixesInRow + 1 : 0
            // Two rolling fixes in a row that have also left the spot where the receiver last
            // stood still; or four in a row whatever the position says (doppler blips at a
            // standstill come singly or in pairs, and never carry the position away).
            if stop.movingFixesInRow >= cadence.fixes(inSeconds: 4) { return !movedByDisplacement(f) }
            if stop.movingFixesInRow >= cadence.fixes(inSeconds: 2), let from = stop.lastStill ?? stop.anchor,
                Geodesy.distance(from, f) > max(3, 1.5 * uncertainty(f)), leavesAsDopplerSays(from, f)
            {
                return !movedByDisplacement(f)
            }
            // Below the walking-off speed nothing leaves: drift in bad sky wanders tens of metres
            // over an hour, and doppler blips come singly.
            if s < profile.movingSpeedMps { return true }
        }
        // Displacement from the stop, beyond the fix's own uncertainty, is movement too, when
        // the measured speed and course agree that something moves that way (a receiver
        // converging after a cold start "moves" kilometres at zero speed).
        if let a = stop.anchor, Geodesy.distance(a, f) > max(2 * uncertainty(f), 10), f.speed == nil || leavesAsDopplerSays(a, f) {
            return !movedByDisplacement(f)
        }
        return true
    }

    /// The window stood by displacement (`MovementWindow.stands`) three times in a row with a
    /// doppler (a spike at the window's end, out and back along the way, is one or two fixes),
    /// once without.
    private mutating func standsByDisplacementInRow(_ f: Fix) -> Bool {
        let stands = window.stands(
            f, u: uncertainty(f), windowMs: windowMs, intervalMs: cadence.intervalMs, scatter68: scatter.judgingRadius68,
            courseTrusted: course.trusted)
        return stop.standsInRow(stands, withSpeed: f.speed != nil)
    }

    /// The way from `a` to `f` agrees with `f`'s doppler: its measured course points that way
    /// (within 45°, when the course is trusted), and it is at least 30 % as long as the measured
    /// speed says.
    @inline(__always) private func leavesAsDopplerSays(_ a: Fix, _ f: Fix) -> Bool {
        guard let t = f.track, let v = f.speed else { return false }
        let k = cosDeg(a.lat) * 111_195.0
        let e = (f.lon - a.lon) * k, n = (f.lat - a.lat) * 111_195.0
        let d = abs(atan2Deg(e, n) - t).truncatingRemainder(dividingBy: 360)
        guard min(d, 360 - d) <= 45 || !course.trusted else { return false }
        return (e * e + n * n).squareRoot() >= 0.3 * v * Double(f.timeMs - a.timeMs) / 1000
    }
}

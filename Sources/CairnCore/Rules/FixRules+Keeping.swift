// Rules 5 and 1 (`SpikeHold`, `TripStart`): the held fix judged by its successor; then rule 8
// (`DistanceFilter`) on what is kept.
extension FixRules {
    /// Holds `f`, judging the fix held before it by it.
    mutating func push(_ f: Fix, forced: Bool, emit: (RuleOutput) -> Void) {
        guard let b = hold.held else {
            hold.held = f
            hold.heldForced = forced
            return
        }
        if let a = hold.jumpRef {
            if let c = hold.secondHeld {
                // Two held: drop both if they were an excursion, else keep the first and judge
                // the second afresh.
                let cForced = hold.secondHeldForced
                hold.secondHeld = nil
                if !hold.heldForced && !cForced && SpikeHold.isExcursion(a, b, c, f, unknownM: limits.unknownAccuracyM, noiseM: shownNoise68) {
                    emit(.drop(.spike, b))
                    emit(.drop(.spike, c))
                    hold.held = f
                    hold.heldForced = forced
                    return
                }
                keep(b, forced: hold.heldForced, emit: emit)
                hold.held = c
                hold.heldForced = cForced
                return push(f, forced: forced, emit: emit)
            }
            if !hold.heldForced && SpikeHold.isSpike(a, b, f, unknownM: limits.unknownAccuracyM, noiseM: shownNoise68) {
                emit(.drop(.spike, b))
            } else if !hold.heldForced && !forced && tooFast(a, b, fallback: SpikeHold.averageSpeed(a, f))
                && !tooFast(b, f, fallback: SpikeHold.averageSpeed(a, f))
            {
                // B arrived too fast but F sits by it: perhaps both are out; wait for one more.
                hold.secondHeld = f
                hold.secondHeldForced = forced
                return
            } else {
                keep(b, forced: hold.heldForced, emit: emit)
            }
        } else if (confirms(b, f) && (start.started || movedByDisplacement(f))) || (start.confirmed && withinJump(b, f)) {
            // (Before the trip, the confirming fix too must have moved as its doppler says: one
            // short window agreeing by chance does not start a trip.)
            if !start.started { backfill(before: b, emit: emit) }
            keep(b, forced: hold.heldForced || !start.started || distance.lastKept == nil, emit: emit)
        } else if !start.started && waitsMinutes(b) {
            // (Without a speed, a start not yet confirmed waits with the rest: minutes of them
            // may lead to the start, `TripStart`, and a walker lost its first 3 minutes.)
            start.wait(b, minutes: true, emit: emit)
        } else {
            emit(.drop(start.started ? .jump : .firstFix, b))
        }
        hold.held = f
        hold.heldForced = forced
    }

    /// The trip starts at `b`: keep the waiting fixes that lead to it (see `TripStart`); the rest
    /// are dropped as `first_fix`.
    private mutating func backfill(before b: Fix, emit: (RuleOutput) -> Void) {
        var chain: [Fix] = []
        var next = b
        var i = start.waiting.count - 1
        while i >= 0 {
            let p = start.waiting[i]
            guard next.timeMs - p.timeMs <= gapMs, confirms(p, next) else { break }
            chain.append(p)
            next = p
            i -= 1
        }
        for i in 0..<(start.waiting.count - chain.count) { emit(.drop(.firstFix, start.waiting[i])) }
        start.waiting.removeAll()
        for (k, p) in chain.reversed().enumerated() {
            // (Speeds that waited before `Cadence` found them gpsd's own from positions are none.)
            var p = p
            if cadence.speedsDerived { (p.speed, p.track) = (nil, nil) }
            keep(p, forced: k == 0, emit: emit)
        }
    }

    /// Hands out the held fixes no successor will judge (see `SpikeHold`).
    mutating func releaseHeld(emit: (RuleOutput) -> Void) {
        guard let b = hold.held else { return }
        hold.held = nil
        let bForced = hold.heldForced
        let c = hold.secondHeld
        hold.secondHeld = nil
        // A start nothing confirmed is not a trip.
        if hold.jumpRef == nil && !start.started {
            emit(.drop(.firstFix, b))
            if let c { emit(.drop(.firstFix, c)) }
            return
        }
        // One whose way in was faster than the measured speed allows is taken for a spike (an
        // excursion nothing came back from); the rest is kept.
        if let a = hold.jumpRef, !bForced, tooFast(a, b, fallback: SpikeHold.averageSpeed(a, b)) {
            emit(.drop(.spike, b))
            if let c { emit(.drop(.spike, c)) }
            return
        }
        keep(b, forced: true, emit: emit)
        if let c { keep(c, forced: true, emit: emit) }
    }

    /// `b` passed rules 1-5: the trip has started, `b` is the jump reference, and the distance
    /// filter (rule 8) decides whether it is a point.
    private mutating func keep(_ b: Fix, forced: Bool, emit: (RuleOutput) -> Void) {
        start.started = true
        start.confirmed = false
        hold.jumpRef = b
        distance.travel(to: b)
        // Forced points (a stop, a segment start) skip the distance filter, but a point on top
        // of the last one adds nothing. A turn of the measured course (doppler) is a corner:
        // kept whatever the distance.
        if let last = distance.lastKept,
            forced
                ? Geodesy.distance(last, b) < 1
                : distance.travelled < minDistance(b)
                    && !(courseTurn(last, b).map { $0 >= limits.cornerDegrees && distance.travelled >= cornerSpacing(b) } ?? false)
        {
            distance.skip(b, emit: emit)
            return
        }
        if let last = distance.lastKept, !distance.skipped.isEmpty, !coursesKnown(last, b) {
            distance.keepCorners(to: b, tolerance: cornerTolerance(b), emit: emit)
        }
        distance.keep(b, emit: emit)
    }

    /// The change of the measured course from `a` to `b`, in degrees, when both are moving fast
    /// enough for the receiver's course to mean something.
    @inline(__always) private func courseTurn(_ a: Fix, _ b: Fix) -> Double? {
        guard coursesKnown(a, b), let ca = a.track, let cb = b.track else { return nil }
        let d = abs(ca - cb).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }

    @inline(__always) private func coursesKnown(_ a: Fix, _ b: Fix) -> Bool {
        course.trusted && a.track != nil && b.track != nil && (a.speed ?? 0) >= limits.courseSpeedMps
            && (b.speed ?? 0) >= limits.courseSpeedMps
    }

    /// How far a turn of the measured course must be from the last point to be a corner: twice
    /// the noise shown against the doppler beyond the claim (0 for an honest receiver). A crawl
    /// through a hairpin under a wander of 30 m kept a point every 20° (10 m apart), each adding
    /// its noise to the length (issue 39).
    /// Slow movers only (under 3 m/s, as `PositionScatter.slowMps`): faster, a course is a
    /// course.
    @inline(__always) private func cornerSpacing(_ b: Fix) -> Double {
        (b.speed ?? 0) < PositionScatter.slowMps ? 2 * (dopplerShownUncertainty(b) - uncertainty(b)) : 0
    }

    /// How far a skipped fix must stand off the chord to be a corner (`DistanceFilter`).
    /// Against the doppler, the noise shown counts twice: a skipped fix stands off the chord by
    /// its noise in one axis, and the farthest of a few dozen by twice that.
    /// (The claimed figure counts up to `RuleLimits.maxAccuracyM`, the shown noise up to twice that.)
    @inline(__always) private func cornerTolerance(_ b: Fix) -> Double {
        // (Nor is a corner told from the scatter before the stretch has shown it.)
        if b.speed == nil && scatter.unknown { return .infinity }
        let u = min(positionOnlyUncertainty(b), limits.maxAccuracyM)
        // (Continuous: nothing changes until the shown noise passes the claimed figure. The
        // noise is scaled to this fix's claim where it was shown under larger ones.)
        let shown = (b.speed ?? .infinity) >= PositionScatter.slowMps ? 0 : 2 * window.slowNoise68(claiming: uncertainty(b))
        return max(2, u, min(shown, 2 * limits.maxAccuracyM))
    }

    /// The distance filter's threshold for `b` (`DistanceFilter`).
    /// Where the doppler has shown the positions noisier than 100 m can hide (issue 39: a walker
    /// under a wander of 35 m), the points are spaced by the shown noise, up to three times that.
    @inline(__always) private func minDistance(_ b: Fix) -> Double {
        // A fix without speed early in its stretch waits until the longer lags show its scatter.
        if b.speed == nil && scatter.unknown { return .infinity }
        let k = limits.distanceFilterUncertainties
        let shown = b.speed == nil ? 0 : min(dopplerShownUncertainty(b) * k, 3 * limits.maxDistanceFilterM)
        return max(profile.minDistanceM, min(positionOnlyUncertainty(b) * k, limits.maxDistanceFilterM), shown)
    }
}

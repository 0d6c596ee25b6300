#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the fix rules tell the recorder, in order.
public enum RuleOutput: Equatable, Sendable {
    /// Keep this point.
    case keep(Fix)
    /// One offered fix was dropped, and why (the fix as it was judged: its time and position
    /// are the offered fix's).
    case drop(DropReason, Fix)
    /// The next kept point starts a new segment.
    case segment(SegmentReason)
    /// The standstill has lasted long enough: the trip ends here.
    case closeTrip
}

/// The seam where the fix rules live: the recorder offers every collapsed fix and acts on what
/// comes out. A filter may hold fixes back (to judge them by their successor), so output can
/// lag input by a fix; `flush` releases what is held.
public protocol FixFilter {
    /// Judge one fix. `nowMs` is the recorder's clock for the age test (system time, or the fix's
    /// own time with `--clock fix`); `arrivalMs` the system clock when it arrived. Every offered
    /// fix ends up as exactly one `.keep` or `.drop`, now or later.
    mutating func offer(_ fix: Fix, nowMs: Int64, arrivalMs: Int64?, emit: (RuleOutput) -> Void)
    /// Release held fixes: gpsd went away, or the recorder stops.
    mutating func flush(emit: (RuleOutput) -> Void)
    /// The trip was closed from outside (shutdown, no fix for too long): start afresh.
    mutating func tripClosed()
}

/// The full rule set: keeps only the fixes we can trust. Each rule is numbered as in the
/// product's rule list and written once, in the doc comment of the state that carries it; every
/// dropped fix is counted under its rule (`DropReason`).
///
/// 1. Good first fix: `TripStart`.
/// 2. No old or rough fixes: `ClockAge` (and `FixBounds`, `isRough`).
/// 3. Position and height judged apart: `Accuracy.heightIsTrusted`.
/// 4. No impossible jumps, and 5. no out-and-back spikes: `SpikeHold`.
/// 6. Nothing while standing still: `Standstill`, judged by `MovementWindow`, `CourseTrust` and
///    `SpeedScale`; a doppler saying "standing" while the positions walk on: `StillDoppler`.
/// 7. No-speed fixes: `PositionScatter` (a speed gpsd derived from positions: `Cadence`).
/// 8. Distance filter and corners: `DistanceFilter`.
/// 9. Gaps keep the line; pauses and resets break it: `bridgeGap`.
/// 10. Heights, and 11. the accuracy mapping: `Accuracy`.
/// 12. Time that cannot poison a ride: `TimeLine`.
/// 13. Re-acquisition held to the doppler: `Convergence`.
public struct FixRules: FixFilter {
    public var profile: ActivityProfile
    public var limits: RuleLimits

    var clock = ClockAge()
    var timeLine = TimeLine()
    var cadence = Cadence()
    var stillDoppler = StillDoppler()
    var scatter = PositionScatter()
    /// The open trip has had a fix with a speed (a doppler's: not once `Cadence.speedsDerived`):
    /// only there are stretches without speed judged over minutes (`PositionScatter.slowLags`,
    /// `MovementWindow.minutesWithoutSpeed`).
    var tripSawSpeed = false
    var convergence = Convergence()
    var window = MovementWindow()
    var course = CourseTrust()
    var scale = SpeedScale()
    var stop = Standstill()
    var start = TripStart()
    var hold = SpikeHold()
    var distance = DistanceFilter()
    /// The newest usable fix (rule 9's gaps).
    var lastUsable: Fix?

    public init(profile: ActivityProfile = .ride, limits: RuleLimits = RuleLimits()) {
        self.profile = profile
        self.limits = limits
    }

    /// The recorder is standing still (for the live status).
    public var isStanding: Bool { stop.standing }

    // The non-mutating helpers are inlined, or static where the compiler still calls them out of
    // line: an out-of-line instance method called from a mutating one gets a copy of the whole
    // rules value (self) for each call.

    /// The fix's 68 % horizontal uncertainty, metres.
    @inline(__always) func uncertainty(_ f: Fix) -> Double { SpikeHold.uncertainty(f, limits.unknownAccuracyM) }
    /// Rule 9's gap, and rule 1's confirmation time, scaled to the receiver's interval.
    @inline(__always) var gapMs: Int64 { max(limits.gapMs, 3 * cadence.intervalMs) }
    @inline(__always) var confirmWithinMs: Int64 { max(limits.confirmWithinMs, 2 * cadence.intervalMs + 500) }
    /// Rule 6's window.
    @inline(__always) var windowMs: Int64 { max(limits.displacementWindowMs, 3 * cadence.intervalMs) }

    public mutating func offer(_ f: Fix, nowMs: Int64, emit: (RuleOutput) -> Void) {
        offer(f, nowMs: nowMs, arrivalMs: nil, emit: emit)
    }

    /// `arrivalMs` is when the fix arrived by the system clock (any clock that advances with real
    /// time, even one that started in 1970): it tells a real silence from a jump of the fix time.
    public mutating func offer(_ offered: Fix, nowMs: Int64, arrivalMs: Int64?, emit: (RuleOutput) -> Void) {
        // A speed no receiver reports (negative, infinite, 1e9 m/s) or an infinite course is
        // none, as the log stores it (`FixBounds`): one infinite course poisoned
        // the window's running sums, one 1e9 m/s speed made a ride "stand" for good.
        var f = offered
        if let v = f.speed, !FixBounds.speed.contains(v) { f.speed = nil }
        if let t = f.track, !FixBounds.track.contains(t) {
            // (A finite course off the compass is a direction still: -2° is 358°.)
            f.track = t.isFinite ? (t.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) : nil
        }
        // Rule 2 and sanity.
        guard f.lat.isFinite, f.lon.isFinite, abs(f.lat) <= 90, abs(f.lon) <= 180,
            f.timeMs >= limits.earliestValidMs, f.timeMs < limits.latestValidMs
        else { return emit(.drop(.invalid, f)) }
        if !clock.isFresh(f, nowMs: nowMs, maxAgeMs: limits.maxAgeMs, lateBeforeClockIsOff: limits.staleBeforeClockIsOff) {
            return emit(.drop(.stale, f))
        }
        // Rule 12: a fix time far off the time line is held until its successors say which is right.
        switch timeLine.judge(f, nowMs: nowMs, arrivalMs: arrivalMs, gapMs: gapMs, limits: limits, emit: emit) {
        case .onLine: judge(f, arrivalMs: arrivalMs, emit: emit)
        case .held: return
        case .gapConfirmed: acceptGap(emit: emit)
        case .jumpConfirmed: acceptTimeJump(nowMs: nowMs, emit: emit)
        }
    }

    /// The fixes held after a forward step agree with each other: it was a silence. They are
    /// judged as they came (rule 9 decides whether the line goes across).
    private mutating func acceptGap(emit: (RuleOutput) -> Void) {
        for (f, a) in timeLine.takeSuspects() {
            timeLine.advance(to: f.timeMs, arrivalMs: a)
            judge(f, arrivalMs: a, emit: emit)
        }
    }

    /// The held fixes agree with each other: the receiver's time really moved (a reset, a
    /// rollover fixed). The trip so far ends there and the held fixes start afresh.
    private mutating func acceptTimeJump(nowMs: Int64, emit: (RuleOutput) -> Void) {
        let held = timeLine.takeSuspects()
        if start.started {
            releaseHeld(emit: emit)
            distance.releaseSkipped(emit: emit)
            stop.dropHeld(emit: emit)
            emit(.closeTrip)
        } else {
            flush(emit: emit)
        }
        tripClosed()
        stop.leave()
        lastUsable = nil
        cadence.restart()
        timeLine.forgetLine()
        window.forgetSamples()
        if let first = held.first, abs(nowMs - first.fix.timeMs) <= limits.maxAgeMs { clock.offsetMs = 0 }
        for (f, a) in held {
            timeLine.advance(to: f.timeMs, arrivalMs: a)
            judge(f, arrivalMs: a, emit: emit)
        }
    }

    /// The rules for a fix on the time line, in order.
    private mutating func judge(_ fix: Fix, arrivalMs: Int64?, emit: (RuleOutput) -> Void) {
        var f = fix
        cadence.learn(&f)
        // A doppler saying "standing" while the positions walk on for minutes is none.
        stillDoppler.learn(f, standingSpeedMps: profile.standingSpeedMps)
        if stillDoppler.disowned { (f.speed, f.track) = (nil, nil) }
        if scale.factor != 1, let v = f.speed { f.speed = v * scale.factor }
        // Rules 2 and 7.
        if isRough(f) {
            if scatter.slowLags { dropScatteredHeld(emit: emit) }
            return emit(.drop(.rough, f))
        }
        // Rule 3: the position and the height are judged apart. A height that is not trusted is
        // never exported (`Accuracy.heightIsTrusted`), but its position is still a position.
        // Rule 9.
        bridgeGap(f, emit: emit)
        lastUsable = f
        // Rule 13.
        if convergence.isConverging,
            !convergence.converged(
                f, windowMs: max(limits.convergeWindowMs, cadence.intervalMs), giveUpMs: limits.convergeGiveUpMs,
                courseSpeedMps: limits.courseSpeedMps, courseTrusted: course.trusted)
        {
            return emit(.drop(.converging, f))
        }
        // Rule 6's window, the course's trust and the speeds' scale.
        if window.samples(f) {
            let u = uncertainty(f)
            window.sample(f, u: u)
            window.learn(
                f, u: u, windowMs: windowMs, intervalMs: cadence.intervalMs, maxSpeedMps: profile.maxSpeedMps,
                course: &course, scale: &scale)
        }
        // Rule 6 (and rule 7's position test while standing without a speed).
        guard let forcedByStop = judgeStandstill(f, emit: emit) else { return }
        // Rule 7 (before a trip that waits minutes, every fix waits, and those kept at the start
        // are spaced by the distance filter: a gap of them here broke the way back to the start).
        if f.speed == nil, start.started || !waitsMinutes(f), let ref = hold.newest ?? distance.lastKept,
            Geodesy.distance(ref, f) <= positionOnlyUncertainty(f)
        {
            return emit(.drop(.noSpeedNear, f))
        }
        // Rule 1.
        if !start.started && hold.held == nil && !readyToStart(f, emit: emit) { return }
        // Rule 4.
        guard let forced = judgeJump(f, forced: forcedByStop, emit: emit) else { return }
        // Rule 5, then rule 8.
        push(f, forced: forced, emit: emit)
        // The first fix of a stop is kept whatever comes next; nothing comes while standing, so
        // hand it out now rather than hold it (and risk it) for the whole stop.
        if stop.standing && start.started && hold.held == f && hold.heldForced { releaseHeld(emit: emit) }
    }

    /// Rule 2's accuracy, and rule 7's stretch too scattered to place (its scatter × 6.5 beyond
    /// the distance filter's 100 m): it is a gap (rule 9). Learns the stretch's scatter.
    private mutating func isRough(_ f: Fix) -> Bool {
        if let a = Accuracy.horizontal68(f), !(a <= limits.maxAccuracyM) { return true }
        // A receiver saying "worse than 10 km" (u-blox: 4,295 km without a fix) is rough, not unknown.
        if let e = f.eph, e.isFinite, e > Accuracy.absurdM { return true }
        if f.speed == nil {
            // (A GGA-only receiver's first speeds pass for measured before `Cadence` has seen
            // them equal the chords: no doppler after all. Judged in-trip, its ride on unseen
            // seeds was +2.62 % with 152 m while standing; main +2.38 % and 131 m.)
            if cadence.speedsDerived || stillDoppler.disowned { tripSawSpeed = false }
            scatter.slowLags = tripSawSpeed
            window.minutesWithoutSpeed = tripSawSpeed
            scatter.learn(f)
            return scatter.judgingRadius68 * limits.distanceFilterUncertainties > limits.maxDistanceFilterM
        }
        scatter.endStretch()
        if start.started { tripSawSpeed = true }
        return false
    }

    /// The stretch turned out too scattered to place (rule 7): the fixes without speed it let
    /// through before its scatter was known, still held or skipped, go too (issue 39: a wander of
    /// 35 m shows only over the longer lags, and its first fixes were kept 30-80 m off).
    private mutating func dropScatteredHeld(emit: (RuleOutput) -> Void) {
        distance.dropSkippedWithoutSpeed(emit: emit)
        if let c = hold.secondHeld, c.speed == nil, !hold.secondHeldForced {
            emit(.drop(.rough, c))
            hold.secondHeld = nil
        }
        if let b = hold.held, b.speed == nil, !hold.heldForced, hold.secondHeld == nil {
            emit(.drop(.rough, b))
            hold.held = nil
        }
    }

    /// Rule 9, **gaps keep the line; pauses and resets break it.** A silence of over
    /// `RuleLimits.gapMs` (10 s, or three of the receiver's intervals: a logger that sends a fix
    /// every 12 s has no gap every fix) between usable fixes inside a trip — a tunnel, a rough
    /// stretch, gpsd restarting — keeps the segment: the chord counts once toward distance and
    /// its time toward moving time, in cairn's figures and in any reader's. The fixes held and
    /// skipped before it are released first. A stop of less than the pause limit followed by a
    /// chord at half the walking-off speed or more, and a fix moving at least that fast (or
    /// without a speed), rode through the silence: the stop ends. Otherwise a new segment only
    /// when the receiver stood before the silence (the stop goes on, rule 6 decides), when the
    /// chord from the last kept point is faster than the activity goes (`gap`: no line across;
    /// the next fix must be confirmed afresh), or when the silence lasted the pause limit and
    /// the chord is slower than the standing speed (`pause`). The jump rule still judges the
    /// first fix after a bridged gap, with the whole silence's worth of plausible travel. A
    /// silence of `RuleLimits.convergeAfterMs` (30 s) or more ended by a fix with a speed holds
    /// the next positions to the doppler (rule 13, `Convergence`).
    private mutating func bridgeGap(_ f: Fix, emit: (RuleOutput) -> Void) {
        guard start.started, let prev = lastUsable, f.timeMs - prev.timeMs > gapMs else { return }
        releaseHeld(emit: emit)
        distance.releaseSkipped(emit: emit)
        let dt = Double(f.timeMs - prev.timeMs) / 1000
        if stop.standing, prev.timeMs - stop.startMs < profile.pauseAfterMs, let from = distance.lastKept,
            Geodesy.distance(from, f) / max(Double(f.timeMs - from.timeMs) / 1000, 0.001) >= profile.movingSpeedMps / 2,
            (f.speed ?? profile.movingSpeedMps) >= profile.movingSpeedMps
        {
            // A short stop (a light) and then into the tunnel: it rode through the silence.
            stop.leave()
            stop.dropHeld(emit: emit)
        }
        if !stop.standing {
            let from = distance.lastKept ?? prev
            let chord = Geodesy.distance(from, f) / max(Double(f.timeMs - from.timeMs) / 1000, 0.001)
            if chord > profile.maxSpeedMps {
                // Not a speed this activity goes at: no line across.
                emit(.segment(.gap))
                hold.jumpRef = nil
            } else if f.timeMs - prev.timeMs >= profile.pauseAfterMs, chord < profile.standingSpeedMps {
                // Barely moved over a long silence: it stood.
                emit(.segment(.pause))
                hold.jumpRef = nil
            }
        }
        hold.jumpsInRow = 0
        if dt * 1000 >= Double(limits.convergeAfterMs), f.speed != nil { convergence.begin() }
    }

    /// Rule 1's wait: before the trip, a fix not yet good enough (accuracy, or not moved by
    /// displacement) waits for the start. Returns whether `f` goes on to be held as a start.
    private mutating func readyToStart(_ f: Fix, emit: (RuleOutput) -> Void) -> Bool {
        let since = start.waitingSinceMs ?? f.timeMs
        start.waitingSinceMs = since
        // A trip opens only where the positions have moved as the doppler says, over some
        // seconds (rule 6): a receiver standing under trees may report 1-4 m/s.
        // Without a speed, not before the stretch has shown its scatter (`PositionScatter.mature`):
        // a wander of tens of metres over half a minute moves as a walker does.
        // Nor, without a speed, before minutes of steady way beyond the wander
        // (`MovementWindow.movedOverMinutes`): a standing receiver's wander moves as a walker
        // does over a window, and opened a trip every time.
        let minutes = waitsMinutes(f)
        let way = minutes ? movedOverMinutesLastingly(f) : true
        if !start.isGoodFirstFix(f, limits: limits) || (f.speed == nil && scatter.unsettled) || !movedByDisplacement(f) || !way {
            start.wait(f, minutes: minutes, emit: emit)
            return false
        }
        return true
    }

    /// **Minutes of way that last** (issue 39, item 2): `MovementWindow.wayOverMinutes` shown,
    /// and, as long after as a slow mover takes to go `wayNoises` times the wander (at
    /// `MovementWindow.minutesMps`; at most `wayLastsMaxMs`), the positions still at least
    /// `wayKept` of that way from where its window began. A wander correlated over a minute
    /// passes five times its scatter now and then and comes back towards where it wanders
    /// about; a walker's way stays gone, or grows. The way proved opens the trip at a fix that
    /// moved (rule 6) within as long again; the fixes wait meanwhile (360 of them) and are kept.
    /// Called at every fix before the trip of a receiver without a speed it may open a trip by.
    private mutating func movedOverMinutesLastingly(_ f: Fix) -> Bool {
        if let until = start.wayProvedUntilMs {
            if f.timeMs <= until { return true }
            start.wayProvedUntilMs = nil
        }
        let noise = scatter.radius68
        let needed = min(Self.wayLastsMaxMs, Int64(Self.wayNoises * noise / MovementWindow.minutesMps * 1000))
        if let w = start.wayShown, f.timeMs - w.ms >= needed {
            start.wayShown = nil
            let de = (f.lon - w.lon) * cosDeg(f.lat) * 111_195.0, dn = (f.lat - w.lat) * 111_195.0
            if (de * de + dn * dn).squareRoot() >= Self.wayKept * w.d {
                start.wayProvedUntilMs = f.timeMs + needed
                return true
            }
        }
        if start.wayShown == nil, let w = window.wayOverMinutes(f, noise: noise) { start.wayShown = (w.lat, w.lon, w.d, f.timeMs) }
        return false
    }
    static let wayNoises = 2.0
    static let wayKept = 0.75
    static let wayLastsMaxMs: Int64 = 90_000

    /// `f` has no speed it may open a trip by: none, gpsd's own from positions (`Cadence` took it
    /// away), or one not yet proved a doppler's (`Cadence.speedsProved`). Its trip opens only on
    /// minutes of way (`MovementWindow.movedOverMinutes`); the way there waits and is kept. (Issue
    /// 39: GGA-only streams and RMC without speed were exempt, and a standing receiver opened a
    /// trip in 35 of 35 runs through gpsd, 416-4,035 m.)
    @inline(__always) func waitsMinutes(_ f: Fix) -> Bool { f.speed == nil || !cadence.speedsProved }

    /// Rule 4 against the jump reference. Returns whether `f` goes on forced (a new segment
    /// starts at it), or nil when it was dropped.
    private mutating func judgeJump(_ f: Fix, forced: Bool, emit: (RuleOutput) -> Void) -> Bool? {
        guard let ref = hold.jumpRef else { return forced }
        var forced = forced
        if !withinJump(ref, f) {
            hold.jumpsInRow += 1
            if hold.jumpsInRow <= limits.jumpsBeforeReset {
                emit(.drop(.jump, f))
                return nil
            }
            // The reference was the bad one (or the receiver really is elsewhere now): what
            // was judged against it ends the segment, and the next one starts here.
            releaseHeld(emit: emit)
            distance.releaseSkipped(emit: emit)
            emit(.segment(.reset))
            hold.jumpRef = nil
            forced = true
        }
        hold.jumpsInRow = 0
        return forced
    }

    public mutating func flush(emit: (RuleOutput) -> Void) {
        // Held time outliers nothing confirmed. Fixes after a forward step are kept as after a
        // silence: with nothing after them, they are more likely the ride's end than outliers.
        if timeLine.suspectsAreGap && timeLine.suspects.count > 1 {
            acceptGap(emit: emit)
        } else {
            timeLine.dropSuspects(emit: emit)
        }
        releaseHeld(emit: emit)
        stop.dropHeld(emit: emit)
        start.dropWaiting(emit: emit)
        distance.releaseSkipped(emit: emit)
        // Whatever comes next is judged afresh (gpsd may come back anywhere).
        hold.jumpRef = nil
        hold.jumpsInRow = 0
    }

    public mutating func tripClosed() {
        // (Waiting fixes are dropped by the caller's flush; a closed trip forgets them.)
        start.reset()
        tripSawSpeed = false
        hold.reset()
        distance.reset()
        convergence.reset()
        // What rules 6 and 7 learnt (the stop, the window, the receiver's noise) is forgotten:
        // a re-filter of the next trip starts from its first stored fix with rules that never
        // saw this one, and must keep the same points. A stand goes on being recognised from
        // the next fixes (a slow doppler at once; a lying one by displacement), so a trip
        // closed by a standstill still reopens only on movement.
        stop.reset()
        window.reset()
        scale.reset()
        course.reset()
        cadence.forgetSpeeds()
        stillDoppler.reset()
        scatter = PositionScatter()
    }

    // MARK: - Shared tests

    @inline(__always) func withinJump(_ a: Fix, _ b: Fix) -> Bool {
        SpikeHold.withinJump(a, b, maxSpeedMps: profile.maxSpeedMps, unknownM: limits.unknownAccuracyM, noiseM: shownNoise68)
    }

    /// A start (no reference) is confirmed by a successor within the jump limit and displaced
    /// about as far as the measured speed says (a frozen stale position with a real speed fails).
    @inline(__always) func confirms(_ b: Fix, _ c: Fix) -> Bool {
        guard c.timeMs - b.timeMs <= confirmWithinMs, withinJump(b, c) else { return false }
        guard let v = b.speed ?? c.speed else { return true }
        let dt = Double(c.timeMs - b.timeMs) / 1000
        let d = Geodesy.distance(b, c)
        return abs(d - v * dt) <= 0.5 * v * dt + uncertainty(b) + uncertainty(c) + 2
    }

    @inline(__always) func tooFast(_ p: Fix, _ q: Fix, fallback: Double) -> Bool {
        SpikeHold.tooFast(p, q, fallback: fallback, unknownM: limits.unknownAccuracyM, noiseM: shownNoise68)
    }

    /// Rule 6's movement test over the window (`MovementWindow.moved`).
    @inline(__always) func movedByDisplacement(_ f: Fix) -> Bool {
        window.moved(
            f, u: uncertainty(f), windowMs: windowMs, intervalMs: cadence.intervalMs, scatter68: scatter.judgingRadius68,
            courseTrusted: course.trusted)
    }

    /// The noise the receiver's positions have shown, whatever it claims (68 %): against the
    /// doppler over windows at a slow pace (`MovementWindow.slowNoise68`), or without one the scatter of
    /// the position-only stretch (rule 7, `PositionScatter`). Rules 4, 5 and 8 take a fix's
    /// uncertainty as at least this; rule 6's stand keeps to the claims (a lying doppler raises
    /// what is learnt).
    /// Slow movers only (the newest fix under 3 m/s or without speed, as
    /// `PositionScatter.slowMps`): a faster ride keeps the limits it was tuned to.
    @inline(__always) var shownNoise68: Double {
        if let v = lastUsable?.speed, v >= PositionScatter.slowMps { return 0 }
        // (Before a trip, the claims: a receiver standing under a lying doppler raises what is
        // learnt, and a start must not be easier for it.)
        // (A stretch without speed outside a trip that has had one: the claims, as before issue 39.)
        let own = scatter.slowLags ? scatter.radius68 : 0
        if !start.started { return own }
        return max(window.slowNoise68(), own)
    }

    /// A fix's uncertainty, or the noise its receiver has shown when larger (rule 7's scatter
    /// for a fix without a speed).
    @inline(__always) func positionOnlyUncertainty(_ f: Fix) -> Double {
        guard f.speed == nil else { return dopplerShownUncertainty(f) }
        if scatter.slowLags { return max(uncertainty(f), scatter.radius68) }
        // Outside a trip that has had a speed, the longer lags' scatter (a wander) counts once
        // it is clearly more than the claim and the one-second scatter: from 1.5 ×, fully from
        // 2 × (a receiver whose own figures match its wander keeps its spacing, and a slow
        // mover's bends, which the longer lags see too, do not widen it).
        let base = max(uncertainty(f), scatter.judgingRadius68), long = scatter.radius68
        return long >= 2 * base ? long : max(base, base + 2 * (long - 1.5 * base))
    }

    /// A fix's claimed uncertainty `u`, or the noise its receiver has shown against the doppler
    /// once that is clearly more: from 1.5 × the claim it takes over, fully from twice it (an
    /// honest receiver's shown noise wavers about its claim; spacing its points by the wavering
    /// costs smoothing from the points their corners).
    @inline(__always) func dopplerShownUncertainty(_ f: Fix) -> Double {
        let u = uncertainty(f)
        // (Slow movers only: faster, the limits the rides were tuned to.)
        if let v = f.speed, v >= PositionScatter.slowMps { return u }
        let shown = window.slowNoise68()
        return shown >= 2 * u ? shown : max(u, u + 2 * (shown - 1.5 * u))
    }
}

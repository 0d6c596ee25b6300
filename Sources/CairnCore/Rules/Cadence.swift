/// The receiver's cadence, and whether its speeds are its own. Not a rule of its own: the limits
/// of rules 1, 6, 9, 12 and 13 scale with it.
///
/// The interval is the median of the last nine between the fixes judged (those past rule 2's
/// age and rule 12's time line; 1 s until there is one).
/// A gap (rule 9) is over `RuleLimits.gapMs` (10 s) or three intervals; a start's confirming fix
/// comes within `RuleLimits.confirmWithinMs` (5 s) or two intervals and a half second; "n in a
/// row" means n seconds' worth of fixes at a faster cadence (`fixes(inSeconds:)`).
///
/// Speeds that gpsd computed from positions (receivers that send none, GGA-only) are recognised
/// and are not kept as measured speeds (rule 7 judges such fixes): they equal the chord speed to
/// the millimetre per second (3 mm/s plus 0.05 % of it) at chord speeds of 0.5 m/s and more, fix
/// after fix. Each such step adds one to a score (at most 8), each other moving step takes two
/// off; from 4 until it is back to 0 the fixes' speed and course are dropped. gpsd derives from its own
/// previous fix, which need not be the one judged before (a fix the time line held, an epoch
/// collapsed): the chords from each of the last three judged fixes are tried.
/// A speed proves honest (`speedsProved`) after two moving steps that match none of those chords
/// while the score is 0; until then it opens no trip (issue 39: a standing receiver without
/// doppler opened one at its first fix, on gpsd's derived speeds, before the score said so).
struct Cadence {
    private var intervals = RingBuffer<Int64>(capacity: 9)
    private(set) var intervalMs: Int64 = 1000
    private var sortedIntervals: [Int64] = []
    private var lastOffered: Fix?
    /// The fixes judged before `lastOffered` (newest last): gpsd's previous fix may be one of them.
    private var olderOffered = RingBuffer<Fix>(capacity: 2)
    /// Evidence (0...8) that the speeds are gpsd's own from positions, not a doppler's.
    private var derivedSpeedScore = 0
    /// Moving steps whose speed matched no recent chord: a doppler's (2 prove it).
    private var dopplerSteps = 0
    /// The score reached 4 and has not fallen back to 0 since.
    private var derived = false

    /// Learns `f`'s interval and whether its speed is derived; takes a derived speed away.
    mutating func learn(_ f: inout Fix) {
        if let p = lastOffered {
            let dt = f.timeMs - p.timeMs
            if dt > 0 {
                // At a steady cadence every interval is the median already: nothing to sort.
                let evicted = intervals.isFull ? intervals[0] : intervalMs
                intervals.append(dt)
                if dt != intervalMs || evicted != intervalMs { updateInterval() }
                // A doppler speed never equals the chord's: even a smoothing receiver's positions
                // are rounded to 0.1-0.2 m in NMEA. (Standing still both are zero: only moving
                // steps tell.)
                if let v = f.speed, let chord = Optional(Geodesy.shortEllipsoidDistance(p, f) / (Double(dt) / 1000)), chord >= 0.5 {
                    // The rules judge positions at the log's 1e-7° (`Fix.atLogResolution`): gpsd's
                    // speed, from its own unrounded ones, is off their chord by up to 1.6 cm over
                    // the step (issue 39: through gpsd a standing receiver's speeds matched only
                    // now and then, and were taken for a doppler's). Allowed for a speed without
                    // a course (gpsd derives no course); a doppler proves itself only beyond it.
                    let rounding = Self.onLogGrid(p) && Self.onLogGrid(f) ? Self.roundingM / (Double(dt) / 1000) : 0
                    let slack = f.track == nil ? rounding : 0
                    // (The older chords only while in doubt: an honest doppler, once proved, costs nothing more.)
                    if Self.isDerived(speed: v, chord: chord, slack: slack)
                        || ((derivedSpeedScore > 0 || dopplerSteps < 2) && matchesOlderChord(v, f, slack: slack))
                    {
                        derivedSpeedScore = min(derivedSpeedScore + 1, 8)
                    } else {
                        derivedSpeedScore = max(derivedSpeedScore - 2, 0)
                        if !Self.isDerived(speed: v, chord: chord, slack: rounding) { dopplerSteps = min(dopplerSteps + 1, 2) }
                    }
                }
            }
            olderOffered.append(p)
        }
        lastOffered = f
        // (Once found, until the score is back to 0: a step from a fix of gpsd's the rules never
        // saw takes 2 off, and the speeds coming and going broke rule 7's no-speed stretch, whose
        // scatter then let a standing receiver's wander open a trip.)
        if derivedSpeedScore >= 4 { derived = true } else if derivedSpeedScore == 0 { derived = false }
        if derived {
            f.speed = nil
            f.track = nil
        }
    }

    /// Whether `v` at `f` is the chord speed from one of the fixes judged before the last one.
    private func matchesOlderChord(_ v: Double, _ f: Fix, slack: Double) -> Bool {
        for i in 0..<olderOffered.count {
            let o = olderOffered[i]
            guard f.timeMs > o.timeMs else { continue }
            let dt = Double(f.timeMs - o.timeMs) / 1000
            if Self.isDerived(speed: v, chord: Geodesy.shortEllipsoidDistance(o, f) / dt, slack: slack > 0 ? Self.roundingM / dt : 0) { return true }
        }
        return false
    }

    /// Whether `f`'s position is on the log's 1e-7° grid (`Fix.atLogResolution`: the recorder's
    /// fixes when it keeps raw fixes, and a replay's): only then were its positions rounded.
    @inline(__always) static func onLogGrid(_ f: Fix) -> Bool {
        let a = f.lat * 1e7, b = f.lon * 1e7
        return abs(a - a.rounded()) < 1e-3 && abs(b - b.rounded()) < 1e-3
    }

    /// How far the log's 1e-7° grid can move a step's chord (two ends, each off by up to half a
    /// unit in latitude and longitude).
    static let roundingM = 0.016

    /// Whether `speed` is gpsd's own from the step whose chord speed is `chord` (both m/s): equal
    /// to the millimetre per second, which no doppler is.
    static func isDerived(speed: Double, chord: Double, slack: Double = 0) -> Bool {
        abs(speed - chord) <= 0.003 + 0.0005 * chord + slack
    }

    /// Whether `speed` (m/s) at `b` may be one computed from the positions `a` to `b`, for the
    /// figures (`TripStats`), not for the rules: the chord speed to the millimetre per second
    /// (`isDerived`) on the WGS 84 ellipsoid (gpsd's Vincenty distance) or on the mean sphere
    /// (software that derives speeds the simple way), with the positions' rounding to the log's
    /// 1e-7° allowed for (up to 1.6 cm over a step). The rules keep the narrow test: taking a
    /// speed away changes which points they keep (the Edge 810 ride without speeds came out 0.6 %
    /// shorter and with 10 % less climb when they used this one). Only the offered fixes are
    /// judged by it (`TripStats.addOffered`): on the kept points it took exact synthetic dopplers
    /// for positions and moved generated rides' top speeds.
    static func mayBeDerived(speed v: Double, from a: Fix, to b: Fix) -> Bool {
        guard b.timeMs > a.timeMs else { return false }
        let dt = Double(b.timeMs - a.timeMs) / 1000
        let rounding = roundingM / dt
        let ellipsoid = Geodesy.shortEllipsoidDistance(a, b) / dt
        if abs(v - ellipsoid) <= 0.003 + 0.0005 * ellipsoid + rounding { return true }
        let sphere = Geodesy.distance(a, b) / dt
        return abs(v - sphere) <= 0.003 + 0.0005 * sphere + rounding
    }

    /// The speeds have proved gpsd's own from positions (and are taken away): this receiver has
    /// no doppler, whatever its first fixes seemed to say.
    var speedsDerived: Bool { derived }

    /// The speeds have proved a doppler's: two moving steps unlike any chord, and no step since
    /// that looked derived. Until then a speed opens no trip (rule 1 takes the fix as without one).
    var speedsProved: Bool { dopplerSteps >= 2 && derivedSpeedScore == 0 }

    /// A trip closed: whether the speeds are a doppler's is judged afresh, as a re-filter of the
    /// next trip (from its first stored fix, with fresh rules) judges it.
    mutating func forgetSpeeds() {
        derivedSpeedScore = 0
        derived = false
        dopplerSteps = 0
    }

    /// The receiver's time moved (rule 12): its intervals start afresh.
    mutating func restart() {
        lastOffered = nil
        olderOffered.removeAll()
        intervals.removeAll()
        intervalMs = 1000
    }

    private mutating func updateInterval() {
        sortedIntervals.removeAll(keepingCapacity: true)
        for i in 0..<intervals.count { sortedIntervals.append(intervals[i]) }
        sortedIntervals.sort()
        intervalMs = sortedIntervals.isEmpty ? 1000 : sortedIntervals[sortedIntervals.count / 2]
    }

    /// The votes that make "n in a row" at one fix a second: a blip lasts about as long at any
    /// cadence, so a 10 Hz receiver needs ten times as many fixes (never fewer than `n`).
    @inline(__always) func fixes(inSeconds n: Int) -> Int {
        max(n, Int((Int64(n) * 1000 + intervalMs - 1) / intervalMs))
    }
}

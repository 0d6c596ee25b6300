/// Running statistics of a trip, fed the kept points in order. The recorder keeps one for the live
/// status; readers rebuild one from the log, so a trip's figures never depend on a summary record.
public struct TripStats: Sendable {
    /// A step slower than this (from the measured speeds, or distance over time when there are
    /// none) is not moving time: ~1 km/h.
    public static let movingSpeedMps = 0.28
    /// A step longer than this counts as moving time only by the measured speeds at its ends
    /// (without them, a long step may be a pause).
    public static let maxMovingStepMs: Int64 = 60_000

    public private(set) var points = 0
    /// Points with a trusted, finite height (`Accuracy.heightIsTrusted`).
    public private(set) var pointsWithHeight = 0
    public private(set) var segments = 0
    public private(set) var distanceM = 0.0
    /// The moving time the steps counted, before `movingTimeMs`'s bounds (FIT's timer stops
    /// over a step that added none: a stand).
    public private(set) var countedMovingMs: Int64 = 0
    /// The length of the steps that counted as moving.
    private var movingDistanceM = 0.0
    public private(set) var firstTimeMs: Int64?
    public private(set) var lastTimeMs: Int64?
    /// The fastest speed held for `supportMs`: measured, or without measurements ridden (issue
    /// 28: a GGA-only receiver's speed derived from one jump made a city drive 170 km/h).
    private var supportedMaxMps: Double?
    /// Until a speed has held for `supportMs` (a trip of a few seconds), the best there is.
    private var unsupportedMaxMps: Double?
    /// The fastest speed of the kept points without measured speeds (their chords over
    /// `supportMs`).
    private var keptChordMaxMps: Double?
    /// The top speed of the offered fixes without measured speeds, reached and left as the
    /// activity can (issue 39): the kept points alone are too far apart to tell an excursion.
    private var offered: PositionSpeeds
    private var lastOffered: Fix?
    /// Offered fixes given (`addOffered`).
    public var offeredFixes: Int { offered.fixes }
    /// A trainer's top speed from the wheel (`addWheel`): it has no point to measure one at.
    private var wheelTopMps: Double?
    private var measuredMaxMps: Double? {
        // the measured speeds not yet settled, judged by what has come after them so far
        var settled = self
        settled.settleSpeeds(before: Int64.max)
        let measured = settled.supportedMaxMps ?? settled.unsupportedMaxMps
        // Where the kept points have no measured speed, the top speed is one both the kept
        // points' chords and every offered fix bear out: the offered fixes see an excursion
        // inside a kept chord, the kept chords average out noise a second's chord does not.
        let chord = keptChordMaxMps.map { k in offered.topMps.map { min(k, $0) } ?? k }
        guard let c = chord else { return wheelTopMps.map { max($0, measured ?? 0) } ?? measured }
        return max(c, measured ?? 0, wheelTopMps ?? 0)
    }
    /// Ascent and descent: from the barometric pressure stored with the points when there is
    /// any (calibrated and drift-corrected against trusted GPS heights), else from trusted GPS heights.
    public private(set) var climb = AscentTracker()
    /// The barometer's climb from every fix the rules kept or thinned out as too close to the last
    /// kept point (`addOfferedHeight`): the distance filter keeps about one fix in three on a
    /// straight road, and a crest or a dip between kept points is climb all the same.
    public private(set) var offeredClimb = AscentTracker()
    private var altimeter = BaroAltimeter()
    private var offeredAltimeter = BaroAltimeter()
    private var last: Fix?
    /// Where the current stretch for the speed without measurements starts (this segment).
    private var chordFrom: Fix?
    private var chordBefore: Fix?
    /// A top speed must hold this long: the measured speeds of the points over it (and the one
    /// before), or the chords without them.
    public static let supportMs: Int64 = 3_000
    /// The recent points' measured speeds that agreed with their steps (`settleMs` and
    /// `supportMs` of them at 10 Hz).
    private var recentSpeeds = RingBuffer<SpeedAt>(capacity: 160)
    /// The measured speeds up to this time are judged (their support and reach are known).
    private var settledThroughMs = Int64.min
    /// The judged speeds, each lowered to what the speeds around it allow.
    private var reachedSpeeds = RingBuffer<SpeedAt>(capacity: 160)
    /// No rider, bike or car speeds up or brakes harder than about 1 g: a speed reached or left
    /// faster than this is a position that went out and came back (a GGA-only stream's derived
    /// 88 → 166 → 34 km/h within seconds), not a speed (issue 39).
    public static let maxAccelerationMps2 = 10.0
    /// A measured speed is judged once this much has come after it: what it fell to within
    /// the time 1 g takes to lose 50 m/s.
    public static let settleMs: Int64 = 5_000

    private struct SpeedAt {
        var timeMs: Int64
        var speed: Double
    }
    private var bridgeNext = false
    /// The next point starts a segment after a pause (`countsDistance(pauseFrom:to:)`).
    private var pauseNext = false
    private var newSegmentPending = true

    /// `profile`: the activity whose accelerations bound a top speed from positions (the
    /// loosest, a drive's, when the activity is not known).
    public init(profile: ActivityProfile? = nil) {
        let p = profile ?? .drive
        offered = PositionSpeeds(speedUpMps2: p.speedUpMps2, slowDownMps2: p.slowDownMps2)
    }

    /// Takes `other`'s top speed from offered fixes (and its activity's limits) for this one's:
    /// figures rebuilt from the exported points (a privacy cut, smoothing, a lap) have no
    /// offered fixes of their own, and their top speed from positions is the trip's.
    public mutating func takePositionTop(from other: TripStats) {
        guard other.offered.fixes > 0 else { return }
        offered = other.offered
        lastOffered = other.lastOffered
    }

    /// Takes `other`'s climb from offered fixes for this one's (figures rebuilt from exported
    /// points have none of their own), when it has one.
    public mutating func takeOfferedClimb(from other: TripStats) {
        guard other.offeredClimb.fromBarometer else { return }
        offeredClimb = other.offeredClimb
    }

    /// Empty figures under the same activity's limits for the top speed from positions: to
    /// judge it again over only some offered fixes (`addOffered`: those an export's window keeps).
    public var emptyForOffered: TripStats {
        var s = TripStats()
        s.offered = PositionSpeeds(speedUpMps2: offered.speedUpMps2, slowDownMps2: offered.slowDownMps2)
        return s
    }

    /// The top speed from offered fixes, when any were given (nil also when all had measured speeds).
    public var positionTopMps: Double? { offered.fixes > 0 ? offered.topMps : nil }

    /// A fix the rules were offered and kept or only thinned out (`DropReason.onlyThins`), in
    /// offer order: where the receiver measured no speed (none, or gpsd's own from positions),
    /// the top speed is at most what these bear out (`PositionSpeeds`) besides the kept points' chords.
    public mutating func addOffered(_ fix: Fix) {
        var measured = false
        if let v = fix.speed {
            measured = true
            if let p = lastOffered, fix.timeMs > p.timeMs { measured = !Cadence.mayBeDerived(speed: v, from: p, to: fix) }
        }
        if lastOffered.map({ fix.timeMs <= $0.timeMs }) ?? false { return }
        offered.add(timeMs: fix.timeMs, lat: fix.lat, lon: fix.lon, sigmaM: Accuracy.horizontal68(fix), measured: measured)
        lastOffered = fix
    }

    /// A fix the rules kept or thinned out only as too close to the last kept point, in offer
    /// order: its barometric altitude counts toward the climb (`offeredClimb`). GPS heights count
    /// on the kept points only: on every fix, wandering heights added more climb on most generated
    /// rides (Tests/bench/climb-real-results.md).
    public mutating func addOfferedHeight(_ fix: Fix) {
        guard let p = fix.pressurePa else { return }
        offeredClimb.addBarometric(altitude: offeredAltimeter.climbAltitude(pressurePa: p), timeMs: fix.timeMs)
        if let h = fix.height { offeredAltimeter.addGPS(height: h, trusted: Accuracy.heightIsTrusted(fix), timeMs: fix.timeMs) }
    }

    /// The next point starts a new segment. Across a dropout (a gap, a gpsd outage, a power cut
    /// the trip resumed after) the straight line to the next point still counts once toward
    /// distance (short rather than long); across a pause or a fresh start it does not.
    public mutating func startSegment(_ reason: SegmentReason) {
        newSegmentPending = true
        bridgeNext = Self.bridges(reason)
        pauseNext = reason == .pause
    }

    /// Whether the step across a pause from `prev` into `fix` counts toward distance (only: no
    /// moving time, no moving distance): when `fix` has no speed. A receiver without doppler leaves a
    /// stand on displacement, 10 m or more from where it stood, and its way on starts at the
    /// last fix judged still, metres down the road: those metres were lost after every stand
    /// (attack on round 24: 0.8-1.4 % of a ride). With a doppler the way on starts where the
    /// speed last said standing, and the step is the stand's drift (up to 20 m over 3 minutes
    /// between buildings), which no rider rode.
    /// A record without a position (mode 1: a trainer's wheel, whose metres are its own) never.
    public static func countsDistance(pauseFrom prev: Fix, to fix: Fix) -> Bool { fix.speed == nil && fix.mode >= 2 && prev.mode >= 2 }

    /// Whether the step into a segment that starts for `reason` counts toward distance: across
    /// a dropout (gap, reconnect, resume) yes; across a pause, a reset or a fresh start no.
    public static func bridges(_ reason: SegmentReason) -> Bool {
        reason == .gap || reason == .reconnect || reason == .resume
    }

    public mutating func add(_ fix: Fix) {
        points += 1
        if newSegmentPending {
            segments += 1
        }
        if firstTimeMs == nil { firstTimeMs = fix.timeMs }
        lastTimeMs = fix.timeMs
        if let s = fix.speed, speedAgreesWithStep(s, into: fix) { addSupported(speed: s, at: fix.timeMs) }
        let trusted = Accuracy.heightIsTrusted(fix)
        if trusted, let h = fix.height, h.isFinite { pointsWithHeight += 1 }
        if let p = fix.pressurePa {
            climb.addBarometric(altitude: altimeter.climbAltitude(pressurePa: p), timeMs: fix.timeMs)
            if let h = fix.height { altimeter.addGPS(height: h, trusted: trusted, timeMs: fix.timeMs) }
        }
        if trusted, let h = fix.height {
            climb.addGPS(height: h, timeMs: fix.timeMs, lat: fix.lat, lon: fix.lon, vertical68: Accuracy.vertical68(fix))
        }
        if let prev = last, newSegmentPending, pauseNext {
            if Self.countsDistance(pauseFrom: prev, to: fix) { distanceM += Geodesy.distance(prev, fix) }
        } else if let prev = last, !newSegmentPending || bridgeNext {
            let d = Geodesy.distance(prev, fix)
            distanceM += d
            let dt = fix.timeMs - prev.timeMs
            // Across a dropout the rider kept riding: its time counts as its chord does.
            if dt > 0, (prev.speed != nil && fix.speed != nil) || dt <= Self.maxMovingStepMs {
                let moving = Self.movingPart(of: dt, distance: d, from: prev, to: fix)
                countedMovingMs += moving
                if moving > 0 { movingDistanceM += d }
                // Without a measured speed (gpsd's own from positions is not kept), the fastest
                // stretch of at least a second the rules let through is the speed (a 10 Hz
                // receiver's kept points can all be less than a second apart).
                // Supported over several seconds: the slowest of two successive chords of at least
                // `supportMs` and the chord across both, so one position thrown out (and back) is
                // no top speed.
                if fix.speed == nil || prev.speed == nil, let from = chordFrom, fix.timeMs - from.timeMs >= Self.supportMs {
                    if let before = chordBefore {
                        let v = min(Self.chordSpeed(from, fix), Self.chordSpeed(before, from), Self.chordSpeed(before, fix))
                        keptChordMaxMps = max(keptChordMaxMps ?? 0, v)
                    }
                    chordBefore = from
                    chordFrom = fix
                }
            } else if dt > 0, countedMovingMs > 0 {
                // A long step without measured speeds that the rules kept in the segment (a
                // tunnel on a receiver without doppler): its chord counts, so its time does too,
                // as long as the chord takes at the trip's moving speed so far (a step that spans
                // a stop counts only its riding part).
                let pace = movingDistanceM / (Double(countedMovingMs) / 1000)
                if pace >= Self.movingSpeedMps, d / Double(dt) * 1000 >= Self.movingSpeedMps {
                    countedMovingMs += Self.wholeSecondsOff(dt, moving: min(dt, Int64((d / pace * 1000).rounded())))
                    movingDistanceM += d
                }
                chordFrom = fix
                chordBefore = nil
            }
        }
        if (newSegmentPending && !bridgeNext) || chordFrom == nil || fix.speed != nil {
            chordFrom = fix
            chordBefore = nil
        }
        newSegmentPending = false
        bridgeNext = false
        pauseNext = false
        last = fix
    }

    /// Keeps a measured speed; judges those `settleMs` older.
    private mutating func addSupported(speed v: Double, at t: Int64) {
        recentSpeeds.append(SpeedAt(timeMs: t, speed: v))
        settleSpeeds(before: t - Self.settleMs)
    }

    /// Judges each measured speed at or before `limit` not judged yet: the slowest over the
    /// `supportMs` up to it and the point before them (a doppler blip, or a speed derived from a
    /// single jump, lasts a fix), each speed first lowered to what the speeds around it allow
    /// at `maxAccelerationMps2` (reached and left as a vehicle can).
    private mutating func settleSpeeds(before limit: Int64) {
        var i = recentSpeeds.count - 1
        while i >= 0 && recentSpeeds[i].timeMs > settledThroughMs { i -= 1 }
        i += 1
        while i < recentSpeeds.count && recentSpeeds[i].timeMs <= limit {
            let t = recentSpeeds[i].timeMs
            let reached = reachable(i)
            var slowest = reached
            var spans = false
            var k = reachedSpeeds.count - 1
            while k >= 0 {
                slowest = min(slowest, reachedSpeeds[k].speed)
                if t - reachedSpeeds[k].timeMs >= Self.supportMs {
                    spans = true
                    break
                }
                k -= 1
            }
            reachedSpeeds.append(SpeedAt(timeMs: t, speed: reached))
            if spans { supportedMaxMps = max(supportedMaxMps ?? 0, slowest) } else { unsupportedMaxMps = max(unsupportedMaxMps ?? 0, slowest) }
            settledThroughMs = t
            i += 1
        }
    }

    /// The `i`-th recent speed lowered to what the speeds within `settleMs` of it allow at
    /// `maxAccelerationMps2`.
    private func reachable(_ i: Int) -> Double {
        let t = recentSpeeds[i].timeMs
        var v = recentSpeeds[i].speed
        var j = i - 1
        while j >= 0, t - recentSpeeds[j].timeMs <= Self.settleMs {
            v = min(v, recentSpeeds[j].speed + Self.maxAccelerationMps2 * Double(t - recentSpeeds[j].timeMs) / 1000)
            j -= 1
        }
        j = i + 1
        while j < recentSpeeds.count, recentSpeeds[j].timeMs - t <= Self.settleMs {
            v = min(v, recentSpeeds[j].speed + Self.maxAccelerationMps2 * Double(recentSpeeds[j].timeMs - t) / 1000)
            j += 1
        }
        return v
    }

    private static func chordSpeed(_ a: Fix, _ b: Fix) -> Double {
        Geodesy.distance(a, b) / max(Double(b.timeMs - a.timeMs) / 1000, 0.001)
    }

    /// A measured speed counts toward the maximum only when the step into its point could have
    /// been ridden at about that speed: a doppler blip (a receiver saying 80 m/s for one fix
    /// while its positions move at 6) is not the rider's top speed. The slack covers both
    /// points' uncertainty and a step that spans a stop (the rider sets off from it).
    private func speedAgreesWithStep(_ v: Double, into fix: Fix) -> Bool {
        guard let prev = last, !newSegmentPending, fix.timeMs > prev.timeMs else { return true }
        let dt = Double(fix.timeMs - prev.timeMs) / 1000
        let chord = Geodesy.distance(prev, fix) / dt
        let slack = ((Accuracy.horizontal68(prev) ?? 10) + (Accuracy.horizontal68(fix) ?? 10)) / dt
        return v <= 2 * chord + slack + 2
    }

    /// How much of a step was spent moving. With measured speeds at both ends, the step's
    /// length over their mean speed (capped at the step's duration): a step that spans a stop
    /// at a light counts only the seconds it took to ride its few metres, not the wait. Without
    /// speeds, the whole step when its average speed is above the standstill, else nothing.
    static func movingPart(of dt: Int64, distance d: Double, from a: Fix, to b: Fix) -> Int64 {
        if let va = a.speed, let vb = b.speed {
            let v = (va + vb) / 2
            guard v >= movingSpeedMps else { return 0 }
            // Position noise makes d/v scatter around dt on an ordinary step: count it whole.
            let ridden = Int64((d / v * 1000).rounded())
            return ridden >= dt / 2 ? dt : wholeSecondsOff(dt, moving: ridden)
        }
        let v = b.speed ?? a.speed ?? d / (Double(dt) / 1000)
        return v >= movingSpeedMps ? dt : 0
    }

    /// A step's moving part with whole seconds left out (the part under a second counts as
    /// moving): FIT's timer events are whole seconds, so the timer stops over exactly what
    /// moving time leaves out, and their spans add up to it (attack on round 24: the pinned
    /// ride's spans 538 s against 525.7 s, a walk's 49 s against 43.5 s).
    static func wholeSecondsOff(_ dt: Int64, moving: Int64) -> Int64 {
        let off = max(0, dt - max(0, moving)) / 1000 * 1000
        return dt - off
    }

    /// Time spent moving. Never less than the distance ridden takes at the top speed (the
    /// average moving speed is never above the maximum), and never more than the elapsed time.
    public var movingTimeMs: Int64 {
        guard let v = measuredMaxMps, v > 0 else { return countedMovingMs }
        let atTopSpeed = Int64((movingDistanceM / v * 1000).rounded(.up))
        return min(max(countedMovingMs, atTopSpeed), max(elapsedMs, countedMovingMs))
    }

    /// The top speed: the fastest measured one, and never below the average moving speed (a
    /// doppler that reads a little low all ride, or positions whose jitter adds length, would
    /// otherwise put the average above the maximum once moving time is capped by elapsed time).
    public var maxSpeedMps: Double? {
        guard let v = measuredMaxMps else { return nil }
        let moving = movingTimeMs
        guard moving > 0 else { return v }
        return max(v, distanceM / (Double(moving) / 1000))
    }

    public var elapsedMs: Int64 {
        guard let a = firstTimeMs, let b = lastTimeMs else { return 0 }
        return b - a
    }

    /// Ascent/descent in metres, or nil (a dash) when no trusted height was seen.
    public var ascentM: Double? { heightsClimb.ascentM }
    public var descentM: Double? { heightsClimb.descentM }
    /// The offered fixes' barometric climb when there is one (a log without raw fixes has none),
    /// else the kept points' (the barometer's, else GPS).
    private var heightsClimb: AscentTracker { offeredClimb.fromBarometer ? offeredClimb : climb }
    /// The climb came from the barometer (any kept point carried a pressure).
    public var climbFromBarometer: Bool { heightsClimb.fromBarometer }

    /// The wheel's ride before the first point (a trainer's trip that went outdoors: its indoor
    /// part, issue 40): its metres and moving time, and the trip starts at `fromMs`.
    public mutating func addWheelLead(metres: Double, movingMs: Int64, fromMs: Int64, topMps: Double? = nil) {
        guard addWheelPart(metres: metres, movingMs: movingMs, topMps: topMps) else { return }
        if let a = firstTimeMs, fromMs < a { firstTimeMs = fromMs }
    }

    /// The wheel's ride after the last point (back on the trainer after the ride outdoors, the
    /// trip still open): its metres and moving time, and the trip ends at `toMs`.
    public mutating func addWheelTrail(metres: Double, movingMs: Int64, toMs: Int64, topMps: Double? = nil) {
        guard addWheelPart(metres: metres, movingMs: movingMs, topMps: topMps) else { return }
        if let b = lastTimeMs, toMs > b { lastTimeMs = toMs }
    }

    /// The wheel's ride off the points (before the first or after the last): its metres, moving
    /// time and top speed; false when it rode no metre.
    private mutating func addWheelPart(metres: Double, movingMs: Int64, topMps: Double?) -> Bool {
        guard metres.isFinite, metres > 0 else { return false }
        if let v = topMps, v.isFinite, v > 0 { wheelTopMps = max(wheelTopMps ?? 0, v) }
        distanceM += metres
        movingDistanceM += metres
        countedMovingMs += max(0, movingMs)
        return true
    }

    /// Distance the wheel measured where the points have none (issue 40): `extraM` more than the
    /// points' straight lines over a tunnel's gap, moving all of it; or, on a trip without
    /// points (a trainer), its whole distance, moving time and span.
    /// `stillM`: of `extraM`, the metres of steps with no moving time (into a resume after a
    /// pause, where the timer is stopped): distance, but not moving distance.
    public mutating func addWheel(
        extraM: Double, movingMs: Int64 = 0, firstMs: Int64? = nil, lastMs: Int64? = nil, topMps: Double? = nil, stillM: Double = 0
    ) {
        guard extraM.isFinite else { return }
        if let v = topMps, v.isFinite, v > 0 { wheelTopMps = max(wheelTopMps ?? 0, v) }
        distanceM += extraM
        movingDistanceM += extraM - (stillM.isFinite ? min(max(stillM, 0), max(extraM, 0)) : 0)
        countedMovingMs += max(0, movingMs)
        if points == 0, let a = firstMs, let b = lastMs, b >= a {
            firstTimeMs = a
            lastTimeMs = b
        }
    }
}

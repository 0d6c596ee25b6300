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

/// The thresholds of the rules that do not depend on the activity. Horizontal and vertical
/// figures are 68 % ones (see `Accuracy`).
public struct RuleLimits: Sendable, Equatable {
    /// Rule 1: a trip starts only at a fix within this…
    public var firstFixM = 20.0
    /// …or, after `firstFixPatienceMs` of trying, within this.
    public var firstFixPatientM = 50.0
    public var firstFixPatienceMs: Int64 = 30_000
    /// Rule 2: older than this when it arrives, or worse than `maxAccuracyM`: dropped.
    public var maxAgeMs: Int64 = 60_000
    public var maxAccuracyM = 50.0
    /// Rule 3: a fix with a vertical uncertainty over this has no trusted height, and is not
    /// trusted for position either.
    public var maxVerticalM = 40.0
    /// Rule 4: after this many impossible jumps in a row, the reference was the bad one.
    public var jumpsBeforeReset = 5
    /// A start is confirmed only by a successor at most this much later.
    public var confirmWithinMs: Int64 = 5_000
    /// Rule 9: a silence this long between usable fixes starts a new segment.
    public var gapMs: Int64 = 10_000
    /// Rule 8: the distance filter is at least this many times the fix's uncertainty.
    public var distanceFilterUncertainties = 6.5
    /// …and at most this far (metres).
    public var maxDistanceFilterM = 100.0
    /// Rule 8: a turn of the measured course this large since the last kept point is a corner…
    public var cornerDegrees = 20.0
    /// …when both are moving at least this fast (slower, the receiver's course is noise).
    public var courseSpeedMps = 1.5
    /// The uncertainty assumed for a fix whose receiver gives none.
    public var unknownAccuracyM = 10.0
    /// The earliest plausible fix time: 2000-01-01 (receivers without a date say 1980).
    public var earliestValidMs: Int64 = FixBounds.earliestMs
    /// The first implausible fix time: 2100-01-01, which the log cannot hold either (a fix it
    /// cannot hold must not touch the rules' state, or a re-run over the stored fixes differs).
    public var latestValidMs: Int64 = FixBounds.latestMs
    /// Rule 12: a fix time this far ahead of where the arrival clock puts it, or this far behind
    /// the newest, is held until this many successors agree with it (else it is dropped).
    public var timeJumpMs: Int64 = 3_600_000
    public var timeBackMs: Int64 = 60_000
    public var timeJumpConfirmations = 2
    /// Rule 2: this many fixes in a row, equally late, mean the clocks disagree (not old fixes).
    public var staleBeforeClockIsOff = 5
    /// Rule 13: after an outage this long, fixes are taken once their displacement over
    /// `convergeWindowMs` agrees with the doppler's, or after `convergeGiveUpMs` in any case.
    public var convergeAfterMs: Int64 = 30_000
    public var convergeWindowMs: Int64 = 8_000
    public var convergeGiveUpMs: Int64 = 90_000
    /// Rule 6: movement is judged by the displacement over this window (or three intervals)
    /// against the doppler's path over it.
    public var displacementWindowMs: Int64 = 20_000
    public init() {}
}

/// The full rule set: keeps only the fixes we can trust. Each rule below is numbered as in the
/// product's rule list; every dropped fix is counted under its rule.
///
/// 1. **Good first fix.** A trip starts only at a fix within 20 m (or, after 30 s of trying,
///    50 m), taken while moving, and confirmed by the next fix being consistent with it (within
///    the jump limit, and displaced about as far as its measured speed says): a stale cached
///    position never starts a trip. (`first_fix`)
/// 2. **No old or rough fixes.** Older than 60 s on arrival (`stale`), or worse than 50 m (`rough`).
///    A speed outside `FixBounds` (negative, non-finite, over 1,000 m/s) or a non-finite
///    course is taken as none, as the log stores it. Also dropped: out-of-range or non-finite
///    values, dates before 2000 or from 2100 (`invalid`), and a time not after the previous
///    fix's (`time_not_after`). Five fixes in a row equally late are a
///    receiver whose time disagrees with the clock (or a clock that is off), not old positions:
///    the clock is then taken to be that far off, and the ride goes on.
/// 3. **Position and height judged apart.** A 2-D fix, a fix without a height or with an
///    untrusted one keeps its position; its height is never exported (`Accuracy.heightIsTrusted`).
///    Network-like positions are kept out by the horizontal figure (rule 2) and the jump and
///    spike rules, not by the height.
/// 4. **No impossible jumps.** Farther from the last kept point than the activity's fastest
///    plausible speed over the time between them, plus both fixes' uncertainty (`jump`). After
///    five in a row the reference was the bad one: the next fix is taken and starts a new
///    segment with no line across (`SegmentReason.reset`).
/// 5. **No out-and-back jumps.** Each fix is held until the next arrives. A held fix B between
///    the last kept A and the new C is a spike when the detour A→B→C exceeds the straight A→C by
///    more than twice B's uncertainty (at least 10 m) and one of its legs, A→B or B→C, is longer
///    than the measured (doppler) speed allows over that leg's time, with 50 % slack plus both
///    ends' uncertainty (`spike`).
///    The live view runs one fix behind because of this.
/// 6. **Nothing while standing still.** Below ~1 km/h measured speed the receiver is standing;
///    the first fix of the stop is kept so the track reaches the place, then nothing is added
///    (`standing`). Moving again needs the measured speed at the activity's walking-off speed
///    four times in a row (four seconds' worth of fixes at a faster cadence: a blip lasts as
///    long at 10 Hz); or twice (two seconds' worth) in a row with the position leaving the spot (1.5 × the fix's
///    uncertainty, at least 3 m) the way the measured course points and about as far as the
///    speed says; or a displacement from the stop of twice the uncertainty (at least 10 m) that
///    agrees with the doppler likewise. Drift among buildings wanders tens of metres in an hour
///    and doppler blips come singly: neither leaves the stop.
///    **Displacement decides, not the doppler alone** (issue 28). Phones standing under canopy
///    report 0.5-4 m/s for minutes while their positions wander 10-30 m (a tablet on a surveyed
///    point said up to 2 m/s with HDOP 1, i.e. a 3.5 m claim, and wandered 10-30 m); the rules
///    kept trips of 19-233 m that never happened. So, over the last 20 s (or three intervals) of
///    fixes, about one a second: a trip opens, and a stop ends, only when the displacement is
///    beyond the noise, at least half the path the measured speeds add up to, and, with a course,
///    goes where a steady course points (the course vector at least 70 % of its path, the
///    displacement within 45° of it and within half of it of its end); before a trip the
///    confirming fix must agree too. Inside a trip, speeds that add up to more than the
///    displacement by the noise over a whole window mean standing, whatever they say. The noise
///    is learnt per receiver: the running mean square of how far each window's displacement
///    and the doppler's path vector disagree (honest receivers: a few metres; a lying doppler
///    raises it, so its own lies keep it standing), at least 10 m, and until ten windows are
///    learnt at least 1.5 × both ends' claimed uncertainty. A stale start or a spike counts for
///    at most three times the noise so far, a jump no ride makes not at all. A start so
///    confirmed keeps the rolling fixes that lead consistently to it (rule 1's back-fill); after
///    a short stop those of them beyond the noise from the stop fix go through the distance
///    filter (dropped, "between buildings" lost about 5 points a ride at its stops and smoothing
///    from the points alone fell from 30.7 % to 26.7 % less cross-track error; now 28.9 %), and
///    a closed trip forgets the stop and the noise learnt, as a re-filter of the next trip does.
///    A course that points nowhere over the window (its vector under half its path, the path
///    at least 10 m) while the positions stay within the noise is a stand too, however slow
///    the lie.
///    A course is only evidence while it is right: where the positions go far (50 m, or 20 m
///    once the lengths' noise is learnt, and three times that noise) as fast as the speeds say
///    but the course points elsewhere, on four spans of up to a minute each following on from
///    the last, which together went somewhere (70 % of their path), the course is ignored
///    (speeds alone judge, against the noise of the lengths; corners are not taken from it).
///    Judged by a wrong course, a real ride never left its first stop; judged on sliding
///    windows, a standing phone's lying doppler found its own course "wrong" by chance and
///    opened trips of 1-12 km (round 11). Speeds too high by one factor (knots sent as m/s)
///    "stood" on every window: over 20 straight windows in a row, a ratio of displacement to
///    path within 5 % and under 0.7 scales the speeds from then on (only downwards).
///    Evidence: on generated stands of 5-60 minutes with such a doppler (tuning seeds 1-8) trips
///    went from one per stand (4.3 km of wander on average) to none; a ride with such a stop
///    from +44.7 % to +4.4 %; every earlier target held (Tests/bench/rules-results.md).
///    A stop longer than the pause limit starts a new segment (nothing drawn across); one longer
///    than the close limit ends the trip (`RuleOutput.closeTrip`), and the next movement starts
///    a new one under rule 1.
/// 7. **No-speed fixes** are added only once farther from the last point than their own
///    uncertainty (`no_speed_near`). Their uncertainty is what they show, where that is larger
///    than what the receiver claims: the scatter of a stretch of position-only fixes is learnt
///    from the mean size of their third differences at a steady cadence (white noise σ per axis
///    gives 5.6 σ; a turn or a braking, a steady acceleration, almost nothing). It serves rule 7,
///    the distance filter and the corner tolerance; the distance filter then measures the chord
///    from the last point (summing noisy steps adds the scatter to every one). A stretch whose
///    scatter the distance filter cannot hide (6.5 × its 68 % radius beyond 100 m, i.e. over
///    15.4 m) cannot be placed: its fixes are dropped (`rough`) and the gap rule (9) counts its
///    chord once. Evidence: 2-D walks of 1-10 minutes without speed at σ 15-50 m (claiming
///    eph 55-90) made a ride +54 % long with 211 points over 30 m off; now +0.8 % (worst 2.2 %)
///    and 4. Without a doppler, standing (rule 6) is judged against three times this scatter
///    (at least 10 m), not the receiver's claim: a car crawling in traffic is not standing.
/// 8. **Distance filter.** A fix closer than the activity's minimum distance to the last kept
///    point is skipped (`too_close`). The minimum is the activity's (5 m for a ride) or, when
///    larger, twice the fix's own uncertainty: position jitter adds length to every short step,
///    and spacing points by more than their jitter keeps that error small. How far the rider
///    went is measured by the doppler speed (position only without one): picking the first fix
///    whose *position* is far enough would favour fixes thrown sideways by noise. Corners are kept:
///    a fix whose measured course has turned 20° or more since the last kept point is kept
///    whatever the distance (the doppler course does not zigzag with position noise). Below
///    1.5 m/s, or without a course, the skipped fixes that stand off the straight line to the
///    next kept point by more than the sideways jitter (30 % of their uncertainty, at least
///    2 m) are kept instead (Douglas-Peucker over the skipped fixes). The last skipped fix
///    before a stop, a gap or the end is kept so the track reaches the place.
/// 9. **Gaps keep the line; pauses and resets break it.** A silence of over 10 s (or three of
///    the receiver's intervals: a logger that sends a fix every 12 s has no gap every fix)
///    while moving — a tunnel, a rough stretch, gpsd restarting — keeps the segment: the chord
///    counts once toward distance and its time toward moving time, in cairn's figures and in
///    any reader's. A new segment only when the receiver stood before the silence for the pause
///    limit (a pause), when the chord barely moved over more than the pause limit (`pause`), or
///    when the chord is faster than the activity goes (`gap`: no line across; the next fix must
///    be confirmed afresh). The jump rule still judges the first fix after a bridged gap, with
///    the whole silence's worth of plausible travel.
/// 10. **Heights** are exported only when trusted (`Accuracy.heightIsTrusted`, 8 m): the rules
///    never invent a height or a time.
/// 11. **Accuracy mapping.** All limits are 68 % figures; `Accuracy` maps gpsd's (DOP guesses or
///    the receiver's own estimates).
/// 12. **Time that cannot poison a ride.** A fix time more than an hour ahead of where the
///    arrival clock puts it, more than a gap (rule 9) behind the newest, or (first fix) an hour from a set
///    system clock is held; if its next two successors follow on from it the receiver's time
///    really moved (a reset, a week rollover fixed by gpsd): the trip ends there and they start
///    afresh. If they do not, it was an outlier (`time_jump`). A fix ahead by less than that
///    but by more than a gap (rule 9) beyond the arrival clock is held the same way: followed on
///    from, it ended a silence and is judged as such; else it was one fix stamped minutes ahead,
///    which must not make the ride after it "not after" it (`time_jump`).
/// 13. **Re-acquisition held to the doppler.** After an outage of 30 s or more, receivers come
///    back tens of metres off and converge over tens of seconds while already claiming a small
///    error; the doppler is right at once. Fixes are dropped (`converging`) until the position's
///    displacement over 8 s (or one interval) agrees with the doppler's within 3 m and 10 %,
///    or 90 s have passed.
/// Speeds that gpsd computed from positions (receivers that send none) are recognised — they
/// equal the chord speed to the mm/s, fix after fix — and are not kept as measured speeds.
public struct FixRules: FixFilter {
    public var profile: ActivityProfile
    public var limits: RuleLimits

    /// The last point handed out as kept (distance filter).
    private var lastKept: Fix?
    /// The reference for the jump and spike rules; nil at a trip start and after a gap, pause or reset.
    private var jumpRef: Fix?
    /// A fix that passed the gates and waits for its successor (rule 5 and start confirmation).
    private var held: Fix?
    /// The held fix must be kept whatever the distance filter says (the first fix of a stop).
    private var heldForced = false
    /// A second held fix, when the first arrived too fast and this one sits by it (rule 5, a
    /// two-fix excursion).
    private var secondHeld: Fix?
    private var secondHeldForced = false
    /// The last fix that reached the distance filter, and the distance travelled (by measured
    /// speed) since the last kept point.
    private var lastFiltered: Fix?
    private var travelledSinceKept = 0.0
    /// Fixes that passed every gate but the first-fix accuracy, before the trip started.
    private var waitingForStart = RingBuffer<Fix>(capacity: 64)
    /// Fixes skipped by the distance filter since the last kept point: corner candidates.
    private var skipped = RingBuffer<Fix>(capacity: 32)
    private var jumpsInRow = 0
    private var tripStarted = false
    private var waitingSinceMs: Int64?
    /// The newest time that passed the sanity checks (order), and the newest usable fix (gaps).
    private var lastTimeMs: Int64?
    private var lastUsable: Fix?
    private var standing = false
    private var standStartMs: Int64 = 0
    private var stopAnchor: Fix?
    /// The newest still fix of the current standstill, and a newer one with some speed (the
    /// rider already rolling, not yet confirmed): where the way on starts. Not yet judged.
    private var lastStill: Fix?
    private var rolling = RingBuffer<Fix>(capacity: 32)
    /// The positions confirmed the way out of a standstill before the trip: its first fixes
    /// need no further confirmation than the jump limit.
    private var startConfirmed = false
    /// Fixes in a row at the walking-off speed during a standstill (rule 6).
    private var movingFixesInRow = 0
    /// Rule 12: fixes held because their time left the line, with their arrival times; the line's
    /// arrival time; whether the first fix was already judged against the system clock.
    private var timeSuspects: [(fix: Fix, arrivalMs: Int64?)] = []
    /// The held fixes only ran ahead of the arrival clock by more than a gap (not an hour): if
    /// their successors agree, it was a silence, judged like any other, not a new time line.
    private var timeSuspectsAreGap = false
    private var lastTimeArrivalMs: Int64?
    private var timeLineChecked = false
    /// Rule 2: how far the fix times are taken to be behind the recorder's clock, and the run of
    /// equally late fixes that would say so.
    private var clockOffsetMs: Int64 = 0
    private var equallyLateInRow = 0
    private var lastStaleLagMs: Int64?
    /// The receiver's recent intervals and the previous offered fix (cadence, derived speed).
    private var intervals = RingBuffer<Int64>(capacity: 9)
    private var intervalMs: Int64 = 1000
    private var sortedIntervals: [Int64] = []
    private var lastOffered: Fix?
    /// Evidence (0...8) that the speeds are gpsd's own from positions, not a doppler's.
    private var derivedSpeedScore = 0
    /// Rule 13: the fixes since an outage ended, while their positions are not yet trusted.
    private var convergingFixes = RingBuffer<Fix>(capacity: 128)
    private var isConverging = false
    /// Rule 6: about one fix a second of the recent past (place, uncertainty, doppler velocity),
    /// to judge movement by displacement.
    private var recent = RingBuffer<Sample>(capacity: 48)
    /// How far, over a window, the positions' displacement and the doppler's path disagree on
    /// this receiver (a running mean square, m²): its position noise as it really is, or a
    /// doppler that lies.
    private var windowDisagreement2: Double?
    private var windowsLearnt = 0
    /// The same for the displacement's length against the path's (no course): the noise that
    /// judges a receiver whose course was found wrong, and that a window must be beyond before
    /// it may find the course wrong. Learnt whatever the course says, so a lying doppler
    /// that loses its course's trust is still judged by its own lies.
    private var scalarDisagreement2: Double?
    private var scalarWindowsLearnt = 0
    /// What this receiver's speeds are multiplied by (a receiver that reports knots as m/s:
    /// 0.51), and the windows in a row that measured it: their log ratio's sum and square sum.
    private var speedScale = 1.0
    private var scaleWindows = 0
    private var scaleLogSum = 0.0
    private var scaleLogSum2 = 0.0
    /// Evidence (0...8) that the measured course does not point the way the positions go while
    /// the speed agrees with them (a receiver whose course is wrong): then only the speed counts.
    private var courseMissScore = 0
    /// Where the span that judges the course next starts (`learnCourseTrust`).
    private var courseSpanStartMs: Int64 = .min
    /// Where the spans that found the course wrong in a row began, and their paths' sum.
    private var courseChainLat = 0.0
    private var courseChainLon = 0.0
    private var courseChainPath = 0.0
    @inline(__always) private var courseTrusted: Bool { courseMissScore < 4 }
    private var standsInRow = 0
    /// Rule 7: the last three position-only fixes of this stretch, and the running mean size of
    /// their third differences (m): the positions' own scatter, whatever the receiver claims.
    private var positionOnly1: Fix?
    private var positionOnly2: Fix?
    private var positionOnly3: Fix?
    private var positionOnlyMeanD2 = 0.0
    private var positionOnlyD2Count = 0

    private struct Sample {
        var timeMs: Int64
        var lat: Double
        var lon: Double
        var u: Double
        /// The measured speed (negative: none), and its velocity east and north when the course
        /// is known.
        var v: Double
        var ve: Double
        var vn: Double
        var directed: Bool
        /// Metres per degree of longitude here.
        var k = 0.0
        /// The doppler's path up to this sample since the ring began (all of it, the part with
        /// a course, and that part's vector): a window's path is a difference of two.
        var path = 0.0
        var directedPath = 0.0
        var east = 0.0
        var north = 0.0
    }

    /// The doppler's path from `a` to `b`: (all, with a course, east, north).
    @inline(__always) private static func step(_ a: Sample, _ b: Sample) -> (Double, Double, Double, Double) {
        guard a.v >= 0, b.v >= 0 else { return (0, 0, 0, 0) }
        let dt = Double(b.timeMs - a.timeMs) / 1000
        let p = (a.v + b.v) / 2 * dt
        guard a.directed && b.directed else { return (p, 0, 0, 0) }
        return (p, p, (a.ve + b.ve) / 2 * dt, (a.vn + b.vn) / 2 * dt)
    }

    public init(profile: ActivityProfile = .ride, limits: RuleLimits = RuleLimits()) {
        self.profile = profile
        self.limits = limits
    }

    /// The recorder is standing still (for the live status).
    public var isStanding: Bool { standing }

    // The non-mutating helpers are inlined, or static where the compiler still calls them out of
    // line: an out-of-line instance method called from a mutating one gets a copy of the whole
    // rules value (self) for each call.

    /// The fix's 68 % horizontal uncertainty, metres.
    @inline(__always) private func uncertainty(_ f: Fix) -> Double { Self.uncertainty(f, unknownM: limits.unknownAccuracyM) }

    /// The same, for the static tests: they need no more of the rules than `unknownM`, the
    /// uncertainty assumed for a fix without one, so they are called without a copy of the rules.
    private static func uncertainty(_ f: Fix, unknownM: Double) -> Double { Accuracy.horizontal68(f) ?? unknownM }

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
        if !judgeAge(f, nowMs: nowMs) { return emit(.drop(.stale, f)) }
        // Rule 12: a fix time far off the time line is held until its successors say which is right.
        if !judgeTime(f, nowMs: nowMs, arrivalMs: arrivalMs, emit: emit) { return }
        judge(f, arrivalMs: arrivalMs, emit: emit)
    }

    /// Rule 2's age test. A run of fixes all late by the same amount is a receiver whose time is
    /// off the system clock's (or a clock that is off), not old positions: after
    /// `staleBeforeClockIsOff` of them the clock is taken to be that far off.
    private mutating func judgeAge(_ f: Fix, nowMs: Int64) -> Bool {
        let lag = nowMs - clockOffsetMs - f.timeMs
        guard lag > limits.maxAgeMs else {
            equallyLateInRow = 0
            return true
        }
        if let p = lastStaleLagMs, abs(lag - p) <= 5_000 { equallyLateInRow += 1 } else { equallyLateInRow = 1 }
        lastStaleLagMs = lag
        guard equallyLateInRow >= limits.staleBeforeClockIsOff else { return false }
        clockOffsetMs += lag
        equallyLateInRow = 0
        return true
    }

    /// Rule 12. Returns false when `f` was held or dropped here.
    private mutating func judgeTime(_ f: Fix, nowMs: Int64, arrivalMs: Int64?, emit: (RuleOutput) -> Void) -> Bool {
        if !timeSuspects.isEmpty {
            let last = timeSuspects[timeSuspects.count - 1]
            // (After a step back, a successor that runs a gap ahead again is no follower: two
            // time lines interleaved must not confirm each other.)
            if f.timeMs > last.fix.timeMs && !isTimeJump(f.timeMs, arrivalMs, from: last.fix.timeMs, last.arrivalMs)
                && (timeSuspectsAreGap || !isAhead(f.timeMs, arrivalMs, from: last.fix.timeMs, last.arrivalMs))
            {
                timeSuspects.append((f, arrivalMs))
                if timeSuspects.count >= limits.timeJumpConfirmations + 1 {
                    if timeSuspectsAreGap { acceptGap(emit: emit) } else { acceptTimeJump(nowMs: nowMs, emit: emit) }
                }
                return false
            }
            // Back on the old line (or somewhere else again): what was held was the outlier.
            for s in timeSuspects { emit(.drop(.timeJump, s.fix)) }
            timeSuspects.removeAll()
        }
        if let t = lastTimeMs {
            // Back by more than a gap, too: a receiver whose clock steps back (GPS time corrected
            // to UTC, 18 s) would otherwise lose that many seconds as "not after" and then the
            // line to the jump rule.
            if isTimeJump(f.timeMs, arrivalMs, from: t, lastTimeArrivalMs) || t - f.timeMs > gapMs {
                timeSuspects.append((f, arrivalMs))
                timeSuspectsAreGap = false
                return false
            }
            if f.timeMs <= t {
                emit(.drop(.timeNotAfter, f))
                return false
            }
            // Ahead of the arrival clock by more than a gap: a real silence, or one fix stamped
            // minutes ahead. Taken as the line, the latter would make every fix after it "not
            // after" it (or a jump back that ends the trip): its successors decide here too.
            if isAhead(f.timeMs, arrivalMs, from: t, lastTimeArrivalMs) {
                timeSuspects.append((f, arrivalMs))
                timeSuspectsAreGap = true
                return false
            }
        } else if nowMs >= limits.earliestValidMs, abs(f.timeMs - nowMs) > limits.timeJumpMs, !timeLineChecked {
            // The first fix, far from a clock that looks set: judged by its successors too.
            timeSuspects.append((f, arrivalMs))
            return false
        }
        lastTimeMs = f.timeMs
        lastTimeArrivalMs = arrivalMs
        return true
    }

    /// A time more than `timeJumpMs` ahead of where the arrival clock puts it, or more than
    /// `timeBackMs` behind the line.
    @inline(__always) private func isTimeJump(_ t: Int64, _ arrival: Int64?, from line: Int64, _ lineArrival: Int64?) -> Bool {
        var elapsed: Int64 = 0
        if let a = arrival, let b = lineArrival, a > b { elapsed = a - b }
        return t - line > elapsed + limits.timeJumpMs || line - t > limits.timeBackMs
    }

    /// `t` runs ahead of the line by more than a gap beyond the time that passed on arrival.
    @inline(__always) private func isAhead(_ t: Int64, _ arrival: Int64?, from line: Int64, _ lineArrival: Int64?) -> Bool {
        var elapsed: Int64 = 0
        if let a = arrival, let b = lineArrival, a > b { elapsed = a - b }
        return t - line > elapsed + gapMs
    }

    /// The fixes held after a forward step agree with each other: it was a silence. They are
    /// judged as they came (rule 9 decides whether the line goes across).
    private mutating func acceptGap(emit: (RuleOutput) -> Void) {
        let held = timeSuspects
        timeSuspects.removeAll()
        for (f, a) in held {
            lastTimeMs = f.timeMs
            lastTimeArrivalMs = a
            judge(f, arrivalMs: a, emit: emit)
        }
    }

    /// The held fixes agree with each other: the receiver's time really moved (a reset, a
    /// rollover fixed). The trip so far ends there and the held fixes start afresh.
    private mutating func acceptTimeJump(nowMs: Int64, emit: (RuleOutput) -> Void) {
        let held = timeSuspects
        timeSuspects.removeAll()
        if tripStarted {
            releaseHeld(emit: emit)
            releaseSkipped(emit: emit)
            dropLastStanding(emit: emit)
            emit(.closeTrip)
        } else {
            flush(emit: emit)
        }
        tripClosed()
        standing = false
        lastUsable = nil
        lastOffered = nil
        intervals.removeAll()
        intervalMs = 1000
        lastTimeMs = nil
        recent.removeAll()
        timeLineChecked = true
        if let first = held.first, abs(nowMs - first.fix.timeMs) <= limits.maxAgeMs { clockOffsetMs = 0 }
        for (f, a) in held {
            lastTimeMs = f.timeMs
            lastTimeArrivalMs = a
            judge(f, arrivalMs: a, emit: emit)
        }
    }

    /// The fix's receiver interval (median of the recent ones), the gap and confirmation limits
    /// scaled to it, and whether its speed is gpsd's own from positions.
    private mutating func learn(_ f: inout Fix) {
        if let p = lastOffered {
            let dt = f.timeMs - p.timeMs
            if dt > 0 {
                // At a steady cadence every interval is the median already: nothing to sort.
                let evicted = intervals.isFull ? intervals[0] : intervalMs
                intervals.append(dt)
                if dt != intervalMs || evicted != intervalMs { updateInterval() }
                // gpsd derives speed (and course) from successive positions when the receiver
                // sends none (GGA-only): it then equals the chord speed to the millimetre per
                // second, fix after fix; a doppler speed never does (even a smoothing receiver's
                // positions are rounded to 0.1-0.2 m in NMEA).
                // (Standing still both are zero: only moving steps tell.)
                if let v = f.speed, let chord = Optional(Geodesy.shortEllipsoidDistance(p, f) / (Double(dt) / 1000)), chord >= 0.5 {
                    if abs(v - chord) <= 0.003 + 0.0005 * chord {
                        derivedSpeedScore = min(derivedSpeedScore + 1, 8)
                    } else {
                        derivedSpeedScore = max(derivedSpeedScore - 2, 0)
                    }
                }
            }
        }
        lastOffered = f
        if derivedSpeedScore >= 4 {
            f.speed = nil
            f.track = nil
        }
    }

    /// The median of the recent intervals (a fix a second until there are any).
    private mutating func updateInterval() {
        sortedIntervals.removeAll(keepingCapacity: true)
        for i in 0..<intervals.count { sortedIntervals.append(intervals[i]) }
        sortedIntervals.sort()
        intervalMs = sortedIntervals.isEmpty ? 1000 : sortedIntervals[sortedIntervals.count / 2]
    }
    private var gapMs: Int64 { max(limits.gapMs, 3 * intervalMs) }
    private var confirmWithinMs: Int64 { max(limits.confirmWithinMs, 2 * intervalMs + 500) }

    private mutating func judge(_ fix: Fix, arrivalMs: Int64?, emit: (RuleOutput) -> Void) {
        var f = fix
        learn(&f)
        if speedScale != 1, let v = f.speed { f.speed = v * speedScale }
        if let a = Accuracy.horizontal68(f), !(a <= limits.maxAccuracyM) { return emit(.drop(.rough, f)) }
        // A receiver saying "worse than 10 km" (u-blox: 4,295 km without a fix) is rough, not unknown.
        if let e = f.eph, e.isFinite, e > Accuracy.absurdM { return emit(.drop(.rough, f)) }
        // Rule 7: a position-only stretch whose scatter the distance filter cannot hide (6.5 ×
        // its 68 % figure beyond the filter's 100 m) cannot be placed: it is a gap (rule 9).
        if f.speed == nil {
            learnPositionScatter(f)
            if positionScatter68 * limits.distanceFilterUncertainties > limits.maxDistanceFilterM { return emit(.drop(.rough, f)) }
        } else if positionOnly1 != nil {
            positionOnly1 = nil
            positionOnly2 = nil
            positionOnly3 = nil
            positionOnlyMeanD2 = 0
            positionOnlyD2Count = 0
        }
        // Rule 3: the position and the height are judged apart. A height that is not trusted is
        // never exported (`Accuracy.heightIsTrusted`), but its position is still a position.

        // Rule 9: a long silence since the last usable fix.
        if tripStarted, let prev = lastUsable, f.timeMs - prev.timeMs > gapMs {
            releaseHeld(emit: emit)
            releaseSkipped(emit: emit)
            let dt = Double(f.timeMs - prev.timeMs) / 1000
            if standing, prev.timeMs - standStartMs < profile.pauseAfterMs, let from = lastKept,
                Geodesy.distance(from, f) / max(Double(f.timeMs - from.timeMs) / 1000, 0.001) >= profile.movingSpeedMps / 2,
                (f.speed ?? profile.movingSpeedMps) >= profile.movingSpeedMps
            {
                // A short stop (a light) and then into the tunnel: it rode through the silence.
                standing = false
                dropLastStanding(emit: emit)
            }
            if !standing {
                let from = lastKept ?? prev
                let chord = Geodesy.distance(from, f) / max(Double(f.timeMs - from.timeMs) / 1000, 0.001)
                if chord > profile.maxSpeedMps {
                    // Not a speed this activity goes at: no line across.
                    emit(.segment(.gap))
                    jumpRef = nil
                } else if f.timeMs - prev.timeMs >= profile.pauseAfterMs, chord < profile.standingSpeedMps {
                    // Barely moved over a long silence: it stood.
                    emit(.segment(.pause))
                    jumpRef = nil
                }
            }
            jumpsInRow = 0
            if dt * 1000 >= Double(limits.convergeAfterMs), f.speed != nil { convergingFixes.removeAll(); isConverging = true }
        }
        lastUsable = f

        // Rule 13: after a long outage, positions are taken once they move as the doppler says.
        if isConverging, !converged(f) { return emit(.drop(.converging, f)) }

        if recent.last.map({ f.timeMs - $0.timeMs >= 900 }) ?? true {
            let v = f.speed ?? -1
            let directed = v >= 0.3 && f.track != nil
            let t = f.track ?? 0
            var sample = Sample(
                timeMs: f.timeMs, lat: f.lat, lon: f.lon, u: uncertainty(f), v: v,
                ve: directed ? v * sinDeg(t) : 0, vn: directed ? v * cosDeg(t) : 0, directed: directed)
            // (The latitude changes too little over a window for its own cosine to matter.)
            sample.k = recent.last.map { abs($0.lat - f.lat) < 0.01 ? $0.k : cosDeg(f.lat) * 111_195.0 } ?? cosDeg(f.lat) * 111_195.0
            if let last = recent.last {
                let (p, pd, pe, pn) = Self.step(last, sample)
                sample.path = last.path + p
                sample.directedPath = last.directedPath + pd
                sample.east = last.east + pe
                sample.north = last.north + pn
            }
            recent.append(sample)
            learnWindowDisagreement(f)
        }

        // Rule 6 (and rule 7's position test while standing without a speed).
        var forced = false
        if standing {
            if stillStanding(f) {
                if tripStarted, f.timeMs - standStartMs >= profile.closeAfterMs {
                    releaseHeld(emit: emit)
                    releaseSkipped(emit: emit)
                    dropLastStanding(emit: emit)
                    emit(.drop(.standing, f))
                    emit(.closeTrip)
                    tripClosed()
                    return
                }
                holdStanding(f, emit: emit)
                return
            }
            standing = false
            let still = lastStill
            lastStill = nil
            let pause = tripStarted && f.timeMs - standStartMs >= profile.pauseAfterMs
            if pause {
                releaseHeld(emit: emit)
                releaseSkipped(emit: emit)
                emit(.segment(.pause))
                jumpRef = nil
                jumpsInRow = 0
            }
            // The way out was confirmed by displacement some seconds after it began: the rolling
            // fixes that lead consistently to this one (each within the jump limit of the next
            // and displaced about as its speed says) are the metres ridden meanwhile, and kept.
            var chain = 0
            var next = f
            while chain < rolling.count {
                let p = rolling[rolling.count - 1 - chain]
                guard next.timeMs - p.timeMs <= gapMs, confirms(p, next) else { break }
                next = p
                chain += 1
            }
            for i in 0..<(rolling.count - chain) { emit(.drop(.standing, rolling[i])) }
            if !tripStarted { startConfirmed = true }
            // After a pause (a new segment) or before the trip, the way on starts where the
            // receiver last stood still. After a short stop the line from the stop fix does (the
            // rolling fixes beside it would add their noise to a step of a few metres).
            if let d = still {
                if (pause && tripStarted) || (!tripStarted && goodFirstFix(d)) {
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
                let left = tripStarted && lastKept.map { Geodesy.distance($0, d) > max(10, 2 * uncertainty(d)) } ?? false
                if pause || left || (!tripStarted && goodFirstFix(d)) {
                    push(d, forced: false, emit: emit)
                } else {
                    emit(.drop(.standing, d))
                }
            }
            rolling.removeAll()
        } else if (f.speed.map { $0 < profile.standingSpeedMps } ?? false) || (tripStarted && standsByDisplacementInRow(f)) {
            standing = true
            standsInRow = 0
            standStartMs = f.timeMs
            stopAnchor = f
            movingFixesInRow = 0
            // Before a trip, a standing receiver starts nothing (its newest fix waits to be
            // where the trip sets off from); inside one, the first fix of the stop is kept so
            // the track reaches the place.
            if !tripStarted {
                if waitingSinceMs == nil { waitingSinceMs = f.timeMs }
                holdStanding(f, emit: emit)
                return
            }
            forced = true
        }

        // Rule 7.
        if f.speed == nil, let ref = secondHeld ?? held ?? lastKept, Geodesy.distance(ref, f) <= positionOnlyUncertainty(f) {
            return emit(.drop(.noSpeedNear, f))
        }

        // Rule 1. A fix not yet good enough waits in a small ring: once the trip starts at a
        // good fix, the waiting fixes that lead to it consistently are kept too, so a start in
        // poor sky is not cut short (and a stale position, which leads nowhere, never is).
        if !tripStarted && held == nil {
            let since = waitingSinceMs ?? f.timeMs
            waitingSinceMs = since
            // A trip opens only where the positions have moved as the doppler says, over some
            // seconds (rule 6): a receiver standing under trees may report 1-4 m/s.
            if !goodFirstFix(f) || !movedByDisplacement(f) {
                if let oldest = waitingForStart.first, waitingForStart.isFull { emit(.drop(.firstFix, oldest)) }
                waitingForStart.append(f)
                return
            }
        }

        // Rule 4.
        if let ref = jumpRef {
            if !withinJump(ref, f) {
                jumpsInRow += 1
                if jumpsInRow <= limits.jumpsBeforeReset { return emit(.drop(.jump, f)) }
                // The reference was the bad one (or the receiver really is elsewhere now): what
                // was judged against it ends the segment, and the next one starts here.
                releaseHeld(emit: emit)
                releaseSkipped(emit: emit)
                emit(.segment(.reset))
                jumpRef = nil
                forced = true
            }
            jumpsInRow = 0
        }

        push(f, forced: forced, emit: emit)
        // The first fix of a stop is kept whatever comes next; nothing comes while standing, so
        // hand it out now rather than hold it (and risk it) for the whole stop.
        if standing && tripStarted && held == f && heldForced { releaseHeld(emit: emit) }
    }

    public mutating func flush(emit: (RuleOutput) -> Void) {
        // Held time outliers nothing confirmed. Fixes after a forward step are kept as after a
        // silence: with nothing after them, they are more likely the ride's end than outliers.
        if timeSuspectsAreGap && timeSuspects.count > 1 {
            acceptGap(emit: emit)
        } else {
            for s in timeSuspects { emit(.drop(.timeJump, s.fix)) }
        }
        timeSuspects.removeAll()
        releaseHeld(emit: emit)
        dropLastStanding(emit: emit)
        for i in 0..<waitingForStart.count { emit(.drop(.firstFix, waitingForStart[i])) }
        waitingForStart.removeAll()
        releaseSkipped(emit: emit)
        // Whatever comes next is judged afresh (gpsd may come back anywhere).
        jumpRef = nil
        jumpsInRow = 0
    }

    public mutating func tripClosed() {
        // (Waiting fixes are dropped by the caller's flush; a closed trip forgets them.)
        waitingForStart.removeAll()
        lastStill = nil
        rolling.removeAll()
        startConfirmed = false
        lastKept = nil
        jumpRef = nil
        held = nil
        secondHeld = nil
        heldForced = false
        skipped.removeAll()
        lastFiltered = nil
        travelledSinceKept = 0
        jumpsInRow = 0
        tripStarted = false
        waitingSinceMs = nil
        convergingFixes.removeAll()
        isConverging = false
        // What rules 6 and 7 learnt (the stop, the window, the receiver's noise) is forgotten:
        // a re-filter of the next trip starts from its first stored fix with rules that never
        // saw this one, and must keep the same points. A stand goes on being recognised from
        // the next fixes (a slow doppler at once; a lying one by displacement), so a trip
        // closed by a standstill still reopens only on movement.
        standing = false
        standStartMs = 0
        stopAnchor = nil
        movingFixesInRow = 0
        standsInRow = 0
        recent.removeAll()
        windowDisagreement2 = nil
        windowsLearnt = 0
        scalarDisagreement2 = nil
        scalarWindowsLearnt = 0
        speedScale = 1
        scaleWindows = 0
        courseMissScore = 0
        courseSpanStartMs = .min
        courseChainPath = 0
        positionOnly1 = nil
        positionOnly2 = nil
        positionOnly3 = nil
        positionOnlyMeanD2 = 0
        positionOnlyD2Count = 0
    }

    /// Rule 1's accuracy test (the waiting time counts from the first usable fix).
    @inline(__always) private func goodFirstFix(_ f: Fix) -> Bool {
        guard let a = Accuracy.horizontal68(f) else { return true }
        let patient = f.timeMs - (waitingSinceMs ?? f.timeMs) >= limits.firstFixPatienceMs
        return a <= limits.firstFixM || (patient && a <= limits.firstFixPatientM)
    }

    // MARK: - Rule 13

    /// `f`'s displacement over the last `convergeWindowMs` agrees with the doppler's (within 3 m
    /// and 10 %): a receiver still sliding back from an outage moves faster than it says.
    private mutating func converged(_ f: Fix) -> Bool {
        guard f.speed != nil else {
            isConverging = false
            return true
        }
        convergingFixes.append(f)
        let first = convergingFixes[0]
        if f.timeMs - first.timeMs >= limits.convergeGiveUpMs {
            isConverging = false
            return true
        }
        let window = max(limits.convergeWindowMs, intervalMs)
        var i = convergingFixes.count - 1
        while i > 0 && f.timeMs - convergingFixes[i].timeMs < window { i -= 1 }
        let from = convergingFixes[i]
        guard f.timeMs - from.timeMs >= window else { return false }
        var pe = 0.0, pn = 0.0, path = 0.0
        var directed = true
        for k in i..<(convergingFixes.count - 1) {
            let a = convergingFixes[k], b = convergingFixes[k + 1]
            let dt = Double(b.timeMs - a.timeMs) / 1000
            let va = a.speed ?? 0, vb = b.speed ?? 0
            path += (va + vb) / 2 * dt
            if courseTrusted, let ta = a.track, let tb = b.track, va >= limits.courseSpeedMps, vb >= limits.courseSpeedMps {
                pe += (va * sinDeg(ta) + vb * sinDeg(tb)) / 2 * dt
                pn += (va * cosDeg(ta) + vb * cosDeg(tb)) / 2 * dt
            } else {
                directed = false
            }
        }
        let k = cosDeg(from.lat) * 111_195.0
        let ae = (f.lon - from.lon) * k, an = (f.lat - from.lat) * 111_195.0
        let err: Double
        if directed {
            let de = ae - pe, dn = an - pn
            err = (de * de + dn * dn).squareRoot()
        } else {
            err = abs((ae * ae + an * an).squareRoot() - path)
        }
        guard err <= 3 + 0.1 * path else { return false }
        isConverging = false
        return true
    }

    // MARK: - Rule 6 helpers

    private mutating func dropLastStanding(emit: (RuleOutput) -> Void) {
        if let s = lastStill { emit(.drop(.standing, s)) }
        for i in 0..<rolling.count { emit(.drop(.standing, rolling[i])) }
        lastStill = nil
        rolling.removeAll()
    }

    /// Keeps back the newest still fix, and the rolling ones after it; drops the rest.
    private mutating func holdStanding(_ f: Fix, emit: (RuleOutput) -> Void) {
        if let s = f.speed, s >= profile.standingSpeedMps {
            if let s = rolling.first, rolling.isFull { emit(.drop(.standing, s)) }
            rolling.append(f)
        } else {
            dropLastStanding(emit: emit)
            lastStill = f
        }
    }

    private mutating func stillStanding(_ f: Fix) -> Bool {
        // An anchor the next fixes cannot have come from (a cold start's stale position) is
        // replaced: displacement is measured from where the receiver really is.
        if let a = stopAnchor, !withinJump(a, f) { stopAnchor = f }
        if let s = f.speed {
            movingFixesInRow = s >= profile.movingSpeedMps ? movingFixesInRow + 1 : 0
            // Two rolling fixes in a row that have also left the spot where the receiver last
            // stood still; or four in a row whatever the position says (doppler blips at a
            // standstill come singly or in pairs, and never carry the position away).
            if movingFixesInRow >= fixes(inSeconds: 4) { return !movedByDisplacement(f) }
            if movingFixesInRow >= fixes(inSeconds: 2), let from = lastStill ?? stopAnchor,
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
        if let a = stopAnchor, Geodesy.distance(a, f) > max(2 * uncertainty(f), 10), f.speed == nil || leavesAsDopplerSays(a, f) {
            return !movedByDisplacement(f)
        }
        return true
    }

    /// The recent samples over the displacement window before `f`: the oldest one's index, or
    /// nil when they span less than two seconds (or one interval).
    @inline(__always) private func windowStart(_ f: Fix) -> Int? {
        let w = max(limits.displacementWindowMs, 3 * intervalMs)
        var i = recent.count - 1
        guard i >= 0, f.timeMs - recent[i].timeMs <= w else { return nil }
        while i > 0 && f.timeMs - recent[i - 1].timeMs <= w { i -= 1 }
        return f.timeMs - recent[i].timeMs >= max(2000, intervalMs) ? i : nil
    }

    /// The positions have moved over the recent window as the doppler says something moves: the
    /// displacement is beyond the noise (`displacementFloor`), at least half the path the measured
    /// speeds add up to (70 % over less than half the window), and, where the course is known,
    /// the course is steady enough to point somewhere (its vector at least 70 % of its path: a
    /// U-turn in the window is not enough), the displacement goes that way (within 45°) and ends
    /// within half that vector (or half the noise) of where it points. A doppler that reports
    /// 1-4 m/s while the positions wander within their noise is a receiver standing.
    private func movedByDisplacement(_ f: Fix) -> Bool {
        guard let i = windowStart(f) else { return false }
        let from = recent[i]
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        let floor = displacementFloor(from, f)
        guard d >= floor else { return false }
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f)
        // Over less than half the window, the displacement must be most of the doppler's path.
        let w = max(limits.displacementWindowMs, 3 * intervalMs)
        if d < (2 * (f.timeMs - from.timeMs) >= w ? 0.5 : 0.7) * p { return false }
        if pd > 0.5 * p, p > 0 {
            let pv = (pe * pe + pn * pn).squareRoot()
            let ee = de - pe, en = dn - pn
            guard pv >= 0.7 * pd, de * pe + dn * pn >= 0.707 * d * pv, (ee * ee + en * en).squareRoot() <= 0.5 * max(pv, floor) else {
                return false
            }
        }
        return true
    }

    /// The noise under displacement over a window: twice what this receiver's displacements and
    /// doppler paths disagree by, at least 10 m; until that is learnt, also 1.5 × both ends'
    /// uncertainty. Without a doppler, three times the positions' own scatter, at least 10 m.
    @inline(__always) private func displacementFloor(_ from: Sample, _ f: Fix) -> Double {
        // Without a doppler, by the scatter the positions show (rule 7): a receiver's claimed
        // figure would stop a car crawling in traffic.
        if f.speed == nil { return max(10, 3 * positionScatter68) }
        // (A course found wrong: the lengths' disagreement, which its lies raise as well.)
        let learnt = 2 * ((courseTrusted ? windowDisagreement2 : scalarDisagreement2) ?? 0).squareRoot()
        // Once learnt over some windows, the receiver's own disagreement is the better figure:
        // the uncertainties it reports may be far from its real noise, either way.
        if (courseTrusted ? windowsLearnt : scalarWindowsLearnt) >= 10 { return max(10, learnt) }
        return max(10, 1.5 * (from.u + uncertainty(f)), learnt)
    }

    /// Learns the disagreement from every full window whose speeds are known and whose path
    /// has a course (or barely moves): the vector of the doppler path against the displacement.
    private mutating func learnWindowDisagreement(_ f: Fix) {
        guard f.speed != nil, let i = windowStart(f) else { return }
        let from = recent[i]
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, courseOnlyIfTrusted: false)
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        // (Any window tells whether the course is right: a short ride must open too.)
        learnCourseTrust(f)
        let w = max(limits.displacementWindowMs, 3 * intervalMs)
        guard f.timeMs - from.timeMs >= w - intervalMs else { return }
        // (A jump no ride makes is a stale position or a reset, not noise.)
        let d = (de * de + dn * dn).squareRoot()
        guard d <= profile.maxSpeedMps * Double(f.timeMs - from.timeMs) / 1000 else { return }
        learnSpeedScale(d: d, de: de, dn: dn, p: p, pd: pd, pe: pe, pn: pn, floor: max(20, 3 * (from.u + uncertainty(f))))
        let s2 = min((d - p) * (d - p), scalarDisagreement2.map { max(9 * $0, 225) } ?? 900)
        scalarDisagreement2 = scalarDisagreement2.map { $0 + (s2 - $0) / 20 } ?? s2
        scalarWindowsLearnt += 1
        guard courseTrusted, p - pd <= 5 else { return }
        let ee = de - pe, en = dn - pn
        // A cold start's stale position or a spike at either end is no noise (other rules judge
        // those): each window counts for at most three times the noise so far (at least 15 m),
        // and the first for at most 30 m.
        let cap = windowDisagreement2.map { max(9 * $0, 225) } ?? 900
        let e2 = min(ee * ee + en * en, cap)
        windowDisagreement2 = windowDisagreement2.map { $0 + (e2 - $0) / 20 } ?? e2
        windowsLearnt += 1
    }

    /// A receiver whose speeds are all too high by one factor (knots sent as m/s: 1.94 ×)
    /// "stands" by rule 6 on every window (its speeds add up to more than it goes) and its
    /// rides were cut after 26 s. Over twenty full windows in a row where the positions went
    /// straight and far (50 m, beyond the claims, with the course where there is one), the
    /// ratio of displacement to path stayed within 8 % and under 0.83: the speeds are scaled
    /// by it from then on. Only downwards: a lie made larger would count more, and a standing
    /// receiver's wander never goes 50 m straight twenty windows in a row in one ratio.
    private mutating func learnSpeedScale(
        d: Double, de: Double, dn: Double, p: Double, pd: Double, pe: Double, pn: Double, floor: Double
    ) {
        // (Straight by the course: without one, a bend would pass for a scale.)
        let pv = (pe * pe + pn * pn).squareRoot()
        guard p > 0, d >= floor, pd >= 0.9 * p, pv >= 0.9 * pd, de * pe + dn * pn >= 0.9 * d * pv else {
            scaleWindows = 0
            return
        }
        let l = log(d / p)
        if scaleWindows == 0 {
            scaleLogSum = 0
            scaleLogSum2 = 0
        }
        scaleWindows += 1
        scaleLogSum += l
        scaleLogSum2 += l * l
        guard scaleWindows >= 20 else { return }
        let n = Double(scaleWindows)
        let mean = scaleLogSum / n
        let sd = max(0, scaleLogSum2 / n - mean * mean).squareRoot()
        scaleWindows = 0
        guard sd < 0.05, mean < -0.35 else { return }
        speedScale = max(0.1, speedScale * exp(mean))
    }

    /// Whether the course points where the receiver goes is judged over spans that follow on
    /// from each other: each starts where the last judged one ended, and may last up to a
    /// minute. Over a span where the positions went far beyond their noise about as far as the
    /// speeds say (within 25 %), and each half of it did too, a steady course must point that
    /// way: the path's vector must end within half its length of the displacement's end, as
    /// rule 6 asks. Four such spans net that miss and the course is ignored: judged by a wrong
    /// course, a real ride never leaves its first stop. "Far" is 50 m, and 20 m once the
    /// lengths' noise is learnt over five windows, and always three times that noise and both
    /// ends' claims. A span that does not get there within the minute breaks the chain (what
    /// was found is forgotten while the course is still trusted): a standing receiver's wander
    /// with a doppler that lies matches the speeds' path now and then by chance, never span
    /// after span, and judged on sliding windows it switched the course test off (trips of
    /// 1-12 km at 20-30 m of wander).
    private mutating func learnCourseTrust(_ f: Fix) {
        guard recent.count >= 3 else { return }
        // (A time line that stepped back starts the chain afresh.)
        if courseSpanStartMs > f.timeMs { courseSpanStartMs = .min }
        var i = 0
        while i < recent.count - 3 && recent[i].timeMs < courseSpanStartMs { i += 1 }
        if f.timeMs - recent[i].timeMs > 60_000 {
            // The span never got far enough: the chain is broken; start afresh from here.
            if courseTrusted {
                courseMissScore = 0
                courseChainPath = 0
            }
            courseSpanStartMs = f.timeMs
            return
        }
        let from = recent[i]
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, courseOnlyIfTrusted: false)
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        let learnt = scalarWindowsLearnt >= 5 ? scalarDisagreement2.map { $0.squareRoot() } : nil
        let far = max(learnt == nil ? 50 : 20, 3 * (from.u + uncertainty(f)), 3 * (learnt ?? 0))
        guard p > 0, d >= far, abs(d - p) <= 0.25 * p else { return }
        // Each half, too: an excursion of the wander that matches the path's length at its end
        // is not a way gone.
        var m = i + 1
        while m < recent.count - 2 && 2 * (recent[m].timeMs - from.timeMs) < f.timeMs - from.timeMs { m += 1 }
        let mid = recent[m]
        let p1 = mid.path - from.path, p2 = p - p1
        let d1 = Geodesy.distance(lat1: from.lat, lon1: from.lon, lat2: mid.lat, lon2: mid.lon)
        let d2 = Geodesy.distance(lat1: mid.lat, lon1: mid.lon, lat2: f.lat, lon2: f.lon)
        guard abs(d1 - p1) <= 0.25 * p1 + 0.1 * far, abs(d2 - p2) <= 0.25 * p2 + 0.1 * far else { return }
        courseSpanStartMs = f.timeMs
        let pv = (pe * pe + pn * pn).squareRoot()
        // (A span without a steady course tells nothing about it, but the chain goes on.)
        guard pd >= 0.9 * p, pv >= 0.7 * pd else { return }
        let wasTrusted = courseTrusted
        let ee = de - pe, en = dn - pn
        let miss = (ee * ee + en * en).squareRoot() / pv
        if miss > 0.5 {
            if courseMissScore == 0 || courseChainPath == 0 {
                courseChainLat = from.lat
                courseChainLon = from.lon
                courseChainPath = 0
            }
            courseChainPath += p
            // The chain as a whole must have gone somewhere too: a wander returns, a ride does not.
            let whole = Geodesy.distance(lat1: courseChainLat, lon1: courseChainLon, lat2: f.lat, lon2: f.lon)
            if courseMissScore + 1 < 4 || !wasTrusted || whole >= 0.7 * courseChainPath {
                courseMissScore = min(courseMissScore + 1, 8)
            }
        } else if miss <= 0.3 {
            courseMissScore = max(courseMissScore - 2, 0)
            courseChainPath = 0
        }
        // What was learnt against the wrong course is no noise.
        if wasTrusted && !courseTrusted {
            windowDisagreement2 = nil
            windowsLearnt = 0
        }
    }

    /// `standsByDisplacement` for three fixes in a row with a doppler: a spike at the window's
    /// end (out and back along the way) is one or two fixes.
    private mutating func standsByDisplacementInRow(_ f: Fix) -> Bool {
        standsInRow = standsByDisplacement(f) ? standsInRow + 1 : 0
        return standsInRow >= (f.speed == nil ? 1 : 3)
    }

    /// Moving by the doppler (or without one) while the positions over a whole window stayed
    /// within their noise: the receiver stands. With a doppler, it must claim more than the
    /// positions show by more than their noise, and the displacement must disagree with the
    /// doppler's path vector by more than that noise too (an honest doppler through a U-turn
    /// agrees with its positions; a lying one does not). The noise here is the positions' (1.5 ×
    /// both ends' claimed uncertainty, at least 10 m), never the learnt disagreement, which a
    /// lying doppler raises until nothing would be "within" it.
    private func standsByDisplacement(_ f: Fix) -> Bool {
        guard let i = windowStart(f) else { return false }
        let from = recent[i]
        let w = max(limits.displacementWindowMs, 3 * intervalMs)
        guard f.timeMs - from.timeMs >= w - intervalMs else { return false }
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        guard f.speed != nil else { return d < displacementFloor(from, f) }
        let floor = max(10, 1.5 * (from.u + uncertainty(f)))
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f)
        // A course that points nowhere over 20 s (its vector under half its path) while the
        // positions stay put: a slow lie (0.5-1.5 m/s) that never adds up to the noise.
        if d < floor, pd >= 0.5 * p, p >= 10, (pe * pe + pn * pn).squareRoot() < 0.5 * pd { return true }
        guard p > d + floor else { return false }
        if pd < 0.5 * p { return true }
        let ee = de - pe, en = dn - pn
        return (ee * ee + en * en).squareRoot() > floor
    }

    /// The path the measured speeds add up to from sample `i` to `f`, the part of it with a known
    /// course, and that part's vector east and north.
    /// A course found wrong (`courseTrusted`) adds no directed part unless `courseOnlyIfTrusted`
    /// is false.
    private func dopplerPath(
        from i: Int, to f: Fix, courseOnlyIfTrusted: Bool = true
    ) -> (path: Double, directed: Double, east: Double, north: Double) {
        let a = recent[i], last = recent[recent.count - 1]
        var p = last.path - a.path, pd = last.directedPath - a.directedPath
        var pe = last.east - a.east, pn = last.north - a.north
        if f.timeMs > last.timeMs {
            // `f` was not sampled (under a second after the last sample): its piece too.
            let v = f.speed ?? -1
            let directed = v >= 0.3 && f.track != nil
            let b = Sample(
                timeMs: f.timeMs, lat: f.lat, lon: f.lon, u: 0, v: v, ve: directed ? v * sinDeg(f.track!) : 0,
                vn: directed ? v * cosDeg(f.track!) : 0, directed: directed)
            let (sp, spd, spe, spn) = Self.step(last, b)
            p += sp
            pd += spd
            pe += spe
            pn += spn
        }
        if courseOnlyIfTrusted && !courseTrusted { return (p, 0, 0, 0) }
        return (p, pd, pe, pn)
    }

    /// The votes that make "n in a row" at one fix a second: a blip lasts about as long at any
    /// cadence, so a 10 Hz receiver needs ten times as many fixes (never fewer than `n`).
    @inline(__always) private func fixes(inSeconds n: Int) -> Int {
        max(n, Int((Int64(n) * 1000 + intervalMs - 1) / intervalMs))
    }

    /// The way from `a` to `f` agrees with `f`'s doppler: its measured course points that way
    /// (within 45°), and it is at least a third as long as the measured speed says.
    @inline(__always) private func leavesAsDopplerSays(_ a: Fix, _ f: Fix) -> Bool {
        guard let t = f.track, let v = f.speed else { return false }
        let k = cosDeg(a.lat) * 111_195.0
        let e = (f.lon - a.lon) * k, n = (f.lat - a.lat) * 111_195.0
        let d = abs(atan2Deg(e, n) - t).truncatingRemainder(dividingBy: 360)
        guard min(d, 360 - d) <= 45 || !courseTrusted else { return false }
        return (e * e + n * n).squareRoot() >= 0.3 * v * Double(f.timeMs - a.timeMs) / 1000
    }

    // MARK: - Rules 4 and 5

    @inline(__always) private func withinJump(_ a: Fix, _ b: Fix) -> Bool {
        let dt = Double(b.timeMs - a.timeMs) / 1000
        return Geodesy.distance(a, b) <= profile.maxSpeedMps * dt + uncertainty(a) + uncertainty(b)
    }

    /// A start (no reference) is confirmed by a successor within the jump limit and displaced
    /// about as far as the measured speed says (a frozen stale position with a real speed fails).
    @inline(__always) private func confirms(_ b: Fix, _ c: Fix) -> Bool {
        guard c.timeMs - b.timeMs <= confirmWithinMs, withinJump(b, c) else { return false }
        guard let v = b.speed ?? c.speed else { return true }
        let dt = Double(c.timeMs - b.timeMs) / 1000
        let d = Geodesy.distance(b, c)
        return abs(d - v * dt) <= 0.5 * v * dt + uncertainty(b) + uncertainty(c) + 2
    }

    /// The leg p → q is longer than the measured speed allows over its own time (50 % slack
    /// plus both ends' uncertainty). Without a measured speed, `fallback` is used.
    @inline(__always) private func tooFast(_ p: Fix, _ q: Fix, fallback: Double) -> Bool {
        Self.tooFast(p, q, fallback: fallback, unknownM: limits.unknownAccuracyM)
    }

    private static func tooFast(_ p: Fix, _ q: Fix, fallback: Double, unknownM: Double) -> Bool {
        let dt = Double(q.timeMs - p.timeMs) / 1000
        let v = max(p.speed ?? -1, q.speed ?? -1)
        return Geodesy.distance(p, q) > 1.5 * (v >= 0 ? v : fallback) * dt
            + uncertainty(p, unknownM: unknownM) + uncertainty(q, unknownM: unknownM) + 2
    }

    private static func averageSpeed(_ a: Fix, _ c: Fix) -> Double {
        Geodesy.distance(a, c) / max(Double(c.timeMs - a.timeMs) / 1000, 0.001)
    }

    /// B stands off the way A → C (the detour exceeds twice its uncertainty, at least 10 m) and
    /// a leg to or from it is too fast: out and back (a leg that spans a stop is long in time,
    /// the other one is not).
    private static func isSpike(_ a: Fix, _ b: Fix, _ c: Fix, unknownM: Double) -> Bool {
        let ab = Geodesy.distance(a, b), bc = Geodesy.distance(b, c), ac = Geodesy.distance(a, c)
        guard ab + bc - ac > max(10, 2 * uncertainty(b, unknownM: unknownM)) else { return false }
        let v = averageSpeed(a, c)
        return tooFast(a, b, fallback: v, unknownM: unknownM) || tooFast(b, c, fallback: v, unknownM: unknownM)
    }

    /// B and C both stand off the way A → D, the way out to B and the way back from C are too
    /// fast: a two-fix excursion.
    private static func isExcursion(_ a: Fix, _ b: Fix, _ c: Fix, _ d: Fix, unknownM: Double) -> Bool {
        let v = averageSpeed(a, d)
        guard tooFast(a, b, fallback: v, unknownM: unknownM), tooFast(c, d, fallback: v, unknownM: unknownM) else { return false }
        return offLine(b, a, d) > max(10, 2 * uncertainty(b, unknownM: unknownM))
            && offLine(c, a, d) > max(10, 2 * uncertainty(c, unknownM: unknownM))
    }

    private mutating func push(_ f: Fix, forced: Bool, emit: (RuleOutput) -> Void) {
        guard let b = held else {
            held = f
            heldForced = forced
            return
        }
        if let a = jumpRef {
            if let c = secondHeld {
                // Two held: drop both if they were an excursion, else keep the first and judge
                // the second afresh.
                let cForced = secondHeldForced
                secondHeld = nil
                if !heldForced && !cForced && Self.isExcursion(a, b, c, f, unknownM: limits.unknownAccuracyM) {
                    emit(.drop(.spike, b))
                    emit(.drop(.spike, c))
                    held = f
                    heldForced = forced
                    return
                }
                keep(b, forced: heldForced, emit: emit)
                held = c
                heldForced = cForced
                return push(f, forced: forced, emit: emit)
            }
            if !heldForced && Self.isSpike(a, b, f, unknownM: limits.unknownAccuracyM) {
                emit(.drop(.spike, b))
            } else if !heldForced && !forced && tooFast(a, b, fallback: Self.averageSpeed(a, f))
                && !tooFast(b, f, fallback: Self.averageSpeed(a, f))
            {
                // B arrived too fast but F sits by it: perhaps both are out; wait for one more.
                secondHeld = f
                secondHeldForced = forced
                return
            } else {
                keep(b, forced: heldForced, emit: emit)
            }
        } else if (confirms(b, f) && (tripStarted || movedByDisplacement(f))) || (startConfirmed && withinJump(b, f)) {
            // (Before the trip, the confirming fix too must have moved as its doppler says: one
            // short window agreeing by chance does not start a trip.)
            if !tripStarted { backfill(before: b, emit: emit) }
            keep(b, forced: heldForced || !tripStarted || lastKept == nil, emit: emit)
        } else {
            emit(.drop(tripStarted ? .jump : .firstFix, b))
        }
        held = f
        heldForced = forced
    }

    /// The trip starts at `b`: keep the waiting fixes that lead to it, newest back to oldest,
    /// each within the jump limit of the next and moving as its speed says; the chain stops at the
    /// first that does not. The rest are dropped as `first_fix`.
    private mutating func backfill(before b: Fix, emit: (RuleOutput) -> Void) {
        var chain: [Fix] = []
        var next = b
        var i = waitingForStart.count - 1
        while i >= 0 {
            let p = waitingForStart[i]
            guard next.timeMs - p.timeMs <= gapMs, confirms(p, next) else { break }
            chain.append(p)
            next = p
            i -= 1
        }
        for i in 0..<(waitingForStart.count - chain.count) { emit(.drop(.firstFix, waitingForStart[i])) }
        waitingForStart.removeAll()
        for (k, p) in chain.reversed().enumerated() { keep(p, forced: k == 0, emit: emit) }
    }

    private mutating func releaseHeld(emit: (RuleOutput) -> Void) {
        guard let b = held else { return }
        held = nil
        let bForced = heldForced
        let c = secondHeld
        secondHeld = nil
        // A start nothing confirmed is not a trip.
        if jumpRef == nil && !tripStarted {
            emit(.drop(.firstFix, b))
            if let c { emit(.drop(.firstFix, c)) }
            return
        }
        // No successor will judge these: one whose way in was faster than the measured speed
        // allows is taken for a spike (an excursion nothing came back from); the rest is kept.
        if let a = jumpRef, !bForced, tooFast(a, b, fallback: Self.averageSpeed(a, b)) {
            emit(.drop(.spike, b))
            if let c { emit(.drop(.spike, c)) }
            return
        }
        keep(b, forced: true, emit: emit)
        if let c { keep(c, forced: true, emit: emit) }
    }

    // MARK: - Rule 8

    private mutating func keep(_ b: Fix, forced: Bool, emit: (RuleOutput) -> Void) {
        tripStarted = true
        startConfirmed = false
        jumpRef = b
        // How far the rider went since the last kept point, by the measured speed where there is
        // one: choosing points by their distance from the last one would prefer the fixes thrown
        // sideways by noise (they cross the threshold first), and zigzag the track long.
        if let c = lastFiltered {
            let dt = Double(b.timeMs - c.timeMs) / 1000
            if let v1 = c.speed, let v2 = b.speed {
                travelledSinceKept += (v1 + v2) / 2 * dt
            } else if let last = lastKept {
                // Without speeds, the chord from the last point: summing noisy steps adds their
                // scatter to every one of them.
                travelledSinceKept = Geodesy.distance(last, b)
            } else {
                travelledSinceKept += Geodesy.distance(c, b)
            }
        }
        lastFiltered = b
        // Forced points (a stop, a segment start) skip the distance filter, but a point on top
        // of the last one adds nothing.
        // A turn of the measured course (doppler) is a corner: kept whatever the distance.
        if let last = lastKept,
            forced
                ? Geodesy.distance(last, b) < 1
                : travelledSinceKept < minDistance(b) && !(courseTurn(last, b).map { $0 >= limits.cornerDegrees } ?? false)
        {
            if let oldest = skipped.first, skipped.isFull { emit(.drop(.tooClose, oldest)) }
            skipped.append(b)
            return
        }
        travelledSinceKept = 0
        if let last = lastKept, !skipped.isEmpty, !coursesKnown(last, b) {
            // Corners: the skipped fixes that stand off the straight line from the last kept
            // point to this one by more than the tolerance (Douglas-Peucker over the skipped ones).
            var keepIdx = [Bool](repeating: false, count: skipped.count)
            Self.markCorners(in: skipped, from: last, to: b, range: 0..<skipped.count, tolerance: cornerTolerance(b), keep: &keepIdx)
            for i in 0..<skipped.count {
                if keepIdx[i] { emit(.keep(skipped[i])) } else { emit(.drop(.tooClose, skipped[i])) }
            }
            skipped.removeAll()
        }
        for i in 0..<skipped.count { emit(.drop(.tooClose, skipped[i])) }
        skipped.removeAll()
        emit(.keep(b))
        lastKept = b
    }

    /// The change of the measured course from `a` to `b`, in degrees, when both are moving fast
    /// enough for the receiver's course to mean something.
    @inline(__always) private func courseTurn(_ a: Fix, _ b: Fix) -> Double? {
        guard coursesKnown(a, b), let ca = a.track, let cb = b.track else { return nil }
        let d = abs(ca - cb).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }

    @inline(__always) private func coursesKnown(_ a: Fix, _ b: Fix) -> Bool {
        courseTrusted && a.track != nil && b.track != nil && (a.speed ?? 0) >= limits.courseSpeedMps && (b.speed ?? 0) >= limits.courseSpeedMps
    }

    /// How far a skipped fix must stand off the chord to be a corner: above the sideways
    /// jitter of nearby fixes (30 % of their uncertainty), at least 2 m.
    @inline(__always) private func cornerTolerance(_ b: Fix) -> Double { max(2, min(positionOnlyUncertainty(b), limits.maxAccuracyM)) }

    private static func markCorners(
        in skipped: RingBuffer<Fix>, from a: Fix, to c: Fix, range: Range<Int>, tolerance: Double,
        keep: inout [Bool]
    ) {
        guard !range.isEmpty else { return }
        var best = -1
        var bestOff = tolerance
        for i in range {
            let off = offLine(skipped[i], a, c)
            if off > bestOff {
                bestOff = off
                best = i
            }
        }
        guard best >= 0 else { return }
        keep[best] = true
        markCorners(in: skipped, from: a, to: skipped[best], range: range.lowerBound..<best, tolerance: tolerance, keep: &keep)
        markCorners(in: skipped, from: skipped[best], to: c, range: (best + 1)..<range.upperBound, tolerance: tolerance, keep: &keep)
    }

    /// Distance of `p` from the segment a–c, in metres (local flat approximation).
    private static func offLine(_ p: Fix, _ a: Fix, _ c: Fix) -> Double {
        let k = cosDeg(a.lat) * 111_195.0
        let ax = 0.0, ay = 0.0
        let cx = (c.lon - a.lon) * k, cy = (c.lat - a.lat) * 111_195.0
        let px = (p.lon - a.lon) * k, py = (p.lat - a.lat) * 111_195.0
        let len2 = cx * cx + cy * cy
        var u = len2 > 0 ? ((px - ax) * cx + (py - ay) * cy) / len2 : 0
        u = min(1, max(0, u))
        let dx = ax + u * cx - px, dy = ay + u * cy - py
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The distance filter's threshold for `b`: the activity's minimum, or the fix's own
    /// uncertainty when that is larger. Position noise adds length to every short step (the
    /// sideways wobble of each step); spacing points by at least their uncertainty keeps that
    /// wobble a small fraction of the step, while corners are kept separately.
    @inline(__always) private func minDistance(_ b: Fix) -> Double {
        max(profile.minDistanceM, min(positionOnlyUncertainty(b) * limits.distanceFilterUncertainties, limits.maxDistanceFilterM))
    }

    /// A fix's uncertainty, or for one without a speed the scatter its stretch shows when larger.
    @inline(__always) private func positionOnlyUncertainty(_ f: Fix) -> Double {
        f.speed == nil ? max(uncertainty(f), positionScatter68) : uncertainty(f)
    }

    /// The 68 % radius of the position-only fixes' scatter, from the mean size of their third
    /// differences at a steady cadence of up to 2 s: white noise σ per axis gives a mean |Δ³| of
    /// 5.6 σ, while a ride's own motion gives almost none (a turn or a braking is a steady
    /// acceleration, which second differences would take for noise): 0 until two are known.
    private var positionScatter68: Double {
        positionOnlyD2Count >= 2 ? 2.0.squareRoot() * positionOnlyMeanD2 / 5.6 : 0
    }

    private mutating func learnPositionScatter(_ f: Fix) {
        if let p1 = positionOnly1, let p2 = positionOnly2, let p3 = positionOnly3 {
            let dt = f.timeMs - p1.timeMs
            if dt > 0, dt <= 2000, abs(p1.timeMs - p2.timeMs - dt) * 10 <= dt, abs(p2.timeMs - p3.timeMs - dt) * 10 <= dt {
                // f - 3 p1 + 3 p2 - p3, in local metres about p1.
                let k = cosDeg(p1.lat) * 111_195.0
                let e = ((f.lon - p1.lon) - 2 * (p1.lon - p2.lon) + (p2.lon - p3.lon)) * k
                let n = ((f.lat - p1.lat) - 2 * (p1.lat - p2.lat) + (p2.lat - p3.lat)) * 111_195.0
                let d3 = (e * e + n * n).squareRoot()
                positionOnlyMeanD2 = positionOnlyD2Count == 0 ? d3 : positionOnlyMeanD2 + (d3 - positionOnlyMeanD2) / 8
                positionOnlyD2Count += 1
            }
        }
        positionOnly3 = positionOnly2
        positionOnly2 = positionOnly1
        positionOnly1 = f
    }

    /// Keeps the last skipped fix (the track reaches where the rider stopped) and drops the rest.
    private mutating func releaseSkipped(emit: (RuleOutput) -> Void, keepLast: Bool = true) {
        guard let last = skipped.last else { return }
        let keepLast = keepLast && lastKept.map { Geodesy.distance($0, last) >= 1 } ?? true
        for i in 0..<(skipped.count - (keepLast ? 1 : 0)) { emit(.drop(.tooClose, skipped[i])) }
        skipped.removeAll()
        if keepLast {
            emit(.keep(last))
            lastKept = last
            travelledSinceKept = 0
        }
    }
}

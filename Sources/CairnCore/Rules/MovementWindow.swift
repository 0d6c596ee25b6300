/// Rule 6, **displacement decides, not the doppler alone** (issue 28): the window of recent
/// positions against which a stop's start and end, and a trip's opening, are judged.
///
/// Phones standing under canopy report 0.5-4 m/s for minutes while their positions wander
/// 10-30 m (a tablet on a surveyed point said up to 2 m/s with HDOP 1, i.e. a 3.5 m claim, and
/// wandered 10-30 m); the rules kept trips of 19-233 m that never happened. So about one fix a
/// second (900 ms apart at least) is sampled here, and over the last
/// `RuleLimits.displacementWindowMs` (20 s, or three intervals; at least 2 s, or one interval):
///
/// - **Moved** (`moved`): a trip opens (rule 1), and a stop ends (`Standstill`), only when the
///   displacement is beyond the noise (`floor`), at least half the path the measured speeds add
///   up to (70 % over less than half the window), and, where most of the path has a course,
///   goes where a steady course points: the course vector at least 70 % of its path, the
///   displacement within 45° of it and ending within half of it (or half the noise) of its end.
/// - **Stands** (`stands`): over a whole window (less one interval), with a doppler, speeds
///   that add up to more than the displacement by the noise mean standing, whatever they say,
///   unless most of the path has a course and the displacement agrees with its vector within
///   the noise (an honest doppler through a U-turn). A course that points nowhere (its vector
///   under half its path, the path at least 10 m) while the positions stay within the noise is
///   a stand too, however slow the lie. The noise here is the positions' (1.5 × both ends'
///   claimed uncertainty, at least 10 m), never the learnt one, which a lying doppler raises
///   until nothing would be "within" it. Without a doppler: a displacement under the floor.
///
/// The noise (`floor`) is learnt per receiver: twice the root of the running mean square
/// (over about 20 windows) of how far each full window's displacement and the doppler's path
/// vector disagree, learnt from windows whose path lacks a course for 5 m at most while the
/// course is trusted (honest receivers: a few metres; a lying doppler raises it, so its own
/// lies keep it standing), at least 10 m, and until ten windows are learnt at least 1.5 × both
/// ends' claimed uncertainty. A window counts for at most three times the noise so far (at least
/// 15 m; the first for at most 30 m): a cold start's stale position or a spike at either end is
/// no noise; a window farther than the activity goes is not counted at all. The same is learnt
/// for the displacement's length against the path's (`scalarDisagreement2`), whatever the course
/// says: it judges a receiver whose course was found wrong (`CourseTrust`). Without a doppler
/// the floor is three times the positions' own scatter (rule 7, `PositionScatter`), at least
/// 10 m. A closed trip forgets the window and the noise learnt, as a re-filter of the next trip
/// does.
///
/// **Over minutes where the noise is large** (issue 39): a walker at 1.4 m/s in a wander of 35 m
/// moves 28 m in a window, within the noise. Where the window's test fails on the noise, the
/// window whose doppler path reaches three times it (at most `longWindowMs`, 4 minutes; the ring
/// keeps 256 samples) decides (`movedOverLongWindow`), and a stand of a receiver noisier than it
/// claims is vetoed when that window shows its positions following the doppler. Without a doppler,
/// the displacement over four windows (`longDisplacement`) beyond twice the noise, with this window
/// a steady share of it (15 %: not the way into a stop), moves, and keeps a slow walker from
/// standing.
struct MovementWindow {
    /// One sampled fix: place, uncertainty, doppler velocity, and the path up to it.
    struct Sample {
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

    /// About one fix a second of the recent past: over four minutes, for the long window.
    private(set) var recent = RingBuffer<Sample>(capacity: 256)
    /// Without a doppler, judge over four windows too (`longDisplacement`): only inside a trip
    /// that has had a fix with a speed (set by `FixRules`); a lone walker without one is judged
    /// over the one window, as before issue 39.
    var minutesWithoutSpeed = false
    /// The long window reaches back at most this far.
    static let longWindowMs: Int64 = 240_000
    /// How far, over a window, the positions' displacement and the doppler's path vector
    /// disagree on this receiver (a running mean square, m²), and over how many windows.
    private var vectorDisagreement2: Double?
    private var vectorWindowsLearnt = 0
    /// The same for the displacement's length against the path's.
    private(set) var scalarDisagreement2: Double?
    private(set) var scalarWindowsLearnt = 0
    /// The same over windows at a slow mover's pace (doppler path under `PositionScatter.slowMps`)
    /// at a fix every 2 s or more often, every speed in it slow: what `slowNoise68` says.
    private var slowDisagreement2: Double?
    private var slowWindowsLearnt = 0
    /// What the receiver claimed over those windows (mean square of both ends' 68 % figures).
    private var slowClaim2: Double?

    /// The positions' own 68 % noise as this receiver has shown it, once learnt over ten windows:
    /// how far a window's displacement and the doppler's path disagree (the noise at both ends,
    /// 1.5 × √(mean square) / √2 ≈ 0.76 ×); 0 until then. Honest figures are at least this
    /// already; a receiver that claims a few metres under a wander of tens says otherwise here.
    func learntNoise68(courseTrusted: Bool) -> Double {
        let (m2, n) = courseTrusted ? (vectorDisagreement2, vectorWindowsLearnt) : (scalarDisagreement2, scalarWindowsLearnt)
        guard n >= 10, let m2 else { return 0 }
        return 0.76 * m2.squareRoot()
    }

    /// The positions' 68 % noise as shown at a slow mover's pace (issue 39), learnt as
    /// `learntNoise68` is but only over windows whose every speed is under
    /// `PositionScatter.slowMps`, at a fix every 2 s or more often: a car's windows at speed and
    /// braking carry its doppler's latency (a Pixel 4 phone claiming 1.3 m showed 3-6 m over
    /// them), and between fixes 12 s apart a walk's bends
    /// part the doppler's path from the chord (a Pixel 6 walk showed 4 m); neither is the wander
    /// the slow movers' limits answer. 0 until ten such windows.
    func slowNoise68() -> Double {
        guard slowWindowsLearnt >= 10, let m2 = slowDisagreement2 else { return 0 }
        return 0.76 * m2.squareRoot()
    }

    /// `slowNoise68` for a fix claiming `u`: scaled down once that claim is less than half what
    /// the receiver claimed over the windows the noise was learnt on (by twice their ratio, so
    /// continuously). A receiver's noise follows its claims when they change that much; gpsd's
    /// haicom-305N walk (26 m claimed for a minute, then 4-5 m) lost its corners to a tolerance
    /// of twice the noise learnt over that first minute: 24.7 m kept of a 45 m walk. (Scaled by
    /// the plain ratio, a claim wavering with HDOP 1-2 cost the generated walkers 0.5-1.7 %.)
    func slowNoise68(claiming u: Double) -> Double {
        let shown = slowNoise68()
        guard shown > 0, let c2 = slowClaim2, 4 * u * u < c2 else { return shown }
        return shown * 2 * u / c2.squareRoot()
    }

    /// Adds `f` (when `samples(f)`) with its uncertainty `u`.
    mutating func sample(_ f: Fix, u: Double) {
        let v = f.speed ?? -1
        let directed = v >= 0.3 && f.track != nil
        let t = f.track ?? 0
        var sample = Sample(
            timeMs: f.timeMs, lat: f.lat, lon: f.lon, u: u, v: v,
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
    }

    /// The receiver's time moved (rule 12): the samples are of another time line.
    mutating func forgetSamples() { recent.removeAll() }

    /// A closed trip: the samples and the noise learnt are forgotten.
    mutating func reset() {
        recent.removeAll()
        vectorDisagreement2 = nil
        vectorWindowsLearnt = 0
        scalarDisagreement2 = nil
        scalarWindowsLearnt = 0
        slowDisagreement2 = nil
        slowWindowsLearnt = 0
        slowClaim2 = nil
    }

    /// `f` is far enough after the last sample (900 ms) to be sampled.
    @inline(__always) func samples(_ f: Fix) -> Bool {
        recent.last.map { f.timeMs - $0.timeMs >= 900 } ?? true
    }

    /// The samples over the window before `f`: the oldest one's index, or nil when they span
    /// less than two seconds (or one interval).
    @inline(__always) func start(_ f: Fix, windowMs w: Int64, intervalMs: Int64) -> Int? {
        var i = recent.count - 1
        guard i >= 0, f.timeMs - recent[i].timeMs <= w else { return nil }
        while i > 0 && f.timeMs - recent[i - 1].timeMs <= w { i -= 1 }
        return f.timeMs - recent[i].timeMs >= max(2000, intervalMs) ? i : nil
    }

    /// The path the measured speeds add up to from sample `i` to `f`, the part of it with a known
    /// course, and that part's vector east and north. An untrusted course adds no directed part.
    func dopplerPath(from i: Int, to f: Fix, withCourse: Bool) -> (path: Double, directed: Double, east: Double, north: Double) {
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
        if !withCourse { return (p, 0, 0, 0) }
        return (p, pd, pe, pn)
    }

    /// The noise under displacement over a window (see the type's comment). `u` is `f`'s
    /// uncertainty, `scatter68` the position-only scatter (rule 7).
    @inline(__always) func floor(
        _ from: Sample, _ f: Fix, u: @autoclosure () -> Double, scatter68: Double, courseTrusted: Bool
    ) -> Double {
        // Without a doppler, by the scatter the positions show (rule 7): a receiver's claimed
        // figure would stop a car crawling in traffic.
        if f.speed == nil { return max(10, 3 * scatter68) }
        // (A course found wrong: the lengths' disagreement, which its lies raise as well.)
        let learnt = 2 * ((courseTrusted ? vectorDisagreement2 : scalarDisagreement2) ?? 0).squareRoot()
        // Once learnt over some windows, the receiver's own disagreement is the better figure:
        // the uncertainties it reports may be far from its real noise, either way.
        if (courseTrusted ? vectorWindowsLearnt : scalarWindowsLearnt) >= 10 { return max(10, learnt) }
        return max(10, 1.5 * (from.u + u()), learnt)
    }

    /// The newest sample from which the doppler's path to the last sample is at least `target`
    /// metres, within `longWindowMs` of `f`; nil when the samples do not reach back so far.
    func start(reachingPath target: Double, before f: Fix) -> Int? {
        guard recent.count >= 2 else { return nil }
        let end = recent[recent.count - 1].path
        guard end - recent[0].path >= target else { return nil }
        var lo = 0, hi = recent.count - 1
        // The largest index whose path to the end is still at least `target`.
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if end - recent[mid].path >= target { lo = mid } else { hi = mid - 1 }
        }
        return f.timeMs - recent[lo].timeMs <= Self.longWindowMs ? lo : nil
    }

    /// Without a doppler, the displacement over four windows (from the sample nearest to that
    /// far back, at least three windows back): a walker 1 m/s in a wander of 10 m moves 20 m in
    /// one window, within the noise, and 80 m in four, beyond it. Nil when the samples do not
    /// reach back three windows.
    func longDisplacement(_ f: Fix, windowMs w: Int64) -> (long: Double, ms: Int64)? {
        guard let first = recent.first, f.timeMs - first.timeMs >= 3 * w else { return nil }
        var lo = 0, hi = recent.count - 1
        // The newest sample at least four windows before `f` (or the oldest).
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if f.timeMs - recent[mid].timeMs >= 4 * w { lo = mid } else { hi = mid - 1 }
        }
        let from = recent[lo]
        let de = (f.lon - from.lon) * from.k, dn = (f.lat - from.lat) * 111_195.0
        return ((de * de + dn * dn).squareRoot(), f.timeMs - from.timeMs)
    }

    /// **Evidence over minutes where the noise is large** (issue 39): over the window whose
    /// doppler path reaches three times the noise (`floor`; at most `longWindowMs`), the
    /// positions moved most of that path (60 %, and twice the noise), the way a steady course
    /// points where most of the path has one (its vector at least 60 % of its path, the
    /// displacement within 45° of it and within the noise or half of it of its end). A walker
    /// whose positions wander 35 m over half a minute moves 30 m in 20 s: only over a minute or
    /// more does the way out of the noise show; a doppler that lies while the receiver stands
    /// adds path that the positions never follow.
    func movedOverLongWindow(_ f: Fix, floor: Double, courseTrusted: Bool) -> Bool {
        // (Only on a noise learnt from the receiver itself, over more than two windows: before,
        // a steady lie wandering 30 m matches its own path by chance.)
        guard f.speed != nil, learntNoise68(courseTrusted: courseTrusted) > 0, let i = start(reachingPath: 3 * floor, before: f),
            f.timeMs - recent[i].timeMs >= 40_000
        else { return false }
        let from = recent[i]
        let de = (f.lon - from.lon) * from.k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, withCourse: courseTrusted)
        guard d >= 0.6 * p, d >= 2 * floor else { return false }
        // Each half of the way too (a wander that meets a steady lie's path at its end by chance
        // has not gone half of it by the middle).
        var m = i + 1
        while m < recent.count - 1 && 2 * (recent[m].timeMs - from.timeMs) < f.timeMs - from.timeMs { m += 1 }
        let mid = recent[m]
        let me = (mid.lon - from.lon) * from.k, mn = (mid.lat - from.lat) * 111_195.0
        let p1 = mid.path - from.path
        guard (me * me + mn * mn).squareRoot() >= 0.6 * p1, p1 >= 0.3 * p, p - p1 >= 0.3 * p else { return false }
        if pd > 0.5 * p {
            let pv = (pe * pe + pn * pn).squareRoot()
            let ee = de - pe, en = dn - pn
            guard pv >= 0.6 * pd, de * pe + dn * pn >= 0.707 * d * pv, (ee * ee + en * en).squareRoot() <= max(0.5 * pv, floor) else {
                return false
            }
        }
        return true
    }

    /// The positions have moved over the window before `f` as the doppler says something moves.
    func moved(
        _ f: Fix, u: @autoclosure () -> Double, windowMs w: Int64, intervalMs: Int64, scatter68: Double, courseTrusted: Bool
    ) -> Bool {
        guard let i = start(f, windowMs: w, intervalMs: intervalMs) else { return false }
        let from = recent[i]
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        let floor = floor(from, f, u: u(), scatter68: scatter68, courseTrusted: courseTrusted)
        guard d >= floor else {
            // (Without a doppler: four windows beyond twice the noise, and this one a steady share
            // of them, not the way into a stop.)
            if f.speed == nil {
                guard minutesWithoutSpeed else { return false }
                return longDisplacement(f, windowMs: w).map { $0.long >= 2 * floor && d >= 0.15 * $0.long } ?? false
            }
            return movedOverLongWindow(f, floor: floor, courseTrusted: courseTrusted)
        }
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, withCourse: courseTrusted)
        // Over less than half the window, the displacement must be most of the doppler's path.
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

    /// **A trip without a doppler opens on minutes of steady way** (issue 39, item 2): a wander
    /// correlated over 10-60 s is bounded (two positions of it are σ√2 apart per axis however far
    /// apart in time), a walker's way grows with the time. So before a trip, a fix without speed
    /// (from a receiver that sends none) has moved when, over the last 3 or 4 minutes, the
    /// positions went at least `minutesMps` (0.7 m/s: under a slow walk's pace along its bends)
    /// and `minutesNoises` (5) times the scatter they show (`noise`: rule 7's, over lags of up
    /// to 27 fixes), each quarter of that way a steady share of it (its projection on the whole
    /// at least 30 % of a quarter's: a wander goes out and comes back); or over 1 or 2 minutes
    /// `minutesShortM` (250 m, which no wander of σ 35 m makes: a faster mover without doppler)
    /// and those times the scatter. Evidence: a receiver standing 5-15 minutes under a wander of
    /// σ 5-35 m, claiming HDOP 1-3, opened a trip on every seed, 580 m of it on average
    /// (`SlowMoverTests`, seeds 101-124); now none. Walkers open minutes in; the way there waits
    /// and is kept (`TripStart`).
    func movedOverMinutes(_ f: Fix, noise: Double) -> Bool { wayOverMinutes(f, noise: noise) != nil }

    /// `movedOverMinutes`'s way: where the window that showed it began, and how far `f` is from
    /// there (m); nil when none shows.
    func wayOverMinutes(_ f: Fix, noise: Double) -> (lat: Double, lon: Double, d: Double)? {
        for windowMs in Self.minutesWindowsMs {
            guard let i = newest(atLeast: windowMs, before: f), f.timeMs - recent[i].timeMs <= windowMs + 10_000 else { continue }
            let from = recent[i]
            let k = from.k
            let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
            let d = (de * de + dn * dn).squareRoot()
            let span = f.timeMs - from.timeMs
            let least = windowMs >= 180_000 ? Self.minutesMps * Double(span) / 1000 : Self.minutesShortM
            guard d >= max(least, Self.minutesNoises * noise), d > 0 else { continue }
            // Each quarter a steady share of the way.
            var steady = true
            var (pe, pn) = (0.0, 0.0)
            for q in 1...4 {
                var e = de, n = dn
                if q < 4 {
                    guard let j = newest(atLeast: span * Int64(4 - q) / 4, before: f) else { steady = false; break }
                    e = (recent[j].lon - from.lon) * k
                    n = (recent[j].lat - from.lat) * 111_195.0
                }
                if ((e - pe) * de + (n - pn) * dn) / d < 0.3 * d / 4 { steady = false; break }
                (pe, pn) = (e, n)
            }
            if steady { return (from.lat, from.lon, d) }
        }
        return nil
    }

    /// **A receiver without doppler stands over minutes** (issue 39, item 1), the converse of
    /// `movedOverMinutes`: inside a trip, its wander (σ 7-35 m, correlated over 10-60 s) moves
    /// beyond any window of seconds, and was kept as way (a café stop of 35 minutes measured
    /// +373-431 % and never closed the trip). Over minutes it stays where it was: the positions
    /// 4, 2 and 0 minutes before `f` each within `minutesStandM` of the others (0.25 m/s over
    /// 4 minutes; a walker at 1 m/s goes 120 m in each half). Returns when that window began
    /// (the stand is counted from there, so a pause and the close come when they would), or nil.
    func standsOverMinutes(_ f: Fix) -> Int64? {
        guard let i = newest(atLeast: Self.minutesStandMs, before: f), f.timeMs - recent[i].timeMs <= Self.minutesStandMs + 10_000,
            let j = newest(atLeast: Self.minutesStandMs / 2, before: f)
        else { return nil }
        let a = recent[i], b = recent[j]
        @inline(__always) func apart(_ la: Double, _ lo: Double, _ lb: Double, _ lob: Double) -> Double {
            let de = (lo - lob) * a.k, dn = (la - lb) * 111_195.0
            return (de * de + dn * dn).squareRoot()
        }
        guard apart(a.lat, a.lon, f.lat, f.lon) < Self.minutesStandM, apart(b.lat, b.lon, f.lat, f.lon) < Self.minutesStandM,
            apart(a.lat, a.lon, b.lat, b.lon) < Self.minutesStandM
        else { return nil }
        return a.timeMs
    }

    /// `standsOverMinutes`'s window and how far apart its three positions may be.
    static let minutesStandMs: Int64 = 240_000
    static let minutesStandM = 60.0

    /// The windows `movedOverMinutes` looks back over, and its limits.
    static let minutesWindowsMs: [Int64] = [60_000, 120_000, 180_000, 240_000]
    static let minutesMps = 0.7
    static let minutesShortM = 250.0
    static let minutesNoises = 5.0

    /// The newest sample at least `ms` before `f`, or nil when none is so old.
    @inline(__always) private func newest(atLeast ms: Int64, before f: Fix) -> Int? {
        guard let first = recent.first, f.timeMs - first.timeMs >= ms else { return nil }
        var lo = 0, hi = recent.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if f.timeMs - recent[mid].timeMs >= ms { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Moving by the doppler (or without one) while the positions over a whole window stayed
    /// within their noise: the receiver stands.
    func stands(
        _ f: Fix, u: @autoclosure () -> Double, windowMs w: Int64, intervalMs: Int64, scatter68: Double, courseTrusted: Bool
    ) -> Bool {
        guard let i = start(f, windowMs: w, intervalMs: intervalMs) else { return false }
        let from = recent[i]
        guard f.timeMs - from.timeMs >= w - intervalMs else { return false }
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        guard f.speed != nil else {
            let floor = floor(from, f, u: u(), scatter68: scatter68, courseTrusted: courseTrusted)
            guard d < floor else { return false }
            // (A slow mover without doppler that kept going over four windows moves.)
            if minutesWithoutSpeed, let l = longDisplacement(f, windowMs: w), l.long >= 2 * floor, d >= 0.15 * l.long { return false }
            return true
        }
        let floor = max(10, 1.5 * (from.u + u()))
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, withCourse: courseTrusted)
        // A course that points nowhere over 20 s (its vector under half its path) while the
        // positions stay put: a slow lie (0.5-1.5 m/s) that never adds up to the noise.
        if d < floor, pd >= 0.5 * p, p >= 10, (pe * pe + pn * pn).squareRoot() < 0.5 * pd { return true }
        guard p > d + floor else { return false }
        // (Where the positions are noisier than claimed, minutes of them may still show the way
        // the doppler says: then it moves.)
        let learnt = learntNoise68(courseTrusted: courseTrusted)
        if learnt > 0.5 * floor, f.speed.map({ $0 < 1.5 }) ?? false,
            movedOverLongWindow(
                f, floor: self.floor(from, f, u: u(), scatter68: scatter68, courseTrusted: courseTrusted), courseTrusted: courseTrusted)
        {
            return false
        }
        if pd < 0.5 * p { return true }
        let ee = de - pe, en = dn - pn
        return (ee * ee + en * en).squareRoot() > floor
    }

    /// Learns the disagreement from every full window before `f` whose speeds are known, and
    /// with it whether the course is right (`CourseTrust`) and the speeds' scale (`SpeedScale`).
    mutating func learn(
        _ f: Fix, u: Double, windowMs w: Int64, intervalMs: Int64, maxSpeedMps: Double,
        course: inout CourseTrust, scale: inout SpeedScale
    ) {
        guard f.speed != nil, let i = start(f, windowMs: w, intervalMs: intervalMs) else { return }
        let from = recent[i]
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, withCourse: true)
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        // (Any window tells whether the course is right: a short ride must open too.)
        let learnt = scalarWindowsLearnt >= 5 ? scalarDisagreement2.map { $0.squareRoot() } : nil
        if course.learn(f, u: u, in: self, learntNoise: learnt) {
            // What was learnt against the wrong course is no noise.
            vectorDisagreement2 = nil
            vectorWindowsLearnt = 0
        }
        guard f.timeMs - from.timeMs >= w - intervalMs else { return }
        // (A jump no ride makes is a stale position or a reset, not noise.)
        let d = (de * de + dn * dn).squareRoot()
        guard d <= maxSpeedMps * Double(f.timeMs - from.timeMs) / 1000 else { return }
        scale.learn(d: d, de: de, dn: dn, p: p, pd: pd, pe: pe, pn: pn, floor: max(20, 3 * (from.u + u)))
        let s2 = min((d - p) * (d - p), scalarDisagreement2.map { max(9 * $0, 225) } ?? 900)
        scalarDisagreement2 = scalarDisagreement2.map { $0 + (s2 - $0) / 20 } ?? s2
        scalarWindowsLearnt += 1
        let slow = intervalMs <= 2000 && p < PositionScatter.slowMps * Double(f.timeMs - from.timeMs) / 1000 && steadilySlow(from: i, f)
        guard course.trusted, p - pd <= 5 else {
            if slow { learnSlow(s2, claim2: (from.u * from.u + u * u) / 2) }
            return
        }
        let ee = de - pe, en = dn - pn
        // A cold start's stale position or a spike at either end is no noise (other rules judge
        // those): each window counts for at most three times the noise so far (at least 15 m),
        // and the first for at most 30 m.
        let cap = vectorDisagreement2.map { max(9 * $0, 225) } ?? 900
        let e2 = min(ee * ee + en * en, cap)
        vectorDisagreement2 = vectorDisagreement2.map { $0 + (e2 - $0) / 20 } ?? e2
        vectorWindowsLearnt += 1
        if slow { learnSlow(ee * ee + en * en, claim2: (from.u * from.u + u * u) / 2) }
    }

    /// Every speed over the window from sample `i` to `f` is a slow mover's (under
    /// `PositionScatter.slowMps`): a car braking to a light passes through slow windows with its
    /// doppler's latency (a Pixel 4 showed 3 m against its 1.3 m claim there).
    private func steadilySlow(from i: Int, _ f: Fix) -> Bool {
        guard let v = f.speed, v < PositionScatter.slowMps else { return false }
        for j in i..<recent.count where recent[j].v >= PositionScatter.slowMps { return false }
        return true
    }

    /// One slow window's disagreement (m²), capped as the others are, and its claim (m²).
    private mutating func learnSlow(_ e2: Double, claim2: Double) {
        let x = min(e2, slowDisagreement2.map { max(9 * $0, 225) } ?? 900)
        slowDisagreement2 = slowDisagreement2.map { $0 + (x - $0) / 20 } ?? x
        slowClaim2 = slowClaim2.map { $0 + (claim2 - $0) / 20 } ?? claim2
        slowWindowsLearnt += 1
    }
}

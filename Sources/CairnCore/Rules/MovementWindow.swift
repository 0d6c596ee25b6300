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

    /// About one fix a second of the recent past.
    private(set) var recent = RingBuffer<Sample>(capacity: 48)
    /// How far, over a window, the positions' displacement and the doppler's path vector
    /// disagree on this receiver (a running mean square, m²), and over how many windows.
    private var vectorDisagreement2: Double?
    private var vectorWindowsLearnt = 0
    /// The same for the displacement's length against the path's.
    private(set) var scalarDisagreement2: Double?
    private(set) var scalarWindowsLearnt = 0

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
        guard d >= floor else { return false }
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
        guard f.speed != nil else { return d < floor(from, f, u: u(), scatter68: scatter68, courseTrusted: courseTrusted) }
        let floor = max(10, 1.5 * (from.u + u()))
        let (p, pd, pe, pn) = dopplerPath(from: i, to: f, withCourse: courseTrusted)
        // A course that points nowhere over 20 s (its vector under half its path) while the
        // positions stay put: a slow lie (0.5-1.5 m/s) that never adds up to the noise.
        if d < floor, pd >= 0.5 * p, p >= 10, (pe * pe + pn * pn).squareRoot() < 0.5 * pd { return true }
        guard p > d + floor else { return false }
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
        guard course.trusted, p - pd <= 5 else { return }
        let ee = de - pe, en = dn - pn
        // A cold start's stale position or a spike at either end is no noise (other rules judge
        // those): each window counts for at most three times the noise so far (at least 15 m),
        // and the first for at most 30 m.
        let cap = vectorDisagreement2.map { max(9 * $0, 225) } ?? 900
        let e2 = min(ee * ee + en * en, cap)
        vectorDisagreement2 = vectorDisagreement2.map { $0 + (e2 - $0) / 20 } ?? e2
        vectorWindowsLearnt += 1
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Export-side gap filling (`convert --fill-gaps`): across a step of more than `minGapMs`
/// inside a segment while moving (a tunnel, a dropout the rules bridged), one made-up point a
/// second on a cubic Hermite curve that leaves the first point along its measured course and
/// reaches the second along its own, so a filled bend follows the bend, not its chord.
///
/// - The tangents are the end velocities times the gap's duration, each capped at a circular
///   arc's between the two courses and at `tangentS` of riding (longer, the curve bulges: the
///   speed was not held in that direction across the gap). The points are spaced along the curve as the speed went
///   evenly from one end's to the other's, so their times and speeds are the ride's, whatever
///   the curve's own parametrisation.
/// - Only inside a segment: a segment start is passed on, and nothing is drawn across it.
/// - Only while moving: when both ends measured a speed, both must be at least `movingMps`
///   (a step from a standing point is a stop, which the rules keep as one point, not a dropout).
/// - A straight chord at constant speed instead, when the curve would be absurd: an end without
///   a speed, or a moving end without a course (no tangent to follow), an end heading back
///   against the chord (the rider turned about in the gap), or a curve more than
///   `maxCurveRatio` times the chord's length and `maxExcessM` longer than it (the tangents
///   overshoot). An end without a speed is filled only when the chord itself moves at
///   `movingMps`.
///
/// Bounded: a step longer than `maxGapMs` is not filled (a tunnel or an urban canyon is
/// minutes; a receiver silent for longer lost the ride, and a curve across it would invent the
/// route), and a trip gets at most `maxPointsPerTrip` made-up points (a gap that would pass it
/// is left as it is). What was left out is counted (`tooLong`, `overBudget`) for the caller to say.
///
/// The made-up points carry the ends' lower fix mode, the larger of the ends' error figures, a
/// height linear in time between two heights, the curve's speed and course, and no barometer
/// values (nothing is invented that a reader could take for a measurement). They are
/// `PointOrigin.interpolated`.
public struct GapFiller {
    public static let minGapMs: Int64 = 10_000
    public static let movingMps = 0.5
    public static let maxCurveRatio = 1.6
    public static let maxExcessM = 20.0
    /// The most riding time a tangent stands for (s).
    public static let tangentS = 30.0
    /// The longest step filled: 10 minutes.
    public static let maxGapMs: Int64 = 600_000
    /// The most points made up in one trip: an hour of riding through dropouts.
    public static let maxPointsPerTrip = 3600

    /// What was filled so far: gaps, those filled by a straight chord, and points made up.
    public private(set) var gaps = 0
    public private(set) var chords = 0
    public private(set) var points = 0
    /// Gaps left unfilled: longer than `maxGapMs`, or past the trip's `maxPointsPerTrip`.
    public private(set) var tooLong = 0
    public private(set) var overBudget = 0

    private var last: Fix?

    /// What a caller says about the gaps left unfilled.
    public static func unfilledNote(tooLong: Int, overBudget: Int) -> String {
        func gaps(_ n: Int) -> String { "\(n) gap\(n == 1 ? "" : "s")" }
        var parts: [String] = []
        if tooLong > 0 { parts.append("\(gaps(tooLong)) longer than \(maxGapMs / 60_000) min (not a dropout: the ride was lost there)") }
        if overBudget > 0 { parts.append("\(gaps(overBudget)) past the \(maxPointsPerTrip) interpolated points a trip may get") }
        return "left unfilled: " + parts.joined(separator: "; ")
    }

    public init() {}

    /// Passes an item on, after the points made up before it. `silenceMs`, for a point: the
    /// longest time since the point before during which the receiver gave no usable fix (from the
    /// log's raw fixes: a step the rules only thinned is no dropout); nil when not known (the
    /// step between the two points is taken).
    public mutating func push(_ item: TrackItem, silenceMs: Int64? = nil, emit: (TrackItem) -> Void) {
        switch item {
        case .segment:
            last = nil
        case .point(let fix, _):
            if let a = last, fix.timeMs - a.timeMs > Self.minGapMs, (silenceMs ?? .max) > Self.minGapMs {
                // Checked before any point is made: the step's length, and the trip's budget
                // (one point a second, strictly between the ends).
                let span = fix.timeMs - a.timeMs
                if span > Self.maxGapMs {
                    tooLong += 1
                } else if Int((span - 1) / 1000) > Self.maxPointsPerTrip - points {
                    overBudget += 1
                } else {
                    fill(a, fix, emit: emit)
                }
            }
            last = fix
        }
        emit(item)
    }

    /// The end velocity a tangent follows (east, north, m/s), zero for a standing end; nil when
    /// the end has no speed, or moves without a course.
    static func velocity(_ f: Fix) -> (Double, Double)? {
        guard let s = f.speed, s.isFinite, s >= 0 else { return nil }
        if s < movingMps { return (0, 0) }
        guard let c = f.track, c.isFinite else { return nil }
        return LocalPlane.velocity(speed: s, courseDeg: c)
    }

    /// The made-up points between `a` and `b`, a second apart (what `push` emits).
    public static func curve(_ a: Fix, _ b: Fix) -> (points: [Fix], chord: Bool)? {
        var out: [Fix] = []
        var chord = false
        guard fill(a, b, chord: &chord, { out.append($0) }) else { return nil }
        return (out, chord)
    }

    private mutating func fill(_ a: Fix, _ b: Fix, emit: (TrackItem) -> Void) {
        var chord = false
        var n = 0
        guard
            Self.fill(
                a, b, chord: &chord,
                {
                    n += 1; emit(.point($0, .interpolated))
                })
        else { return }
        gaps += 1
        points += n
        if chord { chords += 1 }
    }

    @discardableResult
    private static func fill(_ a: Fix, _ b: Fix, chord: inout Bool, _ put: (Fix) -> Void) -> Bool {
        let plane = LocalPlane(lat: a.lat, lon: a.lon)
        let end = plane.local(lat: b.lat, lon: b.lon)
        let gapS = Double(b.timeMs - a.timeMs) / 1000
        guard gapS > Double(minGapMs) / 1000, end.east.isFinite, end.north.isFinite else { return false }
        let chordM = (end.east * end.east + end.north * end.north).squareRoot()
        let va = velocity(a), vb = velocity(b)
        if let sa = a.speed, let sb = b.speed, sa.isFinite, sb.isFinite {
            guard sa >= movingMps && sb >= movingMps else { return false }
        } else {
            guard chordM / gapS >= movingMps else { return false }
        }
        // Hermite basis at u in [0, 1] for position, and its derivative (per u).
        func hermite(_ u: Double, _ m0: (Double, Double), _ m1: (Double, Double)) -> (e: Double, n: Double, de: Double, dn: Double) {
            let u2 = u * u, u3 = u2 * u
            let h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2
            let d10 = 3 * u2 - 4 * u + 1, d01 = -6 * u2 + 6 * u, d11 = 3 * u2 - 2 * u
            return (
                h10 * m0.0 + h01 * end.east + h11 * m1.0, h10 * m0.1 + h01 * end.north + h11 * m1.1,
                d10 * m0.0 + d01 * end.east + d11 * m1.0, d10 * m0.1 + d01 * end.north + d11 * m1.1
            )
        }
        let steps = Int((b.timeMs - a.timeMs - 1) / 1000)  // made-up points: one a second, strictly between
        var m0 = (end.east, end.north), m1 = m0  // straight: the chord
        // The curve's length, from samples along it (also the table that spaces the points).
        let samples = min(max(steps * 8, 64), 8192)
        var cumulative = [Double](repeating: 0, count: samples + 1)
        func measure() -> Double {
            var pe = 0.0, pn = 0.0
            for k in 1...samples {
                let h = hermite(Double(k) / Double(samples), m0, m1)
                cumulative[k] = cumulative[k - 1] + ((h.e - pe) * (h.e - pe) + (h.n - pn) * (h.n - pn)).squareRoot()
                pe = h.e; pn = h.n
            }
            return cumulative[samples]
        }
        chord = true
        var speeds = (1.0, 1.0)
        var length = chordM
        // An end heading back against the chord: the rider turned about in the gap.
        let backwards = [va, vb].contains { v in v.map { $0.0 * end.east + $0.1 * end.north < 0 } ?? false }
        if let va, let vb, !backwards {
            // A tangent says how far the curve holds the end's course. Longer than a circular
            // arc's between the two courses (the chord times 2·tan(θ/4)/sin(θ/2) for a turn θ),
            // or than `tangentS` of riding, it would bulge the curve out: the speed was not held
            // in that direction, and across a long gap the end's course says little about the middle.
            var turn = abs(atan2(va.0 * vb.1 - va.1 * vb.0, va.0 * vb.0 + va.1 * vb.1))
            turn = min(turn, 179 * .pi / 180)
            let arc = turn < 1e-6 ? 1 : 2 * tan(turn / 4) / sin(turn / 2)
            func tangent(_ v: (Double, Double)) -> (Double, Double) {
                let s = (v.0 * v.0 + v.1 * v.1).squareRoot()
                let m = s * gapS
                let cap = min(chordM * arc, s * tangentS)
                let k = m > cap && m > 0 ? cap / m : 1
                return (v.0 * gapS * k, v.1 * gapS * k)
            }
            m0 = tangent(va)
            m1 = tangent(vb)
            length = measure()
            chord = length > maxCurveRatio * chordM && length > chordM + maxExcessM
            if chord {
                m0 = (end.east, end.north)
                m1 = m0
            } else {
                speeds = ((va.0 * va.0 + va.1 * va.1).squareRoot(), (vb.0 * vb.0 + vb.1 * vb.1).squareRoot())
            }
        }
        if chord { length = measure() }
        guard steps >= 1 else { return true }
        // Points along the curve as the speed went from one end's to the other's (evenly in
        // time), whatever the curve's own parametrisation.
        let mean = (speeds.0 + speeds.1) / 2
        var sample = 0
        for k in 1...steps {
            let t = Double(k)
            let share = mean > 0 ? (speeds.0 * t + (speeds.1 - speeds.0) * t * t / (2 * gapS)) / (mean * gapS) : t / gapS
            let target = min(max(share, 0), 1) * length
            while sample < samples && cumulative[sample + 1] < target { sample += 1 }
            let span = sample < samples ? cumulative[sample + 1] - cumulative[sample] : 0
            let u = (Double(sample) + (span > 0 ? (target - cumulative[sample]) / span : 0)) / Double(samples)
            let h = hermite(min(u, 1), m0, m1)
            let g = plane.global(east: h.e, north: h.n)
            let speed = mean > 0 ? length / gapS * (speeds.0 + (speeds.1 - speeds.0) * t / gapS) / mean : length / gapS
            var f = Fix(timeMs: a.timeMs + Int64(k) * 1000, lat: g.lat, lon: g.lon, mode: min(a.mode, b.mode))
            let w = t / gapS
            if let ha = a.altMSL, let hb = b.altMSL { f.altMSL = ha + (hb - ha) * w }
            if let ha = a.altHAE, let hb = b.altHAE { f.altHAE = ha + (hb - ha) * w }
            f.eph = larger(a.eph, b.eph)
            f.epx = larger(a.epx, b.epx)
            f.epy = larger(a.epy, b.epy)
            f.epv = larger(a.epv, b.epv)
            f.speed = speed
            if speed >= movingMps, h.de != 0 || h.dn != 0 { f.track = LocalPlane.course(east: h.de, north: h.dn) }
            put(f)
        }
        return true
    }

    private static func larger(_ a: Double?, _ b: Double?) -> Double? {
        guard let a, let b else { return nil }
        return max(a, b)
    }
}

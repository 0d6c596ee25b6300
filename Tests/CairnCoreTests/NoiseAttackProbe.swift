import XCTest
@testable import CairnCore

/// Round 11's attack on the issue 28 rules: generated receivers, honest and lying, fed to the
/// rules directly. Shared by the attack tests (figures) and the regression tests.
struct NoiseAttackProbe {
    enum Course { case truth, zero, none, opposite }

    /// A deterministic normal generator (LCG + Box-Muller).
    struct Gauss {
        var s: UInt64
        init(_ seed: UInt64) { s = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        mutating func uniform() -> Double {
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(s >> 11) + 0.5) / Double(1 << 53)
        }
        mutating func next() -> Double {
            let u1 = uniform(), u2 = uniform()
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
    }

    struct Result {
        var kept: [Fix] = []
        var drops = DropCounts()
        var segments: [SegmentReason] = []
        var closes = 0
        var stats = TripStats()
        var closedM = 0.0
        /// Over every trip, closed or open.
        var distanceM: Double { closedM + stats.distanceM }
        var firstKeptS: Double?
        var lastKeptS: Double?
        var summary: String {
            let f = firstKeptS.map { String(format: "%.1f", $0) } ?? "-"
            let l = lastKeptS.map { String(format: "%.1f", $0) } ?? "-"
            return String(format: "%.1f m, %d kept, first %@ s, last %@ s, segs %d, closes %d", distanceM, kept.count, f, l, segments.count, closes)
                + " \(drops.nonzero)"
        }
    }

    static let t0: Int64 = 1_780_000_000_000

    /// Runs `fixes` through fresh rules, the recorder's clock the newest fix time; segments and
    /// closes go into the stats as the recorder would (a close starts a new trip: only the
    /// distance is summed across).
    static func run(_ fixes: [Fix], profile: ActivityProfile = .ride) -> Result {
        var rules = FixRules(profile: profile)
        var r = Result()
        var newest = Int64.min
        let sink: (RuleOutput) -> Void = { o in
            switch o {
            case .keep(let f):
                r.kept.append(f)
                r.stats.add(f)
                let s = Double(f.timeMs - t0) / 1000
                if r.firstKeptS == nil { r.firstKeptS = s }
                r.lastKeptS = s
            case .drop(let d, _): r.drops.add(d)
            case .segment(let s):
                r.segments.append(s)
                r.stats.startSegment(s)
            case .closeTrip:
                r.closes += 1
                r.closedM += r.stats.distanceM
                r.stats = TripStats()
            }
        }
        for f in fixes {
            newest = max(newest, f.timeMs)
            rules.offer(f, nowMs: newest, emit: sink)
        }
        rules.flush(emit: sink)
        return r
    }

    /// A ride sampled at `hz`: speed `v(t)` m/s and heading `h(t)` degrees, positions with AR(1)
    /// noise of `sigma` m per axis (correlation time `tau` s), reported error `eph` (DOP-style).
    /// Returns the fixes and the true distance.
    static func ride(
        seconds: Double, hz: Double = 1, v: (Double) -> Double, h: (Double) -> Double = { _ in 0 },
        sigma: Double = 2, tau: Double = 20, eph: Double? = 10, course: Course = .truth, speedScale: Double = 1,
        speedNoise: Double = 0.05, seed: UInt64 = 1, startS: Double = 0, mode: Int = 3, hasSpeed: Bool = true,
        e0: Double = 0, n0: Double = 0
    ) -> (fixes: [Fix], truthM: Double) {
        var g = Gauss(seed)
        let dt = 1 / hz
        let a = exp(-dt / tau)
        let b = (1 - a * a).squareRoot()
        var ne = sigma * g.next(), nn = sigma * g.next()
        var e = e0, n = n0, dist = 0.0
        var out: [Fix] = []
        var t = 0.0
        while t <= seconds + 1e-9 {
            let vt = v(t), ht = h(t)
            let track: Double?
            switch course {
            case .truth: track = (ht.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
            case .zero: track = 0
            case .none: track = nil
            case .opposite: track = ((ht + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
            }
            let sp = max(0, (vt + speedNoise * g.next()) * speedScale)
            var f = fix(
                startS + t, north: n + nn, east: e + ne, mode: mode, eph: eph, epv: mode == 3 ? 15 : nil, alt: mode == 3 ? 100 : nil,
                speed: hasSpeed ? sp : nil)
            f.track = hasSpeed ? track : nil
            out.append(f)
            // Advance.
            let step = vt * dt
            e += step * sin(ht * .pi / 180)
            n += step * cos(ht * .pi / 180)
            dist += step
            ne = a * ne + b * sigma * g.next()
            nn = a * nn + b * sigma * g.next()
            t += dt
        }
        return (out, dist - v(t - dt) * dt)
    }
}

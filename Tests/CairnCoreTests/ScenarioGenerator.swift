import Foundation
@testable import CairnCore

/// Ground-truth rides with the error model below, for judging the fix rules.
///
/// A ride is built from legs (straight, bend, stop, tunnel); the truth is sampled once a second
/// in local east/north metres. The receiver's output is the truth plus:
/// - drift: a Gauss-Markov wander per axis (σ and correlation time by sky view) plus white noise;
/// - out-and-back spikes: single fixes 40-160 m to the side, with the true doppler speed;
/// - a standstill cloud: the drift keeps wandering; doppler speeds are small with odd blips;
/// - 2-D stretches without height; tunnels (no fixes); a cold start at a stale position
///   kilometres away that converges; heights noisier than positions.
/// gpsd-style error figures: eph = HDOP × 19 m, epv = VDOP × 23 m.
struct ScenarioGenerator {
    struct Sky {
        var driftSigma: Double  // m, per axis
        var driftTau: Double  // s
        var whiteSigma: Double  // m, per axis
        var hdop: Double
        static let open = Sky(driftSigma: 2.5, driftTau: 60, whiteSigma: 0.4, hdop: 0.9)
        static let buildings = Sky(driftSigma: 6, driftTau: 60, whiteSigma: 1.0, hdop: 2.0)
        static let canyon = Sky(driftSigma: 12, driftTau: 90, whiteSigma: 1.5, hdop: 2.4)
        /// A receiver that smooths little: most of its error is fresh every second.
        static let jittery = Sky(driftSigma: 1, driftTau: 30, whiteSigma: 1.8, hdop: 0.9)
        /// Among buildings for a long stop: drift σ 5-8 m, correlated over ~30 s.
        static let cafe = Sky(driftSigma: 6.5, driftTau: 30, whiteSigma: 1.0, hdop: 2.2)
        /// Poor sky reported by DOPs only: HDOP 4.3-6.6 while the real error is ~17 m.
        static let poor = Sky(driftSigma: 9, driftTau: 40, whiteSigma: 2.0, hdop: 5.4)
    }

    enum Leg {
        case straight(metres: Double, speed: Double)
        case bend(radius: Double, degrees: Double, speed: Double)
        case stop(seconds: Int)
        /// No fixes for this long while riding on (a tunnel, a dropout).
        case tunnel(metres: Double, speed: Double)
        /// 2-D fixes without height while riding on.
        case flat2D(metres: Double, speed: Double)
        /// Climb or descend `metres` of height over the next leg's length (applied per second).
        case grade(percent: Double)
    }

    struct TruthPoint {
        var t: Int
        var east: Double
        var north: Double
        var up: Double
        var speed: Double
        var heading: Double
        var visible: Bool
        var twoD: Bool
        var moving: Bool { speed > 0.05 }
    }

    struct Scenario {
        var name: String
        var truth: [TruthPoint]
        var reports: [(t: Int, fix: Fix)]
        /// Distance the truth travelled (the path length of its 1 Hz samples).
        var trueDistance: Double
        var trueMovingSeconds: Int
    }

    static let lat0 = 47.3769, lon0 = 8.5417
    static let t0Ms: Int64 = 1_748_764_800_000  // 2025-06-01T08:00:00Z

    static func latLon(east: Double, north: Double) -> (Double, Double) {
        (lat0 + north / 111_195.0, lon0 + east / (111_195.0 * cos(lat0 * .pi / 180)))
    }

    var rng: SplitMix

    init(seed: UInt64) { rng = SplitMix(seed: seed) }

    /// Samples the truth of a ride made of `legs`, one point a second.
    mutating func truth(_ legs: [Leg], startHeading: Double = 30) -> [TruthPoint] {
        var pts: [TruthPoint] = []
        var e = 0.0, n = 0.0, up = 420.0, heading = startHeading, t = 0
        var grade = 0.0
        func add(speed: Double, visible: Bool = true, twoD: Bool = false) {
            pts.append(TruthPoint(t: t, east: e, north: n, up: up, speed: speed, heading: heading, visible: visible, twoD: twoD))
            t += 1
        }
        add(speed: 0)
        pts[0].speed = 0.001  // the start point itself
        for leg in legs {
            switch leg {
            case .grade(let p): grade = p / 100
            case .straight(let m, let v), .tunnel(let m, let v), .flat2D(let m, let v):
                var isTunnel = false, is2D = false
                if case .tunnel = leg { isTunnel = true }
                if case .flat2D = leg { is2D = true }
                let steps = max(1, Int((m / v).rounded()))
                let step = m / Double(steps)
                for _ in 0..<steps {
                    e += step * sin(heading * .pi / 180)
                    n += step * cos(heading * .pi / 180)
                    up += step * grade
                    add(speed: v, visible: !isTunnel, twoD: is2D)
                }
            case .bend(let r, let deg, let v):
                let arc = r * abs(deg) * .pi / 180
                let steps = max(1, Int((arc / v).rounded()))
                let dh = deg / Double(steps)
                let step = arc / Double(steps)
                for _ in 0..<steps {
                    // Chord of the arc for one step: head through the middle of the turn.
                    heading += dh / 2
                    let chord = 2 * r * sin(abs(dh) * .pi / 360)
                    e += chord * sin(heading * .pi / 180)
                    n += chord * cos(heading * .pi / 180)
                    up += step * grade
                    heading += dh / 2
                    add(speed: v)
                }
            case .stop(let s):
                for _ in 0..<s { add(speed: 0) }
            }
        }
        return pts
    }

    struct Errors {
        var sky: Sky = .open
        /// Probability per second of an out-and-back spike.
        var spikeRate = 0.0
        /// Seconds of cold start at a stale position `staleKm` away, then this many seconds converging.
        var coldStartSeconds = 0
        var convergeSeconds = 8
        var staleKm = 3.0
        /// The eph the receiver claims while stale (gpsd: HDOP × 19).
        var staleEph = 150.0
        /// Doppler blips per standing second.
        var blipRate = 0.03
        /// Height noise σ (m) and VDOP.
        var heightSigma = 4.0
        var vdop = 1.3
        /// Doppler blips at a standstill: this range (m/s).
        var blipSpeeds: ClosedRange<Double> = 0.5...1.7
        /// After an outage of 30 s or more, the receiver comes back this far off (m), converging
        /// with this time constant (s) while already claiming its usual error figure.
        var reacquireOffsetM = 0.0
        var reacquireTauS = 10.0
        /// One fix every this many seconds (a sparse logger).
        var everySeconds = 1
        /// 2-D stretches of a poor receiver: this much extra white error (m, per axis), no speed,
        /// no course, no height, and gpsd's eph for an HDOP of 3-4.7 (a 95 % radius of 55-90 m).
        var poor2DSigma: Double?
        /// The receiver sends its own one-sigma estimates (NMEA GBS: epx/epy/epv), not just DOPs.
        var ownEstimates = false
        /// Standing, the doppler lies: a speed in this range (m/s) that changes slowly, with a
        /// course that wanders, while the positions only drift.
        var lyingDoppler: ClosedRange<Double>?
        /// A GGA-only receiver: gpsd derives speed and course from successive positions.
        var derivedSpeed = false
        /// Extra white noise on heights (m), on top of the wander (`heightSigma`).
        var heightWhite = 0.0
        /// The heights' wander correlation time (s): 2 minutes for a receiver's own, longer for a
        /// receiver that filters its heights (a slow Gauss-Markov of `heightSigma`).
        var heightTauS = 120.0
    }

    /// The receiver's view of `truth` under `errors`.
    mutating func observe(_ truth: [TruthPoint], _ x: Errors) -> [(t: Int, fix: Fix)] {
        var out: [(Int, Fix)] = []
        var de = 0.0, dn = 0.0, du = 0.0
        let a = exp(-1 / x.sky.driftTau)
        let q = x.sky.driftSigma * (1 - a * a).squareRoot()
        let ah = exp(-1.0 / x.heightTauS)
        de = rng.gauss() * x.sky.driftSigma
        dn = rng.gauss() * x.sky.driftSigma
        var hidden = 0
        var re = 0.0, rn = 0.0
        var lie = 0.0, lieCourse = x.lyingDoppler == nil ? 0 : rng.uniform() * 360
        var prevDerived: (t: Int, e: Double, n: Double)?
        for p in truth {
            de = a * de + q * rng.gauss()
            dn = a * dn + q * rng.gauss()
            du = ah * du + x.heightSigma * (1 - ah * ah).squareRoot() * rng.gauss()
            guard p.visible else { hidden += 1; continue }
            if hidden >= 30 && x.reacquireOffsetM > 0 {
                let dir = rng.uniform() * 2 * .pi
                re = x.reacquireOffsetM * cos(dir)
                rn = x.reacquireOffsetM * sin(dir)
            }
            hidden = 0
            re *= exp(-1 / x.reacquireTauS)
            rn *= exp(-1 / x.reacquireTauS)
            guard p.t % x.everySeconds == 0 else { continue }
            var e = p.east + de + re + x.sky.whiteSigma * rng.gauss()
            var n = p.north + dn + rn + x.sky.whiteSigma * rng.gauss()
            let hdop = x.sky.hdop * (0.9 + 0.2 * rng.uniform())
            var eph = hdop * 19
            var speed: Double
            if p.moving {
                speed = max(0, p.speed + 0.08 * rng.gauss())
            } else {
                speed = abs(0.04 * rng.gauss())
                if rng.uniform() < x.blipRate {
                    speed = x.blipSpeeds.lowerBound + rng.uniform() * (x.blipSpeeds.upperBound - x.blipSpeeds.lowerBound)
                }
                if let r = x.lyingDoppler {
                    // A slowly changing lie, with a course that wanders by tens of degrees a fix.
                    lie = min(r.upperBound, max(r.lowerBound, lie + 0.4 * rng.gauss()))
                    if lie < r.lowerBound + 0.01 { lie = r.lowerBound + rng.uniform() * (r.upperBound - r.lowerBound) }
                    lieCourse = (lieCourse + 40 * rng.gauss() + 360).truncatingRemainder(dividingBy: 360)
                    speed = lie
                }
            }
            if p.t < x.coldStartSeconds + x.convergeSeconds, x.coldStartSeconds > 0 {
                // Stale position first, then sliding towards the truth.
                let k = p.t < x.coldStartSeconds ? 1.0 : pow(0.25, Double(p.t - x.coldStartSeconds + 1))
                e += k * x.staleKm * 1000 * 0.6
                n += k * x.staleKm * 1000 * 0.8
                eph = max(eph, k * x.staleEph)
            } else if p.moving && rng.uniform() < x.spikeRate {
                let side = (rng.uniform() < 0.5 ? -1.0 : 1.0) * (40 + 120 * rng.uniform())
                e += side * cos(p.heading * .pi / 180)
                n -= side * sin(p.heading * .pi / 180)
            }
            let twoD = p.twoD
            // (Drawn in the order of the earlier generator: the same seed gives the same ride.)
            var epvOut: Double? = twoD ? nil : x.vdop * 23 * (0.9 + 0.2 * rng.uniform())
            var track: Double? = p.moving ? (p.heading + 2 * rng.gauss()).truncatingRemainder(dividingBy: 360) : nil
            if !p.moving, x.lyingDoppler != nil { track = lieCourse }
            var speedOut: Double? = speed
            if twoD, let sigma = x.poor2DSigma {
                e += sigma * rng.gauss()
                n += sigma * rng.gauss()
                eph = (3 + 1.7 * rng.uniform()) * 19
                speedOut = nil
                track = nil
            }
            if x.derivedSpeed {
                // gpsd's speed from the previous position (none for the first).
                if let q = prevDerived, p.t > q.t {
                    let dt = Double(p.t - q.t)
                    speedOut = ((e - q.e) * (e - q.e) + (n - q.n) * (n - q.n)).squareRoot() / dt
                    track = (atan2(e - q.e, n - q.n) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
                } else {
                    speedOut = nil
                    track = nil
                }
                prevDerived = (p.t, e, n)
            }
            let (lat, lon) = Self.latLon(east: e, north: n)
            let msl = p.up + du + (x.heightWhite > 0 ? x.heightWhite * rng.gauss() : 0)
            var epx: Double?, epy: Double?
            if x.ownEstimates {
                // GBS: the receiver's one-sigma figure per axis (about right: its drift and jitter).
                let sd = (x.sky.driftSigma * x.sky.driftSigma + x.sky.whiteSigma * x.sky.whiteSigma).squareRoot()
                epx = sd * (0.8 + 0.4 * rng.uniform())
                epy = sd * (0.8 + 0.4 * rng.uniform())
                if !twoD { epvOut = 1.5 * sd }
            }
            let f = Fix(
                timeMs: Self.t0Ms + Int64(p.t) * 1000, lat: lat, lon: lon, mode: twoD ? 2 : 3,
                altHAE: twoD ? nil : msl + 47, altMSL: twoD ? nil : msl,
                eph: eph, epx: epx, epy: epy, epv: epvOut,
                speed: speedOut, track: track,
                climb: nil)
            out.append((p.t, f))
        }
        return out
    }

    mutating func scenario(_ name: String, _ legs: [Leg], _ errors: Errors, startHeading: Double = 30) -> Scenario {
        let tr = truth(legs, startHeading: startHeading)
        var d = 0.0
        for (p, q) in zip(tr, tr.dropFirst()) {
            d += ((q.east - p.east) * (q.east - p.east) + (q.north - p.north) * (q.north - p.north)).squareRoot()
        }
        return Scenario(
            name: name, truth: tr, reports: observe(tr, errors), trueDistance: d,
            trueMovingSeconds: zip(tr, tr.dropFirst()).filter { $1.moving }.count)
    }
}

/// A small deterministic generator (SplitMix64) so every run sees the same rides.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gauss() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

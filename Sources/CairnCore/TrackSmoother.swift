#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Export-side smoothing of a trip's points (`convert --smooth`): a Kalman filter with a
/// Rauch–Tung–Striebel backward pass, run over each segment in a local tangent plane, streamed
/// with a fixed lag so that memory does not grow with the trip.
///
/// Model, per axis (east and north are filtered apart; see `velocityVariance`): the state is the
/// true position, the velocity (constant between points, disturbed by white acceleration) and
/// the receiver's slow drift (a first-order Gauss–Markov wander). A point measures position plus
/// drift plus white noise, with its own uncertainty (`Accuracy.horizontal68`, split between
/// drift and white by `Tuning.driftShare`); its doppler speed and course measure the velocity.
/// The drift term is what lets the smoother do better than averaging neighbours: a receiver's
/// error is mostly slow wander that neighbouring points share, and only the doppler, integrated
/// over the lag, tells the wander from the road. Course is trusted only while moving; a
/// standing point measures a zero velocity.
///
/// Streaming: points are filtered as they come and held until `Tuning.lagMs` of later points
/// (or `Tuning.maxPoints` points) are in; then the backward pass runs over what is held and the
/// points older than the lag are written. Each point's estimate therefore sees the whole past of
/// its segment and `lagMs` of its future. A segment start flushes everything: nothing is
/// smoothed across a track break. The tangent plane moves to the oldest held point at every
/// flush, so a long segment never strays far from its origin.
public struct TrackSmoother {
    public struct Tuning: Sendable, Equatable {
        /// White acceleration's spectral density (m²/s³): how freely speed and course change
        /// between points.
        public var accelerationNoise: Double
        /// The receiver's drift: its correlation time (s) and its share of a point's variance.
        public var driftTauS: Double
        public var driftShare: Double
        /// Doppler speed noise (m/s, one sigma) and course noise (degrees, one sigma, at speed).
        public var speedSigma: Double
        public var courseSigmaDeg: Double
        /// Below this speed (m/s) the course is not used; below `standingMps` the point measures
        /// a zero velocity.
        public var courseMinMps: Double
        public var standingMps: Double
        /// The horizontal 68 % radius taken for a point that carries none (m).
        public var unknownAccuracyM: Double
        /// A position more than this many sigmas off the prediction (both axes) is not used,
        /// up to `maxRejects` in a row (then the filter takes it and starts over from there).
        public var gateSigmas: Double
        public var maxRejects: Int
        /// How much of the future a point's estimate waits for, and the most points held.
        public var lagMs: Int64
        public var maxPoints: Int

        public init(accelerationNoise: Double, driftTauS: Double, driftShare: Double, speedSigma: Double,
                    courseSigmaDeg: Double, courseMinMps: Double, standingMps: Double, unknownAccuracyM: Double,
                    gateSigmas: Double, maxRejects: Int, lagMs: Int64, maxPoints: Int) {
            self.accelerationNoise = accelerationNoise
            self.driftTauS = driftTauS
            self.driftShare = driftShare
            self.speedSigma = speedSigma
            self.courseSigmaDeg = courseSigmaDeg
            self.courseMinMps = courseMinMps
            self.standingMps = standingMps
            self.unknownAccuracyM = unknownAccuracyM
            self.gateSigmas = gateSigmas
            self.maxRejects = maxRejects
            self.lagMs = lagMs
            self.maxPoints = maxPoints
        }

        /// Tuned on generated rides (Tests/bench/smooth-report.sh); the other activities differ
        /// in how hard they accelerate.
        public static let ride = Tuning(accelerationNoise: 0.5, driftTauS: 60, driftShare: 0.9, speedSigma: 0.3,
                                        courseSigmaDeg: 4, courseMinMps: 1.5, standingMps: 0.3, unknownAccuracyM: 10,
                                        gateSigmas: 5, maxRejects: 3, lagMs: 240_000, maxPoints: 2048)

        public static func forActivity(_ name: String?) -> Tuning {
            var t = Tuning.ride
            switch name {
            case "walk": t.accelerationNoise = 0.1; t.courseMinMps = 0.8
            case "run": t.accelerationNoise = 0.3; t.courseMinMps = 1.2
            case "drive": t.accelerationNoise = 2.0; t.courseMinMps = 2.0
            default: break
            }
            return t
        }
    }

    public let tuning: Tuning

    /// One axis's state: position, velocity, drift.
    struct Vec3 {
        var p = 0.0, v = 0.0, b = 0.0
    }

    /// A 3×3 matrix, row-major.
    struct Mat3 {
        var a00 = 0.0, a01 = 0.0, a02 = 0.0
        var a10 = 0.0, a11 = 0.0, a12 = 0.0
        var a20 = 0.0, a21 = 0.0, a22 = 0.0
    }

    struct Axis {
        var x = Vec3()
        var P = Mat3()
    }

    struct Entry {
        var fix: Fix
        /// Seconds since the previous held point of the segment, and the drift's decay over them.
        var dt: Double
        var phi: Double
        /// Filtered (after this point's measurements) and predicted (before them), per axis.
        var east: Axis
        var north: Axis
        var eastPredicted: Axis
        var northPredicted: Axis
    }

    private var held: [Entry] = []
    private var plane: LocalPlane?
    private var rejects = 0

    public init(tuning: Tuning = .ride) {
        self.tuning = tuning
        held.reserveCapacity(min(tuning.maxPoints, 1024))
    }

    /// Passes a segment start on after the points before it, and filters a point (writing the
    /// points whose lag has passed).
    public mutating func push(_ item: TrackItem, emit: (TrackItem) -> Void) {
        switch item {
        case .segment:
            flush(all: true, emit: emit)
            emit(item)
        case .point(let fix, let origin):
            guard origin == .measured, fix.lat.isFinite, fix.lon.isFinite, abs(fix.lat) <= 90 else {
                // Not the receiver's (or not a position): passed on as it is, the segment's
                // filter restarting after it.
                flush(all: true, emit: emit)
                emit(item)
                return
            }
            add(fix)
            if let first = held.first, let last = held.last,
               held.count >= tuning.maxPoints || last.fix.timeMs - first.fix.timeMs >= 2 * tuning.lagMs {
                flush(all: false, emit: emit)
            }
        }
    }

    /// Writes every point still held (the end of the trip).
    public mutating func finish(emit: (TrackItem) -> Void) {
        flush(all: true, emit: emit)
    }

    // MARK: - Filter

    /// The point's per-axis position sigma (m): its 68 % radius over √2.
    private func positionSigma(_ fix: Fix) -> Double {
        (Accuracy.horizontal68(fix) ?? tuning.unknownAccuracyM) / 2.0.squareRoot()
    }

    /// The velocity the point's doppler says, with each axis's variance, or nil when it says
    /// nothing usable (no speed; a moving speed without a course). The speed/course error
    /// ellipse is taken by its axis-aligned variances (its tilt dropped), which keeps east and
    /// north apart and each filter three-dimensional.
    private func velocityMeasurement(_ fix: Fix) -> (east: Double, north: Double, varE: Double, varN: Double)? {
        guard let s = fix.speed, s.isFinite, s >= 0 else { return nil }
        if s < tuning.standingMps {
            let v = max(tuning.speedSigma, tuning.standingMps)
            return (0, 0, v * v, v * v)
        }
        guard s >= tuning.courseMinMps, let c = fix.track, c.isFinite else { return nil }
        let (ve, vn) = LocalPlane.velocity(speed: s, courseDeg: c)
        let sinC = ve / s, cosC = vn / s
        let along = tuning.speedSigma * tuning.speedSigma
        let across = (s * tuning.courseSigmaDeg * .pi / 180) * (s * tuning.courseSigmaDeg * .pi / 180)
        return (ve, vn, along * sinC * sinC + across * cosC * cosC, along * cosC * cosC + across * sinC * sinC)
    }

    private mutating func add(_ fix: Fix) {
        if plane == nil { plane = LocalPlane(lat: fix.lat, lon: fix.lon) }
        let z = plane!.local(lat: fix.lat, lon: fix.lon)
        let sigma = positionSigma(fix)
        let driftVar = tuning.driftShare * sigma * sigma
        let whiteVar = max((1 - tuning.driftShare) * sigma * sigma, 0.01)
        let vel = velocityMeasurement(fix)

        var e: Axis, n: Axis, dt = 0.0, phi = 0.0
        if let prev = held.last {
            dt = max(Double(fix.timeMs - prev.fix.timeMs) / 1000, 0.001)
            phi = exp(-dt / tuning.driftTauS)
            e = predict(prev.east, dt: dt, phi: phi, driftVar: driftVar)
            n = predict(prev.north, dt: dt, phi: phi, driftVar: driftVar)
        } else {
            // A segment's first point: nothing known but what it measures.
            e = Axis(x: Vec3(p: z.east), P: Mat3(a00: 1e8, a11: 100, a22: driftVar))
            n = Axis(x: Vec3(p: z.north), P: Mat3(a00: 1e8, a11: 100, a22: driftVar))
        }
        let predictedE = e, predictedN = n
        // Position: gated against the prediction over both axes.
        let ye = z.east - (e.x.p + e.x.b), yn = z.north - (n.x.p + n.x.b)
        let se = e.P.a00 + 2 * e.P.a02 + e.P.a22 + whiteVar
        let sn = n.P.a00 + 2 * n.P.a02 + n.P.a22 + whiteVar
        let d2 = ye * ye / se + yn * yn / sn
        if d2 > tuning.gateSigmas * tuning.gateSigmas && rejects < tuning.maxRejects {
            rejects += 1
        } else {
            if d2 > tuning.gateSigmas * tuning.gateSigmas {
                // The filter lost the track (or the receiver moved on): start the position over.
                Self.restartPosition(&e, at: z.east, driftVar: driftVar)
                Self.restartPosition(&n, at: z.north, driftVar: driftVar)
            }
            rejects = 0
            Self.updatePosition(&e, z.east, whiteVar)
            Self.updatePosition(&n, z.north, whiteVar)
        }
        if let v = vel {
            Self.updateVelocity(&e, v.east, v.varE)
            Self.updateVelocity(&n, v.north, v.varN)
        }
        held.append(Entry(fix: fix, dt: dt, phi: phi, east: e, north: n, eastPredicted: predictedE, northPredicted: predictedN))
    }

    private func predict(_ a: Axis, dt: Double, phi: Double, driftVar: Double) -> Axis {
        let x = Vec3(p: a.x.p + dt * a.x.v, v: a.x.v, b: phi * a.x.b)
        let F = Mat3(a00: 1, a01: dt, a11: 1, a22: phi)
        var P = Self.mul(Self.mul(F, a.P), Self.transpose(F))
        let q = tuning.accelerationNoise
        P.a00 += q * dt * dt * dt / 3
        P.a01 += q * dt * dt / 2
        P.a10 += q * dt * dt / 2
        P.a11 += q * dt
        P.a22 += driftVar * (1 - phi * phi)
        return Axis(x: x, P: P)
    }

    private static func restartPosition(_ a: inout Axis, at z: Double, driftVar: Double) {
        a.x.p = z
        a.x.b = 0
        a.P.a00 = 1e8; a.P.a01 = 0; a.P.a02 = 0; a.P.a10 = 0; a.P.a20 = 0
        a.P.a22 = driftVar; a.P.a12 = 0; a.P.a21 = 0
    }

    /// A measurement of position + drift.
    private static func updatePosition(_ a: inout Axis, _ z: Double, _ r: Double) {
        let P = a.P
        let h0 = P.a00 + P.a20, h1 = P.a01 + P.a21, h2 = P.a02 + P.a22  // H·P (a row)
        let s = h0 + h2 + r
        guard s > 0 else { return }
        let k0 = (P.a00 + P.a02) / s, k1 = (P.a10 + P.a12) / s, k2 = (P.a20 + P.a22) / s
        let y = z - (a.x.p + a.x.b)
        a.x.p += k0 * y; a.x.v += k1 * y; a.x.b += k2 * y
        a.P = symmetric(Mat3(a00: P.a00 - k0 * h0, a01: P.a01 - k0 * h1, a02: P.a02 - k0 * h2,
                             a10: P.a10 - k1 * h0, a11: P.a11 - k1 * h1, a12: P.a12 - k1 * h2,
                             a20: P.a20 - k2 * h0, a21: P.a21 - k2 * h1, a22: P.a22 - k2 * h2))
    }

    /// A measurement of velocity.
    private static func updateVelocity(_ a: inout Axis, _ z: Double, _ r: Double) {
        let P = a.P
        let s = P.a11 + r
        guard s > 0 else { return }
        let k0 = P.a01 / s, k1 = P.a11 / s, k2 = P.a21 / s
        let y = z - a.x.v
        a.x.p += k0 * y; a.x.v += k1 * y; a.x.b += k2 * y
        let h0 = P.a10, h1 = P.a11, h2 = P.a12
        a.P = symmetric(Mat3(a00: P.a00 - k0 * h0, a01: P.a01 - k0 * h1, a02: P.a02 - k0 * h2,
                             a10: P.a10 - k1 * h0, a11: P.a11 - k1 * h1, a12: P.a12 - k1 * h2,
                             a20: P.a20 - k2 * h0, a21: P.a21 - k2 * h1, a22: P.a22 - k2 * h2))
    }

    // MARK: - Backward pass

    /// Runs the backward pass over the held points and writes those older than the lag (all of
    /// them with `all`).
    private mutating func flush(all: Bool, emit: (TrackItem) -> Void) {
        guard !held.isEmpty else {
            if all { reset() }
            return
        }
        let count = held.count
        var keep = 0
        if !all {
            let newest = held[count - 1].fix.timeMs
            keep = held.reduce(0) { $0 + (newest - $1.fix.timeMs < tuning.lagMs ? 1 : 0) }
            // Bounded memory wins over lag: at most half the held points stay (at least one,
            // which the next point's filter continues from).
            keep = max(1, min(keep, count / 2))
            if keep >= count { return }
        }
        let write = count - keep
        var e = held[count - 1].east.x, n = held[count - 1].north.x
        var smoothed = [(Double, Double)](repeating: (0, 0), count: write)
        if write == count { smoothed[count - 1] = (e.p, n.p) }
        var k = count - 2
        while k >= 0 {
            let next = held[k + 1]
            e = Self.smooth(held[k].east, next.eastPredicted, e, dt: next.dt, phi: next.phi)
            n = Self.smooth(held[k].north, next.northPredicted, n, dt: next.dt, phi: next.phi)
            if k < write { smoothed[k] = (e.p, n.p) }
            k -= 1
        }
        let p = plane!
        for i in 0..<write {
            var f = held[i].fix
            let g = p.global(east: smoothed[i].0, north: smoothed[i].1)
            f.lat = min(max(g.lat, -90), 90)
            f.lon = g.lon
            emit(.point(f, .smoothed))
        }
        if all {
            reset()
            return
        }
        held.removeFirst(write)
        // The plane moves to the oldest held point: its states are carried over.
        let q = LocalPlane(lat: held[0].fix.lat, lon: held[0].fix.lon)
        for i in 0..<held.count { Self.move(&held[i], from: p, to: q) }
        plane = q
    }

    private mutating func reset() {
        held.removeAll(keepingCapacity: true)
        plane = nil
        rejects = 0
    }

    /// One RTS step: the smoothed state at a point from its filtered state, the next point's
    /// prediction, and the next point's smoothed state.
    private static func smooth(_ filtered: Axis, _ predicted: Axis, _ nextSmoothed: Vec3, dt: Double, phi: Double) -> Vec3 {
        guard let inv = inverse(predicted.P) else { return filtered.x }
        let F = Mat3(a00: 1, a01: dt, a11: 1, a22: phi)
        let C = mul(mul(filtered.P, transpose(F)), inv)
        let d = Vec3(p: nextSmoothed.p - predicted.x.p, v: nextSmoothed.v - predicted.x.v, b: nextSmoothed.b - predicted.x.b)
        return Vec3(p: filtered.x.p + C.a00 * d.p + C.a01 * d.v + C.a02 * d.b,
                    v: filtered.x.v + C.a10 * d.p + C.a11 * d.v + C.a12 * d.b,
                    b: filtered.x.b + C.a20 * d.p + C.a21 * d.v + C.a22 * d.b)
    }

    private static func move(_ entry: inout Entry, from p: LocalPlane, to q: LocalPlane) {
        func shift(_ e: inout Axis, _ n: inout Axis) {
            let g = p.global(east: e.x.p, north: n.x.p)
            let l = q.local(lat: g.lat, lon: g.lon)
            e.x.p = l.east
            n.x.p = l.north
        }
        shift(&entry.east, &entry.north)
        shift(&entry.eastPredicted, &entry.northPredicted)
    }

    // MARK: - 3×3 algebra

    static func mul(_ a: Mat3, _ b: Mat3) -> Mat3 {
        Mat3(a00: a.a00 * b.a00 + a.a01 * b.a10 + a.a02 * b.a20,
             a01: a.a00 * b.a01 + a.a01 * b.a11 + a.a02 * b.a21,
             a02: a.a00 * b.a02 + a.a01 * b.a12 + a.a02 * b.a22,
             a10: a.a10 * b.a00 + a.a11 * b.a10 + a.a12 * b.a20,
             a11: a.a10 * b.a01 + a.a11 * b.a11 + a.a12 * b.a21,
             a12: a.a10 * b.a02 + a.a11 * b.a12 + a.a12 * b.a22,
             a20: a.a20 * b.a00 + a.a21 * b.a10 + a.a22 * b.a20,
             a21: a.a20 * b.a01 + a.a21 * b.a11 + a.a22 * b.a21,
             a22: a.a20 * b.a02 + a.a21 * b.a12 + a.a22 * b.a22)
    }

    static func transpose(_ a: Mat3) -> Mat3 {
        Mat3(a00: a.a00, a01: a.a10, a02: a.a20, a10: a.a01, a11: a.a11, a12: a.a21, a20: a.a02, a21: a.a12, a22: a.a22)
    }

    static func symmetric(_ a: Mat3) -> Mat3 {
        let m01 = (a.a01 + a.a10) / 2, m02 = (a.a02 + a.a20) / 2, m12 = (a.a12 + a.a21) / 2
        return Mat3(a00: a.a00, a01: m01, a02: m02, a10: m01, a11: a.a11, a12: m12, a20: m02, a21: m12, a22: a.a22)
    }

    static func inverse(_ a: Mat3) -> Mat3? {
        let c00 = a.a11 * a.a22 - a.a12 * a.a21
        let c01 = a.a12 * a.a20 - a.a10 * a.a22
        let c02 = a.a10 * a.a21 - a.a11 * a.a20
        let det = a.a00 * c00 + a.a01 * c01 + a.a02 * c02
        guard det.isFinite, abs(det) > 1e-300 else { return nil }
        let r = 1 / det
        return Mat3(a00: c00 * r, a01: (a.a02 * a.a21 - a.a01 * a.a22) * r, a02: (a.a01 * a.a12 - a.a02 * a.a11) * r,
                    a10: c01 * r, a11: (a.a00 * a.a22 - a.a02 * a.a20) * r, a12: (a.a02 * a.a10 - a.a00 * a.a12) * r,
                    a20: c02 * r, a21: (a.a01 * a.a20 - a.a00 * a.a21) * r, a22: (a.a00 * a.a11 - a.a01 * a.a10) * r)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Export-side smoothing of a trip's points (`convert --smooth`): a Kalman filter with a
/// Rauch–Tung–Striebel backward pass, run over each segment in a local tangent plane, streamed
/// with a fixed lag so that memory does not grow with the trip.
///
/// Model, per axis (east and north are filtered apart; see `velocityMeasurement`): the state is
/// the true position and the receiver's slow drift (a first-order Gauss–Markov wander). Between
/// two points the position moves by the mean of their doppler velocities (speed and course) over
/// the time between them — constant velocity from each point's own measurement, not a guessed
/// dynamics — with the doppler's noise and, where the velocity changed between the points, a
/// share of that change (the path between them was not straight) as process noise. A point
/// measures position plus drift plus white noise, with its own uncertainty
/// (`Accuracy.horizontal68`, split between drift and white by `Tuning.driftShare`). The drift
/// term is what lets the smoother do better than averaging neighbours: a receiver's error is
/// mostly slow wander that neighbouring points share, and only the doppler, integrated over the
/// lag, tells the wander from the road. Course is trusted only while moving; a standing point
/// measures a zero velocity; a point without a usable doppler leaves its step free (by
/// `Tuning.unknownVelocityMps`), so a track without doppler is barely changed.
///
/// Aids (`aid`): the fixes the rules left out only to thin the track (`DropReason.onlyThins`,
/// from the log's raw fixes through `SmoothingInput`) are measured like points and not written.
/// Where the rules keep one fix in several, their dopplers are what carries the filter through
/// the bends between the points, and their positions average the white noise.
///
/// Streaming: points are filtered as they come and held until `Tuning.lagMs` of later points
/// (or `Tuning.maxPoints` points) are in; then the backward pass runs over what is held and the
/// points older than the lag are written. Each point's estimate therefore sees the whole past of
/// its segment and `lagMs` of its future. A segment start flushes everything: nothing is
/// smoothed across a track break. The tangent plane moves to the oldest held point at every
/// flush, so a long segment never strays far from its origin.
public struct TrackSmoother {
    public struct Tuning: Sendable, Equatable {
        /// The receiver's drift: its correlation time (s) and its share of a point's variance.
        public var driftTauS: Double
        public var driftShare: Double
        /// Doppler speed noise (m/s, one sigma) and course noise (degrees, one sigma, at speed).
        public var speedSigma: Double
        public var courseSigmaDeg: Double
        /// How far the path between two points may stray from an even arc, as uncertainty of the
        /// mean velocity between them: this share of the speed times the turn (radians), and
        /// `speedChangeShare` of the change of speed (when it changed is not known: a stop at a
        /// light and the start after it are one step).
        public var turnShare: Double
        public var speedChangeShare: Double
        /// How long a start or a stop takes (s): a step from a standing point moves only this long,
        /// its mean speed uncertain by `rampSpeedShare` of the moving end's. When the rider set off
        /// (or stopped) within the ramp is not known: a moment anywhere in it alike makes the
        /// distance uniform, whose sigma is 1/√12 of its range.
        public var rampS = 5.0
        public var rampSpeedShare = (1.0 / 12).squareRoot()
        /// A silence longer than `silenceS` (or three of the receiver's intervals) between two
        /// moving points: how the path went in it is not known (a stop whose fixes were all
        /// dropped, a turn in a tunnel), so the step's move is uncertain by `silenceSpeedShare` of
        /// the faster end's speed for every second beyond.
        public var silenceS = 10.0
        public var silenceSpeedShare = 0.5
        /// The activity's fastest plausible speed (m/s, `ActivityProfile.maxSpeedMps`): an aid's
        /// doppler above it is not used (its position still is). A thinned fix's speed is not
        /// judged by the rules, and an absurd one (a crafted log's 900 m/s) made the step to it
        /// so uncertain that a position kilometres off passed the gate after it.
        public var maxAidSpeedMps = ActivityProfile.ride.maxSpeedMps
        /// The velocity uncertainty (m/s) over a step one of whose ends has no usable doppler.
        public var unknownVelocityMps: Double
        /// Below this speed (m/s) the course is not used; below `standingMps` the point measures
        /// a zero velocity.
        public var courseMinMps: Double
        public var standingMps: Double
        /// The horizontal 68 % radius taken for a point that carries none (m), and the factor a
        /// point's own radius is taken at.
        public var unknownAccuracyM: Double
        public var accuracyScale: Double
        /// A position more than this many sigmas off the prediction (both axes) is not used,
        /// up to `maxRejects` in a row (then the filter takes it and starts over from there, if
        /// it is a point: an aid off the gate is not used at all, nor held).
        public var gateSigmas: Double
        public var maxRejects: Int
        /// How much of the future a point's estimate waits for, and the most points held.
        public var lagMs: Int64
        public var maxPoints: Int

        public init(
            driftTauS: Double, driftShare: Double, speedSigma: Double, courseSigmaDeg: Double,
            turnShare: Double, speedChangeShare: Double, unknownVelocityMps: Double, courseMinMps: Double, standingMps: Double,
            unknownAccuracyM: Double, accuracyScale: Double, gateSigmas: Double, maxRejects: Int, lagMs: Int64, maxPoints: Int
        ) {
            self.driftTauS = driftTauS
            self.driftShare = driftShare
            self.speedSigma = speedSigma
            self.courseSigmaDeg = courseSigmaDeg
            self.turnShare = turnShare
            self.speedChangeShare = speedChangeShare
            self.unknownVelocityMps = unknownVelocityMps
            self.courseMinMps = courseMinMps
            self.standingMps = standingMps
            self.unknownAccuracyM = unknownAccuracyM
            self.accuracyScale = accuracyScale
            self.gateSigmas = gateSigmas
            self.maxRejects = maxRejects
            self.lagMs = lagMs
            self.maxPoints = maxPoints
        }

        /// Tuned on generated rides (Tests/bench/smooth-report.sh); the other activities differ
        /// in how fast they go when the doppler says nothing, and from what speed the course holds.
        /// Receivers understate their error where the sky is poor (multipath): a point's own
        /// radius is taken at 1.5 times its value.
        public static let ride = Tuning(
            driftTauS: 60, driftShare: 0.9, speedSigma: 0.1, courseSigmaDeg: 2,
            turnShare: 0.1, speedChangeShare: 0.5, unknownVelocityMps: 8, courseMinMps: 1.5, standingMps: 0.3,
            unknownAccuracyM: 10, accuracyScale: 1.5, gateSigmas: 5, maxRejects: 3, lagMs: 240_000, maxPoints: 2048)

        public static func forActivity(_ name: String?) -> Tuning {
            var t = Tuning.ride
            t.maxAidSpeedMps = (Activity(name: name)?.profile ?? .ride).maxSpeedMps
            switch Activity(name: name) {
            case .walk: t.unknownVelocityMps = 2; t.courseMinMps = 0.8
            case .run: t.unknownVelocityMps = 4; t.courseMinMps = 1.2
            case .drive: t.unknownVelocityMps = 30; t.courseMinMps = 2
            case .ride, nil: break
            }
            return t
        }
    }

    public let tuning: Tuning

    /// One axis's state (position, drift) and its covariance.
    struct Axis {
        var p = 0.0, b = 0.0
        var pp = 0.0, pb = 0.0, bb = 0.0
    }

    struct Velocity {
        var east: Double, north: Double
        var varEast: Double, varNorth: Double
        /// The doppler's speed and course (nil: standing).
        var speed: Double
        var course: Double?
    }

    struct Entry {
        var fix: Fix
        /// A point of the track (written), or a fix the rules only thinned out (`aid`: it informs
        /// the estimate and is not written).
        var isPoint: Bool
        var velocity: Velocity?
        /// The drift's decay since the previous held point of the segment.
        var phi: Double
        /// Filtered (after this point's measurement) and predicted (before it), per axis.
        var east: Axis
        var north: Axis
        var eastPredicted: Axis
        var northPredicted: Axis
    }

    private var held: [Entry] = []
    private var plane: LocalPlane?
    private var rejects = 0
    /// The shortest step of the segment so far: the receiver's interval, as the log shows it.
    private var cadenceS = 0.0

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
            add(fix, isPoint: true)
            flushIfFull(emit: emit)
        }
    }

    private mutating func flushIfFull(emit: (TrackItem) -> Void) {
        if let first = held.first, let last = held.last,
            held.count >= tuning.maxPoints || last.fix.timeMs - first.fix.timeMs >= 2 * tuning.lagMs
        {
            flush(all: false, emit: emit)
        }
    }

    /// A fix the rules measured and left out only to thin the track (`DropReason.onlyThins`): its
    /// position and doppler inform the points around it, and it is not written.
    /// Ignored before a segment's first point and when not after the newest fix held.
    public mutating func aid(_ fix: Fix, emit: (TrackItem) -> Void) {
        guard let last = held.last, fix.timeMs > last.fix.timeMs, fix.lat.isFinite, fix.lon.isFinite, abs(fix.lat) <= 90 else { return }
        add(fix, isPoint: false)
        flushIfFull(emit: emit)
    }

    /// Writes every point still held (the end of the trip).
    public mutating func finish(emit: (TrackItem) -> Void) {
        flush(all: true, emit: emit)
    }

    // MARK: - Filter

    /// The point's per-axis position sigma (m): its 68 % radius over √2.
    private func positionSigma(_ fix: Fix) -> Double {
        (Accuracy.horizontal68(fix).map { $0 * tuning.accuracyScale } ?? tuning.unknownAccuracyM) / 2.0.squareRoot()
    }

    /// The velocity the point's doppler says, with each axis's variance, or nil when it says
    /// nothing usable (no speed; a moving speed without a course). The speed/course error
    /// ellipse is taken by its axis-aligned variances (its tilt dropped), which keeps east and
    /// north apart.
    private func velocityMeasurement(_ fix: Fix, isPoint: Bool) -> Velocity? {
        guard let s = fix.speed, s.isFinite, s >= 0, isPoint || s <= tuning.maxAidSpeedMps else { return nil }
        if s < tuning.standingMps {
            let v = max(tuning.speedSigma, tuning.standingMps)
            return Velocity(east: 0, north: 0, varEast: v * v, varNorth: v * v, speed: 0, course: nil)
        }
        guard s >= tuning.courseMinMps, let c = fix.track, c.isFinite else { return nil }
        let (ve, vn) = LocalPlane.velocity(speed: s, courseDeg: c)
        let sinC = ve / s, cosC = vn / s
        let along = tuning.speedSigma * tuning.speedSigma
        let across = (s * tuning.courseSigmaDeg * .pi / 180) * (s * tuning.courseSigmaDeg * .pi / 180)
        return Velocity(
            east: ve, north: vn, varEast: along * sinC * sinC + across * cosC * cosC,
            varNorth: along * cosC * cosC + across * sinC * sinC, speed: s, course: c)
    }

    /// The mean velocity over the step between two points and its variance, per axis. Between two
    /// moving points the path is taken for an arc (the course turning evenly, the speed changing
    /// evenly): its chord is shorter than the mean speed by sinc(half the turn), where the mean
    /// of the two velocity vectors would be shorter by its cosine and cut every corner.
    private func stepVelocity(_ a: Velocity?, _ b: Velocity?, stepS: Double) -> (e: Double, n: Double, varE: Double, varN: Double) {
        let u = tuning.unknownVelocityMps * tuning.unknownVelocityMps
        let ramp = max(tuning.rampS, cadenceS)
        switch (a, b) {
        case (let a?, let b?) where (a.speed < tuning.standingMps) != (b.speed < tuning.standingMps) && stepS > 3 * ramp:
            // A long step from or to a standing point: the rider stood for most of it (the rules
            // keep the first fix of a stop and the first ones moving off), moving only within
            // `rampS` (or one of the receiver's intervals) of the moving end, at about half its speed.
            let m = a.speed < tuning.standingMps ? b : a
            let moving = min(stepS, ramp)
            let k = moving / 2 / stepS
            let sd = tuning.rampSpeedShare * m.speed * moving / stepS
            return (m.east * k, m.north * k, (m.varEast + m.varNorth) / 4 * k * k + sd * sd, (m.varEast + m.varNorth) / 4 * k * k + sd * sd)
        case (let a?, let b?):
            var me = (a.east + b.east) / 2, mn = (a.north + b.north) / 2
            let ds = tuning.speedChangeShare * (b.speed - a.speed)
            var model = ds * ds
            if let ca = a.course, let cb = b.course {
                var turn = cb - ca
                if turn > 180 { turn -= 360 } else if turn < -180 { turn += 360 }
                let half = turn / 2 * .pi / 180
                let chord = abs(half) < 1e-6 ? 1 : sin(half) / half
                let mean = (a.speed + b.speed) / 2
                (me, mn) = LocalPlane.velocity(speed: mean * chord, courseDeg: ca + turn / 2)
                let t = tuning.turnShare * mean * 2 * half
                model += t * t
            }
            return (me, mn, (a.varEast + b.varEast) / 4 + model, (a.varNorth + b.varNorth) / 4 + model)
        case (let a?, nil): return (a.east, a.north, a.varEast + u, a.varNorth + u)
        case (nil, let b?): return (b.east, b.north, b.varEast + u, b.varNorth + u)
        case (nil, nil): return (0, 0, u, u)
        }
    }

    /// The uncertainty (m, per axis) a long silence adds to a step's move: none within
    /// `Tuning.silenceS` (or three intervals), then `silenceSpeedShare` of the faster end's speed
    /// (the activity's unknown speed for an end without one) for every second beyond.
    private func silenceSigma(_ a: Velocity?, _ b: Velocity?, stepS: Double) -> Double {
        let beyond = stepS - max(tuning.silenceS, 3 * cadenceS)
        // From or to a standing point the step is a stop (`stepVelocity`'s ramp), not a silence.
        guard beyond > 0, (a?.speed ?? .infinity) >= tuning.standingMps, (b?.speed ?? .infinity) >= tuning.standingMps else { return 0 }
        let speed = max(a?.speed ?? tuning.unknownVelocityMps, b?.speed ?? tuning.unknownVelocityMps)
        return tuning.silenceSpeedShare * speed * beyond
    }

    private mutating func add(_ fix: Fix, isPoint: Bool) {
        if plane == nil { plane = LocalPlane(lat: fix.lat, lon: fix.lon) }
        let z = plane!.local(lat: fix.lat, lon: fix.lon)
        let sigma = positionSigma(fix)
        let driftVar = tuning.driftShare * sigma * sigma
        let whiteVar = max((1 - tuning.driftShare) * sigma * sigma, 0.01)
        let vel = velocityMeasurement(fix, isPoint: isPoint)

        var e: Axis, n: Axis, phi = 0.0
        let cadenceBefore = cadenceS
        if let prev = held.last {
            let dt = max(Double(fix.timeMs - prev.fix.timeMs) / 1000, 0.001)
            // Judged by the interval the steps before showed: a segment's first step does not
            // tell the receiver's interval from a silence (one point, then minutes of nothing).
            let unknown = silenceSigma(prev.velocity, vel, stepS: dt)
            cadenceS = cadenceS == 0 ? dt : min(cadenceS, dt)
            phi = exp(-dt / tuning.driftTauS)
            let u = stepVelocity(prev.velocity, vel, stepS: dt)
            e = Self.predict(prev.east, move: u.e * dt, moveVar: u.varE * dt * dt + unknown * unknown, phi: phi, driftVar: driftVar)
            n = Self.predict(prev.north, move: u.n * dt, moveVar: u.varN * dt * dt + unknown * unknown, phi: phi, driftVar: driftVar)
        } else {
            // A segment's first point: nothing known but what it measures.
            e = Axis(p: z.east, b: 0, pp: 1e8, pb: 0, bb: driftVar)
            n = Axis(p: z.north, b: 0, pp: 1e8, pb: 0, bb: driftVar)
        }
        let predictedE = e, predictedN = n
        // Gated against the prediction over both axes.
        let ye = z.east - (e.p + e.b), yn = z.north - (n.p + n.b)
        let se = e.pp + 2 * e.pb + e.bb + whiteVar
        let sn = n.pp + 2 * n.pb + n.bb + whiteVar
        let d2 = ye * ye / se + yn * yn / sn
        let gate = tuning.gateSigmas * tuning.gateSigmas
        if d2 > gate && !isPoint {
            // An aid off the gate is not used at all (it counts towards the rejects in a row): the
            // filter starts over only from a point, which is written, never from a fix the rules
            // thinned out, and a rejected aid's doppler does not steer the points after it.
            rejects += 1
            cadenceS = cadenceBefore
            return
        }
        if d2 > gate && rejects < tuning.maxRejects {
            rejects += 1
        } else {
            if d2 > gate {
                // The filter lost the track (or the receiver moved on): start the position over.
                e = Axis(p: z.east, b: 0, pp: 1e8, pb: 0, bb: driftVar)
                n = Axis(p: z.north, b: 0, pp: 1e8, pb: 0, bb: driftVar)
            }
            rejects = 0
            Self.update(&e, z.east, whiteVar)
            Self.update(&n, z.north, whiteVar)
        }
        held.append(
            Entry(fix: fix, isPoint: isPoint, velocity: vel, phi: phi, east: e, north: n, eastPredicted: predictedE, northPredicted: predictedN))
    }

    private static func predict(_ a: Axis, move: Double, moveVar: Double, phi: Double, driftVar: Double) -> Axis {
        Axis(
            p: a.p + move, b: phi * a.b,
            pp: a.pp + moveVar, pb: phi * a.pb, bb: phi * phi * a.bb + driftVar * (1 - phi * phi))
    }

    /// A measurement of position + drift with white variance `r`.
    private static func update(_ a: inout Axis, _ z: Double, _ r: Double) {
        let hp = a.pp + a.pb, hb = a.pb + a.bb  // P·Hᵀ
        let s = hp + hb + r
        guard s > 0 else { return }
        let kp = hp / s, kb = hb / s
        let y = z - (a.p + a.b)
        a.p += kp * y
        a.b += kb * y
        a = Axis(p: a.p, b: a.b, pp: a.pp - kp * hp, pb: a.pb - kp * hb, bb: a.bb - kb * hb)
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
        var e = (held[count - 1].east.p, held[count - 1].east.b)
        var n = (held[count - 1].north.p, held[count - 1].north.b)
        var smoothed = [(Double, Double)](repeating: (0, 0), count: write)
        if write == count { smoothed[count - 1] = (e.0, n.0) }
        var k = count - 2
        while k >= 0 {
            let next = held[k + 1]
            e = Self.smooth(held[k].east, next.eastPredicted, e, phi: next.phi)
            n = Self.smooth(held[k].north, next.northPredicted, n, phi: next.phi)
            if k < write { smoothed[k] = (e.0, n.0) }
            k -= 1
        }
        let p = plane!
        for i in 0..<write where held[i].isPoint {
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
        cadenceS = 0
    }

    /// One RTS step: the smoothed (position, drift) at a point from its filtered state, the next
    /// point's prediction and the next point's smoothed state. The transition is diag(1, φ)
    /// (the step's move is a known input), so C = P·Fᵀ·Pp⁻¹.
    private static func smooth(_ f: Axis, _ pr: Axis, _ next: (Double, Double), phi: Double) -> (Double, Double) {
        let det = pr.pp * pr.bb - pr.pb * pr.pb
        guard det.isFinite, det > 1e-300 else { return (f.p, f.b) }
        let i00 = pr.bb / det, i01 = -pr.pb / det, i11 = pr.pp / det
        // P·Fᵀ
        let m00 = f.pp, m01 = f.pb * phi, m10 = f.pb, m11 = f.bb * phi
        let c00 = m00 * i00 + m01 * i01, c01 = m00 * i01 + m01 * i11
        let c10 = m10 * i00 + m11 * i01, c11 = m10 * i01 + m11 * i11
        let dp = next.0 - pr.p, db = next.1 - pr.b
        return (f.p + c00 * dp + c01 * db, f.b + c10 * dp + c11 * db)
    }

    private static func move(_ entry: inout Entry, from p: LocalPlane, to q: LocalPlane) {
        func shift(_ e: inout Axis, _ n: inout Axis) {
            let g = p.global(east: e.p, north: n.p)
            let l = q.local(lat: g.lat, lon: g.lon)
            e.p = l.east
            n.p = l.north
        }
        shift(&entry.east, &entry.north)
        shift(&entry.eastPredicted, &entry.northPredicted)
    }
}

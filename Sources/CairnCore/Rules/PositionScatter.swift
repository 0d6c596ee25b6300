/// Rule 7, **no-speed fixes** (`no_speed_near`, `rough`): a fix without a measured speed is
/// added only once farther from the last point (kept or held) than its own uncertainty. Its
/// uncertainty is what it shows, where that is larger than what the receiver claims: the scatter
/// of a stretch of position-only fixes, learnt here from the mean size of their third
/// differences at a steady cadence (white noise σ per axis gives 5.6 σ; a turn or a braking, a
/// steady acceleration, almost nothing). It serves this rule, the distance filter and the corner
/// tolerance (rule 8, `DistanceFilter`); the distance filter then measures the chord from the
/// last point (summing noisy steps adds the scatter to every one).
///
/// **On the time scale the noise wanders** (issue 39): a wander correlated over 10-60 s (multipath,
/// Wi-Fi positioning) hardly shows in one-second third differences (σ 35 m over 30 s looked like
/// 7 m), so they are taken at lags of 1, 3, 9 and 27 fixes too, each averaged over about three of
/// its spans, and the scatter is the largest any lag shows. A lag longer than one counts only
/// where the fixes moved slower than 3 m/s over its span (a walker, a climbing rider: a faster
/// mover's turns are no noise) and none of them proved a move (`provenMoveRadii`: a bike or a
/// car through a street grid slows below 3 m/s at its corners and stops, whose kinks read as a
/// wander of about 15 m; it kept a point every 70-200 m and measured 5-15 % short, now +1.5 to
/// +1.9 %, `StreetGridTests`), and one third difference counts for at most three times its
/// lag's mean so far (at least 15 m). Until the stretch has had 82 fixes (every lag; 10 where it
/// moved faster than 3 m/s over the last 9, the longer lags do not apply; 5 where its positions are
/// clean, a one-second scatter under 1 m) its scatter is not known: its fixes are not spaced or kept as corners by it, nor judged standing
/// by it (they wait in the distance filter); a stretch that then proves too scattered to place
/// drops the fixes it let through meanwhile (`rough`). Evidence: the town ride with 5 minutes
/// walked in 2-D without speed under σ 35 m over 30 s was +17.3 % long with 130 points over 30 m
/// off on seeds 1-4; now +0.7 % and 1 (`SlowMoverTests`).
/// The wait, the drop, and judging by the longer lags whether a stretch can be placed or moved,
/// apply only inside a trip that has had a fix with a speed (`slowLags`, set by `FixRules`): a
/// walker alone without doppler under a wander waited minutes and was dropped as rough, losing
/// half its way and whole trips on unseen seeds. Alone, the one-second scatter judges
/// (`judgingRadius68`), as before issue 39, and the longer lags only widen the spacing where they
/// show clearly more than the claim (`FixRules.positionOnlyUncertainty`): a walk claiming HDOP
/// 3-4.7 under σ 35 m was +319 % long, now +70 % (seeds 101-124).
///
/// A stretch whose scatter the distance filter cannot hide (`RuleLimits.distanceFilterUncertainties`
/// × its 68 % radius beyond `RuleLimits.maxDistanceFilterM`: 6.5 × over 100 m, a radius over
/// 15.4 m) cannot be placed: its fixes are dropped (`rough`) and the gap rule (9) counts its
/// chord once. Evidence: 2-D walks of 1-10 minutes without speed at σ 15-50 m (claiming eph
/// 55-90) made a ride +54 % long with 211 points over 30 m off; now +0.8 % (worst 2.2 %) and 4.
/// Without a doppler, standing (rule 6, `MovementWindow`) is judged against three times this
/// scatter (at least 10 m), not the receiver's claim: a car crawling in traffic is not standing.
///
/// A fix with a speed ends the stretch.
struct PositionScatter {
    /// The stretch's recent position-only fixes, newest last (enough for the longest lag).
    private var recent = RingBuffer<Fix>(capacity: 3 * Self.lags[Self.lags.count - 1] + 1)
    /// Per lag, the running mean size of the third differences (m), and how many were measured.
    private var meanD3: (Double, Double, Double, Double) = (0, 0, 0, 0)
    private var counts: (Int, Int, Int, Int) = (0, 0, 0, 0)
    /// The lags, in fixes: one second up to about half a minute at 1 Hz.
    static let lags = [1, 3, 9, 27]
    /// Longer lags count only where the fixes move slower than this over their span (m/s): a
    /// walker or a climbing rider. A faster mover's turns are no noise.
    static let slowMps = 3.0
    /// Judge on the longer lags too (inside a trip whose receiver has shown a speed); without,
    /// the one-second third differences judge, unclipped, as before issue 39.
    var slowLags = false

    /// The 68 % radius of the stretch's scatter: the largest the lags show, from the mean size
    /// of their third differences (0 until two are known at a lag).
    var radius68: Double {
        var r = 0.0
        for i in 0..<Self.lags.count where count(i) >= 2 {
            r = max(r, 2.0.squareRoot() * mean(i) / 5.6)
        }
        return r
    }

    /// The scatter that judges whether the stretch can be placed at all (`rough`) and whether it
    /// moved (rule 6): every lag's inside a trip that has had a speed; outside, the one-second
    /// one, as before issue 39 (a lone walker without doppler must not lose its trip).
    var judgingRadius68: Double {
        slowLags ? radius68 : (count(0) >= 2 ? 2.0.squareRoot() * mean(0) / 5.6 : 0)
    }

    /// The stretch has had fixes enough for every lag up to 9 (28 at a steady cadence): until
    /// then a fix without speed cannot be spaced by its scatter (the distance filter holds it).
    var mature: Bool { !slowLags || recent.count > 3 * Self.lags[3] || (movedFast && count(0) >= 2) }
    /// The scatter is not known yet and may matter: past the stretch's first three fixes, not
    /// mature, and not quiet (clean positions: a one-second scatter under 1 m).
    var unknown: Bool { recent.count >= 4 && unsettled }
    /// Not mature and not quiet, from the first fix: no trip opens from the stretch, and no
    /// stand is judged by its scatter.
    var unsettled: Bool { !mature && !(count(0) >= 2 && 2.0.squareRoot() * mean(0) / 5.6 < 1) }
    /// The newest fix's longer lags moved faster than `slowMps`: they do not apply.
    private var movedFast = false
    /// When the positions last proved a move (`provenMoveRadii`): no longer lag spanning it counts.
    private var provenMoveMs: Int64?
    /// The positions have proved a move (see `provenMoveRadii`) since the stretch began.
    var provedMove: Bool { provenMoveMs != nil }
    /// The one-second scatter (68 %), 0 until two third differences are known.
    var oneSecondRadius68: Double { count(0) >= 2 ? 2.0.squareRoot() * mean(0) / 5.6 : 0 }
    /// A move is proved by a chord over nine intervals this many times the one-second scatter
    /// (a wander is bounded where a vehicle's way grows: σ 35 m over 30 s, a one-second scatter
    /// of about 7 m, would need 140 m in 9 s, 5.6 of its standard deviations; a bike at 4 m/s
    /// under a few metres of noise does it on every fix). Over three intervals and 10 times,
    /// the wander passed now and then, and a stand opened one trip more on 24 unseen seeds.
    static let provenMoveRadii = 20.0

    @inline(__always) private func mean(_ i: Int) -> Double {
        switch i {
        case 0: return meanD3.0
        case 1: return meanD3.1
        case 2: return meanD3.2
        default: return meanD3.3
        }
    }

    @inline(__always) private func count(_ i: Int) -> Int {
        switch i {
        case 0: return counts.0
        case 1: return counts.1
        case 2: return counts.2
        default: return counts.3
        }
    }

    private mutating func add(_ i: Int, _ d3: Double) {
        let lag = Self.lags[i]
        let c = count(i), m = mean(i)
        // A lag of k fixes sees a new sample every fix, each sharing most of its span with the
        // last: averaged over about three spans (at least the 8 of the shortest lag).
        let w = Double(max(8, 3 * lag))
        // (A turn is no noise: one counts for at most three times the mean so far.)
        let d = c == 0 || (i == 0 && !slowLags) ? d3 : min(d3, max(3 * m, 15))
        let next = c == 0 ? d : m + (d - m) / w
        switch i {
        case 0: meanD3.0 = next; counts.0 += 1
        case 1: meanD3.1 = next; counts.1 += 1
        case 2: meanD3.2 = next; counts.2 += 1
        default: meanD3.3 = next; counts.3 += 1
        }
    }

    mutating func learn(_ f: Fix) {
        recent.append(f)
        let n = recent.count
        guard n >= 4 else { return }
        let k = cosDeg(f.lat) * 111_195.0
        let dt = f.timeMs - recent[n - 2].timeMs
        // Moving faster than a slow mover over the last three intervals: the longer lags do not
        // apply, and the scatter is known from the shortest.
        // (Over nine intervals: a wander of tens of metres runs 3 m/s over a few seconds.)
        if n >= 10 {
            let c = recent[n - 10]
            let ce = (f.lon - c.lon) * k, cn = (f.lat - c.lat) * 111_195.0
            movedFast = f.timeMs > c.timeMs && (ce * ce + cn * cn).squareRoot() >= Self.slowMps * Double(f.timeMs - c.timeMs) / 1000
        }
        guard dt > 0, dt <= 2000 else { return }
        // Moving beyond doubt: over the last nine intervals, faster than a slow mover and
        // `provenMoveRadii` times the one-second scatter. The longer lags' spans that hold such a
        // fix are a vehicle's corners and stops, not a wander (issue 39, a street grid).
        if n >= 10, count(0) >= 2 {
            let c = recent[n - 10]
            let ce = (f.lon - c.lon) * k, cn = (f.lat - c.lat) * 111_195.0
            let chord = (ce * ce + cn * cn).squareRoot()
            let r1 = 2.0.squareRoot() * mean(0) / 5.6
            if chord >= Self.slowMps * Double(f.timeMs - c.timeMs) / 1000 && chord >= Self.provenMoveRadii * r1 {
                provenMoveMs = f.timeMs
            }
        }
        for (i, lag) in Self.lags.enumerated() {
            guard n > 3 * lag else { break }
            let p1 = recent[n - 1 - lag], p2 = recent[n - 1 - 2 * lag], p3 = recent[n - 1 - 3 * lag]
            // A steady cadence over the span (within a tenth of an interval per lag).
            let span = f.timeMs - p3.timeMs
            guard abs(f.timeMs - p1.timeMs - Int64(lag) * dt) * 10 <= dt * Int64(lag),
                abs(p1.timeMs - p2.timeMs - Int64(lag) * dt) * 10 <= dt * Int64(lag),
                abs(p2.timeMs - p3.timeMs - Int64(lag) * dt) * 10 <= dt * Int64(lag)
            else { continue }
            if lag > 1 {
                if let m = provenMoveMs, m >= p3.timeMs { continue }
                let ce = (f.lon - p3.lon) * k, cn = (f.lat - p3.lat) * 111_195.0
                if (ce * ce + cn * cn).squareRoot() >= Self.slowMps * Double(span) / 1000 { continue }
            }
            // f - 3 p1 + 3 p2 - p3, in local metres.
            let e = ((f.lon - p1.lon) - 2 * (p1.lon - p2.lon) + (p2.lon - p3.lon)) * k
            let nn = ((f.lat - p1.lat) - 2 * (p1.lat - p2.lat) + (p2.lat - p3.lat)) * 111_195.0
            add(i, (e * e + nn * nn).squareRoot())
        }
    }

    /// A fix with a speed ended the stretch.
    mutating func endStretch() {
        guard !recent.isEmpty else { return }
        self = PositionScatter()
    }
}

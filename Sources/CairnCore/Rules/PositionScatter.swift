/// Rule 7, **no-speed fixes** (`no_speed_near`, `rough`): a fix without a measured speed is
/// added only once farther from the last point (kept or held) than its own uncertainty. Its
/// uncertainty is what it shows, where that is larger than what the receiver claims: the scatter
/// of a stretch of position-only fixes, learnt here from the mean size of their third
/// differences at a steady cadence (white noise σ per axis gives 5.6 σ; a turn or a braking, a
/// steady acceleration, almost nothing). It serves this rule, the distance filter and the corner
/// tolerance (rule 8, `DistanceFilter`); the distance filter then measures the chord from the
/// last point (summing noisy steps adds the scatter to every one).
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
    /// The last three position-only fixes of this stretch, newest first.
    private var p1: Fix?
    private var p2: Fix?
    private var p3: Fix?
    /// The running mean size of their third differences (m), and how many were measured.
    private var meanD3 = 0.0
    private var count = 0

    /// The 68 % radius of the stretch's scatter, from the mean size of its third differences at
    /// a steady cadence of up to 2 s: 0 until two are known.
    var radius68: Double {
        count >= 2 ? 2.0.squareRoot() * meanD3 / 5.6 : 0
    }

    mutating func learn(_ f: Fix) {
        if let p1, let p2, let p3 {
            let dt = f.timeMs - p1.timeMs
            if dt > 0, dt <= 2000, abs(p1.timeMs - p2.timeMs - dt) * 10 <= dt, abs(p2.timeMs - p3.timeMs - dt) * 10 <= dt {
                // f - 3 p1 + 3 p2 - p3, in local metres about p1.
                let k = cosDeg(p1.lat) * 111_195.0
                let e = ((f.lon - p1.lon) - 2 * (p1.lon - p2.lon) + (p2.lon - p3.lon)) * k
                let n = ((f.lat - p1.lat) - 2 * (p1.lat - p2.lat) + (p2.lat - p3.lat)) * 111_195.0
                let d3 = (e * e + n * n).squareRoot()
                meanD3 = count == 0 ? d3 : meanD3 + (d3 - meanD3) / 8
                count += 1
            }
        }
        p3 = p2
        p2 = p1
        p1 = f
    }

    /// A fix with a speed ended the stretch.
    mutating func endStretch() {
        guard p1 != nil else { return }
        self = PositionScatter()
    }
}

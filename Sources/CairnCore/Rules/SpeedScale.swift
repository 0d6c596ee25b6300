#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Rule 6, **speeds too high by one factor**: a receiver whose speeds are all too high by one
/// factor (knots sent as m/s: 1.94 ×) "stands" by rule 6 on every window (its speeds add up to
/// more than it goes) and its rides were cut after 26 s. Over 20 full windows in a row where the
/// positions went straight and far (at least 20 m and three times both ends' claimed
/// uncertainty; 90 % of the path with a course, its vector at least 90 % of that, the
/// displacement within 26° of it), the ratio of displacement to path stayed within 5 % (the
/// standard deviation of its logarithm under 0.05) and under 0.70 (the mean logarithm under
/// −0.35): the speeds are multiplied by that mean ratio from then on (the scale never under 0.1).
/// Only downwards: a lie made larger would count more, and a standing receiver's wander never
/// goes far and straight twenty windows in a row in one ratio. Evidence: on generated stands of
/// 5-60 minutes with such a doppler (tuning seeds 1-8) trips went from one per stand (4.3 km of
/// wander on average) to none; a ride with such a stop from +44.7 % to +4.4 %; every earlier
/// target held (Tests/bench/rules-results.md).
struct SpeedScale {
    /// What this receiver's speeds are multiplied by (knots as m/s: 0.51).
    private(set) var factor = 1.0
    /// The windows in a row that measured it: their log ratio's sum and square sum.
    private var windows = 0
    private var logSum = 0.0
    private var logSum2 = 0.0

    /// One full window: displacement `d` (east `de`, north `dn`) against the doppler's path `p`,
    /// its part with a course `pd` and that part's vector (`pe`, `pn`); `floor`, how far is far.
    mutating func learn(d: Double, de: Double, dn: Double, p: Double, pd: Double, pe: Double, pn: Double, floor: Double) {
        // (Straight by the course: without one, a bend would pass for a scale.)
        let pv = (pe * pe + pn * pn).squareRoot()
        guard p > 0, d >= floor, pd >= 0.9 * p, pv >= 0.9 * pd, de * pe + dn * pn >= 0.9 * d * pv else {
            windows = 0
            return
        }
        let l = log(d / p)
        if windows == 0 {
            logSum = 0
            logSum2 = 0
        }
        windows += 1
        logSum += l
        logSum2 += l * l
        guard windows >= 20 else { return }
        let n = Double(windows)
        let mean = logSum / n
        let sd = max(0, logSum2 / n - mean * mean).squareRoot()
        windows = 0
        guard sd < 0.05, mean < -0.35 else { return }
        factor = max(0.1, factor * exp(mean))
    }

    mutating func reset() {
        factor = 1
        windows = 0
    }
}

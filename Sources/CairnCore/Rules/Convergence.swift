/// Rule 13, **re-acquisition held to the doppler** (`converging`). After an outage of
/// `RuleLimits.convergeAfterMs` (30 s) or more, ended by a fix with a speed, receivers come back
/// tens of metres off and converge over tens of seconds while already claiming a small error;
/// the doppler is right at once. Fixes are dropped until the position's displacement over
/// `RuleLimits.convergeWindowMs` (8 s, or one interval) agrees with the path the doppler adds up
/// to over it within 3 m and 10 % of that path (as vectors where every fix in the window has a
/// trusted course at `RuleLimits.courseSpeedMps` or more, else as lengths), or
/// `RuleLimits.convergeGiveUpMs` (90 s) have passed since the first, or a fix without a speed
/// comes (nothing to hold it to).
struct Convergence {
    /// The fixes since the outage ended, while their positions are not yet trusted.
    private var fixes = RingBuffer<Fix>(capacity: 128)
    private(set) var isConverging = false

    /// An outage ended: hold the positions to the doppler from here.
    mutating func begin() {
        fixes.removeAll()
        isConverging = true
    }

    mutating func reset() {
        fixes.removeAll()
        isConverging = false
    }

    /// Whether `f` may be taken: its displacement agrees with the doppler's, a receiver still
    /// sliding back from an outage moves faster than it says.
    mutating func converged(
        _ f: Fix, windowMs: Int64, giveUpMs: Int64, courseSpeedMps: Double, courseTrusted: Bool
    ) -> Bool {
        guard f.speed != nil else {
            isConverging = false
            return true
        }
        fixes.append(f)
        let first = fixes[0]
        if f.timeMs - first.timeMs >= giveUpMs {
            isConverging = false
            return true
        }
        let window = windowMs
        var i = fixes.count - 1
        while i > 0 && f.timeMs - fixes[i].timeMs < window { i -= 1 }
        let from = fixes[i]
        guard f.timeMs - from.timeMs >= window else { return false }
        var pe = 0.0, pn = 0.0, path = 0.0
        var directed = true
        for k in i..<(fixes.count - 1) {
            let a = fixes[k], b = fixes[k + 1]
            let dt = Double(b.timeMs - a.timeMs) / 1000
            let va = a.speed ?? 0, vb = b.speed ?? 0
            path += (va + vb) / 2 * dt
            if courseTrusted, let ta = a.track, let tb = b.track, va >= courseSpeedMps, vb >= courseSpeedMps {
                pe += (va * sinDeg(ta) + vb * sinDeg(tb)) / 2 * dt
                pn += (va * cosDeg(ta) + vb * cosDeg(tb)) / 2 * dt
            } else {
                directed = false
            }
        }
        let k = cosDeg(from.lat) * 111_195.0
        let ae = (f.lon - from.lon) * k, an = (f.lat - from.lat) * 111_195.0
        let err: Double
        if directed {
            let de = ae - pe, dn = an - pn
            err = (de * de + dn * dn).squareRoot()
        } else {
            err = abs((ae * ae + an * an).squareRoot() - path)
        }
        guard err <= 3 + 0.1 * path else { return false }
        isConverging = false
        return true
    }
}

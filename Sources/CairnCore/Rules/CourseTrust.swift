/// Rule 6, **a course is only evidence while it is right**. Where the positions go far as fast
/// as the speeds say but the measured course points elsewhere, span after span, the course is
/// ignored: rule 6 then judges by the speeds alone against the noise of the lengths
/// (`MovementWindow`), corners are not taken from it (rule 8, `DistanceFilter`), and rule 13
/// (`Convergence`) compares lengths. Judged by a wrong course, a real ride never left its first
/// stop; judged on sliding windows, a standing phone's lying doppler found its own course
/// "wrong" by chance and opened trips of 1-12 km at 20-30 m of wander (round 11).
///
/// The course is judged over spans that follow on from each other: each starts where the last
/// judged one ended, and may last up to a minute. A span is judged once the positions went far
/// ("far": 50 m, or 20 m once the lengths' noise is learnt over five windows, and always three
/// times that noise and three times both ends' claimed uncertainty) about as far as the speeds
/// say (within 25 %), and each half of it did too (within 25 % and a tenth of "far"). Over such
/// a span with a steady course (at least 90 % of the path with a course, its vector at least
/// 70 % of that), the course misses when the path's vector ends more than half its length from
/// the displacement's end, and hits within 30 %. A miss adds one to a score (at most 8), a hit
/// takes two off; at 4 the course is no longer trusted. The misses in a row that bring it there
/// must together have gone somewhere (the straight line from the first span's start at least
/// 70 % of their paths): a wander returns, a ride does not. A span that does not get far within
/// the minute breaks the chain: while the course is trusted, what was found is forgotten.
struct CourseTrust {
    /// Evidence (0...8) that the measured course does not point the way the positions go.
    private var missScore = 0
    /// Where the span that judges the course next starts.
    private var spanStartMs: Int64 = .min
    /// Where the spans that found the course wrong in a row began, and their paths' sum.
    private var chainLat = 0.0
    private var chainLon = 0.0
    private var chainPath = 0.0

    @inline(__always) var trusted: Bool { missScore < 4 }

    /// Judges the span ending at `f` (uncertainty `u`) over the window's samples; `learntNoise`
    /// is the lengths' noise once learnt over five windows. Returns whether the course just lost
    /// its trust.
    mutating func learn(_ f: Fix, u: Double, in window: MovementWindow, learntNoise learnt: Double?) -> Bool {
        let recent = window.recent
        guard recent.count >= 3 else { return false }
        // (A time line that stepped back starts the chain afresh.)
        if spanStartMs > f.timeMs { spanStartMs = .min }
        // (The newest 48 samples, as the window kept before it kept minutes for the long window.)
        var i = max(0, recent.count - 48)
        while i < recent.count - 3 && recent[i].timeMs < spanStartMs { i += 1 }
        if f.timeMs - recent[i].timeMs > 60_000 {
            // The span never got far enough: the chain is broken; start afresh from here.
            if trusted {
                missScore = 0
                chainPath = 0
            }
            spanStartMs = f.timeMs
            return false
        }
        let from = recent[i]
        let (p, pd, pe, pn) = window.dopplerPath(from: i, to: f, withCourse: true)
        let k = from.k
        let de = (f.lon - from.lon) * k, dn = (f.lat - from.lat) * 111_195.0
        let d = (de * de + dn * dn).squareRoot()
        let far = max(learnt == nil ? 50 : 20, 3 * (from.u + u), 3 * (learnt ?? 0))
        guard p > 0, d >= far, abs(d - p) <= 0.25 * p else { return false }
        // Each half, too: an excursion of the wander that matches the path's length at its end
        // is not a way gone.
        var m = i + 1
        while m < recent.count - 2 && 2 * (recent[m].timeMs - from.timeMs) < f.timeMs - from.timeMs { m += 1 }
        let mid = recent[m]
        let p1 = mid.path - from.path, p2 = p - p1
        let d1 = Geodesy.distance(lat1: from.lat, lon1: from.lon, lat2: mid.lat, lon2: mid.lon)
        let d2 = Geodesy.distance(lat1: mid.lat, lon1: mid.lon, lat2: f.lat, lon2: f.lon)
        guard abs(d1 - p1) <= 0.25 * p1 + 0.1 * far, abs(d2 - p2) <= 0.25 * p2 + 0.1 * far else { return false }
        spanStartMs = f.timeMs
        let pv = (pe * pe + pn * pn).squareRoot()
        // (A span without a steady course tells nothing about it, but the chain goes on.)
        guard pd >= 0.9 * p, pv >= 0.7 * pd else { return false }
        let wasTrusted = trusted
        let ee = de - pe, en = dn - pn
        let miss = (ee * ee + en * en).squareRoot() / pv
        if miss > 0.5 {
            if missScore == 0 || chainPath == 0 {
                chainLat = from.lat
                chainLon = from.lon
                chainPath = 0
            }
            chainPath += p
            let whole = Geodesy.distance(lat1: chainLat, lon1: chainLon, lat2: f.lat, lon2: f.lon)
            if missScore + 1 < 4 || !wasTrusted || whole >= 0.7 * chainPath {
                missScore = min(missScore + 1, 8)
            }
        } else if miss <= 0.3 {
            missScore = max(missScore - 2, 0)
            chainPath = 0
        }
        return wasTrusted && !trusted
    }

    /// A closed trip forgets what was found (the chain's start is set afresh by its first miss).
    mutating func reset() {
        missScore = 0
        spanStartMs = .min
        chainPath = 0
    }
}

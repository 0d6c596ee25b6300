/// Rule 8, **distance filter** (`too_close`). A fix closer than the minimum distance to the last
/// kept point is skipped. The minimum is the activity's (`ActivityProfile.minDistanceM`: 5 m
/// for a ride) or, when larger, `RuleLimits.distanceFilterUncertainties` (6.5) times the fix's
/// own uncertainty (the position-only scatter where larger, rule 7), at most
/// `RuleLimits.maxDistanceFilterM` (100 m; for a fix with a speed, up to three times that by the
/// noise the receiver has shown against its doppler once that is clearly more than it claims,
/// `FixRules.dopplerShownUncertainty`: issue 39's walker under a wander of 35 m), and not before a
/// stretch without speed has shown its scatter (`PositionScatter.mature`): position jitter adds length to every short step,
/// and spacing points by more than their jitter keeps that error small. How far the rider went
/// is measured by the doppler speed (the average of both ends' over the time between them, fix
/// to fix); without speeds by the chord from the last kept point (summing noisy steps adds their
/// scatter to every one): picking the first fix whose *position* is far enough would favour
/// fixes thrown sideways by noise.
///
/// Corners are kept: a fix whose measured course has turned `RuleLimits.cornerDegrees` (20°) or
/// more since the last kept point is kept whatever the distance, when both move at
/// `RuleLimits.courseSpeedMps` (1.5 m/s) or more and the course is trusted (`CourseTrust`; the
/// doppler course does not zigzag with position noise). Where the courses are not so known,
/// the skipped fixes that stand off the straight line from the last kept point to the next by
/// more than the tolerance (the fix's uncertainty as rule 7 takes it, at least 2 m, at most
/// `RuleLimits.maxAccuracyM`, 50 m; or twice the noise shown against the doppler, at most 100 m)
/// are kept instead (Douglas-Peucker over the skipped fixes).
/// Forced points (the first fix of a stop, a segment's start) skip the filter, unless within 1 m
/// of the last kept point. The last skipped fix before a stop, a gap or the end is kept so the
/// track reaches the place (unless within 1 m of the last kept point).
struct DistanceFilter {
    /// The last point handed out as kept.
    private(set) var lastKept: Fix?
    /// The last fix that reached the filter, and the distance travelled since the last kept point.
    private var lastFiltered: Fix?
    private(set) var travelled = 0.0
    /// Fixes skipped since the last kept point: corner candidates.
    private(set) var skipped = RingBuffer<Fix>(capacity: 32)

    /// Adds the way from the last filtered fix to `b`.
    mutating func travel(to b: Fix) {
        if let c = lastFiltered {
            let dt = Double(b.timeMs - c.timeMs) / 1000
            if let v1 = c.speed, let v2 = b.speed {
                travelled += (v1 + v2) / 2 * dt
            } else if let last = lastKept {
                travelled = Geodesy.distance(last, b)
            } else {
                travelled += Geodesy.distance(c, b)
            }
        }
        lastFiltered = b
    }

    /// `b` is too close: skipped (the oldest skipped fix is dropped when there are too many).
    mutating func skip(_ b: Fix, emit: (RuleOutput) -> Void) {
        if let oldest = skipped.first, skipped.isFull { emit(.drop(.tooClose, oldest)) }
        skipped.append(b)
    }

    /// Drops the skipped fixes without a speed (a stretch too scattered to place, rule 7).
    mutating func dropSkippedWithoutSpeed(emit: (RuleOutput) -> Void) {
        var any = false
        for i in 0..<skipped.count where skipped[i].speed == nil { any = true }
        guard any else { return }
        let all = skipped
        skipped.removeAll()
        for i in 0..<all.count {
            if all[i].speed == nil { emit(.drop(.rough, all[i])) } else { skipped.append(all[i]) }
        }
    }

    /// Keeps the skipped fixes that stand off the line from the last kept point to `b` by more
    /// than `tolerance`, and drops the rest.
    mutating func keepCorners(to b: Fix, tolerance: Double, emit: (RuleOutput) -> Void) {
        guard let last = lastKept, !skipped.isEmpty else { return }
        var keepIdx = [Bool](repeating: false, count: skipped.count)
        Self.markCorners(in: skipped, from: last, to: b, range: 0..<skipped.count, tolerance: tolerance, keep: &keepIdx)
        for i in 0..<skipped.count {
            if keepIdx[i] { emit(.keep(skipped[i])) } else { emit(.drop(.tooClose, skipped[i])) }
        }
        skipped.removeAll()
    }

    /// Keeps `b`; the skipped fixes not kept as corners are dropped.
    mutating func keep(_ b: Fix, emit: (RuleOutput) -> Void) {
        travelled = 0
        for i in 0..<skipped.count { emit(.drop(.tooClose, skipped[i])) }
        skipped.removeAll()
        emit(.keep(b))
        lastKept = b
    }

    /// Keeps the last skipped fix (the track reaches where the rider stopped) and drops the rest.
    mutating func releaseSkipped(emit: (RuleOutput) -> Void) {
        guard let last = skipped.last else { return }
        let keepLast = lastKept.map { Geodesy.distance($0, last) >= 1 } ?? true
        for i in 0..<(skipped.count - (keepLast ? 1 : 0)) { emit(.drop(.tooClose, skipped[i])) }
        skipped.removeAll()
        if keepLast {
            emit(.keep(last))
            lastKept = last
            travelled = 0
        }
    }

    mutating func reset() {
        lastKept = nil
        skipped.removeAll()
        lastFiltered = nil
        travelled = 0
    }

    private static func markCorners(
        in skipped: RingBuffer<Fix>, from a: Fix, to c: Fix, range: Range<Int>, tolerance: Double,
        keep: inout [Bool]
    ) {
        guard !range.isEmpty else { return }
        var best = -1
        var bestOff = tolerance
        for i in range {
            let off = offLine(skipped[i], a, c)
            if off > bestOff {
                bestOff = off
                best = i
            }
        }
        guard best >= 0 else { return }
        keep[best] = true
        markCorners(in: skipped, from: a, to: skipped[best], range: range.lowerBound..<best, tolerance: tolerance, keep: &keep)
        markCorners(in: skipped, from: skipped[best], to: c, range: (best + 1)..<range.upperBound, tolerance: tolerance, keep: &keep)
    }

    /// Distance of `p` from the segment a–c, in metres (local flat approximation).
    static func offLine(_ p: Fix, _ a: Fix, _ c: Fix) -> Double {
        let k = cosDeg(a.lat) * 111_195.0
        let ax = 0.0, ay = 0.0
        let cx = (c.lon - a.lon) * k, cy = (c.lat - a.lat) * 111_195.0
        let px = (p.lon - a.lon) * k, py = (p.lat - a.lat) * 111_195.0
        let len2 = cx * cx + cy * cy
        var u = len2 > 0 ? ((px - ax) * cx + (py - ay) * cy) / len2 : 0
        u = min(1, max(0, u))
        let dx = ax + u * cx - px, dy = ay + u * cy - py
        return (dx * dx + dy * dy).squareRoot()
    }
}

/// **A doppler that says "standing" while the positions walk away over minutes is no doppler**
/// (issue 39, item 1; `FixRules`, rule 6). A receiver whose speed reads 0.0 on every fix while it
/// walks at 1.2 m/s stood for the rules (the doppler decides a stand at once), and the whole walk
/// was lost, on every seed. An honest receiver standing still under a wander says 0.0 as well,
/// and its positions wander tens of metres a minute; only minutes tell them apart: a wander is
/// bounded (two of its positions are σ√2 apart per axis however far apart in time: under σ 35 m
/// over 4 minutes, 144 m or more about once in 70 looks, by estimate), a walker's way grows with
/// the time.
///
/// So the positions are sampled every `sampleMs` (30 s); once the speeds have said standing (under
/// the activity's standing speed, or none) for `spanMs` (8 minutes), the positions then, half
/// that before and now are each at least `legMps` × half the span apart (0.6 m/s: 144 m, under a
/// slow walk's pace along its bends) and the whole way at least as long as either half (no
/// going back: a wander that went out and came back, or the other way), the doppler is
/// disowned: from then on its speeds and courses are none, and the receiver is judged as one
/// without speed (rule 7, and the minutes of way that open its trip,
/// `MovementWindow.movedOverMinutes`). Two such halves in a row, not reversing, happen to a
/// standing wander of σ 35 m correlated over a minute about once in 15,000 looks (an estimate,
/// not measured; no standing row opened a trip on 72 seeds). A closed trip forgets it, as it
/// forgets the other things learnt of the receiver.
///
/// **A course drawn afresh on every fix says "standing" too** (round 25): a receiver whose speeds
/// say walking while its course points anywhere, fix after fix, moved nowhere by its own
/// doppler, and rule 6 held it standing (a course pointing nowhere is how a lying tablet
/// stands): its walk was lost on every seed. So the speeds say moving only over a sample's
/// 30 s whose fixes with a course point somewhere (the sum of their velocities at least half
/// the sum of their speeds: a walker's bend of 90° in 30 s keeps 0.9 of it, a course that wanders
/// 40° a fix or is drawn afresh keeps a fifth or less); speeds without a course say moving as
/// before. Such a receiver is then disowned on the same minutes of way.
struct StillDoppler {
    /// One position every `sampleMs`, newest last (the span and a little more).
    private var samples = RingBuffer<Fix>(capacity: Int(Self.spanMs / Self.sampleMs) + 2)
    /// When a speed last said the receiver moves (at or over the standing speed).
    private var movingMs: Int64?
    /// The doppler was found saying "standing" while the positions walked.
    private(set) var disowned = false
    /// Since the newest sample, the moving speeds with a course: their sum and their velocities'.
    private var coursed = (speeds: 0.0, east: 0.0, north: 0.0)

    static let sampleMs: Int64 = 30_000
    static let spanMs: Int64 = 480_000
    static let legMps = 0.6

    /// Learns from `f` (before its speed is judged), with the activity's standing speed.
    mutating func learn(_ f: Fix, standingSpeedMps: Double) {
        guard !disowned else { return }
        if let v = f.speed, v >= standingSpeedMps {
            if let c = f.track {
                coursed.speeds += v
                coursed.east += v * sinDeg(c)
                coursed.north += v * cosDeg(c)
            } else {
                movingMs = f.timeMs
            }
        }
        if let last = samples.last, f.timeMs - last.timeMs < Self.sampleMs { return }
        // (A course that points somewhere over the sample says moving.)
        if coursed.speeds > 0, (coursed.east * coursed.east + coursed.north * coursed.north).squareRoot() >= 0.5 * coursed.speeds {
            movingMs = f.timeMs
        }
        coursed = (0, 0, 0)
        samples.append(f)
        // (A receiver that never sends a speed has nothing to disown.)
        guard f.speed != nil, let first = samples.first, f.timeMs - first.timeMs >= Self.spanMs else { return }
        if let m = movingMs, f.timeMs - m < Self.spanMs { return }
        guard let a = newest(atLeast: Self.spanMs, before: f), let b = newest(atLeast: Self.spanMs / 2, before: f) else { return }
        let leg = Self.legMps * Double(Self.spanMs / 2) / 1000
        let firstHalf = Geodesy.distance(a, b), secondHalf = Geodesy.distance(b, f), whole = Geodesy.distance(a, f)
        if firstHalf >= leg && secondHalf >= leg && whole >= max(firstHalf, secondHalf) { disowned = true }
    }

    /// The newest sample at least `ms` before `f`.
    private func newest(atLeast ms: Int64, before f: Fix) -> Fix? {
        var i = samples.count - 1
        while i >= 0 {
            if f.timeMs - samples[i].timeMs >= ms { return samples[i] }
            i -= 1
        }
        return nil
    }

    mutating func reset() { self = StillDoppler() }
}

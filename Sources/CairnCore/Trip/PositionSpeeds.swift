/// The top speed the positions bear out where the receiver measured none (GGA-only streams,
/// receivers without doppler, gpsd's speeds derived from positions), from every fix the rules
/// were offered and kept or only thinned out (issue 39).
///
/// The kept points alone cannot tell a drive from a position excursion: without a speed the rules
/// keep one point in 100-170 m on a straight road, and a position that runs 130 m ahead along the
/// road over 6 s and comes back over 8 s (gpsd's derived 88 → 166 → 34 → 90 km/h) looks, at
/// that spacing, like a car that sped up to 130 km/h and braked. At the receiver's own cadence it
/// does not: the speed jumps by 78 km/h within a second. So:
/// - the positions are taken in chords of at least `chordMs` (a 10 Hz receiver's steps are too
///   short for their noise);
/// - a chord faster than the chords within `settleMs` of it allow, reached at the activity's
///   `speedUpMps2` and left at its `slowDownMps2` (`ActivityProfile`), with the slack of the
///   positions' own uncertainty, is no speed: a position that went out (and came back). It counts
///   for nothing, and the chords around it no longer make 3 s together;
/// - every other chord is lowered to what its neighbours allow, and a top speed is the slowest of
///   them over chords that span `TripStats.supportMs` (3 s).
/// A speed reached and left as a vehicle can is kept whole (the caps are then above it); position
/// noise only lowers the figure (the caps and the slowest of several chords take the low side),
/// except where it is many metres a fix: `TripStats` takes the lower of this and the kept
/// points' chords, which average such noise out.
/// Streamed, in fixed memory: a ring of the last `settleMs` and `supportMs` of chords.
public struct PositionSpeeds: Sendable {
    public static let chordMs: Int64 = 1_000
    /// A chord is judged once this much has come after it: time for the fastest fall the
    /// activities allow (10 m/s²) from any top speed cairn reports to its cruise.
    public static let settleMs: Int64 = 10_000
    /// Longer than this between two offered fixes, the chain starts again (an outage, a pause).
    public static let maxStepMs: Int64 = 60_000

    public let speedUpMps2: Double
    public let slowDownMps2: Double
    private var anchor: (t: Int64, lat: Double, lon: Double, sigma: Double)?
    private var previous: Int64?
    private var chords = RingBuffer<Chord>(capacity: 64)
    private var settledThroughMs = Int64.min
    private var lowered = RingBuffer<Chord>(capacity: 64)
    public private(set) var supportedMaxMps: Double?
    public private(set) var unsupportedMaxMps: Double?
    /// Fixes offered (with or without a chord of their own).
    public private(set) var fixes = 0

    private struct Chord: Sendable {
        var startMs: Int64
        var endMs: Int64
        var speed: Double
        /// How much faster than its neighbours allow the chord may be before it is no speed (m/s).
        var slack: Double
        var midMs: Int64 { startMs + (endMs - startMs) / 2 }
    }

    public init(speedUpMps2: Double, slowDownMps2: Double) {
        self.speedUpMps2 = speedUpMps2
        self.slowDownMps2 = slowDownMps2
    }

    /// The next fix in time order, with its horizontal uncertainty (68 %, metres) when known.
    /// `measured`: its speed is a receiver's own (a doppler), so the stretch into it is judged by
    /// that speed elsewhere (`TripStats`), not here.
    public mutating func add(timeMs t: Int64, lat: Double, lon: Double, sigmaM: Double?, measured: Bool) {
        guard lat.isFinite, lon.isFinite else { return }
        fixes += 1
        let sigma = min(max(sigmaM ?? Self.defaultSigmaM, 0), 50)
        defer { previous = t }
        guard let a = anchor, let p = previous, t > p, t - p <= Self.maxStepMs, !measured else {
            anchor = (t, lat, lon, sigma)
            return
        }
        guard t - a.t >= Self.chordMs else { return }
        let dt = Double(t - a.t) / 1000
        let d = Geodesy.distance(lat1: a.lat, lon1: a.lon, lat2: lat, lon2: lon)
        chords.append(Chord(startMs: a.t, endMs: t, speed: d / dt, slack: Self.slackMps + (a.sigma + sigma) / 2 / dt))
        anchor = (t, lat, lon, sigma)
        settle(before: t - Self.settleMs)
    }

    /// Without a figure: a receiver's usual 68 % radius (HDOP 1 on gpsd's scale).
    static let defaultSigmaM = 4.0
    /// Besides the positions' uncertainty, a chord may beat its neighbours' allowance by this much.
    static let slackMps = 1.0

    /// The top speed so far: the chords not yet settled judged by what has come after them.
    public var topMps: Double? {
        var s = self
        s.settle(before: Int64.max)
        return s.supportedMaxMps ?? s.unsupportedMaxMps
    }

    private mutating func settle(before limit: Int64) {
        var i = chords.count - 1
        while i >= 0 && chords[i].endMs > settledThroughMs { i -= 1 }
        i += 1
        while i < chords.count && chords[i].endMs <= limit {
            var c = chords[i]
            settledThroughMs = c.endMs
            i += 1
            let cap = reachable(i - 1)
            // Faster than any vehicle could have reached and left: a position out and back.
            if c.speed > cap + c.slack { continue }
            c.speed = min(c.speed, cap)
            var slowest = c.speed
            var spans = c.endMs - c.startMs >= TripStats.supportMs
            // Back over the chords of the same chain (each ends where the next starts).
            var k = lowered.count - 1
            var from = c.startMs
            while !spans && k >= 0 && lowered[k].endMs == from {
                slowest = min(slowest, lowered[k].speed)
                if c.endMs - lowered[k].startMs >= TripStats.supportMs { spans = true }
                from = lowered[k].startMs
                k -= 1
            }
            lowered.append(c)
            if spans { supportedMaxMps = max(supportedMaxMps ?? 0, slowest) } else { unsupportedMaxMps = max(unsupportedMaxMps ?? 0, slowest) }
        }
    }

    /// The fastest the `i`-th chord can be, reached from and left to the chords within
    /// `settleMs` of it at the activity's accelerations.
    private func reachable(_ i: Int) -> Double {
        let t = chords[i].midMs
        var v = Double.infinity
        var j = i - 1
        while j >= 0, t - chords[j].midMs <= Self.settleMs {
            v = min(v, chords[j].speed + speedUpMps2 * Double(t - chords[j].midMs) / 1000)
            j -= 1
        }
        j = i + 1
        while j < chords.count, chords[j].midMs - t <= Self.settleMs {
            v = min(v, chords[j].speed + slowDownMps2 * Double(chords[j].midMs - t) / 1000)
            j += 1
        }
        return v
    }
}

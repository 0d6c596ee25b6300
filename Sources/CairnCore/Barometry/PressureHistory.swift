/// The filtered pressure of the last 128 readings (two minutes at 1 Hz, ten at one in 5 s), by
/// monotonic time. The recorder reads gpsd's reports in batches (every 5 s by default) and the
/// barometer with each; each fix then gets the pressure of the moment it arrived
/// (`ArrivalClock`): the line between the readings around it, not the reading of the moment
/// the batch was read.
public struct PressureHistory: Sendable {
    struct Sample: Sendable {
        let monoMs: Int64
        let pressurePa: Double
    }
    private var samples = RingBuffer<Sample>(capacity: 128)

    public init() {}

    public var isEmpty: Bool { samples.count == 0 }

    /// Samples come in time order; one not after the last replaces nothing and is dropped.
    public mutating func add(monoMs: Int64, pressurePa: Double) {
        guard pressurePa.isFinite else { return }
        if let l = samples.last, monoMs <= l.monoMs { return }
        samples.append(Sample(monoMs: monoMs, pressurePa: pressurePa))
    }

    /// Forget everything (the sensor failed: the filter starts again).
    public mutating func removeAll() { samples.removeAll() }

    /// The pressure at `monoMs`: linear between the two samples around it, the nearest sample
    /// outside them; nil when no sample lies within `maxGapMs` of it (the sensor was silent).
    public func value(atMonoMs t: Int64, maxGapMs: Int64) -> Double? {
        let n = samples.count
        guard n > 0 else { return nil }
        let first = samples[0], last = samples[n - 1]
        if t >= last.monoMs { return t - last.monoMs <= maxGapMs ? last.pressurePa : nil }
        if t <= first.monoMs { return first.monoMs - t <= maxGapMs ? first.pressurePa : nil }
        // The last sample at or before t (samples are in time order).
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if samples[mid].monoMs <= t { lo = mid } else { hi = mid }
        }
        let a = samples[lo], b = samples[hi]
        let toA = t - a.monoMs, toB = b.monoMs - t
        if b.monoMs - a.monoMs > 2 * maxGapMs {
            // A silence between them: only a near one counts.
            if min(toA, toB) > maxGapMs { return nil }
            return toA <= toB ? a.pressurePa : b.pressurePa
        }
        let w = Double(toA) / Double(b.monoMs - a.monoMs)
        return a.pressurePa + w * (b.pressurePa - a.pressurePa)
    }
}

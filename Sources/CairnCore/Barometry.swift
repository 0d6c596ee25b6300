#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The International Standard Atmosphere's pressure-height relation, troposphere.
public enum ISA {
    /// g·M/(R·L) for the standard lapse rate; 1/5.25588 = 0.190263.
    static let exponent = 5.25588

    /// Height in metres for `pressurePa` when the sea-level pressure is `seaLevelPa`.
    public static func altitude(pressurePa p: Double, seaLevelPa p0: Double = 101_325) -> Double {
        44_330.77 * (1 - pow(p / p0, 1 / exponent))
    }

    /// The sea-level pressure that puts `pressurePa` at `altitude` metres.
    public static func seaLevel(pressurePa p: Double, altitude h: Double) -> Double {
        p / pow(1 - h / 44_330.77, exponent)
    }
}

/// Barometer samples (one every 1-5 s) in, a clean pressure out: a Hampel filter over the last
/// seven samples replaces a reading further than 5 scaled MADs (at least 15 Pa) from their
/// median by that median (I2C glitches, a gust into the port), unless it lies within what a
/// rider can climb or drop since the reading before (15 Pa + 25 Pa a second, ~2 m/s): with
/// readings 5 s apart, a descent that starts after a flat stretch moves 90 Pa between two
/// readings and must not be held back as a string of glitches until the median catches up.
/// Then an exponential average with a 2.5 s time constant takes the white noise down (3 Pa →
/// ~1.2 Pa at 1 Hz, ~2 Pa at one reading in 5 s; 0.1-0.2 m).
public struct PressureFilter: Sendable {
    public let tauS: Double
    private var window = RingBuffer<Double>(capacity: 7)
    private var lastMs: Int64?
    public private(set) var value: Double?
    public private(set) var rejected = 0

    public init(tauS: Double = 2.5) { self.tauS = tauS }

    /// Adds one reading (Pa) taken at `timeMs`; returns the filtered pressure.
    @discardableResult
    public mutating func add(pressurePa raw: Double, timeMs: Int64) -> Double? {
        guard raw.isFinite, raw > 0 else { return value }
        var x = raw
        if window.count >= 5 {
            var w: [Double] = []
            for i in 0..<window.count { w.append(window[i]) }
            w.sort()
            let median = w[w.count / 2]
            var dev = w.map { abs($0 - median) }
            dev.sort()
            let mad = 1.4826 * dev[dev.count / 2]
            let sinceS = Double(lastMs.map { max(0, timeMs - $0) } ?? 0) / 1000
            let step = abs(x - window[window.count - 1])
            if abs(x - median) > max(5 * mad, 15) && step > 15 + 25 * sinceS {
                x = median
                rejected += 1
            }
        }
        window.append(raw)
        if let v = value, let last = lastMs, timeMs > last {
            let dt = Double(timeMs - last) / 1000
            let a = dt / (tauS + dt)
            value = v + a * (x - v)
        } else if value == nil {
            value = x
        }
        lastMs = timeMs
        return value
    }
}

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

/// When a report read in a batch arrived, on the monotonic clock. A batch holds the reports
/// that queued in the socket since the last one was taken, so their arrival times are unknown;
/// but a fix's time (GPS) and its arrival differ by a nearly constant offset (the clocks'
/// difference plus gpsd's latency), and the last report of a batch arrived just before the
/// batch was read. So: offset = the largest `fix time − read time` seen in the last batch (or
/// this one so far), arrival = fix time − offset, kept between the previous batch's read and
/// this one's (a replay faster than real time, or a jump of the GPS clock, then lands at an
/// end, in order). Read one by one, a report's arrival is its read time.
public struct ArrivalClock: Sendable {
    private var offset: Int64?
    private var running: Int64?
    private var previousBatchMs: Int64?

    public init() {}

    /// The arrival of a fix with time `fixTimeMs`, read at `readMonoMs` in the current batch.
    public mutating func arrival(fixTimeMs: Int64, readMonoMs: Int64) -> Int64 {
        let c = fixTimeMs &- readMonoMs
        let run = max(running ?? c, c)
        running = run
        let best = max(offset ?? run, run)
        var t = fixTimeMs &- best
        if let p = previousBatchMs { t = max(t, p) }
        return min(t, readMonoMs)
    }

    /// The current batch was read to its end at `monoMs`.
    public mutating func endBatch(monoMs: Int64) {
        if let r = running { offset = r }
        running = nil
        previousBatchMs = monoMs
    }
}

/// Barometric altitude calibrated to GPS: the first `calibrationFixes` trusted GPS heights
/// (vertical uncertainty within 8 m at 68 %) set the offset between the pressure altitude and
/// the GPS height; after that every trusted GPS height nudges it with a time constant of
/// `driftTauS` (20 minutes), which follows the weather (1-2 hPa an hour is 8-16 m an hour)
/// without letting GPS height noise into the climb. Nil until calibrated.
public struct BaroAltimeter: Sendable {
    public var calibrationFixes = 10
    public var driftTauS = 1200.0
    private var sum = 0.0
    private var n = 0
    private var offset: Double?
    private var lastGPSMs: Int64?
    private var latestPressureAltitude: Double?

    public init() {}

    public var isCalibrated: Bool { offset != nil }

    /// The altitude for a filtered pressure, in metres above the GPS's datum (MSL); nil until
    /// calibrated.
    public mutating func altitude(pressurePa p: Double) -> Double? {
        let a = ISA.altitude(pressurePa: p)
        latestPressureAltitude = a
        return offset.map { a + $0 }
    }

    /// The height to count climb on: the pressure altitude with the weather drift taken out,
    /// available from the first reading. The one-off calibration step is left out (it would be
    /// counted as a climb); only the slow corrections after it are applied.
    public mutating func climbAltitude(pressurePa p: Double) -> Double {
        let a = ISA.altitude(pressurePa: p)
        latestPressureAltitude = a
        guard let o = offset, let o0 = calibratedOffset else { return a }
        return a + (o - o0)
    }

    private var calibratedOffset: Double?

    /// Offers a GPS height at `timeMs` (only trusted heights count), paired with the latest pressure.
    public mutating func addGPS(height h: Double, trusted: Bool, timeMs: Int64) {
        guard trusted, h.isFinite, let a = latestPressureAltitude else { return }
        if let o = offset {
            let dt = lastGPSMs.map { Double(max(0, timeMs - $0)) / 1000 } ?? 1
            let k = min(1, dt / driftTauS)
            offset = o + k * ((h - a) - o)
        } else {
            sum += h - a
            n += 1
            if n >= calibrationFixes {
                offset = sum / Double(n)
                calibratedOffset = offset
            }
        }
        lastGPSMs = timeMs
    }
}

/// Ascent and descent, the way riders' devices count them: from the calibrated barometric
/// altitude with a 2 m hysteresis when there is a barometer; otherwise from trusted GPS heights,
/// smoothed and counted with a hysteresis that both follow the heights' own short-term noise.
/// A receiver's heights wander over tens of seconds, and a noisy series needs a 20 s average and
/// 5 m before a change counts; a smooth one (a receiver that filters its heights, or a
/// barometric one behind NMEA) loses its real rollers to those. The noise is learnt from the
/// second differences of the heights (white noise σ gives a mean |Δ²| of 0.8 × √6 σ; a slope
/// and a steady wander give none); until 10 heights have been seen the series counts as noisy.
public struct AscentTracker: Sendable {
    public private(set) var baro = ClimbCounter(threshold: 2)
    public private(set) var gps = ClimbCounter(threshold: 5)
    private var smoothedGPS: Double?
    private var lastGPSMs: Int64?
    public var gpsTauS = 20.0
    /// The noise level (σ, metres) at and above which the full smoothing and threshold apply.
    public static let noisyHeightSigmaM = 1.5
    private var previous: (h: Double, t: Int64)?
    private var beforePrevious: (h: Double, t: Int64)?
    private var meanSecondDifference: Double?
    private var secondDifferences = 0

    public init() {}

    public mutating func addBarometric(altitude: Double) { baro.add(height: altitude) }

    /// The heights' white-noise σ as learnt so far.
    var gpsNoiseSigmaM: Double {
        guard let m = meanSecondDifference, secondDifferences >= 10 else { return Self.noisyHeightSigmaM }
        return m / (6.0.squareRoot() * 0.798)
    }

    public mutating func addGPS(height h: Double, timeMs: Int64) {
        guard h.isFinite else { return }
        if let p = previous, let q = beforePrevious, timeMs > p.t, p.t > q.t {
            let d2 = (h - p.h) - (p.h - q.h) * Double(timeMs - p.t) / Double(p.t - q.t)
            meanSecondDifference = meanSecondDifference.map { $0 + (abs(d2) - $0) / 20 } ?? abs(d2)
            secondDifferences += 1
        }
        if previous.map({ timeMs > $0.t }) ?? true {
            beforePrevious = previous
            previous = (h, timeMs)
        }
        let noise = min(1, max(0.25, gpsNoiseSigmaM / Self.noisyHeightSigmaM))
        let tau = gpsTauS * noise
        gps.threshold = min(5, max(2, 3.3 * gpsNoiseSigmaM))
        if let s = smoothedGPS, let last = lastGPSMs, timeMs > last {
            let dt = Double(timeMs - last) / 1000
            smoothedGPS = s + dt / (tau + dt) * (h - s)
        } else if smoothedGPS == nil {
            smoothedGPS = h
        }
        lastGPSMs = timeMs
        gps.add(height: smoothedGPS!)
    }

    /// Whether the figures below are the barometer's (it gave at least one altitude).
    public var fromBarometer: Bool { baro.hasHeight }

    /// The barometer's figures when it gave any, else the GPS's; nil (a dash) with neither.
    public var ascentM: Double? { baro.hasHeight ? baro.ascent : gps.hasHeight ? gps.ascent : nil }
    public var descentM: Double? { baro.hasHeight ? baro.descent : gps.hasHeight ? gps.descent : nil }
}

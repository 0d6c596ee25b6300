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

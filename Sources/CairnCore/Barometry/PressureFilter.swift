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

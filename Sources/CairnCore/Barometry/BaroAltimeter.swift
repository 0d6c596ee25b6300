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

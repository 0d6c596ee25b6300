/// A lap's or a session's heart rate, cadence and power figures, from the points' values
/// (`PointExtras`), as Garmin's devices count them: the average heart rate and power over the
/// points that have one (power's zeros count: coasting is part of the effort), the average
/// cadence over the points with the cranks turning (Garmin's default, zeros excluded), and the
/// maxima.
public struct SensorFigures: Sendable, Equatable {
    private var hrSum = 0, hrCount = 0, hrMax: Int?
    private var cadSum = 0, cadCount = 0, cadMax: Int?
    private var powerSum = 0, powerCount = 0, powerMax: Int?

    /// What the sensor track left out or set aside (`SensorTrack.notes`).
    public var notes: [String] = []

    public init() {}

    public mutating func add(heartRate: Int?, cadence: Int?, powerW: Int?) {
        if let h = heartRate {
            hrSum += h
            hrCount += 1
            hrMax = max(hrMax ?? h, h)
        }
        if let c = cadence {
            if c > 0 {
                cadSum += c
                cadCount += 1
            }
            cadMax = max(cadMax ?? c, c)
        }
        if let p = powerW {
            powerSum += p
            powerCount += 1
            powerMax = max(powerMax ?? p, p)
        }
    }

    public var avgHeartRate: Int? { hrCount > 0 ? Self.rounded(hrSum, hrCount) : nil }
    public var maxHeartRate: Int? { hrMax }
    /// 0 when the cranks were seen only standing.
    public var avgCadence: Int? { cadCount > 0 ? Self.rounded(cadSum, cadCount) : (cadMax != nil ? 0 : nil) }
    public var maxCadence: Int? { cadMax }
    public var avgPowerW: Int? { powerCount > 0 ? Self.rounded(powerSum, powerCount) : nil }
    public var maxPowerW: Int? { powerMax }

    private static func rounded(_ sum: Int, _ count: Int) -> Int { Int((Double(sum) / Double(count)).rounded()) }
}

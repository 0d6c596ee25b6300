/// Speed in metres per second, and distance, from successive wheel revolution data (CSC or
/// Cycling Power) and the wheel's circumference; `RevolutionCounter` does the arithmetic.
public struct WheelSpeed: Sendable {
    /// A reading's speed, the distance it adds and what the counter made of it.
    public struct Step: Equatable, Sendable {
        /// Nil until two revolutions in a row tell; 0 once the wheel has stood `stopAfterMs`.
        public var metresPerSecond: Double?
        /// The distance the reading's new revolutions cover (also across gaps).
        public var metres: Double
        public var event: RevolutionCounter.Event
    }

    /// 3 s without a revolution is standing still (below 0.7 m/s on a 2.1 m wheel).
    public static let stopAfterMs: Int64 = 3000
    /// 40 m/s (144 km/h): faster than any descent.
    public static let maxMetresPerSecond = 40.0

    /// 700x25C: 2.105 m, what a wheel sensor's revolutions are without a `wheel` setting.
    public static let defaultCircumferenceM = 2.105
    /// From a 12-inch child's wheel (0.9 m) to a 29 x 3.0 tyre (2.4 m), with room: 0.5 ... 3.5 m.
    public static let circumferenceMmRange: ClosedRange<UInt64> = 500...3500

    public let circumferenceM: Double
    private var counter: RevolutionCounter

    /// `format` is `.cscWheel` or `.powerWheel`; `circumferenceM` as on the tyre (2.105 m for
    /// 700x25C).
    public init(circumferenceM: Double, format: RevolutionFormat = .cscWheel) {
        self.circumferenceM = circumferenceM
        counter = RevolutionCounter(
            format: format, stopAfterMs: Self.stopAfterMs, maxPerSecond: Self.maxMetresPerSecond / circumferenceM)
    }

    public mutating func add(_ wheel: RevolutionData, arrivalMs: Int64) -> Step {
        let step = counter.add(wheel, arrivalMs: arrivalMs)
        return Step(
            metresPerSecond: step.perSecond.map { $0 * circumferenceM }, metres: Double(step.revolutions) * circumferenceM,
            event: step.event)
    }
}

/// Pedalling cadence in revolutions per minute from successive crank revolution data (CSC or
/// Cycling Power); `RevolutionCounter` does the arithmetic.
public struct CrankCadence: Sendable {
    /// A reading's cadence and what the counter made of it.
    public struct Step: Equatable, Sendable {
        /// Nil until two revolutions in a row tell; 0 once the crank has stood `stopAfterMs`.
        public var rpm: Double?
        public var event: RevolutionCounter.Event
    }

    /// 3 s without a revolution is standing still: below 20 rpm nobody is pedalling.
    public static let stopAfterMs: Int64 = 3000
    /// 250 rpm: beyond a track sprinter's spin-up.
    public static let maxRPM = 250.0

    private var counter: RevolutionCounter

    /// `format` is `.cscCrank` or `.powerCrank`.
    public init(format: RevolutionFormat = .cscCrank) {
        counter = RevolutionCounter(format: format, stopAfterMs: Self.stopAfterMs, maxPerSecond: Self.maxRPM / 60)
    }

    public mutating func add(_ crank: RevolutionData, arrivalMs: Int64) -> Step {
        let step = counter.add(crank, arrivalMs: arrivalMs)
        return Step(rpm: step.perSecond.map { $0 * 60 }, event: step.event)
    }
}

/// A sensor's cumulative revolutions and the time of the last one, as CSC and Cycling Power
/// measurements carry them: the counter and the event clock both roll over (`RevolutionFormat`).
public struct RevolutionData: Equatable, Sendable {
    /// Cumulative revolutions since the sensor started (a crank's are 16 bits wide, a wheel's 32).
    public var revolutions: UInt32
    /// When the last revolution happened, in ticks of the sensor's event clock (16 bits).
    public var eventTime: UInt16

    public init(revolutions: UInt32, eventTime: UInt16) {
        self.revolutions = revolutions
        self.eventTime = eventTime
    }
}

/// How wide a sensor's revolution counter is and how fast its event clock ticks.
public struct RevolutionFormat: Equatable, Sendable {
    /// 16 (crank revolutions) or 32 (wheel revolutions).
    public var counterBits: Int
    /// 1024 (CSC wheel and crank, Cycling Power crank) or 2048 (Cycling Power wheel).
    public var ticksPerSecond: Int

    /// CSC Measurement's wheel: uint32 revolutions, 1/1024 s.
    public static let cscWheel = RevolutionFormat(counterBits: 32, ticksPerSecond: 1024)
    /// CSC Measurement's crank: uint16 revolutions, 1/1024 s.
    public static let cscCrank = RevolutionFormat(counterBits: 16, ticksPerSecond: 1024)
    /// Cycling Power Measurement's wheel: uint32 revolutions, 1/2048 s.
    public static let powerWheel = RevolutionFormat(counterBits: 32, ticksPerSecond: 2048)
    /// Cycling Power Measurement's crank: uint16 revolutions, 1/1024 s.
    public static let powerCrank = RevolutionFormat(counterBits: 16, ticksPerSecond: 1024)

    /// How long the 16-bit event clock takes to roll over: 64 s at 1024 ticks, 32 s at 2048.
    public var clockWrapMs: Int64 { 65_536 * 1000 / Int64(ticksPerSecond) }

    /// Revolutions from `old` to `new` on this counter, across a rollover.
    func revolutions(from old: UInt32, to new: UInt32) -> UInt32 {
        let difference = new &- old
        return counterBits >= 32 ? difference : difference & ((UInt32(1) << counterBits) - 1)
    }
}

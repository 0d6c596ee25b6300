/// CSC Measurement (characteristic 0x2A5B of the Cycling Speed and Cadence service 0x1816).
///
/// A flags byte; with bit 0 the wheel's cumulative revolutions (uint32) and last wheel event
/// time (uint16, 1/1024 s); with bit 1 the crank's cumulative revolutions (uint16) and last crank
/// event time (uint16, 1/1024 s). Bits 2-7 are reserved and ignored. Speed and cadence come from
/// two of them in a row (`WheelSpeed`, `CrankCadence`).
public struct CSCMeasurement: Equatable, Sendable {
    /// Format `RevolutionFormat.cscWheel`.
    public var wheel: RevolutionData?
    /// Format `RevolutionFormat.cscCrank`.
    public var crank: RevolutionData?

    public init(wheel: RevolutionData? = nil, crank: RevolutionData? = nil) {
        self.wheel = wheel
        self.crank = crank
    }

    public init(decoding bytes: [UInt8]) throws(NotificationError) {
        var reader = NotificationReader(bytes)
        let flags = try reader.uint8(.flags)
        wheel = nil
        crank = nil
        if flags & 0x01 != 0 {
            // The pair is one field: both or neither.
            guard reader.remaining >= 6 else { throw .truncated(.wheelRevolutions, needs: 6, left: reader.remaining) }
            let revolutions = try reader.uint32(.wheelRevolutions)
            wheel = RevolutionData(revolutions: revolutions, eventTime: try reader.uint16(.wheelRevolutions))
        }
        if flags & 0x02 != 0 {
            guard reader.remaining >= 4 else { throw .truncated(.crankRevolutions, needs: 4, left: reader.remaining) }
            let revolutions = try reader.uint16(.crankRevolutions)
            crank = RevolutionData(revolutions: UInt32(revolutions), eventTime: try reader.uint16(.crankRevolutions))
        }
    }
}

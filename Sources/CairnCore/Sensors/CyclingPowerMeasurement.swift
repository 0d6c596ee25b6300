/// Cycling Power Measurement (characteristic 0x2A63 of the Cycling Power service 0x1818).
///
/// Flags (uint16), the instantaneous power (sint16, W), then each field a flag bit announces, in
/// this order and size: pedal power balance (bit 0; uint8, 1/2 %), accumulated torque (bit 2;
/// uint16, 1/32 N·m), wheel revolution data (bit 4; uint32 and uint16 in 1/2048 s), crank
/// revolution data (bit 5; uint16 and uint16 in 1/1024 s), extreme force magnitudes (bit 6; two
/// sint16, N, maximum first), extreme torque magnitudes (bit 7; two sint16, 1/32 N·m), extreme
/// angles (bit 8; two uint12 degrees in three bytes, maximum in the low 12 bits), top dead spot
/// angle (bit 9; uint16 degrees), bottom dead spot angle (bit 10; uint16 degrees), accumulated
/// energy (bit 11; uint16 kJ). Bits 1, 3 and 12 qualify fields and carry none; 13-15 are reserved
/// and ignored. Layout: the Bluetooth SIG's characteristic definition
/// (org.bluetooth.characteristic.cycling_power_measurement).
public struct CyclingPowerMeasurement: Equatable, Sendable {
    /// A pair of extremes, maximum first, in the field's own unit.
    public struct Extremes: Equatable, Sendable {
        public var maximum: Int16
        public var minimum: Int16
        public init(maximum: Int16, minimum: Int16) {
            self.maximum = maximum
            self.minimum = minimum
        }
    }

    /// The extreme crank angles, degrees.
    public struct AngleExtremes: Equatable, Sendable {
        public var maximum: UInt16
        public var minimum: UInt16
        public init(maximum: UInt16, minimum: UInt16) {
            self.maximum = maximum
            self.minimum = minimum
        }
    }

    public var flags: UInt16
    /// Watts; negative where a sensor reports braking or a zero offset.
    public var powerWatts: Int16
    /// The share of one pedal in 1/2 % (0-200): the left one when `balanceIsLeft`, else unknown.
    public var pedalPowerBalance: UInt8?
    /// 1/32 N·m, wheel based or crank based (`torqueIsCrankBased`).
    public var accumulatedTorque: UInt16?
    /// Format `RevolutionFormat.powerWheel` (1/2048 s).
    public var wheel: RevolutionData?
    /// Format `RevolutionFormat.powerCrank` (1/1024 s).
    public var crank: RevolutionData?
    /// Newtons.
    public var extremeForces: Extremes?
    /// 1/32 N·m.
    public var extremeTorques: Extremes?
    public var extremeAngles: AngleExtremes?
    public var topDeadSpotAngle: UInt16?
    public var bottomDeadSpotAngle: UInt16?
    /// Kilojoules.
    public var accumulatedEnergyKJ: UInt16?

    /// Flag bit 1: the balance is the left pedal's.
    public var balanceIsLeft: Bool { flags & 0x0002 != 0 }
    /// Flag bit 3: the accumulated torque is measured at the crank, not the wheel.
    public var torqueIsCrankBased: Bool { flags & 0x0008 != 0 }
    /// Flag bit 12: the sensor asks for an offset compensation (a zero calibration).
    public var offsetCompensation: Bool { flags & 0x1000 != 0 }

    /// Beyond this many watts, either way, the power is no rider's (track sprinters peak near
    /// 2,500 W): a notification carrying it is `outOfRange`.
    public static let maxWatts: Int16 = 3000

    public init(flags: UInt16 = 0, powerWatts: Int16) {
        self.flags = flags
        self.powerWatts = powerWatts
    }

    public init(decoding bytes: [UInt8]) throws(NotificationError) {
        var reader = NotificationReader(bytes)
        flags = try reader.uint16(.flags)
        powerWatts = try reader.int16(.power)
        guard powerWatts.magnitude <= Self.maxWatts.magnitude else {
            throw .outOfRange(.power, value: Int(powerWatts))
        }
        if has(0) {
            // 0xFF is "not available" (ANT+'s invalid, which meters bridging both send): the
            // balance is absent, the power kept.
            let balance = try reader.uint8(.pedalPowerBalance)
            guard balance <= 200 || balance == 0xFF else { throw .outOfRange(.pedalPowerBalance, value: Int(balance)) }
            pedalPowerBalance = balance == 0xFF ? nil : balance
        }
        if has(2) { accumulatedTorque = try reader.uint16(.accumulatedTorque) }
        if has(4) {
            guard reader.remaining >= 6 else { throw .truncated(.wheelRevolutions, needs: 6, left: reader.remaining) }
            let revolutions = try reader.uint32(.wheelRevolutions)
            wheel = RevolutionData(revolutions: revolutions, eventTime: try reader.uint16(.wheelRevolutions))
        }
        if has(5) {
            guard reader.remaining >= 4 else { throw .truncated(.crankRevolutions, needs: 4, left: reader.remaining) }
            let revolutions = try reader.uint16(.crankRevolutions)
            crank = RevolutionData(revolutions: UInt32(revolutions), eventTime: try reader.uint16(.crankRevolutions))
        }
        if has(6) { extremeForces = try Self.extremes(&reader, .extremeForces) }
        if has(7) { extremeTorques = try Self.extremes(&reader, .extremeTorques) }
        if has(8) {
            let (maximum, minimum) = try reader.uint12Pair(.extremeAngles)
            extremeAngles = AngleExtremes(maximum: maximum, minimum: minimum)
        }
        if has(9) { topDeadSpotAngle = try reader.uint16(.topDeadSpotAngle) }
        if has(10) { bottomDeadSpotAngle = try reader.uint16(.bottomDeadSpotAngle) }
        if has(11) { accumulatedEnergyKJ = try reader.uint16(.accumulatedEnergy) }
    }

    private func has(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }

    private static func extremes(_ reader: inout NotificationReader, _ field: SensorField) throws(NotificationError)
        -> Extremes
    {
        guard reader.remaining >= 4 else { throw .truncated(field, needs: 4, left: reader.remaining) }
        let maximum = try reader.int16(field)
        return Extremes(maximum: maximum, minimum: try reader.int16(field))
    }
}

/// Why a sensor's notification was not decoded: the bytes end before a field its flags announce,
/// a list of two-byte values ends on an odd byte, or a value no sensor (or no rider) produces.
/// Decoding never traps: every malformed notification is one of these, to be counted and said.
public enum NotificationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `field` needs `needs` bytes where `left` remain.
    case truncated(SensorField, needs: Int, left: Int)
    /// `field` is a list of two-byte values, and one byte is left over.
    case oddByte(SensorField)
    /// `field` holds `value`, outside what the specification allows or a body can do.
    case outOfRange(SensorField, value: Int)

    public var description: String {
        switch self {
        case .truncated(let field, let needs, let left):
            "\(field.name): \(needs) bytes announced, \(left) left"
        case .oddByte(let field): "\(field.name): an odd byte left over"
        case .outOfRange(let field, let value): "\(field.name): \(value) out of range"
        }
    }
}

/// The fields of the notifications cairn decodes, named for messages.
public enum SensorField: Equatable, Sendable {
    case flags, heartRate, energyExpended, rrInterval
    case wheelRevolutions, crankRevolutions
    case power, pedalPowerBalance, accumulatedTorque, extremeForces, extremeTorques, extremeAngles
    case topDeadSpotAngle, bottomDeadSpotAngle, accumulatedEnergy
    case batteryLevel

    public var name: String {
        switch self {
        case .flags: "flags"
        case .heartRate: "heart rate"
        case .energyExpended: "energy expended"
        case .rrInterval: "RR interval"
        case .wheelRevolutions: "wheel revolution data"
        case .crankRevolutions: "crank revolution data"
        case .power: "instantaneous power"
        case .pedalPowerBalance: "pedal power balance"
        case .accumulatedTorque: "accumulated torque"
        case .extremeForces: "extreme force magnitudes"
        case .extremeTorques: "extreme torque magnitudes"
        case .extremeAngles: "extreme angles"
        case .topDeadSpotAngle: "top dead spot angle"
        case .bottomDeadSpotAngle: "bottom dead spot angle"
        case .accumulatedEnergy: "accumulated energy"
        case .batteryLevel: "battery level"
        }
    }
}

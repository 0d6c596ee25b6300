/// A notification decoded by its characteristic: what the recorder checks (to count what no
/// decoder takes) and what the exports read back from the log.
public enum SensorReading: Equatable, Sendable {
    case heartRate(HeartRateMeasurement)
    case speedCadence(CSCMeasurement)
    case power(CyclingPowerMeasurement)
    case battery(BatteryLevel)

    /// The four characteristics cairn decodes.
    public enum Characteristic {
        public static let heartRate: UInt16 = 0x2A37
        public static let speedCadence: UInt16 = 0x2A5B
        public static let power: UInt16 = 0x2A63
        public static let battery: UInt16 = 0x2A19
    }

    /// Why a notification gave no reading.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case unknownCharacteristic(UInt16)
        case notification(NotificationError)

        /// A value no sensor or rider produces (the bytes themselves read).
        public var isOutOfRange: Bool {
            if case .notification(.outOfRange) = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .unknownCharacteristic(let c): "characteristic \(SensorReading.hex(c)) is none cairn decodes"
            case .notification(let e): e.description
            }
        }
    }

    public init(decoding n: SensorNotification) throws(Failure) {
        let v = n.value
        switch n.characteristic {
        case Characteristic.heartRate: self = .heartRate(try Self.decoded { () throws(NotificationError) in try HeartRateMeasurement(decoding: v) })
        case Characteristic.speedCadence: self = .speedCadence(try Self.decoded { () throws(NotificationError) in try CSCMeasurement(decoding: v) })
        case Characteristic.power: self = .power(try Self.decoded { () throws(NotificationError) in try CyclingPowerMeasurement(decoding: v) })
        case Characteristic.battery: self = .battery(try Self.decoded { () throws(NotificationError) in try BatteryLevel(decoding: v) })
        default: throw .unknownCharacteristic(n.characteristic)
        }
    }

    private static func decoded<T>(_ decode: () throws(NotificationError) -> T) throws(Failure) -> T {
        do throws(NotificationError) { return try decode() } catch { throw .notification(error) }
    }

    /// A Bluetooth address as written, `AA:BB:CC:DD:EE:FF`.
    public static func addressText(_ address: UInt64) -> String {
        (0..<6).reversed().map { i in
            let b = UInt8(truncatingIfNeeded: address >> (8 * UInt64(i)))
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
        }.joined(separator: ":")
    }

    /// A 16-bit UUID as written, `0x2A37`.
    public static func hex(_ v: UInt16) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String((0..<4).reversed().map { digits[Int((v >> (4 * UInt16($0))) & 15)] })
    }
}

/// Battery Level (characteristic 0x2A19): one byte, the charge in percent (0-100).
public struct BatteryLevel: Equatable, Sendable {
    public var percent: UInt8

    public init(percent: UInt8) { self.percent = percent }

    /// Decodes a notification or a read; over 100 % is `outOfRange`.
    public init(decoding bytes: [UInt8]) throws(NotificationError) {
        var reader = NotificationReader(bytes)
        percent = try reader.uint8(.batteryLevel)
        guard percent <= 100 else { throw .outOfRange(.batteryLevel, value: Int(percent)) }
    }
}

/// Reads a notification's fields in order, little-endian as GATT sends them; a field the bytes
/// do not hold throws `NotificationError.truncated` naming it. Bytes after the last field read
/// are left alone: flag bits the specifications reserve may announce fields appended later.
struct NotificationReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func uint8(_ field: SensorField) throws(NotificationError) -> UInt8 {
        let at = try take(1, field)
        return bytes[at]
    }

    mutating func uint16(_ field: SensorField) throws(NotificationError) -> UInt16 {
        let at = try take(2, field)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    mutating func int16(_ field: SensorField) throws(NotificationError) -> Int16 {
        Int16(bitPattern: try uint16(field))
    }

    /// Two 12-bit values packed into three bytes, the first in the low 12 bits.
    mutating func uint12Pair(_ field: SensorField) throws(NotificationError) -> (UInt16, UInt16) {
        let at = try take(3, field)
        let packed = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
        return (UInt16(packed & 0xFFF), UInt16(packed >> 12))
    }

    mutating func uint32(_ field: SensorField) throws(NotificationError) -> UInt32 {
        let at = try take(4, field)
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[at + i]) << (8 * i) }
        return value
    }

    private mutating func take(_ count: Int, _ field: SensorField) throws(NotificationError) -> Int {
        guard remaining >= count else { throw .truncated(field, needs: count, left: remaining) }
        defer { offset += count }
        return offset
    }
}

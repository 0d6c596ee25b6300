/// Little-endian bytes for building sensor notifications in tests.
enum SensorBytes {
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le16(_ v: Int16) -> [UInt8] { le16(UInt16(bitPattern: v)) }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    /// "0a 1B ff" → [0x0A, 0x1B, 0xFF].
    static func hex(_ text: String) -> [UInt8] { text.split(separator: " ").map { UInt8($0, radix: 16)! } }
}

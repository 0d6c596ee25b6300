/// Unsigned LEB128 and zigzag varints, and a bounds-checked reader over a payload.

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }

    @inline(__always)
    mutating func appendZigzag(_ value: Int64) {
        appendVarint(Varint.zigzag(value))
    }

    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }
}

enum Varint {
    @inline(__always) static func zigzag(_ v: Int64) -> UInt64 {
        UInt64(bitPattern: (v << 1) ^ (v >> 63))
    }

    @inline(__always) static func unzigzag(_ u: UInt64) -> Int64 {
        Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
    }

    /// Encoded length of `v` in bytes (1...10).
    static func length(_ v: UInt64) -> Int {
        var n = 1, v = v
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }
}

/// A payload did not decode (truncated, over-long varint, missing required field).
struct Malformed: Error {}

/// Reads a payload front to back; every read is bounds-checked.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var index: Int

    init(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    var remaining: Int { bytes.count - index }
    var isAtEnd: Bool { index >= bytes.count }

    @inline(__always)
    mutating func u8() throws(Malformed) -> UInt8 {
        guard index < bytes.count else { throw Malformed() }
        let b = bytes[index]
        index += 1
        return b
    }

    /// At most 10 bytes; the 10th may only carry the top bit of a UInt64.
    @inline(__always)
    mutating func varint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count else { throw Malformed() }
            let b = bytes[index]
            index += 1
            if shift == 63 && b > 1 { throw Malformed() }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    @inline(__always)
    mutating func zigzag() throws(Malformed) -> Int64 { Varint.unzigzag(try varint()) }

    mutating func take(_ n: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        guard n >= 0, n <= remaining else { throw Malformed() }
        let r = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + n)])
        index += n
        return r
    }

    mutating func string() throws(Malformed) -> String {
        let n = try varint()
        guard n <= UInt64(remaining) else { throw Malformed() }
        return String(decoding: try take(Int(n)), as: UTF8.self)
    }

    mutating func rest() -> UnsafeRawBufferPointer {
        let r = UnsafeRawBufferPointer(rebasing: bytes[index...])
        index = bytes.count
        return r
    }
}

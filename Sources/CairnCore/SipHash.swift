/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit hash, for values an attacker must
/// not predict without the key (privacy zones' secret offsets and per-ride cut radii). Pure.
public struct SipHash24: Sendable {
    private var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64
    private var tail: UInt64 = 0
    private var tailBytes = 0
    private var length = 0

    /// `key`: 16 bytes (k0 the first 8, little-endian, k1 the next 8).
    public init(key: [UInt8]) {
        precondition(key.count == 16, "SipHash takes a 16-byte key")
        let k0 = Self.le64(key, 0), k1 = Self.le64(key, 8)
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    static func le64(_ b: [UInt8], _ at: Int) -> UInt64 {
        var x: UInt64 = 0
        for i in 0..<8 { x |= UInt64(b[at + i]) << (8 * UInt64(i)) }
        return x
    }

    private mutating func round() {
        v0 = v0 &+ v1; v1 = (v1 << 13) | (v1 >> 51); v1 ^= v0; v0 = (v0 << 32) | (v0 >> 32)
        v2 = v2 &+ v3; v3 = (v3 << 16) | (v3 >> 48); v3 ^= v2
        v0 = v0 &+ v3; v3 = (v3 << 21) | (v3 >> 43); v3 ^= v0
        v2 = v2 &+ v1; v1 = (v1 << 17) | (v1 >> 47); v1 ^= v2; v2 = (v2 << 32) | (v2 >> 32)
    }

    private mutating func compress(_ m: UInt64) {
        v3 ^= m
        round(); round()
        v0 ^= m
    }

    public mutating func add(_ bytes: [UInt8]) {
        for b in bytes {
            tail |= UInt64(b) << (8 * UInt64(tailBytes))
            tailBytes += 1
            length += 1
            if tailBytes == 8 {
                compress(tail)
                tail = 0
                tailBytes = 0
            }
        }
    }

    /// Adds `x` as 8 bytes, little-endian.
    public mutating func add(_ x: UInt64) {
        add((0..<8).map { UInt8(truncatingIfNeeded: x >> (8 * UInt64($0))) })
    }

    public mutating func add(_ text: String) {
        add(UInt64(text.utf8.count))
        add(Array(text.utf8))
    }

    public func finalize() -> UInt64 {
        var s = self
        s.compress(s.tail | (UInt64(truncatingIfNeeded: s.length) << 56))
        s.v2 ^= 0xff
        s.round(); s.round(); s.round(); s.round()
        return s.v0 ^ s.v1 ^ s.v2 ^ s.v3
    }

    public static func hash(key: [UInt8], _ bytes: [UInt8]) -> UInt64 {
        var h = SipHash24(key: key)
        h.add(bytes)
        return h.finalize()
    }

    /// A number in [0, 1) from a hash's top 53 bits.
    public static func unit(_ h: UInt64) -> Double { Double(h >> 11) / 9_007_199_254_740_992.0 }
}

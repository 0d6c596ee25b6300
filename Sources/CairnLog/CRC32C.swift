/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven, slicing-by-8.
///
/// Two levels are used:
/// - `checksum(_:)` is the standard CRC-32C (initial register 0xFFFFFFFF, final inversion):
///   `checksum("123456789") == 0xE3069283`.
/// - `update(_:_:)` advances a *raw* register (no inversions). The frame CRC of a log file is the
///   standard CRC-32C of `salt (4 bytes LE) || data`, computed as `~update(saltRegister, data)`
///   with `saltRegister = update(0xFFFFFFFF, salt bytes)` precomputed once per file.
enum CRC32C {
    static let polynomial: UInt32 = 0x82F6_3B78

    /// `tables[k * 256 + b]`: the register contribution of byte `b` followed by `k` zero bytes.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ polynomial : c >> 1 }
            t[i] = c
        }
        for i in 0..<256 {
            var c = t[i]
            for k in 1..<8 {
                c = (c >> 8) ^ t[Int(c & 0xFF)]
                t[k * 256 + i] = c
            }
        }
        return t
    }()

    /// The standard CRC-32C of `bytes`.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { ~update(0xFFFF_FFFF, $0) }
    }

    /// The raw register after feeding `bytes` to register `register`.
    static func update(_ register: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = register
        let n = bytes.count
        if n == 0 { return c }
        tables.withUnsafeBufferPointer { t in
            var i = 0
            while n - i >= 8 {
                let lo = c ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self))
                let hi = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
                // In typed steps: Swift 6.0 cannot type-check the eight-term XOR in one expression.
                let l01: UInt32 = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                let l23: UInt32 = t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                let h01: UInt32 = t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                let h23: UInt32 = t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                c = (l01 ^ l23) ^ (h01 ^ h23)
                i += 8
            }
            while i < n {
                c = (c >> 8) ^ t[Int((c ^ UInt32(bytes[i])) & 0xFF)]
                i += 1
            }
        }
        return c
    }

    /// One byte, raw register.
    @inline(__always)
    static func step(_ register: UInt32, _ byte: UInt8, _ t: UnsafeBufferPointer<UInt32>) -> UInt32 {
        (register >> 8) ^ t[Int((register ^ UInt32(byte)) & 0xFF)]
    }

    /// The register for `salt` as the first four bytes (little-endian) of a standard CRC-32C.
    static func saltRegister(_ salt: UInt32) -> UInt32 {
        withUnsafeBytes(of: salt.littleEndian) { update(0xFFFF_FFFF, $0) }
    }

    /// LevelDB's mask: CRCs of data that contains CRCs are problematic.
    @inline(__always) static func mask(_ c: UInt32) -> UInt32 { ((c >> 15) | (c << 17)) &+ 0xA282_EAD8 }
    @inline(__always) static func unmask(_ m: UInt32) -> UInt32 {
        let r = m &- 0xA282_EAD8
        return (r >> 17) | (r << 15)
    }

    // MARK: Shifting a register over zero bytes (used by the resync scan)

    /// `a * b mod P` in the reflected representation (x^0 is bit 31), as in zlib's `multmodp`.
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var a = a, b = b, p: UInt32 = 0
        while a != 0 {
            if a & 0x8000_0000 != 0 { p ^= b }
            a <<= 1
            b = (b & 1) != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return p
    }

    /// `x^(8n) mod P` for n in 0...maxFrameCRCBytes: multiplying a raw register by it is the same
    /// as feeding it n zero bytes. 256 KiB, built on first use (only when a scan needs it).
    static let zeroShift: [UInt32] = {
        var t = [UInt32](repeating: 0, count: FrameFormat.maxCRCBytes + 1)
        var x: UInt32 = 0x8000_0000  // x^0
        tables.withUnsafeBufferPointer { tb in
            for n in 0..<t.count {
                t[n] = x
                x = (x >> 8) ^ tb[Int(x & 0xFF)]  // times x^8
            }
        }
        return t
    }()
}

/// MD5 (RFC 1321), streamed: the hash most rclone backends list (`rclone lsjson --hash-type
/// md5`: S3's ETag, a local disk, SFTP with md5sum), against which retention checks a remote
/// copy of a log. Not for secrecy: a check that the bytes are the ones sent.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21
    ]

    /// floor(abs(sin(i + 1)) * 2^32), without Foundation's sin.
    private static let table: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391
    ]

    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending += bytes[0..<take]
            i = take
            if pending.count == 64 {
                let block = pending
                pending = []
                block.withUnsafeBytes { compress($0) }
            }
        }
        while i + 64 <= bytes.count {
            compress(UnsafeRawBufferPointer(rebasing: bytes[i..<(i + 64)]))
            i += 64
        }
        if i < bytes.count { pending += bytes[i...] }
    }

    public mutating func add(_ bytes: [UInt8]) { bytes.withUnsafeBytes { add($0) } }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var m = [UInt32](repeating: 0, count: 16)
        for j in 0..<16 {
            m[j] = UInt32(block[j * 4]) | UInt32(block[j * 4 + 1]) << 8 | UInt32(block[j * 4 + 2]) << 16 | UInt32(block[j * 4 + 3]) << 24
        }
        var (a, b, c, d) = state
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16:
                f = (b & c) | (~b & d)
                g = i
            case 16..<32:
                f = (d & b) | (~d & c)
                g = (5 * i + 1) % 16
            case 32..<48:
                f = b ^ c ^ d
                g = (3 * i + 5) % 16
            default:
                f = c ^ (b | ~d)
                g = (7 * i) % 16
            }
            f = f &+ a &+ Self.table[i] &+ m[g]
            a = d
            d = c
            c = b
            let s = Self.shifts[i]
            b = b &+ ((f << s) | (f >> (32 - s)))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    /// The 32 lowercase hex digits (the hash of what was added; `self` is left as it was).
    public func hex() -> String {
        var copy = self
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        while (copy.pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for k in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        let saved = copy.length
        copy.add(tail)
        copy.length = saved
        var out = ""
        for w in [copy.state.0, copy.state.1, copy.state.2, copy.state.3] {
            for k in 0..<4 {
                let byte = UInt8(truncatingIfNeeded: w >> (8 * UInt32(k)))
                let h = String(byte, radix: 16)
                out += h.count == 1 ? "0" + h : h
            }
        }
        return out
    }
}

/// Numbers and times written as bytes straight into a buffer: the one implementation behind
/// `OutputSink`'s streaming output and `TextFormat`'s strings, so both always agree.
enum NumberText {
    static let digitPairs: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 200)
        for i in 0..<100 {
            t[2 * i] = UInt8(ascii: "0") + UInt8(i / 10)
            t[2 * i + 1] = UInt8(ascii: "0") + UInt8(i % 10)
        }
        return t
    }()

    static let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// 10^decimals as a double (exact: every power of ten up to 10^22 is).
    @inline(__always)
    static func scale(_ decimals: Int) -> Double {
        if decimals < powers.count { return powers[decimals] }
        var s = 1.0
        for _ in 0..<decimals { s *= 10 }
        return s
    }

    /// Writes the decimal digits of `v` at `p` (at least `minDigits`, zero-padded); returns the count.
    @inline(__always)
    static func digits(_ v0: UInt64, minDigits: Int, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch: a UInt64 has ≤ 20 digits
        return withUnsafeMutableBytes(of: &tmp) { raw -> Int in
            let t = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var v = v0
            var i = 24
            while v >= 10 {
                let r = Int(v % 100)
                v /= 100
                i -= 2
                t[i] = digitPairs[2 * r]
                t[i + 1] = digitPairs[2 * r + 1]
            }
            if v > 0 || i == 24 {
                i -= 1
                t[i] = UInt8(ascii: "0") + UInt8(v)
            }
            var n = 24 - i
            var out = 0
            while n < minDigits {
                p[out] = UInt8(ascii: "0")
                out += 1
                n += 1
            }
            (p + out).update(from: t + i, count: 24 - i)
            return out + 24 - i
        }
    }

    /// The bytes `decimal` may write for `decimals` digits after the point.
    static func decimalCapacity(_ decimals: Int) -> Int { 24 + max(decimals, 20) }

    /// `value` with `decimals` digits after the point, rounded half away from zero; `trim` drops
    /// trailing zeros (and then the point). Writes at `p` (room for `decimalCapacity(decimals)`)
    /// and returns the count; nil (nothing written) when |value| × 10^decimals reaches 9e18,
    /// which `TextFormat.largeDigits` handles. `value` must be finite.
    @inline(__always)
    static func decimal(_ value: Double, _ decimals: Int, trim: Bool, _ p: UnsafeMutablePointer<UInt8>) -> Int? {
        let scale = Self.scale(decimals)
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else { return nil }
        let n = UInt64(scaled)
        let pw = UInt64(scale)
        var k = 0
        let intPart = n / pw
        var frac = n % pw
        var fd = decimals
        if trim {
            while fd > 0 && frac % 10 == 0 { frac /= 10; fd -= 1 }
        }
        if value < 0 && n != 0 { p[0] = UInt8(ascii: "-"); k = 1 }
        k += digits(intPart, minDigits: 1, p + k)
        if fd > 0 {
            p[k] = UInt8(ascii: ".")
            k += 1
            k += digits(frac, minDigits: fd, p + k)
        }
        return k
    }

    /// The bytes `isoTime` may write.
    static let isoTimeCapacity = 40

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        var q = a / b, r = a % b
        if r < 0 { q -= 1; r += b }
        return (q, r)
    }

    /// The date of day `days` since 1970-01-01: `2026-05-01` (the year at least 4 characters,
    /// zero-padded in front). Returns the count (at most 28).
    static func date(days: Int64, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        let (y, m, d) = civil(fromDays: days)
        var k = 0
        let yearLength = (y < 0 ? 1 : 0) + digits(y.magnitude, minDigits: 1, p)  // measured, then rewritten
        while k + yearLength < 4 { p[k] = UInt8(ascii: "0"); k += 1 }
        if y < 0 { p[k] = UInt8(ascii: "-"); k += 1 }
        k += digits(y.magnitude, minDigits: 1, p + k)
        p[k] = UInt8(ascii: "-")
        p[k + 1] = digitPairs[2 * Int(m)]; p[k + 2] = digitPairs[2 * Int(m) + 1]
        p[k + 3] = UInt8(ascii: "-")
        p[k + 4] = digitPairs[2 * Int(d)]; p[k + 5] = digitPairs[2 * Int(d) + 1]
        return k + 6
    }

    /// `T06:00:01Z`, or `T06:00:01.250Z` when `milli` is not zero. Returns the count (at most 14).
    @inline(__always)
    static func timeOfDay(seconds sod: Int64, milli: Int64, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        let h = Int(sod / 3600), mi = Int(sod / 60 % 60), s = Int(sod % 60)
        p[0] = UInt8(ascii: "T")
        p[1] = digitPairs[2 * h]; p[2] = digitPairs[2 * h + 1]; p[3] = UInt8(ascii: ":")
        p[4] = digitPairs[2 * mi]; p[5] = digitPairs[2 * mi + 1]; p[6] = UInt8(ascii: ":")
        p[7] = digitPairs[2 * s]; p[8] = digitPairs[2 * s + 1]
        var k = 9
        if milli != 0 {
            p[9] = UInt8(ascii: ".")
            k = 10 + digits(UInt64(milli), minDigits: 3, p + 10)
        }
        p[k] = UInt8(ascii: "Z")
        return k + 1
    }

    /// ISO 8601 UTC with milliseconds only when they are not zero. Returns the count.
    static func isoTime(ms: Int64, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        let (secs, milli) = floorDivMod(ms, 1000)
        let (days, sod) = floorDivMod(secs, 86_400)
        let k = date(days: days, p)
        return k + timeOfDay(seconds: sod, milli: milli, p + k)
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// A string from at most `capacity` bytes that `write` puts in a scratch buffer.
    static func string(capacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { b in
            let n = write(b.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: b[..<n]), as: UTF8.self)
        }
    }
}

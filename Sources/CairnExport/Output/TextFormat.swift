import CairnCore

/// Exact, locale-free text for numbers and times (no Foundation, no printf rounding surprises).
public enum TextFormat {
    /// `value` with exactly `decimals` digits after the point, rounded half away from zero.
    /// Every finite value gives its digits (the largest double has 309); non-finite values give
    /// nil: callers write nothing rather than "nan".
    public static func fixed(_ value: Double, _ decimals: Int) -> String? {
        decimalText(value, decimals, trim: false)
    }

    /// Like `fixed`, with trailing zeros (and a trailing point) removed: "12.5", "3".
    public static func trimmed(_ value: Double, _ decimals: Int) -> String? {
        decimalText(value, decimals, trim: true)
    }

    private static func decimalText(_ value: Double, _ decimals: Int, trim: Bool) -> String? {
        guard value.isFinite else { return nil }
        let small = NumberText.string(capacity: NumberText.decimalCapacity(decimals)) {
            NumberText.decimal(value, decimals, trim: trim, $0) ?? 0
        }
        if !small.isEmpty { return small }
        var (int, frac) = largeDigits(value, decimals)
        if trim { while frac.last == UInt8(ascii: "0") { frac.removeLast() } }
        var s = value < 0 ? "-" : ""
        s += String(decoding: int, as: UTF8.self)
        if !frac.isEmpty { s += "." + String(decoding: frac, as: UTF8.self) }
        return s
    }

    /// A duration as "H:MM:SS", rounded to the whole second from the tenths `--json` and FIT
    /// say (half up): 601.6 s is 0:10:02 beside `moving_time_s` 601.6, never 0:10:01. Every
    /// text duration (`info`, `list`, the figures line, the picture, the page) says it so.
    public static func clock(ms: Int64) -> String {
        let s = wholeSeconds(ms: ms)
        let h = s / 3600, m = s / 60 % 60, sec = s % 60
        return "\(h):" + (m < 10 ? "0" : "") + "\(m):" + (sec < 10 ? "0" : "") + "\(sec)"
    }

    /// A duration's whole seconds as `clock(ms:)` says them (status's `moving_time_s`).
    public static func wholeSeconds(ms: Int64) -> Int64 {
        let tenths = max(ms, 0) > Int64.max - 50 ? Int64.max / 100 : (max(ms, 0) + 50) / 100
        return (tenths + 5) / 10
    }

    /// `clock(ms:)` of seconds (the page's index holds them); nil for a negative or non-finite one.
    public static func clock(seconds s: Double) -> String? {
        guard s.isFinite, s >= 0 else { return nil }
        return clock(ms: s >= 9e15 ? Int64.max : Int64((s * 1000).rounded()))
    }

    /// ISO 8601 UTC with milliseconds only when they are not zero: `2026-05-01T06:00:01Z`,
    /// `2026-05-01T06:00:01.250Z`.
    public static func isoTime(ms: Int64) -> String {
        NumberText.string(capacity: NumberText.isoTimeCapacity) { NumberText.isoTime(ms: ms, $0) }
    }

    /// A JSON string literal, quotes included.
    public static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// Text safe inside XML character data and attribute values.
    public static func xmlEscaped(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 forbids most control characters even when escaped, and the two
                // noncharacters U+FFFE and U+FFFF (no parser reads a file holding one): those
                // are shown as U+FFFD, the controls dropped.
                if c.value < 0x20 && c != "\n" && c != "\t" && c != "\r" { continue }
                out.unicodeScalars.append(c.value == 0xFFFE || c.value == 0xFFFF ? "\u{FFFD}" : c)
            }
        }
        return out
    }

    /// A longitude as a writer prints it with `decimals` decimals, in [-180, 180) after the
    /// rounding (GPX 1.1's range; KML and GeoJSON take it too): a value the rounding would make
    /// 180 (179.99999996 at 7 decimals, a smoothed point past the antimeridian) is written
    /// 360° lower, and one outside the range is brought into it. Not finite: unchanged.
    public static func longitude(_ lon: Double, decimals: Int) -> Double {
        guard lon.isFinite else { return lon }
        var x = lon
        if x >= 180 || x < -180 {
            x = (x + 180).truncatingRemainder(dividingBy: 360)
            if x < 0 { x += 360 }
            x -= 180
        }
        var half = 0.5
        for _ in 0..<max(0, decimals) { half /= 10 }
        return x >= 180 - half ? x - 360 : x
    }

    /// A latitude held in [-90, 90] (a smoothed point cannot pass a pole).
    public static func latitude(_ lat: Double) -> Double {
        lat.isFinite ? min(max(lat, -90), 90) : lat
    }

    /// The digits of a finite `value` whose magnitude times 10^decimals is too large for a
    /// UInt64 (≥ 9e18): the integer part exactly (a double ≥ 2^53 is an integer, m × 2^e), and
    /// `decimals` digits of the fraction rounded half away from zero (with the carry).
    static func largeDigits(_ value: Double, _ decimals: Int) -> (int: [UInt8], frac: [UInt8]) {
        let a = abs(value)
        var ip = a.rounded(.towardZero)
        var fracDigits = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, decimals))
        let f = a - ip
        if f > 0 && decimals > 0 {
            // Only below 2^53 is there a fraction; then ip < 2^53 and 10^decimals ≤ 10^9, so
            // this stays exact enough and small.
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            var q = (f * scale).rounded()
            if q >= scale { q = 0; ip += 1 }
            let d = String(UInt64(q))
            let u = Array(d.utf8)
            for (i, c) in u.enumerated() { fracDigits[decimals - u.count + i] = c }
        } else if f >= 0.5 && decimals <= 0 {
            ip += 1
        }
        // ip = m × 2^e with m < 2^53: multiply m by 2 e times in base 10^9 limbs.
        let e = max(0, Int(ip.exponent) - 52)
        var m = UInt64(ip.significandBitPattern | (ip == 0 ? 0 : 1 << 52))
        if e == 0 { m = UInt64(ip) }
        var limbs: [UInt64] = [m % 1_000_000_000, m / 1_000_000_000 % 1_000_000_000, m / 1_000_000_000_000_000_000]
        var left = e
        while left > 0 {
            let shift = min(left, 29)  // limb (< 10^9 < 2^30) << 29 stays below 2^64
            var carry: UInt64 = 0
            for i in limbs.indices {
                let v = limbs[i] << UInt64(shift) + carry
                limbs[i] = v % 1_000_000_000
                carry = v / 1_000_000_000
            }
            while carry > 0 { limbs.append(carry % 1_000_000_000); carry /= 1_000_000_000 }
            left -= shift
        }
        while limbs.count > 1 && limbs.last == 0 { limbs.removeLast() }
        var digits = Array(String(limbs.last!).utf8)
        for limb in limbs.dropLast().reversed() {
            let d = Array(String(limb).utf8)
            digits += [UInt8](repeating: UInt8(ascii: "0"), count: 9 - d.count) + d
        }
        return (digits, fracDigits)
    }

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) { NumberText.floorDivMod(a, b) }
}

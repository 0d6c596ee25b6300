import CairnCore

/// Exact, locale-free text for numbers and times (no Foundation, no printf rounding surprises).
public enum TextFormat {
    /// `value` with exactly `decimals` digits after the point, rounded half away from zero.
    /// Non-finite values give nil: callers write nothing rather than "nan".
    public static func fixed(_ value: Double, _ decimals: Int) -> String? {
        guard value.isFinite else { return nil }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else { return nil }
        let n = UInt64(scaled)
        let p = UInt64(scale)
        var s = (value < 0 && n != 0) ? "-" : ""
        s += String(n / p)
        if decimals > 0 {
            let frac = String(n % p)
            s += "." + String(repeating: "0", count: decimals - frac.count) + frac
        }
        return s
    }

    /// Like `fixed`, with trailing zeros (and a trailing point) removed: "12.5", "3".
    public static func trimmed(_ value: Double, _ decimals: Int) -> String? {
        guard var s = fixed(value, decimals) else { return nil }
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        if s == "-0" { s = "0" }
        return s
    }

    /// ISO 8601 UTC with milliseconds only when they are not zero: `2026-05-01T06:00:01Z`,
    /// `2026-05-01T06:00:01.250Z`.
    public static func isoTime(ms: Int64) -> String {
        let (secs, milli) = floorDivMod(ms, 1000)
        let (days, sod) = floorDivMod(secs, 86_400)
        let (y, m, d) = civil(fromDays: days)
        var s = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        s += pad(sod / 3600, 2) + ":" + pad(sod / 60 % 60, 2) + ":" + pad(sod % 60, 2)
        if milli != 0 { s += "." + pad(milli, 3) }
        return s + "Z"
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
                // XML 1.0 forbids most control characters even when escaped.
                if c.value < 0x20 && c != "\n" && c != "\t" && c != "\r" { continue }
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        var q = a / b, r = a % b
        if r < 0 { q -= 1; r += b }
        return (q, r)
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
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
}

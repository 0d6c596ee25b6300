/// A zone's offset from UTC, in seconds east, as options and config files give it and `info`
/// shows it: `+02:00`, `-05:30`, `+0545`, `+2`, `Z` or `UTC` (0).
public enum UTCOffset {
    /// Zones lie within ±18 hours (RFC 9557); FIT and ISO 8601 take nothing beyond.
    public static let limitS = 18 * 3600

    /// The offset `text` names, or nil when it names none.
    public static func parse(_ text: String) -> Int? {
        if text == "Z" || text == "UTC" || text == "0" { return 0 }
        var u = Array(text.utf8)
        guard let sign = u.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        u.removeFirst()
        if u.count == 5, u[2] == UInt8(ascii: ":") { u.remove(at: 2) }
        guard !u.isEmpty, u.count <= 4, u.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let digits = u.map { Int($0) - 48 }
        let h: Int, m: Int
        switch digits.count {
        case 1, 2: h = digits.reduce(0) { $0 * 10 + $1 }; m = 0
        case 4: h = digits[0] * 10 + digits[1]; m = digits[2] * 10 + digits[3]
        default: return nil
        }
        guard m < 60 else { return nil }
        let s = h * 3600 + m * 60
        guard s <= limitS else { return nil }
        return sign == UInt8(ascii: "-") ? -s : s
    }

    /// `+02:00`, `-05:30`, `+00:00`.
    public static func format(_ seconds: Int) -> String {
        let a = abs(seconds) / 60
        let h = a / 60, m = a % 60
        return (seconds < 0 ? "-" : "+") + (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}

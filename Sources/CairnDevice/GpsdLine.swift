/// The gate in front of libgps. Debian's libgps 3.22 loops forever in its JSON parsers on some
/// malformed lines (found by the fuzzer; see Tests/crash/RESULTS.md), and a recorder stuck there
/// records nothing and ignores SIGTERM. So cairn reads gpsd's lines itself and hands libgps only
/// a TPV line that is strict JSON.
public enum GpsdLine {
    /// Only TPV lines reach libgps here: Debian's libgps 3.22 loops forever in its RTCM2 parser on
    /// a malformed line such as `{"c"class":"RTCM2":mod` (found by this fuzzer; see
    /// Tests/crash/RESULTS.md). libgps picks the parser by the first `"class":` in the line, so a
    /// line that starts with `{"class":"TPV",` only ever reaches the TPV parser. Whether `b`
    /// starts so: a compare against a compile-time constant (every line asks, and the generic
    /// `starts(with:)` costs far more).
    @inline(__always)
    static func hasTPVPrefix(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix: StaticString = "{\"class\":\"TPV\","
        let n = prefix.utf8CodeUnitCount
        guard b.count >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where b[k] != p[k] { return false }
        return true
    }

    /// libgps's parser also loops forever on some malformed TPV lines (e.g. a NUL byte and a stray
    /// `"class":"TPV":` inside), so lines are checked for strict JSON first: one object of
    /// strings, numbers, literals, arrays and objects, nothing after it. This is the check
    /// GpsdSource applies before handing a line to libgps.
    static func isStrictJSONObject(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func ws() { while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 13 || b[i] == 10 { i += 1 } }
        func lit(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            for k in 0..<n where b[i + k] != s.utf8Start[k] { return false }
            i += n
            return true
        }
        func string() -> Bool {
            guard i < b.count, b[i] == 34 else { return false }
            i += 1
            while i < b.count {
                let c = b[i]
                if c == 34 { i += 1; return true }
                if c < 32 { return false }
                if c == 92 {
                    i += 1
                    guard i < b.count else { return false }
                    if b[i] == 117 { guard i + 4 < b.count else { return false }; i += 4 } else if !"\"\\/bfnrt".utf8.contains(b[i]) { return false }
                }
                i += 1
            }
            return false
        }
        func number() -> Bool {
            let start = i
            if i < b.count, b[i] == 45 { i += 1 }
            var digits = 0
            while i < b.count, (48...57).contains(b[i]) || b[i] == 46 || b[i] == 101 || b[i] == 69 || b[i] == 43 || b[i] == 45 {
                i += 1
                digits += 1
            }
            return digits > 0 && i - start <= 40
        }
        func value(_ depth: Int) -> Bool {
            guard depth < 8 else { return false }
            ws()
            guard i < b.count else { return false }
            switch b[i] {
            case 34: return string()
            case 123, 91:
                let close: UInt8 = b[i] == 123 ? 125 : 93
                let object = b[i] == 123
                i += 1
                ws()
                if i < b.count, b[i] == close { i += 1; return true }
                while true {
                    if object {
                        ws()
                        guard string() else { return false }
                        ws()
                        guard i < b.count, b[i] == 58 else { return false }
                        i += 1
                    }
                    guard value(depth + 1) else { return false }
                    ws()
                    guard i < b.count else { return false }
                    if b[i] == 44 { i += 1; continue }
                    if b[i] == close { i += 1; return true }
                    return false
                }
            case 116: return lit("true")
            case 102: return lit("false")
            case 110: return lit("null")
            default: return number()
            }
        }
        guard b.first == 123, value(0) else { return false }
        ws()
        return i == b.count
    }

    /// Whether `b` opens like a TPV object laid out with whitespace (`{ "class": "TPV",`, valid
    /// JSON that some gpsd-compatible servers write). Cheap: it looks at the first bytes only.
    static func hasSpacedTPVPrefix(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func ws() { while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 13 || b[i] == 10 { i += 1 } }
        func lit(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            for k in 0..<n where b[i + k] != s.utf8Start[k] { return false }
            i += n
            return true
        }
        guard lit("{") else { return false }
        ws()
        guard lit("\"class\"") else { return false }
        ws()
        guard lit(":") else { return false }
        ws()
        guard lit("\"TPV\"") else { return false }
        ws()
        return lit(",")
    }

    /// A strict JSON object line with the whitespace outside its strings removed: gpsd's own
    /// compact layout, which the rest of the path reads. nil when the line is not strict JSON.
    static func compacted(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard isStrictJSONObject(b) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var inString = false, escaped = false
        for c in b {
            if inString {
                if escaped { escaped = false } else if c == 92 { escaped = true } else if c == 34 { inString = false }
                out.append(c)
            } else if c == 32 || c == 9 || c == 13 || c == 10 {
                continue
            } else {
                if c == 34 { inString = true }
                out.append(c)
            }
        }
        return out
    }

    /// A line libgps may parse: it starts `{"class":"TPV",` and is one strict JSON object.
    public static func isSafeTPV(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        hasTPVPrefix(b) && isStrictJSONObject(b)
    }
}

/// The JSON `rclone rcd` answers with, read two ways: small answers (an error, the config, the
/// remotes) whole into a `RcJSON` value, with bounds on their size and depth; a listing, of any
/// size, element by element as it comes (`Elements`).
enum RcJSON: Equatable {
    case object([(String, RcJSON)])
    case array([RcJSON])
    case string(String)
    /// A number, true, false or null, as its text.
    case scalar(String)

    static func == (a: RcJSON, b: RcJSON) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let x), .array(let y)): x == y
        case (.string(let x), .string(let y)), (.scalar(let x), .scalar(let y)): x == y
        default: false
        }
    }

    /// The value of `key` in an object.
    subscript(key: String) -> RcJSON? {
        if case .object(let fields) = self { return fields.first { $0.0 == key }?.1 }
        return nil
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A whole JSON text (at most 32 levels deep); nil when it is not one.
    static func parse(_ bytes: [UInt8]) -> RcJSON? {
        var i = 0
        guard let v = value(bytes, &i, depth: 0) else { return nil }
        skipSpace(bytes, &i)
        return i == bytes.count ? v : nil
    }

    private static func skipSpace(_ b: [UInt8], _ i: inout Int) {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    private static func value(_ b: [UInt8], _ i: inout Int, depth: Int) -> RcJSON? {
        skipSpace(b, &i)
        guard i < b.count, depth < 32 else { return nil }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var fields: [(String, RcJSON)] = []
            skipSpace(b, &i)
            if i < b.count, b[i] == UInt8(ascii: "}") {
                i += 1
                return .object(fields)
            }
            while true {
                skipSpace(b, &i)
                guard let k = string(b, &i) else { return nil }
                skipSpace(b, &i)
                guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                guard let v = value(b, &i, depth: depth + 1) else { return nil }
                fields.append((k, v))
                skipSpace(b, &i)
                guard i < b.count else { return nil }
                i += 1
                if b[i - 1] == UInt8(ascii: "}") { return .object(fields) }
                if b[i - 1] != UInt8(ascii: ",") { return nil }
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [RcJSON] = []
            skipSpace(b, &i)
            if i < b.count, b[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            while true {
                guard let v = value(b, &i, depth: depth + 1) else { return nil }
                items.append(v)
                skipSpace(b, &i)
                guard i < b.count else { return nil }
                i += 1
                if b[i - 1] == UInt8(ascii: "]") { return .array(items) }
                if b[i - 1] != UInt8(ascii: ",") { return nil }
            }
        case UInt8(ascii: "\""):
            return string(b, &i).map(RcJSON.string)
        default:
            let start = i
            while i < b.count, !",}] \t\r\n".utf8.contains(b[i]) { i += 1 }
            return i > start ? .scalar(String(decoding: b[start..<i], as: UTF8.self)) : nil
        }
    }

    /// A JSON string at `i` (its opening quote), its escapes undone.
    private static func string(_ b: [UInt8], _ i: inout Int) -> String? {
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        var out: [UInt8] = []
        var high: UInt32?
        while i < b.count {
            let c = b[i]
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                continue
            }
            guard i < b.count else { return nil }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard i + 4 <= b.count, let u = UInt32(String(decoding: b[i..<(i + 4)], as: UTF8.self), radix: 16) else { return nil }
                i += 4
                var scalar: UInt32 = u
                if (0xD800..<0xDC00).contains(u) {
                    high = u
                    continue
                }
                if (0xDC00..<0xE000).contains(u), let h = high { scalar = 0x10000 + ((h - 0xD800) << 10) + (u - 0xDC00) }
                high = nil
                out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default: out.append(e)
            }
        }
        return nil
    }

    /// The elements of the arrays directly inside the answer's object (`{"list": [{...}, ...]}`),
    /// each given compact (no space outside strings) as soon as it is whole; one over `limit`
    /// bytes is skipped.
    struct Elements {
        let limit: Int
        private var depth = 0
        private var inString = false
        private var escaped = false
        private var element: [UInt8] = []
        private var skipping = false

        init(limit: Int = 65536) { self.limit = limit }

        mutating func feed(_ bytes: ArraySlice<UInt8>, element give: ([UInt8]) -> Void) {
            for c in bytes {
                if inString {
                    if escaped {
                        escaped = false
                    } else if c == UInt8(ascii: "\\") {
                        escaped = true
                    } else if c == UInt8(ascii: "\"") {
                        inString = false
                    }
                    keep(c)
                    continue
                }
                switch c {
                case 0x20, 0x09, 0x0A, 0x0D: continue
                case UInt8(ascii: "\""):
                    inString = true
                    keep(c)
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    keep(c)
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    keep(c)
                    depth -= 1
                    if depth == 2 { flush(give) }
                    if depth < 2 {
                        // "]" of the array: no element (or a scalar one, ignored).
                        element = []
                        skipping = false
                    }
                case UInt8(ascii: ","):
                    if depth == 2 {
                        element = []
                        skipping = false
                    } else {
                        keep(c)
                    }
                default: keep(c)
                }
            }
        }

        private mutating func keep(_ c: UInt8) {
            guard depth >= 3 || (depth == 2 && inString), !skipping else { return }
            element.append(c)
            if element.count > limit {
                skipping = true
                element = []
            }
        }

        private mutating func flush(_ give: ([UInt8]) -> Void) {
            if !skipping && !element.isEmpty { give(element) }
            element = []
            skipping = false
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// A small command-line parser in the style of swift-argument-parser (which cannot be fetched
/// here): `--opt value`, `--opt=value`, flags, `--` ends options, options before or after
/// positionals. Errors are `UsageError`s, printed with the usage and exit code 64.
struct UsageError: Error {
    let message: String
    /// The error is a config file's line (named in the message): said without the usage text,
    /// which is of no help there.
    var inFile = false
    init(_ message: String) { self.message = message }
    init(inFile message: String) {
        self.message = message
        inFile = true
    }
}

struct OptionSpec {
    let name: String  // "--dir"
    let valueName: String?  // "DIR"; nil for a flag
    let help: String
    var short: String? = nil  // "-o"
    /// May be given more than once; every value is kept (`ParsedArguments.all`).
    var repeatable = false
}

struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    /// Every value of a repeatable option, in order.
    var repeated: [String: [String]] = [:]

    func value(_ name: String) -> String? { values[name] }
    func all(_ name: String) -> [String] { repeated[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }
}

func parseArguments(_ args: [String], options: [OptionSpec]) throws(UsageError) -> ParsedArguments {
    var result = ParsedArguments()
    var i = 0
    var onlyPositionals = false
    func spec(_ name: String) -> OptionSpec? { options.first { $0.name == name || ($0.short != nil && $0.short == name) } }
    while i < args.count {
        let a = args[i]
        i += 1
        if onlyPositionals || a == "-" || !a.hasPrefix("-") {
            result.positionals.append(a)
            continue
        }
        if a == "--" {
            onlyPositionals = true
            continue
        }
        var name = a
        var inline: String?
        if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
            name = String(a[..<eq])
            inline = String(a[a.index(after: eq)...])
        }
        guard let s = spec(name) else {
            var msg = "Unknown option '\(name)'"
            if let near = nearestName(name, options.map(\.name)) { msg += ". Did you mean '\(near)'?" }
            throw UsageError(msg)
        }
        if let valueName = s.valueName {
            if let v = inline {
                result.values[s.name] = v
                if s.repeatable { result.repeated[s.name, default: []].append(v) }
            } else if i < args.count, !(args[i].hasPrefix("--") && args[i].count > 2) {
                result.values[s.name] = args[i]
                if s.repeatable { result.repeated[s.name, default: []].append(args[i]) }
                i += 1
            } else {
                throw UsageError("Missing value for '\(s.name) <\(valueName.lowercased())>'")
            }
        } else {
            if inline != nil { throw UsageError("The flag '\(s.name)' takes no value") }
            result.flags.insert(s.name)
        }
    }
    return result
}

/// The closest name within edit distance 2, for "Did you mean" (options and config keys).
func nearestName(_ name: String, _ candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var prev = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var cur = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                cur[j + 1] = min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (ca == cb ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
    return candidates.map { ($0, distance(Array(name), Array($0))) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
}

/// Help text for a subcommand, laid out like swift-argument-parser's.
/// `width`: the columns to wrap to (the terminal's, 80 when output goes elsewhere).
func helpText(overview: String, usage: String, arguments: [(String, String)] = [], options: [OptionSpec], width: Int = helpWidth) -> String {
    var s = wrapped("OVERVIEW: \(overview)", width: width, indent: 2) + "\n" + wrapped("USAGE: \(usage)", width: width, indent: 7)
    let column = 26
    func row(_ left: String, _ right: String) -> String {
        let l = "  " + left
        let text = wrapped(right, width: width - column, indent: 0).split(separator: "\n", omittingEmptySubsequences: false)
        let pad = String(repeating: " ", count: column)
        var out = l.count < column ? l + String(repeating: " ", count: column - l.count) + text[0] + "\n" : l + "\n" + pad + text[0] + "\n"
        for line in text.dropFirst() where !line.isEmpty { out += pad + line + "\n" }
        return out
    }
    if !arguments.isEmpty {
        s += "\nARGUMENTS:\n"
        for (a, h) in arguments { s += row(a, h) }
    }
    s += "\nOPTIONS:\n"
    for o in options {
        var left = o.short.map { "\($0), " } ?? ""
        left += o.name + (o.valueName.map { " <\($0.lowercased())>" } ?? "")
        s += row(left, o.help)
    }
    s += row("-h, --help", "Show help information.")
    return s
}

/// The columns help is wrapped to: $COLUMNS when set (the man page's maker sets it wide), else
/// the terminal's on standard output, else 80; at least 40.
let helpWidth = max(40, POSIX.environment("COLUMNS").flatMap { StrictNumber.whole($0) } ?? POSIX.terminalColumns(1) ?? 80)

/// `text` broken at spaces into lines of at most `width` columns (a longer word stays whole). Its
/// own lines stay lines, each keeping its leading spaces; the rest of the first line goes on
/// indented by `indent`, of any other line by its own leading spaces. Ends with a newline.
func wrapped(_ text: String, width: Int, indent: Int) -> String {
    var out = ""
    for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        if line.count <= width {
            out += line + "\n"
            continue
        }
        let lead = line.prefix { $0 == " " }.count
        let pad = String(repeating: " ", count: n == 0 ? indent : lead)
        // Words with the spaces before each, as written (a table's columns keep their gaps).
        var words: [(gap: Substring, word: Substring)] = []
        var rest = line.dropFirst(lead)
        while !rest.isEmpty {
            let gap = rest.prefix { $0 == " " }
            rest = rest.dropFirst(gap.count)
            let word = rest.prefix { $0 != " " }
            rest = rest.dropFirst(word.count)
            if !word.isEmpty { words.append((gap, word)) }
        }
        var current = String(line.prefix(lead))
        var fresh = true
        for (gap, word) in words {
            if !fresh && current.count + gap.count + word.count > width {
                out += current + "\n"
                current = pad + word
            } else {
                current += (fresh ? "" : String(gap)) + word
            }
            fresh = false
        }
        out += current + "\n"
    }
    return out
}

/// Every number an option takes, on the command line or in the config file: plain decimal
/// digits, with a fraction where the option allows one ("5", "2.5"). No sign, exponent, hex,
/// `inf` or `nan`, spaces or underscores: `--sync 0x10` or `1e1` is a mistake, not 16 or 10.
enum StrictNumber {
    /// "0" to "999999999999999".
    static func whole(_ s: String) -> Int? {
        let u = Array(s.utf8)
        guard !u.isEmpty, u.count <= 15, u.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(s)
    }

    /// Digits with an optional fraction: "5", "5.", "2.5", ".5" are numbers; "1e1", "-1", "+2" are not.
    static func decimal(_ s: String) -> Double? {
        let u = Array(s.utf8)
        let dots = u.filter { $0 == 46 }.count
        guard u.count <= 30, dots <= 1, u.contains(where: { $0 >= 48 && $0 <= 57 }),
            u.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 })
        else { return nil }
        return Double(s)
    }
}

/// The raw arguments that are not valid UTF-8, printed with each bad byte as `\xHH`. Swift's
/// strings would replace such a byte with U+FFFD, and a path so changed names another file (or
/// none): such an argument is refused by name rather than reported missing.
func argumentsNotUTF8(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String] {
    var bad: [String] = []
    for k in 1..<Int(max(argc, 1)) {
        guard let p = argv[k] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
        if let escaped = escapedIfNotUTF8(bytes) { bad.append(escaped) }
    }
    return bad
}

/// nil when `bytes` are valid UTF-8; otherwise their text with every invalid byte as `\xHH`.
func escapedIfNotUTF8<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
    var out = ""
    var invalid = false
    var rest = Array(bytes)[...]
    // One scalar at a time, so that the bytes of an invalid sequence can be named.
    while let first = rest.first {
        var decoder = UTF8()
        var it = rest.makeIterator()
        if case .scalarValue(let s) = decoder.decode(&it) {
            out.unicodeScalars.append(s)
            rest = rest.dropFirst(UTF8.width(s))
        } else {
            invalid = true
            out += "\\x" + (first < 16 ? "0" : "") + String(first, radix: 16, uppercase: true)
            rest = rest.dropFirst()
        }
    }
    return invalid ? out : nil
}

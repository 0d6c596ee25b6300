#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `/etc/cairn.conf`: one `key = value` per line, `#` starts a comment line, blank lines are
/// ignored. The keys are `record`'s option names without the dashes (`gpsd`, `dir`, `sync`...);
/// flags take `yes`/`no` (also true/false, on/off, 1/0). A value may be wrapped in double quotes.
/// Precedence: the command line, then the file, then the defaults. Any mistake (an unknown or
/// repeated key, a line without `=`, an empty value) is an error naming the file and the line;
/// so is a value the option rejects (checked where the option is checked, with the file's line).
struct ConfigFile {
    struct Entry {
        var key: String
        var value: String
        var line: Int
        var isFlag: Bool
    }
    let path: String
    private(set) var entries: [Entry] = []

    /// Parses `text` against the options it may set (every option of the command but `--config`).
    init(path: String, text: String, options: [OptionSpec]) throws(UsageError) {
        self.path = path
        let allowed = options.filter { $0.name != "--config" }
        var seen: [String: Int] = [:]
        var n = 0
        // "\r\n" is one Character in Swift: split on both, so files written on Windows count lines right.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            n += 1
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let t = trim(line)
            if t.isEmpty || t.hasPrefix("#") { continue }
            guard let eq = t.firstIndex(of: "=") else {
                throw UsageError("\(path):\(n): expected 'key = value', got '\(t)'")
            }
            let key = trim(t[..<eq])
            var value = trim(t[t.index(after: eq)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if key.isEmpty { throw UsageError("\(path):\(n): missing key before '='") }
            if key == "config" { throw UsageError("\(path):\(n): 'config' cannot be set in a config file") }
            guard let spec = allowed.first(where: { $0.name == "--" + key }) else {
                var msg = "\(path):\(n): unknown key '\(key)'"
                if let near = nearestName("--" + key, allowed.map(\.name)) { msg += " (did you mean '\(near.dropFirst(2))'?)" }
                throw UsageError(msg + "; keys: " + allowed.map { String($0.name.dropFirst(2)) }.joined(separator: ", "))
            }
            if let first = seen[key] { throw UsageError("\(path):\(n): '\(key)' is already set on line \(first)") }
            seen[key] = n
            if value.isEmpty { throw UsageError("\(path):\(n): '\(key)' has no value") }
            if spec.valueName == nil {
                switch value.lowercased() {
                case "yes", "true", "on", "1": value = "yes"
                case "no", "false", "off", "0": value = "no"
                default: throw UsageError("\(path):\(n): '\(key)' is a flag: use yes or no, not '\(value)'")
                }
            }
            entries.append(Entry(key: key, value: value, line: n, isFlag: spec.valueName == nil))
        }
    }

    /// Reads and parses `path`. A missing or unreadable file is an error (it was asked for).
    static func load(_ path: String, options: [OptionSpec]) throws -> ConfigFile {
        guard let text = readSmallFile(path) else {
            throw Failure("\(path): cannot read the config file: \(String(cString: strerror(errno)))")
        }
        return try ConfigFile(path: path, text: text, options: options)
    }

    /// Fills in what the command line did not set. Returns where each value came from
    /// (`FILE:LINE`) for the options the file set, so a rejected value names its line.
    func merge(into a: inout ParsedArguments) -> [String: String] {
        var origin: [String: String] = [:]
        for e in entries {
            let name = "--" + e.key
            if a.values[name] != nil || a.flags.contains(name) { continue }  // the command line wins
            if e.isFlag {
                if e.value == "yes" { a.flags.insert(name) }
            } else {
                a.values[name] = e.value
            }
            origin[name] = "\(path):\(e.line)"
        }
        return origin
    }

}

private func trim<S: StringProtocol>(_ s: S) -> String {
    var a = s[...]
    while let f = a.first, f == " " || f == "\t" { a = a.dropFirst() }
    while let l = a.last, l == " " || l == "\t" { a = a.dropLast() }
    return String(a)
}


#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnExport
import CairnSystem

/// `/etc/cairn.conf`: one `key = value` per line, `#` starts a comment line, blank lines are
/// ignored. The keys are `record`'s option names without the dashes (`gpsd`, `dir`, `sync`...);
/// flags take `yes`/`no` (also true/false, on/off, 1/0). A value may be wrapped in double quotes.
/// A `[deliver]` line starts the section of `cairn deliver`'s keys (its option names without the
/// dashes: `remote`, `format`...), up to the end of the file or the next section; `record` checks
/// and skips them, `deliver` reads them with the top's `dir`, `board` and `privacy-zone`.
/// Precedence: the command line, then the file, then the defaults. Any mistake (an unknown or
/// repeated key, a line without `=`, an empty value) is an error naming the file and the line;
/// so is a value the option rejects (checked where the option is checked, with the file's line).
struct ConfigFile {
    struct Entry {
        var key: String
        var value: String
        var line: Int
        var isFlag: Bool
        /// The `[section]` it is in; nil at the top.
        var section: String? = nil
        /// A key that may be given on several lines (`sensor`): every line's value is kept.
        var repeatable = false
    }

    /// The sections a file may hold, each with the keys it takes.
    static var sections: [(name: String, options: [OptionSpec])] { [("deliver", DeliverCommand.sectionOptions)] }
    let path: String
    private(set) var entries: [Entry] = []

    /// Parses `text` against the options it may set (every option of the command but `--config`).
    init(path: String, text: String, options: [OptionSpec]) throws(UsageError) {
        self.path = path
        let top = options.filter { $0.name != "--config" && $0.name != "--check" && $0.name != "--led-grant" } + Self.sharedKeys
        var allowed = top
        var section: String?
        var seen: [String: Int] = [:]
        var n = 0
        // "\r\n" is one Character in Swift: split on both, so files written on Windows count lines right.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            n += 1
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let t = trim(line)
            if t.isEmpty || t.hasPrefix("#") { continue }
            if t.hasPrefix("[") {
                let name = t.hasSuffix("]") ? trim(t.dropFirst().dropLast()) : ""
                guard let s = Self.sections.first(where: { $0.name == name }) else {
                    throw UsageError(
                        inFile: "\(path):\(n): unknown section '\(t)'; sections: " + Self.sections.map { "[\($0.name)]" }.joined(separator: ", "))
                }
                if seen["[" + name] != nil { throw UsageError(inFile: "\(path):\(n): section [\(name)] already began on line \(seen["[" + name]!)") }
                seen["[" + name] = n
                section = name
                allowed = s.options
                continue
            }
            guard let eq = t.firstIndex(of: "=") else {
                throw UsageError(inFile: "\(path):\(n): expected 'key = value', got '\(t)'")
            }
            var key = trim(t[..<eq])
            if key == "privacy_zone" { key = "privacy-zone" }  // the spelling the zone's users know from other tools
            var value = trim(t[t.index(after: eq)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if key.isEmpty { throw UsageError(inFile: "\(path):\(n): missing key before '='") }
            if key == "config" { throw UsageError(inFile: "\(path):\(n): 'config' cannot be set in a config file") }
            // In a file it would make every start of the service print the settings and exit.
            if key == "check" {
                throw UsageError(inFile: "\(path):\(n): 'check' is a command-line flag only (cairn record --config \(path) --check)")
            }
            let readerKey = section == nil && Self.readerKeys.contains(key)
            guard
                let spec = allowed.first(where: { $0.name == "--" + key })
                    ?? (readerKey ? OptionSpec(name: "--" + key, valueName: "VALUE", help: "") : nil)
            else {
                var msg = "\(path):\(n): unknown key '\(key)'"
                // The fuel keys belong to the file's top (what `info` and `list` read), no section.
                let names = allowed.map(\.name) + (section == nil ? Self.readerKeys.map { "--" + $0 } : [])
                if let near = nearestName("--" + key, names) { msg += " (did you mean '\(near.dropFirst(2))'?)" }
                throw UsageError(inFile: msg + "; keys: " + names.map { String($0.dropFirst(2)) }.joined(separator: ", "))
            }
            let seenKey = (section.map { "[\($0)]" } ?? "") + key
            if let first = seen[seenKey], !spec.repeatable { throw UsageError(inFile: "\(path):\(n): '\(key)' is already set on line \(first)") }
            seen[seenKey] = n
            if value.isEmpty { throw UsageError(inFile: "\(path):\(n): '\(key)' has no value") }
            if spec.valueName == nil {
                switch value.lowercased() {
                case "yes", "true", "on", "1": value = "yes"
                case "no", "false", "off", "0": value = "no"
                default: throw UsageError(inFile: "\(path):\(n): '\(key)' is a flag: use yes or no, not '\(value)'")
                }
            }
            entries.append(
                Entry(key: key, value: value, line: n, isFlag: spec.valueName == nil, section: section, repeatable: spec.repeatable))
        }
    }

    /// The lines of the top's `key` entries, "4" or "4,9"; nil when there is none.
    func lines(of key: String) -> String? {
        let ls = entries.filter { $0.key == key && $0.section == nil }.map { "\($0.line)" }
        return ls.isEmpty ? nil : ls.joined(separator: ",")
    }

    /// Keys that set no option of `record`: what `info` and `list` read from the same file
    /// (their `--config`): a drive's fuel, see FuelSettings.
    static let readerKeys = ["fuel_l_per_100km", "fuel_price"]

    /// Keys every config file may hold, for the commands that read the recorder's file
    /// (`convert --config`): one line per privacy zone, repeatable.
    static let sharedKeys = [
        OptionSpec(name: "--privacy-zone", valueName: "LAT,LON,RADIUS_M", help: "", repeatable: true)
    ]

    /// The file's privacy zones (`privacy-zone = LAT,LON,RADIUS_M` lines, in order); a line
    /// that is not one is an error naming the file and the line.
    func privacyZones() throws(UsageError) -> [PrivacyZone] { try privacyZoneLines().map(\.zone) }

    /// `privacyZones`, each with where it was given (`FILE:LINE: privacy-zone`).
    func privacyZoneLines() throws(UsageError) -> [(zone: PrivacyZone, source: String)] {
        var zones: [(zone: PrivacyZone, source: String)] = []
        for e in entries where e.key == "privacy-zone" && e.section == nil {
            switch PrivacyZone.parse(e.value) {
            case .success(let z): zones.append((z, "\(path):\(e.line): privacy-zone"))
            case .failure(let why): throw UsageError(inFile: "\(path):\(e.line): privacy-zone: \(why)")
            }
        }
        return zones
    }

    /// The file's `board = ID` line (`BoardId`), or nil; a bad id is an error naming the line.
    func board() throws(UsageError) -> String? {
        guard let e = entries.last(where: { $0.key == "board" }) else { return nil }
        do { return try BoardId(parsing: e.value).text } catch { throw UsageError(inFile: "\(path):\(e.line): board: \(error.reason)") }
    }

    /// A config file is a few hundred bytes; anything over this is the wrong file.
    static let sizeLimit = 1 << 20

    /// Reads and parses `path`, whole. A missing, unreadable or oversized file, or one that is
    /// not a regular file, is an error with exit status 78 (EX_CONFIG: it was asked for, and a
    /// restart will not fix it).
    static func load(_ path: String, options: [OptionSpec]) throws -> ConfigFile {
        func fail(_ why: String) -> Failure { Failure("\(path): cannot read the config file: \(why)", status: ExitCode.config) }
        // O_NONBLOCK: a FIFO given by mistake must not hang the start.
        let fd: Int32
        do { fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } catch { throw fail("\(error)") }
        defer { POSIX.close(fd) }
        let st: stat
        do { st = try POSIX.status(fd) } catch { throw fail("\(error)") }
        if (st.st_mode & S_IFMT) != S_IFREG { throw fail("not a regular file") }
        if Int(st.st_size) > sizeLimit { throw fail("\(st.st_size) bytes, over the 1 MiB a config file may have") }
        let bytes: [UInt8]
        do { bytes = try POSIX.readToEnd(fd, limit: sizeLimit) } catch { throw fail("\(error)") }
        if bytes.count > sizeLimit { throw fail("over the 1 MiB a config file may have") }
        return try ConfigFile(path: path, bytes: bytes, options: options)
    }

    /// Checks the bytes line by line (valid UTF-8, no control characters but tabs), then parses.
    init(path: String, bytes: [UInt8], options: [OptionSpec]) throws(UsageError) {
        var line = 1, start = 0
        func check(_ range: Range<Int>) throws(UsageError) {
            let b = bytes[range]
            if let bad = b.first(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0D) || $0 == 0x7F }) {
                throw UsageError(
                    "\(path):\(line): a control character (byte 0x\(String(bad, radix: 16, uppercase: true).leftPadded(2))) in the line; only printable text and tabs are allowed"
                )
            }
            var it = b.makeIterator()
            var decoder = UTF8()
            loop: while true {
                switch decoder.decode(&it) {
                case .scalarValue: continue
                case .emptyInput: break loop
                case .error: throw UsageError(inFile: "\(path):\(line): not valid UTF-8 text")
                }
            }
        }
        for (i, c) in bytes.enumerated() where c == 0x0A {
            try check(start..<i)
            start = i + 1
            line += 1
        }
        try check(start..<bytes.count)
        try self.init(path: path, text: String(decoding: bytes, as: UTF8.self), options: options)
    }

    /// Fills in what the command line did not set. Returns where each value came from
    /// (`FILE:LINE`) for the options the file set, so a rejected value names its line.
    /// `section`: the entries of that section (nil: the top's), and `alsoTop`: keys of the top
    /// that the section's command takes too (deliver's `dir` and `board`).
    func merge(into a: inout ParsedArguments, section: String? = nil, alsoTop: [String] = []) -> [String: String] {
        var origin: [String: String] = [:]
        for e in entries
        where !Self.sharedKeys.contains(where: { $0.name == "--" + e.key })
            && (e.section == section || (e.section == nil && alsoTop.contains(e.key)))
        {
            let name = "--" + e.key
            // The command line wins (for a repeatable key, all its lines lose to any value there).
            if (a.values[name] != nil && origin[name] == nil) || a.flags.contains(name) { continue }
            if e.repeatable {
                a.repeated[name, default: []].append(e.value)
                a.values[name] = e.value
                origin[name] = origin[name].map { "\($0),\(e.line)" } ?? "\(path):\(e.line)"  // FILE:3,4
                continue
            }
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

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

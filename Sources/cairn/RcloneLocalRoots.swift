/// Where an rclone path keeps its files on this machine: through the remotes that wrap others
/// (alias, crypt, chunker, hasher, compress, cache, union, combine), read from rclone's config,
/// down to local folders. A crypt remote over a folder on the card is still the card: retention
/// must see through it (`OnThisCard`). Pure: the config comes in as sections.
enum RcloneLocalRoots {
    /// The local folders a path's files may lie in ([] for a remote elsewhere), or why that
    /// cannot be told.
    enum Answer: Equatable {
        case folders([String])
        case unknown(String)
    }

    /// A remote's settings ("type", "remote", "upstreams", ...).
    typealias Section = [String: String]

    /// The sections of `rclone config show` (an INI text: `[name]`, then `key = value` lines).
    static func sections(_ text: String) -> [String: Section] {
        var out: [String: Section] = [:]
        var current: String?
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                out[current!] = out[current!] ?? [:]
            } else if let name = current, let eq = line.firstIndex(of: "=") {
                out[name]?[String(line[..<eq]).trimmingSpaces] = String(line[line.index(after: eq)...]).trimmingSpaces
            }
        }
        return out
    }

    /// Types whose `remote` holds the same names below it (the wrapped folder plus the path).
    static let samePathWrappers: Set<String> = ["alias", "chunker", "hasher", "compress", "cache"]

    /// Resolves `path` ("name:folder", ":backend,opt=v:folder", "name,opt=v:folder", or a local
    /// path) with `section(name)` giving a named remote's settings. `cwd` makes a relative local
    /// path absolute.
    static func resolve(_ path: String, section: (String) -> Section?, cwd: String) -> Answer {
        resolve(path, section: section, cwd: cwd, depth: 0)
    }

    private static func resolve(_ path: String, section: (String) -> Section?, cwd: String, depth: Int) -> Answer {
        guard depth < 16 else { return .unknown("remotes wrap each other more than 16 deep") }
        guard let (spec, sub) = split(path) else { return .folders([absolute(path, cwd: cwd)]) }
        var settings: Section
        let head = spec.firstIndex(of: ",").map { String(spec[..<$0]) } ?? spec
        if head.hasPrefix(":") {
            settings = ["type": String(head.dropFirst())]
        } else if let s = section(head) {
            settings = s
        } else {
            return .unknown("rclone's config has no remote \(head)")
        }
        for (k, v) in parameters(spec) { settings[k] = v }
        guard let type = settings["type"] else { return .unknown("remote \(head) has no type") }
        func next(_ p: String) -> Answer { resolve(p, section: section, cwd: cwd, depth: depth + 1) }
        switch type {
        case "local":
            return .folders([absolute(sub.isEmpty ? "." : sub, cwd: cwd)])
        case _ where samePathWrappers.contains(type):
            guard let r = settings["remote"] else { return .unknown("\(type) remote \(head) names no remote") }
            return next(join(r, sub))
        case "crypt":
            // names below are encrypted: the wrapped folder is where they lie
            guard let r = settings["remote"] else { return .unknown("crypt remote \(head) names no remote") }
            return next(r)
        case "union":
            guard let ups = settings["upstreams"] else { return .unknown("union remote \(head) names no upstreams") }
            return all(words(ups).map { join(unionUpstream($0), sub) }, next)
        case "combine":
            guard let ups = settings["upstreams"] else { return .unknown("combine remote \(head) names no upstreams") }
            var map: [(dir: String, remote: String)] = []
            for w in words(ups) {
                guard let eq = w.firstIndex(of: "=") else { return .unknown("combine remote \(head): upstream \(w) has no dir=remote") }
                map.append((String(w[..<eq]), String(w[w.index(after: eq)...])))
            }
            let parts = sub.split(separator: "/", maxSplits: 1).map(String.init)
            if let first = parts.first, let m = map.first(where: { $0.dir == first }) {
                return next(join(m.remote, parts.count > 1 ? parts[1] : ""))
            }
            return all(map.map(\.remote), next)
        default:
            return .folders([])
        }
    }

    /// Every answer's folders, or the first that cannot be told.
    private static func all(_ paths: [String], _ resolve: (String) -> Answer) -> Answer {
        var folders: [String] = []
        for p in paths {
            switch resolve(p) {
            case .folders(let f): folders += f
            case .unknown(let why): return .unknown(why)
            }
        }
        return .folders(folders)
    }

    /// "spec" and the path after it, or nil for a local path (no ':' before any '/'). A ':'
    /// inside a quoted option value (`:crypt,remote='nas:x':`) does not end the spec.
    static func split(_ path: String) -> (spec: String, sub: String)? {
        var quote: Character?
        var i = path.startIndex
        while i < path.endIndex {
            defer { if i < path.endIndex { i = path.index(after: i) } }
            let c = path[i]
            if let q = quote {
                // a doubled quote inside quotes is one quote character
                let next = path.index(after: i)
                if c == q, next < path.endIndex, path[next] == q {
                    i = next
                } else if c == q {
                    quote = nil
                }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "/" && !path[..<i].contains(",") {
                return nil
            } else if c == ":" && i != path.startIndex {
                return (String(path[..<i]), String(path[path.index(after: i)...]))
            }
        }
        return nil
    }

    /// The `key=value` options of a connection string after its name (quotes removed).
    static func parameters(_ spec: String) -> [(String, String)] {
        var out: [(String, String)] = []
        var parts: [String] = []
        var cur = ""
        var quote: Character?
        var pendingClose = false
        for c in spec {
            if pendingClose {
                pendingClose = false
                if c == quote {
                    // '' inside '...' is one '
                    cur.append(c)
                    continue
                }
                quote = nil
            }
            if quote != nil {
                if c == quote { pendingClose = true } else { cur.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "," {
                parts.append(cur)
                cur = ""
            } else {
                cur.append(c)
            }
        }
        parts.append(cur)
        for p in parts.dropFirst() {
            guard let eq = p.firstIndex(of: "=") else { continue }
            out.append((String(p[..<eq]).replacingDashes, String(p[p.index(after: eq)...])))
        }
        return out
    }

    /// A union's upstream without its `:ro`, `:nc` or `:writeback` tag.
    static func unionUpstream(_ u: String) -> String {
        for tag in [":ro", ":nc", ":writeback"] where u.hasSuffix(tag) { return String(u.dropLast(tag.count)) }
        return u
    }

    /// Space-separated words, a double-quoted one kept whole.
    static func words(_ s: String) -> [String] {
        var out: [String] = []
        var cur = ""
        var quoted = false
        for c in s {
            if c == "\"" {
                quoted.toggle()
            } else if c == " " && !quoted {
                if !cur.isEmpty { out.append(cur) }
                cur = ""
            } else {
                cur.append(c)
            }
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }

    static func join(_ remote: String, _ sub: String) -> String {
        if sub.isEmpty { return remote }
        if remote.hasSuffix(":") || remote.hasSuffix("/") { return remote + sub }
        return remote + "/" + sub
    }

    /// `path` made absolute and cleaned as rclone cleans it, by its text: "a/b/../c" is "a/c"
    /// whatever "b" is (a link to a stick, or nothing).
    static func absolute(_ path: String, cwd: String) -> String {
        let whole = path.hasPrefix("/") ? path : (cwd.hasSuffix("/") ? cwd + path : cwd + "/" + path)
        var parts: [Substring] = []
        for p in whole.split(separator: "/") {
            if p == "." { continue }
            if p == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(p)
        }
        return "/" + parts.joined(separator: "/")
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }

    fileprivate var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
}

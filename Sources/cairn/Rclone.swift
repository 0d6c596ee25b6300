import CairnSystem
import CairnExport

/// The edge to rclone, the one transport of `cairn deliver` (here rather than in CairnDevice,
/// whose per-fix code is built for speed: this is built for size, for the 8 MB binary): each call is one rclone command
/// (Debian's rclone 1.60 or later), with its retries left to the caller, so that a delivery
/// decides itself when to try again and when to give up for this run.
struct Rclone: TripRemote, Sendable {
    /// The program (`rclone`, looked up in PATH, or a path).
    var program: String
    /// `--config FILE` for rclone, or nil for its own default (~/.config/rclone/rclone.conf).
    var configFile: String?
    /// Seconds without progress before rclone gives up a transfer (its `--timeout`) and to
    /// connect (`--contimeout`); a call is killed after 30 times this in all, or after
    /// `deadlineSeconds` when set.
    var timeoutSeconds: Int
    var deadlineSeconds: Double?

    init(program: String, configFile: String?, timeoutSeconds: Int) {
        self.program = program
        self.configFile = configFile
        self.timeoutSeconds = timeoutSeconds
    }

    /// A failed call: what rclone said, and whether the thing asked for is missing (rclone's exit
    /// statuses 3 and 4: directory or file not found).
    typealias Failure = RemoteFailure

    /// A local folder for the path lists of batch calls (`--files-from`); nil: none of those.
    var scratch: String?

    var common: [String] {
        var a = [
            program, "--retries", "1", "--low-level-retries", "2", "--contimeout", "\(timeoutSeconds)s", "--timeout", "\(timeoutSeconds)s",
            "--log-level", "ERROR"
        ]
        if let c = configFile { a += ["--config", c] }
        return a
    }

    /// `bytes`: what the call moves, which lengthens its deadline (at 2 kB/s): a batch of a month
    /// of rides on a slow link is not killed part way, run after run.
    private func call(_ what: String, _ arguments: [String], bytes: Int = 0, output: (UnsafeRawBufferPointer) -> Void = { _ in }) throws(Failure) {
        let outcome: Subprocess.Outcome
        do {
            outcome = try Subprocess.run(
                common + arguments, deadline: deadlineSeconds ?? (Double(timeoutSeconds) * 30 + Double(bytes) / 2000), output: output)
        } catch {
            throw Failure(what: what, detail: "\(error)", notFound: false)
        }
        if outcome.status == 0 { return }
        let said = Self.lastLines(outcome.errorText)
        if outcome.timedOut {
            throw Failure(
                what: what, detail: "no answer within \(Int(deadlineSeconds ?? Double(timeoutSeconds) * 30)) s, stopped", notFound: false,
                interrupted: true)
        }
        if let s = outcome.signal {
            throw Failure(
                what: what, detail: "rclone ended by signal \(s)" + (said.isEmpty ? "" : ": \(said)"), notFound: false, interrupted: true)
        }
        let status = outcome.status ?? -1
        throw Failure(what: what, detail: said.isEmpty ? "rclone exit status \(status)" : said, notFound: status == 3 || status == 4)
    }

    /// rclone's last error lines without their date and time, on one line.
    static func lastLines(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { line -> Substring in
            // "2026/12/03 16:29:59 ERROR : x: y" -> "x: y"
            var l = line[...]
            if l.count > 20, l[l.index(l.startIndex, offsetBy: 4)] == "/" { l = l.dropFirst(20) }
            if l.hasPrefix("ERROR : ") { l = l.dropFirst(8) }
            if l.hasPrefix("NOTICE: ") { l = l.dropFirst(8) }
            return l
        }
        return lines.suffix(2).joined(separator: "; ")
    }

    /// The names of the remotes rclone's config holds ("nas", "s3"), without the colon.
    func remotes() throws(Failure) -> [String] {
        var bytes: [UInt8] = []
        try call("rclone listremotes", ["listremotes"]) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { l in
            l.hasSuffix(":") ? String(l.dropLast()) : String(l)
        }
    }

    /// The local folders `folder`'s files lie in, when rclone keeps them on this machine's file
    /// systems: a local remote, a plain path, or any remote wrapping one (alias, crypt, union,
    /// ...), read from `rclone config show` and the RCLONE_CONFIG_ environment; [] for a remote
    /// elsewhere.
    func localFolders(_ folder: String) throws(Failure) -> RcloneLocalRoots.Answer {
        let cwd = (try? POSIX.currentDirectory()) ?? "/"
        guard RcloneLocalRoots.split(folder) != nil else { return RcloneLocalRoots.resolve(folder, section: { _ in nil }, cwd: cwd) }
        var bytes: [UInt8] = []
        try call("rclone config show", ["config", "show"]) { bytes.append(contentsOf: $0) }
        let sections = RcloneLocalRoots.sections(String(decoding: bytes, as: UTF8.self))
        return RcloneLocalRoots.resolve(folder, section: { Self.section($0, config: sections) }, cwd: cwd)
    }

    /// A remote's settings as rclone reads them: its environment's RCLONE_CONFIG_NAME_KEY, then
    /// the backend's RCLONE_TYPE_KEY (RCLONE_CRYPT_REMOTE), over the config file's.
    static func section(_ name: String, config: [String: RcloneLocalRoots.Section]) -> RcloneLocalRoots.Section? {
        section(name, config: config, environment: POSIX.environment)
    }

    static func section(
        _ name: String, config: [String: RcloneLocalRoots.Section], environment: (String) -> String?
    ) -> RcloneLocalRoots.Section? {
        func upper(_ s: String) -> String { String(s.uppercased().map { $0 == "-" ? "_" : $0 }) }
        var s = config[name]
        let named = "RCLONE_CONFIG_" + upper(name) + "_"
        if let t = environment(named + "TYPE") {
            s = s ?? [:]
            s?["type"] = t
        }
        guard var found = s else { return nil }
        for key in ["remote", "upstreams"] {
            if let v = environment(named + upper(key)) ?? found["type"].flatMap({ environment("RCLONE_" + upper($0) + "_" + upper(key)) }) {
                found[key] = v
            }
        }
        return found
    }

    /// Streams the bytes of the remote file `path` to `output` (rclone cat).
    /// `limit`: at most this many bytes (rclone cat --count), for a file that should be small
    /// but lies at a remote anyone may have written to.
    func read(_ path: String, limit: Int? = nil, output: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        try call("read back \(path)", ["cat"] + (limit.map { ["--count", "\($0)"] } ?? []) + [path], output: output)
    }

    /// Whether `needle` occurs in `bytes`. (String's own search would link the regex engine,
    /// a megabyte of the binary.)
    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return needle.isEmpty }
        for i in 0...(bytes.count - needle.count) where bytes[i] == needle[0] && bytes[i..<(i + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    /// Runs an rclone listing of `folder` and gives each line of its answer to `line` as it
    /// comes, in bounded memory (a line over 64 KiB is no file deliver wrote, and is skipped).
    private func listLines(_ folder: String, arguments: [String], line: ([UInt8]) -> Void) throws(Failure) {
        var pending: [UInt8] = []
        var skipping = false
        try call("list \(folder)", arguments + [folder]) { chunk in
            for b in chunk {
                if b == 0x0A {
                    if !skipping { line(pending) }
                    pending.removeAll(keepingCapacity: true)
                    skipping = false
                } else if !skipping {
                    pending.append(b)
                    if pending.count > 65536 {
                        skipping = true
                        pending.removeAll(keepingCapacity: true)
                    }
                }
            }
        }
        if !skipping && !pending.isEmpty { line(pending) }
    }

    // MARK: TripRemote

    func list(_ folder: String, hashes: Bool, entry: (RemoteEntry) -> Void) throws(Failure) {
        try listLines(folder, arguments: ["lsjson", "-R", "--no-mimetype", "--no-modtime"] + (hashes ? ["--hash-type", "md5"] : [])) { line in
            if let e = RemoteCopies.entry(line) {
                entry(RemoteEntry(path: e.name, size: e.size, isFolder: e.isFolder, md5: hashes ? RemoteCopies.listed(line)?.md5 : nil))
            }
        }
    }

    func listFolders(_ folder: String) throws(Failure) -> [String] {
        var names: [String] = []
        try listLines(folder, arguments: ["lsjson", "--dirs-only", "--no-mimetype", "--no-modtime"]) { line in
            if let e = RemoteCopies.entry(line), e.isFolder, !e.name.contains("/") { names.append(e.name) }
        }
        return names
    }

    func mirror(_ local: String, to folder: String) throws(Failure) {
        // --copy-links: the staged logs are links to the log files. --delete-before: what an
        // earlier batch left that this one does not hold goes first, so that a remote with room
        // for this batch only takes it.
        try call("send to \(folder)", ["sync", "--copy-links", "--delete-before", Self.localArgument(local), folder], bytes: Self.size(of: local))
    }

    func readBack(_ folder: String, paths: [String]?, md5: (String, String) -> Void) throws(Failure) {
        var arguments = ["md5sum", "--download"]
        if let p = paths { arguments += ["--files-from-raw", try pathList(p)] }
        var pending: [UInt8] = []
        func take(_ line: [UInt8]) {
            // "<32 hex>  relative/path"
            guard line.count > 34, line[32] == 0x20, line[33] == 0x20 else { return }
            md5(String(decoding: line[0..<32], as: UTF8.self).lowercased(), String(decoding: line[34...], as: UTF8.self))
        }
        try call("read back \(folder)", arguments + [folder], bytes: 1 << 24) { chunk in
            for b in chunk {
                if b == 0x0A {
                    take(pending)
                    pending.removeAll(keepingCapacity: true)
                } else if pending.count <= 65536 {
                    pending.append(b)
                }
            }
        }
        if !pending.isEmpty { take(pending) }
    }

    func moveAll(_ source: String, into target: String, keep: Set<String>) throws(Failure) {
        var failure: Failure?
        if !keep.isEmpty {
            // --immutable: a file there with other bytes is an error, never replaced.
            do {
                try call("move \(source) to \(target)", ["move", "--immutable", "--files-from-raw", try pathList(keep.sorted()), source, target])
            } catch {
                if !error.notFound { failure = error }
            }
        }
        // --ignore-times: every other file replaces what is there (rclone deletes it first where
        // the backend's move does not overwrite), even a copy of the same size and time (a
        // damaged one) that it would otherwise take for this one.
        let others = keep.isEmpty ? [] : ["--exclude-from", try excludeList(keep.sorted())]
        do { try call("move \(source) to \(target)", ["move", "--ignore-times", "--delete-empty-src-dirs"] + others + [source, target]) } catch {
            if !error.notFound || failure == nil { failure = failure ?? error }
        }
        if let f = failure { throw f }
    }

    func delete(_ paths: [String], under folder: String) throws(Failure) {
        if paths.isEmpty { return }
        do {
            try call("delete in \(folder)", ["delete", "--files-from-raw", try pathList(paths), folder])
        } catch {
            if !error.notFound { throw error }
        }
    }

    func removeFolder(_ folder: String) throws(Failure) {
        do { try call("remove \(folder)", ["purge", folder]) } catch {
            if !error.notFound { throw error }
        }
    }

    /// The bytes of the files under the local folder `path` (links followed).
    static func size(of path: String) -> Int {
        var total = 0
        for n in (try? POSIX.listDirectory(path)) ?? [] where n != "." && n != ".." {
            let p = POSIX.join(path, n)
            if POSIX.isDirectory(p) { total += size(of: p) } else { total += fileSize(p) ?? 0 }
        }
        return total
    }

    /// A local path as an argument rclone reads as local whatever its first characters.
    static func localArgument(_ path: String) -> String { path.hasPrefix("/") ? path : "./" + path }

    /// Writes `paths` as rclone filter rules that match each exactly (from the root, its special
    /// characters escaped) to a file in `scratch`, and returns its path.
    func excludeList(_ paths: [String]) throws(Failure) -> String {
        let rules = paths.map { p in
            "/" + p.map { c -> String in "\\*?[]{}".contains(c) ? "\\" + String(c) : String(c) }.joined()
        }
        return try pathList(rules, name: "exclude")
    }

    /// Writes `paths` one a line to a file in `scratch` and returns its path.
    func pathList(_ paths: [String], name: String = "paths") throws(Failure) -> String {
        guard let s = scratch else { throw Failure(what: "a list of paths", detail: "no folder to write it in", notFound: false) }
        let file = POSIX.join(s, name + "-" + String(paths.count))
        let text = paths.joined(separator: "\n") + "\n"
        do { try writeFileAtomically(file, Array(text.utf8)) } catch {
            throw Failure(what: "a list of paths", detail: "\(file): \(error)", notFound: false)
        }
        return file
    }

    /// Deletes the files under `folder` whose names match `pattern` (rclone's filter syntax).
    func deleteMatching(_ pattern: String, under folder: String) throws(Failure) {
        try call("clean up \(folder)", ["delete", folder, "--include", pattern])
    }
}

import CairnSystem

/// The edge to rclone, the one transport of `cairn deliver` (here rather than in CairnDevice,
/// whose per-fix code is built for speed: this is built for size, for the 8 MB binary): each call is one rclone command
/// (Debian's rclone 1.60 or later), with its retries left to the caller, so that a delivery
/// decides itself when to try again and when to give up for this run.
public struct Rclone: Sendable {
    /// The program (`rclone`, looked up in PATH, or a path).
    public var program: String
    /// `--config FILE` for rclone, or nil for its own default (~/.config/rclone/rclone.conf).
    public var configFile: String?
    /// Seconds without progress before rclone gives up a transfer (its `--timeout`) and to
    /// connect (`--contimeout`); a call is killed after 30 times this in all, or after
    /// `deadlineSeconds` when set.
    public var timeoutSeconds: Int
    public var deadlineSeconds: Double?

    public init(program: String, configFile: String?, timeoutSeconds: Int) {
        self.program = program
        self.configFile = configFile
        self.timeoutSeconds = timeoutSeconds
    }

    /// A failed call: what rclone said, and whether the thing asked for is missing (rclone's exit
    /// statuses 3 and 4: directory or file not found).
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let what: String
        public let detail: String
        public let notFound: Bool
        /// rclone was stopped (a signal, or no answer in time): nothing said about the setup.
        public var interrupted = false
        public var description: String { detail.isEmpty ? what : "\(what): \(detail)" }
    }

    private var common: [String] {
        var a = [
            program, "--retries", "1", "--low-level-retries", "2", "--contimeout", "\(timeoutSeconds)s", "--timeout", "\(timeoutSeconds)s",
            "--log-level", "ERROR"
        ]
        if let c = configFile { a += ["--config", c] }
        return a
    }

    private func call(_ what: String, _ arguments: [String], output: (UnsafeRawBufferPointer) -> Void = { _ in }) throws(Failure) {
        let outcome: Subprocess.Outcome
        do {
            outcome = try Subprocess.run(common + arguments, deadline: deadlineSeconds ?? Double(timeoutSeconds) * 30, output: output)
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
    public static func lastLines(_ text: String) -> String {
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
    public func remotes() throws(Failure) -> [String] {
        var bytes: [UInt8] = []
        try call("rclone listremotes", ["listremotes"]) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { l in
            l.hasSuffix(":") ? String(l.dropLast()) : String(l)
        }
    }

    /// Uploads the local file `source` as `target` (rclone copyto).
    public func upload(_ source: String, to target: String) throws(Failure) {
        // A relative local path could read as a flag ("-x/…") or a remote ("a:b/…"); rclone
        // takes one beginning with "./" as local.
        let local = source.hasPrefix("/") ? source : "./" + source
        try call("upload to \(target)", ["copyto", local, target])
    }

    /// Renames `source` to `target` on the remote (rclone moveto: a rename where the backend has
    /// one, else a server-side copy and delete; `target` appears whole either way).
    public func move(_ source: String, to target: String) throws(Failure) {
        try call("rename \(source) to \(target)", ["moveto", source, target])
    }

    /// Streams the bytes of the remote file `path` to `output` (rclone cat).
    /// `limit`: at most this many bytes (rclone cat --count), for a file that should be small
    /// but lies at a remote anyone may have written to.
    public func read(_ path: String, limit: Int? = nil, output: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        try call("read back \(path)", ["cat"] + (limit.map { ["--count", "\($0)"] } ?? []) + [path], output: output)
    }

    /// Whether `path` is a folder on the remote with something in it (false for a file or
    /// nothing; an object store answers "a folder" for any name, so an empty one is nothing).
    public func isFolder(_ path: String) throws(Failure) -> Bool {
        func list(_ extra: [String]) throws(Failure) -> [UInt8]? {
            var bytes: [UInt8] = []
            do {
                try call("look at \(path)", ["lsjson"] + extra + ["--no-mimetype", "--no-modtime", path]) { bytes.append(contentsOf: $0) }
            } catch {
                if error.notFound { return nil }
                throw error
            }
            // {"Path": "x", "Name": "x", "Size": -1, "IsDir": true}, spaced or not
            return bytes.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        }
        guard let stat = try list(["--stat"]), Self.find(Array("\"IsDir\":true".utf8), in: stat) else { return false }
        guard let inside = try list(["--max-depth", "1"]) else { return false }
        return inside.contains(UInt8(ascii: "{"))
    }

    /// Whether `needle` occurs in `bytes`. (String's own search would link the regex engine,
    /// a megabyte of the binary, for this one use.)
    public static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return needle.isEmpty }
        for i in 0...(bytes.count - needle.count) where bytes[i] == needle[0] && bytes[i..<(i + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    /// Lists the files under `folder`, every level (rclone lsjson -R --files-only), with their
    /// sizes and, with `md5`, their MD5 where the backend has one: each line of the listing goes
    /// to `line` as it comes, so that a folder of any size is read in bounded memory (a line
    /// over 64 KiB is no file deliver wrote, and is skipped).
    public func list(_ folder: String, md5: Bool, line: ([UInt8]) -> Void) throws(Failure) {
        var pending: [UInt8] = []
        var skipping = false
        try call(
            "list \(folder)", ["lsjson", "-R", "--files-only", "--no-mimetype", "--no-modtime"] + (md5 ? ["--hash-type", "md5"] : []) + [folder]
        ) { chunk in
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

    /// Deletes the remote file `path`.
    public func delete(_ path: String) throws(Failure) {
        try call("delete \(path)", ["deletefile", path])
    }

    /// Deletes the files under `folder` whose names match `pattern` (rclone's filter syntax).
    public func deleteMatching(_ pattern: String, under folder: String) throws(Failure) {
        try call("clean up \(folder)", ["delete", folder, "--include", pattern])
    }

    /// Creates `folder` (and its parents) where the backend has folders; a no-op elsewhere.
    public func makeFolder(_ folder: String) throws(Failure) {
        try call("create \(folder)", ["mkdir", folder])
    }
}

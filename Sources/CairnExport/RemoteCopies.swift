import CairnLog

/// What `cairn deliver` and retention trust of a copy on a remote: pure decisions, no I/O.
///
/// A log on the remote is never replaced by a local log that is shorter, torn, damaged or
/// another log: only by a byte-prefix growth of the same log, or (the copy damaged there) by
/// the same log reading clean at its size or longer, or whole where the copy is longer (bytes
/// added there: a whole log never grows). A copy counts as delivered, for retention
/// and for "already there", only while a listing of the remote made in the same run shows it
/// whole: its size, and its hash where the backend has one.
public enum RemoteCopies {
    /// What to do with a local log whose name the remote holds (or not).
    public enum LogDecision: Equatable, Sendable {
        /// Nothing there: send it.
        case send
        /// The same bytes there.
        case same
        /// An earlier copy of this log, which has grown since (a byte prefix of it): replaced.
        case grow
        /// A damaged copy of this log (its bytes differ from the local log, which reads clean
        /// and is no shorter, or is whole and shorter than the copy): replaced.
        case repair
        /// Kept as it is, and why.
        case keep(String)
    }

    /// `remote`: what the remote holds under the log's name (nil: nothing); `remoteSalt` the
    /// salt in its header (nil: no log header); `remoteIsPrefix` whether its bytes are the local
    /// log's first bytes; `localFlaw` what `cairn verify` finds wrong with the local log (torn,
    /// damaged), nil when it reads clean; `localWhole` whether the local log is known to be all
    /// there is of it (it holds its trip's end, or a receipt says these very bytes went up whole):
    /// a copy longer than a whole log is bytes added there (attack-r24 c17), not a tail the
    /// local log lost.
    public static func log(
        local: FileDigest, localSalt: UInt32, localFlaw: String?, localWhole: Bool, remote: FileDigest?, remoteSalt: UInt32?,
        remoteIsPrefix: Bool
    ) -> LogDecision {
        guard let there = remote else { return .send }
        if there == local { return .same }
        if let s = remoteSalt, s != localSalt {
            return .keep(
                "it holds another log (salt \(String(s, radix: 16)), this one's \(String(localSalt, radix: 16))); move it away, or deliver this board's trips to another folder"
            )
        }
        if there.size > local.size {
            if localWhole && localFlaw == nil { return .repair }
            return .keep("it holds \(there.size) bytes, the local log only \(local.size) (its tail lost?): a shorter log never replaces a copy")
        }
        if remoteIsPrefix && there.size < local.size && localFlaw == nil { return .grow }
        if let flaw = localFlaw { return .keep("the local log is \(flaw) ('cairn verify') and differs from the copy") }
        return .repair
    }

    /// Why a trip delivered before must not be delivered again from its files now (`now`), or
    /// nil: a file shorter than the copy delivered, gone, or changed and flawed (`flawed`: the
    /// names of local files that do not read clean). Its copies on the remote are whole; the
    /// local trip is not (a tail lost, a card's rot).
    public static func shrank(
        delivered: [(name: String, digest: FileDigest)], now: [(name: String, digest: FileDigest)], flaws: [String: String]
    ) -> String? {
        for d in delivered {
            guard let n = now.first(where: { $0.name == d.name }) else { return "\(d.name) is gone since its delivery" }
            if n.digest.size < d.digest.size { return "\(d.name) is \(n.digest.size) bytes, shorter than the \(d.digest.size) delivered" }
            if n.digest != d.digest, let flaw = flaws[d.name] { return "\(d.name) is \(flaw) ('cairn verify') since its delivery" }
        }
        return nil
    }

    /// A file as the remote lists it, or as a receipt or the local disk knows it: its path under
    /// the board's folder, size, and MD5 (lowercase hex) when known.
    public struct FileCheck: Equatable, Sendable {
        public var name: String
        public var size: Int
        public var md5: String?

        public init(name: String, size: Int, md5: String? = nil) {
            self.name = name
            self.size = size
            self.md5 = md5
        }
    }

    /// What a listing says of the copies a trip needs.
    public enum Found: Equatable, Sendable {
        case whole
        /// Each file missing or not whole, and how ("logs/00000001.cairn: missing").
        case notWhole([String])
    }

    /// Whether the listing (path -> file) holds every one of `wanted` whole: the same size and,
    /// where both sides know one, the same MD5.
    public static func found(_ wanted: [FileCheck], in listing: [String: FileCheck]) -> Found {
        var problems: [String] = []
        for w in wanted {
            guard let l = listing[w.name] else {
                problems.append("\(w.name): missing")
                continue
            }
            if l.size != w.size {
                problems.append("\(w.name): \(l.size) bytes, not \(w.size)")
            } else if let a = l.md5, let b = w.md5, a != b {
                problems.append("\(w.name): other bytes (MD5 \(a), not \(b))")
            }
        }
        return problems.isEmpty ? .whole : .notWhole(problems)
    }

    /// One line of `rclone lsjson` (file or folder): its path, size (0 for a folder) and
    /// whether it is a folder; nil for a line that is none.
    public static func entry(_ line: [UInt8]) -> (name: String, size: Int, isFolder: Bool)? {
        guard let path = stringValue("Path", in: line), let sizeText = rawValue("Size", in: line), let size = Int(sizeText) else { return nil }
        let folder = rawValue("IsDir", in: line) == "true"
        guard folder || size >= 0 else { return nil }
        return (path, folder ? 0 : size, folder)
    }

    /// One line of `rclone lsjson` (`{"Path":"logs/x","Name":"x","Size":12,"Hashes":{"md5":"…"}}`,
    /// with or without spaces and a trailing comma): the file, or nil for anything else (the
    /// brackets, a folder, a line not understood). The path's JSON escapes are undone.
    public static func listed(_ line: [UInt8]) -> FileCheck? {
        guard let path = stringValue("Path", in: line), let sizeText = rawValue("Size", in: line), let size = Int(sizeText), size >= 0 else {
            return nil
        }
        if rawValue("IsDir", in: line) == "true" { return nil }
        let md5 = stringValue("md5", in: line).flatMap { $0.utf8.count == 32 ? $0.lowercased() : nil }
        return FileCheck(name: path, size: size, md5: md5)
    }

    /// The bytes after `"key":` (spaces skipped) up to the next ',' or '}' (a number, true).
    static func rawValue(_ key: String, in line: [UInt8]) -> String? {
        guard var i = valueStart(key, in: line) else { return nil }
        var out: [UInt8] = []
        while i < line.count, line[i] != UInt8(ascii: ","), line[i] != UInt8(ascii: "}"), line[i] != UInt8(ascii: " ") {
            out.append(line[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The JSON string after `"key":`, its escapes undone; nil when there is none.
    static func stringValue(_ key: String, in line: [UInt8]) -> String? {
        guard var i = valueStart(key, in: line), i < line.count, line[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        var out: [UInt8] = []
        while i < line.count {
            let c = line[i]
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < line.count else { return nil }
                let e = line[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "u"):
                    guard i + 4 <= line.count, let v = UInt32(String(decoding: line[i..<(i + 4)], as: UTF8.self), radix: 16) else { return nil }
                    i += 4
                    // A surrogate (a name outside the BMP) is no name deliver writes: the file
                    // reads as one it does not know.
                    guard let s = Unicode.Scalar(v) else { return nil }
                    out += Array(String(Character(s)).utf8)
                default: out.append(e)
                }
                continue
            }
            out.append(c)
            i += 1
        }
        return nil
    }

    /// The index after `"key"`, its ':' and spaces.
    static func valueStart(_ key: String, in line: [UInt8]) -> Int? {
        let needle = Array(("\"" + key + "\"").utf8)
        guard line.count >= needle.count else { return nil }
        var i = 0
        while i + needle.count <= line.count {
            if line[i] == needle[0] && line[i..<(i + needle.count)].elementsEqual(needle) {
                var j = i + needle.count
                while j < line.count, line[j] == UInt8(ascii: " ") { j += 1 }
                if j < line.count, line[j] == UInt8(ascii: ":") {
                    j += 1
                    while j < line.count, line[j] == UInt8(ascii: " ") { j += 1 }
                    return j
                }
            }
            i += 1
        }
        return nil
    }
}

import CairnExport

/// What `RcloneDaemon` asks `rclone rcd` for each call of `TripRemote`: the rc method and its
/// JSON parameters, the same rclone operations and options as `Rclone`'s commands (sync with
/// --copy-links and --delete-before, move with --immutable or --ignore-times, delete with
/// --files-from-raw or --include, purge, lsjson), and how a reply's error becomes a
/// `RemoteFailure`. Pure: the daemon's executor only sends these and reads the answers.
enum RcloneCalls {
    struct Call: Equatable {
        /// The rc method ("operations/list").
        var method: String
        /// Its parameters, a JSON object.
        var body: String
    }

    static func text(_ s: String) -> String { TextFormat.jsonString(s) }

    /// Every file and folder under `folder`, every level (`rclone lsjson -R`), with `hashes`
    /// each file's MD5 where the backend has one (`--hash-type md5`), or only the folders
    /// directly in it (`--dirs-only`).
    static func list(_ folder: String, foldersOnly: Bool = false, hashes: Bool = false) -> Call {
        let opt =
            foldersOnly
            ? "\"dirsOnly\": true" : "\"recurse\": true" + (hashes ? ", \"showHash\": true, \"hashTypes\": [\"md5\"]" : "")
        return Call(
            method: "operations/list",
            body: "{\"fs\": \(text(folder)), \"remote\": \"\", \"opt\": {\(opt), \"noModTime\": true, \"noMimeType\": true}}")
    }

    /// `rclone sync --copy-links --delete-before LOCAL FOLDER`: the local side a connection
    /// string, which carries the local backend's copy_links (the staged logs are links).
    static func mirror(_ local: String, to folder: String) -> Call {
        Call(
            method: "sync/sync",
            body: "{\"srcFs\": \(text(":local,copy_links:" + Rclone.localArgument(local))), \"dstFs\": \(text(folder)),"
                + " \"_config\": {\"DeleteMode\": 1}}")
    }

    /// The two moves of `TripRemote.moveAll`: the files of `keepList` (a path list file) with
    /// --immutable, then every other (excluded by the rules file `excludeList`) with
    /// --ignore-times --delete-empty-src-dirs. Without files to keep, the second alone, unfiltered.
    static func moveAll(_ source: String, into target: String, keepList: String?, excludeList: String?) -> [Call] {
        let fs = "\"srcFs\": \(text(source)), \"dstFs\": \(text(target))"
        var calls: [Call] = []
        if let k = keepList {
            calls.append(
                Call(method: "sync/move", body: "{\(fs), \"_config\": {\"Immutable\": true}, \"_filter\": {\"FilesFromRaw\": [\(text(k))]}}"))
        }
        let filter = excludeList.map { ", \"_filter\": {\"ExcludeFrom\": [\(text($0))]}" } ?? ""
        calls.append(Call(method: "sync/move", body: "{\(fs), \"deleteEmptySrcDirs\": true, \"_config\": {\"IgnoreTimes\": true}\(filter)}"))
        return calls
    }

    /// `rclone delete --files-from-raw LIST FOLDER`.
    static func delete(listedIn list: String, under folder: String) -> Call {
        Call(method: "operations/delete", body: "{\"fs\": \(text(folder)), \"_filter\": {\"FilesFromRaw\": [\(text(list))]}}")
    }

    /// `rclone delete FOLDER --include PATTERN`.
    static func deleteMatching(_ pattern: String, under folder: String) -> Call {
        Call(method: "operations/delete", body: "{\"fs\": \(text(folder)), \"_filter\": {\"IncludeRule\": [\(text(pattern))]}}")
    }

    /// `rclone purge FOLDER`.
    static func removeFolder(_ folder: String) -> Call {
        Call(method: "operations/purge", body: "{\"fs\": \(text(folder)), \"remote\": \"\"}")
    }

    static let remotes = Call(method: "config/listremotes", body: "{}")
    static let config = Call(method: "config/dump", body: "{}")
    static let quit = Call(method: "core/quit", body: "{}")
    static let stats = Call(method: "core/stats", body: "{}")

    /// The counters of a `core/stats` answer that move while a call does work (bytes sent or
    /// read, files checked, listed, moved, deleted, failed): a call whose counters stay still is
    /// silent, however long it has run. Timings and speeds are left out: they move on their own.
    static func progress(_ stats: RcJSON) -> [String] {
        ["bytes", "checks", "transfers", "deletes", "renames", "errors", "listed", "serverSideCopyBytes", "serverSideMoveBytes"].map { key in
            if case .scalar(let v)? = stats[key] { return v }
            return ""
        }
    }

    /// The URL path that fetches the file `path` under `folder` (`--rc-serve`: `/[FS]/PATH`),
    /// each byte but the unreserved ones and the path's slashes percent-encoded; nil for a folder
    /// with a ']' in it, which that form cannot name.
    static func download(_ path: String, under folder: String) -> String? {
        if folder.contains("]") { return nil }
        return "/[" + percentEncoded(folder, keepSlash: false) + "]/" + percentEncoded(path, keepSlash: true)
    }

    static func percentEncoded(_ s: String, keepSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in s.utf8 {
            let plain =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
                || (keepSlash && b == UInt8(ascii: "/"))
            if plain { out.append(b) } else { out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A reply other than 200 as a failure of `what`: rclone's error text (the same words its
    /// commands print, which `DeliveryPlans` reads), not found on 404 (rclone's directory or
    /// file not found, as its exit statuses 3 and 4).
    static func failure(_ what: String, status: Int, body: [UInt8]) -> RemoteFailure {
        let said = RcJSON.parse(body)?["error"]?.string
        let detail = said ?? (status == 401 ? "rclone rcd refused cairn's password (401)" : "rclone rcd answered \(status)")
        return RemoteFailure(what: what, detail: detail, notFound: status == 404)
    }

    /// "user:password" as HTTP basic authentication wants it (base64).
    static func basic(_ user: String, _ password: String) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let b = Array((user + ":" + password).utf8)
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            let n = min(3, b.count - i)
            let v = (UInt32(b[i]) << 16) | (n > 1 ? UInt32(b[i + 1]) << 8 : 0) | (n > 2 ? UInt32(b[i + 2]) : 0)
            for k in 0..<4 { out.append(k <= n ? table[Int((v >> (18 - 6 * UInt32(k))) & 63)] : UInt8(ascii: "=")) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The port of rclone rcd's line "Serving remote control on http://127.0.0.1:PORT/".
    static func port(fromLog line: String) -> UInt16? {
        let needle = Array("Serving remote control on http://127.0.0.1:".utf8)
        let bytes = Array(line.utf8)
        guard bytes.count > needle.count else { return nil }
        for i in 0...(bytes.count - needle.count) where bytes[i..<(i + needle.count)].elementsEqual(needle) {
            let digits = bytes[(i + needle.count)...].prefix { $0 != UInt8(ascii: "/") }
            return UInt16(String(decoding: digits, as: UTF8.self))
        }
        return nil
    }

    /// The config's sections as `RcloneLocalRoots` reads them, from config/dump's answer
    /// (`{"nas": {"type": "sftp", ...}}`).
    static func sections(_ dump: RcJSON) -> [String: RcloneLocalRoots.Section] {
        guard case .object(let remotes) = dump else { return [:] }
        var out: [String: RcloneLocalRoots.Section] = [:]
        for (name, value) in remotes {
            guard case .object(let fields) = value else { continue }
            var s: RcloneLocalRoots.Section = [:]
            for (k, v) in fields {
                switch v {
                case .string(let t), .scalar(let t): s[k] = t
                default: continue
                }
            }
            out[name] = s
        }
        return out
    }
}

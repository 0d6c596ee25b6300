import CairnExport
import CairnSystem

@testable import cairn

/// A remote in memory for delivery's tests: every call counted, and any call made to fail,
/// before its effect (the remote refused) or after it (the answer was lost).
final class MemoryRemote: TripRemote, @unchecked Sendable {
    /// Full remote path ("r:bike/logs/00000001.cairn") -> bytes.
    var files: [String: [UInt8]] = [:]
    /// The calls made, by name ("list", "mirror", ...).
    var calls: [String] = []
    /// The call (1-based) that fails, and whether its effect happened first.
    var failAt: Int?
    var failAfterEffect = false
    /// Runs as a move begins: the world changing between the listing and the move.
    var beforeMove: (() -> Void)?
    /// The folders mirrored to, in order.
    var mirroredTo: [String] = []
    /// Called on what a move puts in place: a remote that damages what it stores.
    var onStore: ((String, inout [UInt8]) -> Void)?

    private func begin(_ name: String) throws(RemoteFailure) -> Bool {
        calls.append(name)
        guard calls.count == failAt else { return false }
        if !failAfterEffect { throw RemoteFailure(what: name, detail: "refused (test)", notFound: false) }
        return true
    }

    private func end(_ name: String, _ failing: Bool) throws(RemoteFailure) {
        if failing { throw RemoteFailure(what: name, detail: "answer lost (test)", notFound: false) }
    }

    private func under(_ folder: String) -> [String] {
        let p = folder.hasSuffix("/") || folder.hasSuffix(":") ? folder : folder + "/"
        return files.keys.filter { $0.hasPrefix(p) }.sorted()
    }

    private func relative(_ path: String, _ folder: String) -> String {
        String(path.dropFirst(folder.hasSuffix("/") || folder.hasSuffix(":") ? folder.count : folder.count + 1))
    }

    /// A backend without hashes (WebDAV's) lists sizes only, whatever is asked.
    var hasHashes = true

    func list(_ folder: String, hashes: Bool, entry: (RemoteEntry) -> Void) throws(RemoteFailure) {
        let failing = try begin("list")
        let paths = under(folder)
        if paths.isEmpty { throw RemoteFailure(what: "list", detail: "directory not found", notFound: true) }
        var folders = Set<String>()
        for p in paths {
            let rel = relative(p, folder)
            var parts = rel.split(separator: "/").dropLast()
            while !parts.isEmpty {
                folders.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
            var m = MD5()
            m.add(files[p]!)
            entry(RemoteEntry(path: rel, size: files[p]!.count, isFolder: false, md5: hashes && hasHashes ? m.hex() : nil))
        }
        for f in folders.sorted() { entry(RemoteEntry(path: f, size: 0, isFolder: true)) }
        try end("list", failing)
    }

    /// The paths read (`read`), in order.
    var readPaths: [String] = []

    func read(_ path: String, limit: Int?, output: (UnsafeRawBufferPointer) -> Void) throws(RemoteFailure) {
        let failing = try begin("read")
        readPaths.append(path)
        guard let b = files[path] else { throw RemoteFailure(what: "read", detail: "not found", notFound: true) }
        Array(b.prefix(limit ?? b.count)).withUnsafeBytes { output($0) }
        try end("read", failing)
    }

    func mirror(_ local: String, to folder: String) throws(RemoteFailure) {
        let failing = try begin("mirror")
        mirroredTo.append(folder)
        for p in under(folder) { files[p] = nil }
        func walk(_ dir: String, _ rel: String) {
            for n in ((try? POSIX.listDirectory(dir)) ?? []) where n != "." && n != ".." {
                let p = POSIX.join(dir, n)
                let r = rel.isEmpty ? n : rel + "/" + n
                if POSIX.isDirectory(p) {
                    walk(p, r)
                } else if let fd = try? POSIX.open(p, 0), let bytes = try? POSIX.readToEnd(fd, limit: 1 << 28) {
                    _ = POSIX.close(fd)
                    files[DeliverCommand.join(folder, r)] = bytes
                }
            }
        }
        walk(local, "")
        try end("mirror", failing)
    }

    func readBack(_ folder: String, paths: [String]?, md5: (String, String) -> Void) throws(RemoteFailure) {
        let failing = try begin("readBack")
        let wanted = paths.map { $0.map { DeliverCommand.join(folder, $0) } } ?? under(folder)
        for p in wanted {
            guard let b = files[p] else { continue }
            var m = MD5()
            m.add(b)
            md5(m.hex(), relative(p, folder))
        }
        try end("readBack", failing)
    }

    func moveAll(_ source: String, into target: String, keep: Set<String>) throws(RemoteFailure) {
        let failing = try begin("moveAll")
        beforeMove?()
        let paths = under(source)
        if paths.isEmpty { throw RemoteFailure(what: "move", detail: "directory not found", notFound: true) }
        var refused = false
        for p in paths {
            var b = files[p]!
            let rel = relative(p, source)
            let t = DeliverCommand.join(target, rel)
            if keep.contains(rel), let there = files[t], there != b {
                refused = true
                continue
            }
            files[p] = nil
            onStore?(t, &b)
            files[t] = b
        }
        if refused { throw RemoteFailure(what: "move", detail: "immutable file modified (test)", notFound: false) }
        try end("moveAll", failing)
    }

    func delete(_ paths: [String], under folder: String) throws(RemoteFailure) {
        let failing = try begin("delete")
        for p in paths { files[DeliverCommand.join(folder, p)] = nil }
        try end("delete", failing)
    }

    func removeFolder(_ folder: String) throws(RemoteFailure) {
        let failing = try begin("removeFolder")
        for p in under(folder) { files[p] = nil }
        try end("removeFolder", failing)
    }

    /// Where the remote keeps its files on this machine (none: elsewhere).
    var localRoots: RcloneLocalRoots.Answer = .folders([])
    func localFolders(_ folder: String) throws(RemoteFailure) -> RcloneLocalRoots.Answer { localRoots }

    func listFolders(_ folder: String) throws(RemoteFailure) -> [String] {
        let failing = try begin("listFolders")
        let paths = under(folder)
        if paths.isEmpty { throw RemoteFailure(what: "listFolders", detail: "directory not found", notFound: true) }
        let names = Set(
            paths.compactMap { p -> String? in
                let parts = relative(p, folder).split(separator: "/")
                return parts.count > 1 ? String(parts[0]) : nil
            })
        try end("listFolders", failing)
        return names.sorted()
    }

    func deleteMatching(_ pattern: String, under folder: String) throws(RemoteFailure) {
        let failing = try begin("deleteMatching")
        let prefix = String(pattern.prefix { $0 != "*" })
        for p in under(folder) where (p.split(separator: "/").last ?? "").hasPrefix(prefix) { files[p] = nil }
        try end("deleteMatching", failing)
    }
}

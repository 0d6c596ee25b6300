#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnLog
import CairnExport

/// The logs a delivery's receipts name, found (or not) on their remote in this run: one listing
/// of each board folder's `logs/` with sizes and MD5s (where the backend has them), through the
/// rclone program and config the last delivery used (LOGDIR/delivery), asked of one `rclone rcd`
/// for the whole run (`RcloneDaemon`, started at the first question: a prune with nothing
/// delivered starts none), not one rclone a listing, a read-back and a config look-up.
final class DeliveredCopies {
    let rclone: Rclone
    let remote: RcloneDaemon
    private var listings: [String: [String: RemoteCopies.FileCheck]?] = [:]
    /// Each board folder's local folders when rclone keeps it on this machine ([]: elsewhere).
    private var localFolders: [String: RcloneLocalRoots.Answer] = [:]
    /// Each board folder's page rows' files, read once per run (`pageRows`).
    private var pageRowsRead: [String: [[String]]?] = [:]
    let directory: String

    /// The log files' names: all a listing keeps (a folder of any size is read in bounded memory).
    let names: Set<String>

    init(directory: String, timeoutSeconds: Int, deadlineSeconds: Double?, names: Set<String>) {
        self.names = names
        self.directory = directory
        // The program and config the last delivery used, from LOGDIR/delivery, only when that file
        // belongs to this user (or root): one the recorder's user can write must not choose what
        // a root `cairn prune` runs. Otherwise rclone from PATH, with its own config.
        let path = POSIX.join(directory, DeliveryStatus.fileName)
        let owner = (try? POSIX.status(path)).map { $0.st_uid }
        let trusted = owner == POSIX.effectiveUserID || owner == 0
        let status = trusted ? DeliveryStatus.read(directory: directory) : nil
        // The program it names likewise (`trustedProgram`), run by its resolved path.
        let program = status.map(\.rclone).flatMap { p -> String? in
            if p.isEmpty { return nil }
            return p.contains("/") ? Self.trustedProgram(p) : p
        }
        var r = Rclone(
            program: program ?? "rclone",
            configFile: status.map(\.rcloneConfig).flatMap { $0.isEmpty ? nil : $0 }, timeoutSeconds: timeoutSeconds)
        r.deadlineSeconds = deadlineSeconds
        rclone = r
        remote = RcloneDaemon(r)
    }

    /// Stops the run's rclone (also when this is freed).
    func finish() { remote.stop() }

    deinit { remote.stop() }

    /// `path` with its links resolved, when no one but this user or root can change what runs
    /// there: the file and every folder above it owned by one of them and writable by no one
    /// else (a sticky folder such as /tmp counts when the entry in it is theirs). The resolved
    /// path is what runs: a link flipped after this check changes nothing.
    static func trustedProgram(_ path: String) -> String? {
        guard let real = try? POSIX.realPath(path) else { return nil }
        func owned(_ st: stat) -> Bool { st.st_uid == POSIX.effectiveUserID || st.st_uid == 0 }
        guard let file = try? POSIX.status(real, followLinks: false), owned(file), file.st_mode & 0o022 == 0 else { return nil }
        var child = file
        var dir = POSIX.parent(of: real)
        while true {
            guard let st = try? POSIX.status(dir, followLinks: false), owned(st) else { return nil }
            if st.st_mode & 0o022 != 0 && !(st.st_mode & S_ISVTX != 0 && owned(child)) { return nil }
            if dir == "/" { return real }
            child = st
            dir = POSIX.parent(of: dir)
        }
    }

    /// `.exported` when one destination holds every file of `t` whole; `notWhole`: the
    /// destinations listed without them whole. `salted`: whether a destination's receipt names
    /// the copies with their logs' salts (`TripShipment.logName`).
    func verdict(
        _ t: TripRef, destinations: [String], salted: (String) -> Bool = { _ in true }, say: (String) -> Void
    ) -> (verdict: RetentionPlan.ExportVerdict, notWhole: [String]) {
        var notWhole: [String] = []
        var unreachable = false
        var onThisCard = false
        for d in destinations {
            guard let folder = ExportState.folder(ofDestination: d) else { continue }
            guard let listing = listing(DeliverCommand.join(folder, "logs"), say: say) else {
                unreachable = true
                continue
            }
            var wanted: [RemoteCopies.FileCheck] = []
            for f in t.files {
                guard var check = Self.local(f.path) else { return (.copyUnchecked, notWhole) }
                check.name = TripShipment.logName(check.name, salt: f.header.salt, salted: salted(d))
                wanted.append(check)
            }
            switch RemoteCopies.found(wanted, in: listing) {
            case .whole:
                // A listing is what the backend says (sizes only on WebDAV, a cache's view on
                // some servers): before a delete, each copy is read back whole and its MD5 taken.
                switch readBack(wanted, in: DeliverCommand.join(folder, "logs")) {
                case .whole:
                    switch localFolder(folder) {
                    case .folders(let local):
                        // a crypt, union or alias over a folder on the card is the card
                        // (the board folder, or any copy read back: a bind mount or a link at logs/)
                        let onCard = local.contains { l in
                            OnThisCard.isOnIt(l, logDirectory: directory)
                                || wanted.contains { OnThisCard.isOnIt(POSIX.join(l, "logs/" + $0.name), logDirectory: directory) }
                        }
                        if onCard {
                            onThisCard = true
                            continue
                        }
                        return (.exported, [])
                    case .unknown(let why):
                        say("retention: trip \(t.id): where \(terminalSafe(folder)) keeps its copies cannot be told (\(terminalSafe(why))): kept")
                        unreachable = true
                    }
                case .unreachable(let why):
                    say("retention: trip \(t.id): its copies in \(terminalSafe(folder)) could not be read back (\(terminalSafe(why))): kept")
                    unreachable = true
                case .differs(let what):
                    notWhole.append(d)
                    say("retention: trip \(t.id): its copies in \(terminalSafe(folder)) are not found whole: \(what) read back")
                }
            case .notWhole(let p):
                notWhole.append(d)
                say("retention: trip \(t.id): its copies in \(terminalSafe(folder)) are not found whole: \(p.joined(separator: ", "))")
            }
        }
        if unreachable { return (.copyUnchecked, notWhole) }
        return (onThisCard && notWhole.isEmpty ? .copyOnThisCard : .copyNotWhole, notWhole)
    }

    enum ReadBack {
        case whole
        case differs(String)
        case unreachable(String)
    }

    /// Reads each file of `wanted` back from `folder` and compares its size and MD5.
    func readBack(_ wanted: [RemoteCopies.FileCheck], in folder: String) -> ReadBack {
        for w in wanted {
            var md5 = MD5()
            var size = 0
            do throws(Rclone.Failure) {
                try remote.read(DeliverCommand.join(folder, w.name), limit: w.size + 1) { chunk in
                    md5.add(chunk)
                    size += chunk.count
                }
            } catch {
                if error.notFound { return .differs("\(w.name): missing when") }
                return .unreachable(error.description)
            }
            if size != w.size || md5.hex() != w.md5 { return .differs("\(w.name): other bytes (\(size) bytes) when") }
        }
        return .whole
    }

    /// A local log's name, size and MD5.
    static func local(_ path: String) -> RemoteCopies.FileCheck? {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { _ = POSIX.close(fd) }
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { buf.deallocate() }
        var md5 = MD5()
        var size = 0
        while true {
            guard let n = try? POSIX.read(fd, into: buf) else { return nil }
            if n == 0 { break }
            md5.add(UnsafeRawBufferPointer(rebasing: buf[0..<n]))
            size += n
        }
        return RemoteCopies.FileCheck(name: baseName(path), size: size, md5: md5.hex())
    }

    /// Where rclone keeps `folder` on this machine, asked once per run; nil for a remote elsewhere
    /// (or rclone not saying).
    private func localFolder(_ folder: String) -> RcloneLocalRoots.Answer {
        if let known = localFolders[folder] { return known }
        let local: RcloneLocalRoots.Answer
        do throws(Rclone.Failure) { local = try remote.localFolders(folder) } catch { local = .unknown(error.description) }
        localFolders[folder] = local
        return local
    }

    /// Whether the page's picture `path` (under the board folder `folder`) is listed there in
    /// this run, at `md5` where the receipt noted one and the backend gives one; nil when the
    /// folder could not be listed. A trip whose picture is gone keeps its log: the picture is
    /// drawn from it (attack r23 c05b).
    func pictureThere(_ path: String, in folder: String, md5: String?, say: (String) -> Void) -> Bool? {
        let (dir, name) = RcloneDaemon.split(DeliverCommand.join(folder, path))
        guard let listed = listing(dir, say: say, only: [name]) else { return nil }
        guard let there = listed[name] else { return false }
        if let was = md5, let now = there.md5, now != was { return false }
        return true
    }

    /// Whether the board's key is at `relative` under the board folder `folder` in this run at
    /// `md5` (listed with it, or read back so where the backend lists no hash); nil when the
    /// folder could not be listed.
    func keyThere(_ relative: String, md5: String, in folder: String, say: (String) -> Void) -> Bool? {
        let (dir, name) = RcloneDaemon.split(DeliverCommand.join(folder, relative))
        guard let listed = listing(dir, say: say, only: [name]) else { return nil }
        guard let there = listed[name] else { return false }
        if let now = there.md5 { return now == md5 }
        if case .whole = readBack([RemoteCopies.FileCheck(name: name, size: there.size, md5: md5)], in: dir) { return true }
        return false
    }

    /// The files each row of the page's index at the board folder `folder` names (its
    /// `index.tsv` read back once per run, in bounded memory): [] when there is no index; nil
    /// when it could not be read (said). A trip is whole there only with its row (attack-r24 c05).
    func pageRows(in folder: String, say: (String) -> Void) -> [[String]]? {
        if let known = pageRowsRead[folder] { return known }
        var bytes: [UInt8] = []
        var rows: [[String]]?
        let path = DeliverCommand.join(folder, TripIndex.fileName)
        do throws(Rclone.Failure) {
            try remote.read(path, limit: PageBuilder.maxIndexBytes + 1) { chunk in
                if bytes.count <= PageBuilder.maxIndexBytes { bytes += chunk }
            }
            if bytes.count > PageBuilder.maxIndexBytes {
                say("retention: \(terminalSafe(path)): over \(PageBuilder.maxIndexBytes >> 20) MiB, not a cairn trip index: its trips are kept")
            } else {
                rows = TripIndex(text: String(decoding: bytes, as: UTF8.self)).entries.map(\.files)
            }
        } catch {
            if error.notFound {
                rows = []
            } else {
                say("retention: \(terminalSafe(path)) could not be read (\(terminalSafe(error.description))): its delivered trips are kept")
            }
        }
        pageRowsRead[folder] = rows
        return rows
    }

    /// The folder's files (name -> size, MD5) among `only` (the logs' names when nil), listed
    /// once per run; nil when it could not be.
    private func listing(_ folder: String, say: (String) -> Void, only: Set<String>? = nil) -> [String: RemoteCopies.FileCheck]? {
        let key = only == nil ? folder : folder + "\u{0}" + only!.sorted().joined(separator: "/")
        if let known = listings[key] { return known }
        let names = only ?? self.names
        var out: [String: RemoteCopies.FileCheck] = [:]
        var result: [String: RemoteCopies.FileCheck]?
        do throws(Rclone.Failure) {
            try remote.list(folder, hashes: true) { e in
                if !e.isFolder, names.contains(e.path) { out[e.path] = RemoteCopies.FileCheck(name: e.path, size: e.size, md5: e.md5) }
            }
            result = out
        } catch {
            if error.notFound {
                result = [:]
            } else {
                say("retention: \(terminalSafe(folder)) could not be checked (\(terminalSafe(error.description))): its delivered trips are kept")
            }
        }
        listings[key] = result
        return result
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// The board's side of a run: its log directory, its staging folder, the recorder, the logs.
extension DeliveryRun {
    /// Where a file named `name` is in `dir`, in its folders up to 6 deep, or in the folders
    /// above it (at most 20,000 entries looked at); nil when nowhere.
    static func find(_ name: String, around dir: String) -> String? {
        let start = ExportCommand.canonical(dir)
        var up = start
        while true {
            let p = POSIX.join(up, name)
            if POSIX.exists(p) { return up == start ? "the log directory" : "\(up), which holds the log directory" }
            if up == "/" || up.isEmpty { break }
            up = POSIX.parent(of: up)
        }
        var budget = 20_000
        var level = [start]
        for _ in 0..<6 {
            var next: [String] = []
            for d in level {
                for n in (try? POSIX.listDirectory(d)) ?? [] where n != "." && n != ".." {
                    budget -= 1
                    if budget < 0 { return nil }
                    let p = POSIX.join(d, n)
                    if n == name { return "\(d), inside the log directory" }
                    if POSIX.isDirectory(p) { next.append(p) }
                }
            }
            level = next
        }
        return nil
    }

    /// Removes the staging folder and everything in it (the page's folders too).
    func removeStaging(_ staging: String) {
        guard let names = try? POSIX.listDirectory(staging) else { return }
        for n in names where n != "." && n != ".." {
            let p = POSIX.join(staging, n)
            if POSIX.isDirectory(p) && (try? POSIX.status(p, followLinks: false)).map({ ($0.st_mode & S_IFMT) == S_IFDIR }) == true {
                removeStaging(p)
            } else {
                _ = POSIX.unlink(p)
            }
        }
        POSIX.removeDirectory(staging)
    }

    /// Whether every file of `t` is gone from the board (deleted since the run read it).
    static func vanished(_ t: TripRef) -> Bool { !t.files.contains { POSIX.exists($0.path) } }

    /// A file's modification time in ns; Int64.max when it cannot be read (then it counts as new).
    func modifiedNs(_ path: String) -> Int64 {
        guard let st = try? POSIX.status(path) else { return .max }
        return Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    /// Why delivery must wait: a trip the recorder is writing.
    func recording() -> String? {
        if case .running(let pid, let open?, _) = DirectoryLock.recorder(in: dir) {
            // The recorder holds its lock whole days while parked; only a log it has open counts.
            let logs = ((try? LogDirectory.logFiles(in: dir)) ?? []).compactMap { DirectoryLock.FileKey(path: $0.path) }
            if logs.contains(where: { open.contains($0) }) { return "the recorder (PID \(pid)) is recording a trip" }
        }
        return nil
    }

    /// What `cairn verify` finds wrong with a local log that matters for its copies ("torn at its
    /// end", "damaged"), nil when it reads clean.
    static func flaw(_ path: String) -> String? { read(path).flaw }

    /// `flaw`, and whether the log holds its trip's end record (the last file of a trip that
    /// closed: nothing is ever added after it).
    static func read(_ path: String) -> (flaw: String?, ends: Bool) {
        guard let r = try? LogReader(path: path), let s = try? r.scan() else { return ("unreadable", false) }
        if !s.damaged.isEmpty { return ("damaged", s.hasTripEnd) }
        if s.tornTailBytes > 0 { return ("torn at its end (\(s.tornTailBytes) bytes)", s.hasTripEnd) }
        return (nil, s.hasTripEnd)
    }

    /// Whether the first bytes of a file may begin a cairn trip index (its version line, or the
    /// header line of one without): a file of zeros or of anything else is none.
    static func mayBeIndex(_ head: [UInt8]) -> Bool {
        [Array("# cairn trip index".utf8), Array("key\t".utf8)].contains { p in
            head.count >= p.count ? head.prefix(p.count).elementsEqual(p) : p.prefix(head.count).elementsEqual(head)
        }
    }
}

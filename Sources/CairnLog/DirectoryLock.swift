#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// One recorder per log directory: an exclusive flock(2) on `.cairn.lock` inside it, held for
/// the life of the process. The kernel releases it when the holder dies (kill -9, power cut), so
/// a file left behind never blocks a restart; the holder's PID written into it is only there to
/// name the holder in the message. Readers ignore the file: it is not named like a log.
public final class DirectoryLock {
    public static let fileName = ".cairn.lock"
    /// What `cairn export` holds in the log directory: one export at a time, so that two do not
    /// share temporary names in the destination or overwrite each other's `exported` file.
    public static let exportFileName = ".cairn-export.lock"

    public enum Failure: Error, CustomStringConvertible {
        /// Another process holds the lock; `holder` is the PID text it wrote, when readable.
        case held(directory: String, holder: String?)
        case system(path: String, what: String, errno: Int32)

        public var description: String {
            switch self {
            case .held(let dir, let holder):
                return "\(dir): another recorder is already recording here"
                    + (holder.map { " (PID \($0), holding \(DirectoryLock.fileName))" } ?? " (it holds \(DirectoryLock.fileName))")
                    + "; one recorder per log directory"
            case .system(let path, let what, let code):
                return "\(path): \(what): \(Errno(rawValue: code))"
            }
        }
    }

    public let path: String
    private let fd: Int32

    /// Takes the lock `fileName` on `directory` (which must exist) without waiting. `io` makes
    /// the file system calls (replaced in tests).
    public init(directory: String, fileName: String = DirectoryLock.fileName, io: FileIO = .system) throws(Failure) {
        path = POSIX.join(directory, fileName)
        let fd: Int32
        // A lock file another user left (a recorder once run by hand as root): flock needs no
        // write access, so it still locks; only the PID cannot be written.
        var writable = true
        do throws(Errno) { fd = try io.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644) } catch {
            guard error == .permissionDenied else { throw .system(path: path, what: "cannot open the lock file", errno: error.rawValue) }
            do throws(Errno) { fd = try io.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0) } catch {
                throw .system(path: path, what: "cannot open the lock file", errno: error.rawValue)
            }
            writable = false
        }
        do throws(Errno) { try POSIX.lockExclusively(fd) } catch {
            let holder = Self.readHolder(fd)
            POSIX.close(fd)
            if error == .wouldBlock { throw .held(directory: directory, holder: holder) }
            throw .system(path: path, what: "cannot lock", errno: error.rawValue)
        }
        self.fd = fd
        // Informational only: a failure to write the PID does not stop the recorder.
        guard writable else { return }
        if (try? io.truncate(fd, 0)) != nil {
            let text = Array("\(POSIX.processID)\n".utf8)
            _ = text.withUnsafeBytes { b in try? retryingInterrupts { () throws(Errno) in try io.write(fd, b, 0) } }
        }
        // Synced once, at the start: unsynced, a power cut in the first seconds left a FAT
        // card's directory entry pointing at a cluster the FAT still called free (fsck's work,
        // and copies of the directory stopped on it).
        try? io.fsync(fd)
        try? io.syncDirectory(directory)
    }

    deinit { POSIX.close(fd) }

    /// The PID the holder wrote (digits only, so a crafted file cannot put text in our message).
    static func readHolder(_ fd: Int32) -> String? {
        var buf = [UInt8](repeating: 0, count: 32)
        guard let n = try? buf.withUnsafeMutableBytes({ try POSIX.readFully(fd, into: $0, at: 0) }), n > 0 else { return nil }
        let digits = buf[0..<n].prefix { $0 >= 48 && $0 <= 57 }
        return digits.isEmpty || digits.count > 10 ? nil : String(decoding: digits, as: UTF8.self)
    }

    /// Which file a path leads to (device and inode).
    public struct FileKey: Hashable, Sendable {
        public let device: UInt64
        public let inode: UInt64
        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
        public init?(path: String) {
            guard let st = try? POSIX.status(path) else { return nil }
            self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        }
    }

    /// Whether a recorder holds a directory's lock, and which files it has open: what `cairn
    /// export` needs to tell a trip still being written from one whose recorder is gone.
    public enum Recorder: Equatable, Sendable {
        /// No process holds the lock (or there is no lock file): nothing appends to any log.
        case absent
        /// `pid` holds the lock; `openFiles` are the files it has open (nil: not readable, a
        /// recorder of another user); `since` is when it took the lock (the lock file's mtime, ns).
        case running(pid: Int32, openFiles: Set<FileKey>?, since: Int64?)
        /// The kernel's lock table could not be read: assume a recorder started at `since`.
        case unknown(since: Int64?)
    }

    /// Looks without locking: taking the lock, even for an instant, could make a recorder that
    /// starts at that moment exit as "another recorder is recording" (and systemd does not restart
    /// that exit). Reads /proc/locks for a flock on the lock file, then /proc/PID/fd for its files.
    public static func recorder(in directory: String, locks: String = "/proc/locks", proc: String = "/proc") -> Recorder {
        let path = POSIX.join(directory, fileName)
        guard let st = try? POSIX.status(path, followLinks: false) else { return .absent }
        let since = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        guard let fd = try? POSIX.open(locks, O_RDONLY | O_CLOEXEC) else { return .unknown(since: since) }
        let table = (try? POSIX.readToEnd(fd, limit: 16 << 20)).map { String(decoding: $0, as: UTF8.self) }
        POSIX.close(fd)
        guard let table else { return .unknown(since: since) }
        let dev = UInt64(st.st_dev)
        // Linux's dev_t split (glibc's gnu_dev_major/minor), as /proc/locks prints it.
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        guard let pid = holder(in: table, major: major, minor: minor, inode: UInt64(st.st_ino)) else { return .absent }
        return .running(pid: pid, openFiles: openFiles(of: pid, proc: proc), since: since)
    }

    /// The PID of an exclusive flock on (major, minor, inode) in a /proc/locks text.
    static func holder(in table: String, major: UInt64, minor: UInt64, inode: UInt64) -> Int32? {
        for line in table.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 8231 fe:00:16220973 0 EOF"; a "->" line is a waiter.
            let f = line.split(separator: " ")
            guard f.count >= 6, f[1] == "FLOCK", f[3] == "WRITE", let pid = Int32(f[4]) else { continue }
            let id = f[5].split(separator: ":")
            guard id.count == 3, let ma = UInt64(id[0], radix: 16), let mi = UInt64(id[1], radix: 16), let ino = UInt64(id[2]) else { continue }
            if ma == major && mi == minor && ino == inode { return pid }
        }
        return nil
    }

    /// The files `pid` has open (nil when its fd directory cannot be read).
    static func openFiles(of pid: Int32, proc: String) -> Set<FileKey>? {
        let dir = POSIX.join(POSIX.join(proc, String(pid)), "fd")
        guard let names = try? POSIX.listDirectory(dir) else { return nil }
        var out = Set<FileKey>()
        for name in names {
            guard name.first?.isNumber == true, let k = FileKey(path: POSIX.join(dir, name)) else { continue }
            out.insert(k)
        }
        return out
    }
}

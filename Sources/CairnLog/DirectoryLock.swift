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

    /// Takes the lock `fileName` on `directory` (which must exist) without waiting.
    public init(directory: String, fileName: String = DirectoryLock.fileName) throws(Failure) {
        path = POSIX.join(directory, fileName)
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        // A lock file another user left (a recorder once run by hand as root): flock needs no
        // write access, so it still locks; only the PID cannot be written.
        var writable = true
        if fd < 0 && errno == EACCES {
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            writable = false
        }
        if fd < 0 { throw .system(path: path, what: "cannot open the lock file", errno: errno) }
        if case .failure(let e) = valueOrErrno({ flock(fd, LOCK_EX | LOCK_NB) }) {
            let holder = Self.readHolder(fd)
            close(fd)
            if e == .wouldBlock { throw .held(directory: directory, holder: holder) }
            throw .system(path: path, what: "cannot lock", errno: e.rawValue)
        }
        self.fd = fd
        // Informational only: a failure to write the PID does not stop the recorder.
        let text = Array("\(getpid())\n".utf8)
        if writable && ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    deinit { close(fd) }

    /// The PID the holder wrote (digits only, so a crafted file cannot put text in our message).
    static func readHolder(_ fd: Int32) -> String? {
        var buf = [UInt8](repeating: 0, count: 32)
        guard let n = try? buf.withUnsafeMutableBytes({ try POSIX.readFully(fd, into: $0, at: 0) }), n > 0 else { return nil }
        let digits = buf[0..<n].prefix { $0 >= 48 && $0 <= 57 }
        return digits.isEmpty || digits.count > 10 ? nil : String(decoding: digits, as: UTF8.self)
    }
}

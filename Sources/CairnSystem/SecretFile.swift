#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small file of random bytes only its owner reads (mode 0600): the board's privacy key.
public enum SecretFile {
    /// Why a secret could not be read or made, naming the file.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
        /// The directory cannot take a new file (read-only, or not ours).
        public var readOnly = false

        public init(description: String, readOnly: Bool = false) {
            self.description = description
            self.readOnly = readOnly
        }
    }

    /// `count` bytes from the system's generator (the standard library's, which is getrandom(2)
    /// on Linux).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &g) }
    }

    /// Reads the secret at `path`: exactly `count` bytes, or a failure naming the file. Nil when
    /// there is no file.
    public static func read(_ path: String, count: Int) throws(Failure) -> [UInt8]? {
        try readChecked(path, count: count)?.bytes
    }

    /// `read`, and whether the file's mode lets its group or others read it (a secret they can
    /// copy). Only a regular file is a secret: a FIFO, device or directory is refused, and
    /// opened without blocking (a FIFO with no writer would block a plain open or read forever).
    public static func readChecked(_ path: String, count: Int) throws(Failure) -> (bytes: [UInt8], othersMayRead: Bool)? {
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } catch {
            if error == Errno(rawValue: ENOENT) { return nil }
            throw Failure(description: "\(path): cannot read the privacy key: \(error)")
        }
        defer { _ = POSIX.close(fd) }
        let st: stat
        do throws(Errno) { st = try POSIX.status(fd) } catch { throw Failure(description: "\(path): cannot read the privacy key: \(error)") }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "\(path): not a privacy key (not a regular file); give the file holding the key")
        }
        let bytes: [UInt8]
        do throws(Errno) { bytes = try POSIX.readToEnd(fd, limit: count + 1) } catch {
            throw Failure(description: "\(path): cannot read the privacy key: \(error)")
        }
        guard bytes.count == count else {
            throw Failure(
                description:
                    "\(path): not a privacy key (\(bytes.count > count ? "more than \(count)" : "\(bytes.count)") bytes, expected \(count) random bytes); move it away to have a new one made"
            )
        }
        return (bytes, st.st_mode & 0o077 != 0)
    }

    /// Makes a new secret of `count` random bytes at `path` (mode 0600, synced, its directory
    /// too), or reads the one another process made first. Returns the bytes and whether it made them.
    public static func create(_ path: String, count: Int) throws(Failure) -> (bytes: [UInt8], created: Bool) {
        let tmp = path + ".tmp\(getpid())"
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) } catch {
            let r = error.rawValue
            throw Failure(description: "\(path): cannot create the privacy key: \(error)", readOnly: r == EROFS || r == EACCES || r == EPERM)
        }
        let bytes = randomBytes(count)
        var failed: Errno?
        do throws(Errno) { try POSIX.writeAll(fd, bytes) } catch { failed = error }
        if failed == nil {
            do throws(Errno) { try POSIX.fsync(fd) } catch { failed = error }
        }
        POSIX.close(fd)
        if let e = failed {
            POSIX.unlink(tmp)
            throw Failure(description: "\(path): cannot write the privacy key: \(e)")
        }
        // link(2) refuses to replace: two processes making the key at once agree on the first.
        // A file system without hard links (vfat) gets a rename when the name is still free.
        var e: Errno?
        do throws(Errno) { try POSIX.link(tmp, path) } catch {
            e = error
            if error.rawValue == EPERM || error.rawValue == EOPNOTSUPP, !POSIX.exists(path), (try? POSIX.rename(tmp, path)) != nil { e = nil }
        }
        if let e {
            POSIX.unlink(tmp)
            if e == Errno(rawValue: EEXIST), let theirs = try read(path, count: count) { return (theirs, false) }
            throw Failure(description: "\(path): cannot create the privacy key: \(e)")
        }
        POSIX.unlink(tmp)
        try? POSIX.syncDirectory(POSIX.parent(of: path))
        return (bytes, true)
    }
}

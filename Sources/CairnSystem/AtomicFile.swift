#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file replaced whole or not at all: written under a temporary name in the same directory,
/// synced, renamed over its name, the directory synced. A reader (or a card pulled mid-write)
/// sees the old file or the new one, never a mix. The one implementation of that dance: every
/// export, the export state and the live status file go through it.
public final class AtomicFile {
    /// The name the file ends up under.
    public let path: String
    /// Where the bytes go until `commit`.
    public let temporaryPath: String
    /// The temporary file's descriptor (-1 once closed).
    public private(set) var fd: Int32
    private var done = false

    /// Which step failed; each caller words its own message around it.
    public enum Failure: Error {
        /// The temporary file could not be created.
        case create(Errno)
        /// A write to the temporary file failed.
        case write(Errno)
        /// Its fsync failed.
        case sync(Errno)
        /// A temporary file another writer made would not open to be synced (`commit(written:to:)`).
        case reopen(Errno)
        /// Its close failed (NFS and quotas report late errors there).
        case close(Errno)
        /// Without `replace`, a file appeared at `path` meanwhile; it is kept.
        case exists
        /// The rename over `path` failed.
        case rename(Errno)
        /// The directory would not open to sync (`open`) or its fsync failed.
        case directory(POSIX.DirectorySyncError)

        public var errno: Errno {
            switch self {
            case .create(let e), .write(let e), .sync(let e), .reopen(let e), .close(let e), .rename(let e): return e
            case .exists: return .fileExists
            case .directory(let d): return d.errno
            }
        }
    }

    /// Creates the temporary file. `exclusive` refuses one that is there (O_EXCL, links not
    /// followed); otherwise one there is truncated. `removeLeftover` first removes one a killed
    /// run left.
    public init(
        path: String, temporaryPath: String, mode: mode_t = 0o644, exclusive: Bool = true, removeLeftover: Bool = false
    ) throws(Failure) {
        self.path = path
        self.temporaryPath = temporaryPath
        if removeLeftover { POSIX.unlink(temporaryPath) }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL | O_NOFOLLOW : O_TRUNC)
        do throws(Errno) { fd = try POSIX.open(temporaryPath, flags, mode) } catch { throw .create(error) }
    }

    /// A file neither committed nor discarded (a caller that threw) is discarded.
    deinit { discard() }

    /// Writes all of `bytes` to the temporary file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        do throws(Errno) { try POSIX.writeAll(fd, bytes) } catch { throw .write(error) }
    }

    /// Writes all of `bytes` to the temporary file.
    public func write(_ bytes: [UInt8]) throws(Failure) {
        let r = bytes.withUnsafeBytes { b in Result { () throws(Failure) in try write(b) } }
        try r.get()
    }

    /// Puts the file in place: fsync (when `sync`), close, then a rename over `path` (with
    /// `replace`) or a hard link that refuses an existing file (without it; a file system
    /// without links, FAT, gets the rename), then an fsync of the directory (when
    /// `syncDirectory`; a caller putting several files in one directory syncs it once). On any
    /// failure the temporary file is removed and `path` is untouched.
    public func commit(sync: Bool = true, replace: Bool = true, syncDirectory: Bool = true) throws(Failure) {
        guard !done else { return }
        done = true
        var failure: Failure?
        if sync {
            do throws(Errno) { try POSIX.fsync(fd) } catch { failure = .sync(error) }
        }
        if let e = POSIX.close(fd), failure == nil { failure = .close(e) }
        fd = -1
        if failure == nil {
            do throws(Failure) {
                try Self.moveIntoPlace(temporaryPath, path, replace: replace)
            } catch { failure = error }
        }
        if let failure {
            POSIX.unlink(temporaryPath)
            throw failure
        }
        if syncDirectory {
            do throws(POSIX.DirectorySyncError) { try POSIX.syncDirectory(POSIX.parent(of: path)) } catch { throw .directory(error) }
        }
    }

    /// Drops the temporary file; `path` is untouched. Nothing after a commit.
    public func discard() {
        guard !done else { return }
        done = true
        if fd >= 0 { POSIX.close(fd) }
        fd = -1
        POSIX.unlink(temporaryPath)
    }

    /// Puts a temporary file another writer made and closed in place: fsync by path, rename
    /// over `path`. The directory is the caller's to sync. On failure the temporary file goes.
    public static func commit(written temporaryPath: String, to path: String) throws(Failure) {
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(temporaryPath, O_RDONLY | O_CLOEXEC) } catch {
            POSIX.unlink(temporaryPath)
            throw .reopen(error)
        }
        var synced: Errno?
        do throws(Errno) { try POSIX.fsync(fd) } catch { synced = error }
        POSIX.close(fd)
        if let synced {
            POSIX.unlink(temporaryPath)
            throw .sync(synced)
        }
        do throws(Failure) { try moveIntoPlace(temporaryPath, path, replace: true) } catch {
            POSIX.unlink(temporaryPath)
            throw error
        }
    }

    /// `bytes` as the whole of `path`, through `temporaryPath`: write, fsync, rename, fsync the
    /// directory.
    public static func write(
        _ bytes: [UInt8], to path: String, temporaryPath: String, mode: mode_t = 0o644, removeLeftover: Bool = true
    ) throws(Failure) {
        let f = try AtomicFile(path: path, temporaryPath: temporaryPath, mode: mode, exclusive: false, removeLeftover: removeLeftover)
        try f.write(bytes)
        try f.commit()
    }

    private static func moveIntoPlace(_ tmp: String, _ path: String, replace: Bool) throws(Failure) {
        if !replace {
            do throws(Errno) {
                try POSIX.link(tmp, path)
                POSIX.unlink(tmp)
                return
            } catch {
                if error == .fileExists { throw .exists }
            }
        }
        do throws(Errno) { try POSIX.rename(tmp, path) } catch { throw .rename(error) }
    }
}

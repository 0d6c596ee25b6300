#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The file system calls whose failures cairn must survive, replaceable as a whole: the one
/// seam tests inject faults through (a full card, EIO, a short write, a lost sync). Each call
/// is the plain system call, failures thrown as `Errno`; EINTR is thrown too, for the caller to
/// retry (`retryingInterrupts`) or not (a failed fdatasync is never retried: "fsyncgate").
public struct FileIO: Sendable {
    /// open(2): a descriptor.
    public var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) throws(Errno) -> Int32
    /// One pwrite(2) at the offset: the bytes written, which may be fewer than given.
    public var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) throws(Errno) -> Int
    /// fdatasync(2).
    public var fdatasync: @Sendable (_ fd: Int32) throws(Errno) -> Void
    /// fsync(2).
    public var fsync: @Sendable (_ fd: Int32) throws(Errno) -> Void
    /// ftruncate(2).
    public var truncate: @Sendable (_ fd: Int32, _ size: Int) throws(Errno) -> Void
    /// The file's link count (fstat's st_nlink): 0 once its name is gone.
    public var linkCount: @Sendable (_ fd: Int32) throws(Errno) -> Int
    /// A second descriptor on a new file that writes past the page cache (O_DIRECT). Refused
    /// (EINVAL) unless given: `system` opens one, so that fakes write through the page cache.
    public var openDirect: @Sendable (_ path: String) throws(Errno) -> Int32
    /// fsync(2) of a directory (`POSIX.syncDirectory`).
    public var syncDirectory: @Sendable (_ dir: String) throws(POSIX.DirectorySyncError) -> Void

    /// The system's calls, but for those given.
    public init(
        open: @escaping @Sendable (String, Int32, mode_t) throws(Errno) -> Int32 = { p, f, m throws(Errno) in try POSIX.open(p, f, m) },
        write: @escaping @Sendable (Int32, UnsafeRawBufferPointer, Int) throws(Errno) -> Int = FileIO.pwrite,
        fdatasync: @escaping @Sendable (Int32) throws(Errno) -> Void = { fd throws(Errno) in try POSIX.fdatasync(fd) },
        fsync: @escaping @Sendable (Int32) throws(Errno) -> Void = { fd throws(Errno) in try POSIX.fsync(fd) },
        truncate: @escaping @Sendable (Int32, Int) throws(Errno) -> Void = { fd, n throws(Errno) in try POSIX.truncate(fd, to: n) },
        linkCount: @escaping @Sendable (Int32) throws(Errno) -> Int = { fd throws(Errno) in Int(try POSIX.status(fd).st_nlink) },
        openDirect: @escaping @Sendable (String) throws(Errno) -> Int32 = { _ throws(Errno) in throw .invalidArgument },
        syncDirectory: @escaping @Sendable (String) throws(POSIX.DirectorySyncError) -> Void = { d throws(POSIX.DirectorySyncError) in
            try POSIX.syncDirectory(d)
        }
    ) {
        self.open = open
        self.write = write
        self.fdatasync = fdatasync
        self.fsync = fsync
        self.truncate = truncate
        self.linkCount = linkCount
        self.openDirect = openDirect
        self.syncDirectory = syncDirectory
    }

    /// The system's calls, O_DIRECT included where the architecture's flag is known.
    public static let system = FileIO(openDirect: { path throws(Errno) in
        guard let flag = oDirect else { throw .invalidArgument }
        return try POSIX.open(path, O_WRONLY | O_CLOEXEC | flag)
    })

    /// One pwrite(2), EINTR thrown (not retried).
    @Sendable public static func pwrite(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) throws(Errno) -> Int {
        try valueOrErrno(retryOnInterrupt: false) { cPwrite(fd, bytes.baseAddress, bytes.count, off_t(offset)) }.get()
    }
}

/// Runs `call` again while it fails with EINTR (a signal arrived first).
@inlinable
public func retryingInterrupts<T>(_ call: () throws(Errno) -> T) throws(Errno) -> T {
    while true {
        do { return try call() } catch { if error != .interrupted { throw error } }
    }
}

/// O_DIRECT, which Swift's Glibc module does not export. Its value is per architecture
/// (asm-generic/fcntl.h; arm and arm64 have their own). Elsewhere the writer stays buffered.
#if arch(x86_64) || arch(i386)
private let oDirect: Int32? = 0o40000
#elseif arch(arm64) || arch(arm)
private let oDirect: Int32? = 0o200000
#else
private let oDirect: Int32? = nil
#endif

private func cPwrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ offset: off_t) -> Int { pwrite(fd, p, n, offset) }

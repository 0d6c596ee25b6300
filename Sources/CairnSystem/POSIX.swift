#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem

/// The system calls cairn makes, each once: EINTR retried (`valueOrErrno`), short transfers
/// continued, failures as a typed `Errno`.
public enum POSIX {
    /// open(2).
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) throws(Errno) -> Int32 {
        try valueOrErrno { cOpen(path, flags, mode) }.get()
    }

    /// One read(2) into `buffer`: the bytes read, 0 at the end of the file.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { cRead(fd, buffer.baseAddress, buffer.count) }.get()
    }

    /// pread(2) until `buffer` is full or the file ends: the bytes read.
    public static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        var got = 0
        while got < buffer.count {
            let r = try valueOrErrno { pread(fd, buffer.baseAddress! + got, buffer.count - got, off_t(offset + got)) }.get()
            if r == 0 { break }
            got += r
        }
        return got
    }

    /// Reads `fd` to its end, or until more than `limit` bytes came (then those, `limit` + 1 or
    /// more of them, so the caller can tell a file that is too long).
    public static func readToEnd(_ fd: Int32, limit: Int, chunk: Int = 16384) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
        defer { buf.deallocate() }
        while bytes.count <= limit {
            let n = try read(fd, into: buf)
            if n == 0 { break }
            bytes += buf[0..<n]
        }
        return bytes
    }

    /// write(2) until all of `bytes` is written. A write that makes no progress is EIO.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var off = 0
        while off < bytes.count {
            let n = try valueOrErrno { cWrite(fd, bytes.baseAddress! + off, bytes.count - off) }.get()
            if n == 0 { throw .ioError }
            off += n
        }
    }

    /// write(2) until all of `bytes` is written.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        let r = bytes.withUnsafeBytes { b in Result { () throws(Errno) in try writeAll(fd, b) } }
        try r.get()
    }

    /// pwrite(2) until all of `bytes` is written at `offset`.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) {
        var off = 0
        while off < bytes.count {
            let n = try valueOrErrno { pwrite(fd, bytes.baseAddress! + off, bytes.count - off, off_t(offset + off)) }.get()
            if n == 0 { throw .ioError }
            off += n
        }
    }

    /// close(2), not retried: after EINTR the descriptor is already gone on Linux.
    @discardableResult
    public static func close(_ fd: Int32) -> Errno? {
        cClose(fd) == 0 ? nil : .current
    }

    /// fsync(2) of a directory: makes a new, renamed or removed entry in it durable. EINVAL (a
    /// file system that cannot sync directories, vfat on older kernels) is no failure.
    public static func syncDirectory(_ dir: String) throws(DirectorySyncError) {
        let fd: Int32
        do throws(Errno) { fd = try open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } catch { throw .open(error) }
        defer { close(fd) }
        if fsync(fd) != 0 && errno != EINVAL { throw .sync(.current) }
    }

    /// Why `syncDirectory` failed: the directory would not open, or its fsync failed.
    public enum DirectorySyncError: Error {
        case open(Errno)
        case sync(Errno)
        public var errno: Errno {
            switch self {
            case .open(let e), .sync(let e): return e
            }
        }
    }

    /// `name` inside `dir` ("" is the working directory).
    public static func join(_ dir: String, _ name: String) -> String {
        if dir.isEmpty { return name }
        return dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }

    /// The directory holding `path`: "." for a bare name, "/" for a name in the root.
    public static func parent(of path: String) -> String {
        guard let i = path.lastIndex(of: "/") else { return "." }
        return i == path.startIndex ? "/" : String(path[..<i])
    }

    /// Whether `path` is a directory (or a link to one).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The magic number of the file system holding `path` (statfs(2)'s f_type).
    public static func fileSystemMagic(_ path: String) throws(Errno) -> UInt32 {
        let m = try valueOrErrno { cairn_fs_magic(path) }.get()
        return UInt32(truncatingIfNeeded: m)
    }
}

// File-level names for the C calls: inside `POSIX` its own `open`, `read`, `write` and `close` win.
private func cOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func cRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int { read(fd, p, n) }
private func cWrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int { write(fd, p, n) }
private func cClose(_ fd: Int32) -> Int32 { close(fd) }

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

    /// One pwrite(2) of `bytes` at `offset`, EINTR retried: the bytes written, which may be fewer.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try valueOrErrno { pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset)) }.get()
    }

    /// lseek(2) to `offset` from the start: the new offset.
    @discardableResult
    public static func seek(_ fd: Int32, to offset: Int) throws(Errno) -> Int {
        Int(try valueOrErrno { lseek(fd, off_t(offset), SEEK_SET) }.get())
    }

    /// flock(2) LOCK_EX, without waiting: throws `.wouldBlock` when another descriptor holds it.
    public static func lockExclusively(_ fd: Int32) throws(Errno) {
        _ = try valueOrErrno { flock(fd, LOCK_EX | LOCK_NB) }.get()
    }

    /// close(2), not retried: after EINTR the descriptor is already gone on Linux.
    @discardableResult
    public static func close(_ fd: Int32) -> Errno? {
        cClose(fd) == 0 ? nil : .current
    }

    /// fsync(2): the file's data and metadata on the medium.
    public static func fsync(_ fd: Int32) throws(Errno) {
        _ = try valueOrErrno(retryOnInterrupt: false) { cFsync(fd) }.get()
    }

    /// fdatasync(2): the file's data (and the size) on the medium.
    public static func fdatasync(_ fd: Int32) throws(Errno) {
        _ = try valueOrErrno(retryOnInterrupt: false) { cFdatasync(fd) }.get()
    }

    /// ftruncate(2).
    public static func truncate(_ fd: Int32, to size: Int) throws(Errno) {
        _ = try valueOrErrno { ftruncate(fd, off_t(size)) }.get()
    }

    /// rename(2): replaces `to` atomically.
    public static func rename(_ from: String, _ to: String) throws(Errno) {
        _ = try valueOrErrno { cRename(from, to) }.get()
    }

    /// link(2): a second name for `from`; refuses an existing `to` (EEXIST).
    public static func link(_ from: String, _ to: String) throws(Errno) {
        _ = try valueOrErrno { cLink(from, to) }.get()
    }

    /// unlink(2); the error, if any, for the callers that care (most remove a leftover that may
    /// not be there).
    @discardableResult
    public static func unlink(_ path: String) -> Errno? {
        cUnlink(path) == 0 ? nil : .current
    }

    /// rmdir(2): nil when the empty directory is gone, else why not.
    @discardableResult
    public static func removeDirectory(_ path: String) -> Errno? {
        cRmdir(path) == 0 ? nil : .current
    }

    /// isatty(3): whether `fd` is a terminal (under systemd, standard error is not).
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The width in columns of the terminal on `fd` (TIOCGWINSZ); nil when it is no terminal or
    /// does not say.
    public static func terminalColumns(_ fd: Int32) -> Int? {
        let c = Int(cairn_terminal_columns(fd))
        return c > 0 ? c : nil
    }

    /// mkdir(2); an existing entry of that name is no failure when `existingIsFine`.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o755, existingIsFine: Bool = true) throws(Errno) {
        if cMkdir(path, mode) == 0 { return }
        let e = Errno.current
        if existingIsFine && e == .fileExists { return }
        throw e
    }

    /// stat(2) (links followed) or lstat(2) (not).
    public static func status(_ path: String, followLinks: Bool = true) throws(Errno) -> stat {
        var st = stat()
        let r = followLinks ? cStat(path, &st) : lstat(path, &st)
        if r != 0 { throw .current }
        return st
    }

    /// fstat(2).
    public static func status(_ fd: Int32) throws(Errno) -> stat {
        var st = stat()
        if fstat(fd, &st) != 0 { throw .current }
        return st
    }

    /// access(2): throws unless the caller may use `path` as `mode` says (W_OK | X_OK, ...).
    public static func checkAccess(_ path: String, _ mode: Int32) throws(Errno) {
        if access(path, mode) != 0 { throw .current }
    }

    /// chown(2): `path`'s owner and group (links followed).
    public static func changeOwner(_ path: String, uid: uid_t, gid: gid_t) throws(Errno) {
        if chown(path, uid, gid) != 0 { throw .current }
    }

    /// chmod(2).
    public static func changeMode(_ path: String, _ mode: mode_t) throws(Errno) {
        if chmod(path, mode) != 0 { throw .current }
    }

    /// Whether anything is at `path` (links followed).
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Drops the file's pages from the page cache (posix_fadvise DONTNEED), so that the next
    /// read comes from the medium. Advice: its failure changes nothing.
    public static func dropCachedPages(_ fd: Int32) {
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
    }

    /// readlink(2): where the symbolic link at `path` leads.
    public static func readLink(_ path: String) throws(Errno) -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buf, buf.count - 1)
        if n < 0 { throw .current }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// realpath(3): `path` with every symbolic link, `.` and `..` resolved; it must exist.
    public static func realPath(_ path: String) throws(Errno) -> String {
        guard let r = realpath(path, nil) else { throw .current }
        defer { free(r) }
        return String(cString: r)
    }

    /// getcwd(3): the working directory.
    public static func currentDirectory() throws(Errno) -> String {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buf, buf.count) != nil else { throw .current }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// mkstemp(3): a new file `prefix` + six random characters, mode 0600, close-on-exec.
    /// Returns its descriptor and name.
    public static func makeTemporaryFile(prefix: String) throws(Errno) -> (fd: Int32, path: String) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw .current }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return (fd, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// The names in directory `dir` (without "." and ".."), in the order readdir(3) gives them.
    public static func listDirectory(_ dir: String) throws(Errno) -> [String] {
        guard let d = opendir(dir) else { throw .current }
        defer { closedir(d) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(d) else {
                if errno != 0 { throw .current }
                return names
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// fsync(2) of a directory: makes a new, renamed or removed entry in it durable. EINVAL (a
    /// file system that cannot sync directories, vfat on older kernels) is no failure.
    public static func syncDirectory(_ dir: String) throws(DirectorySyncError) {
        let fd: Int32
        do throws(Errno) { fd = try open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } catch { throw .open(error) }
        defer { close(fd) }
        do throws(Errno) { try fsync(fd) } catch { if error != .invalidArgument { throw .sync(error) } }
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
        guard let st = try? status(path) else { return false }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The bytes an unprivileged writer may still use on the file system holding `path`
    /// (statvfs(3)); nil when that cannot be read.
    public static func freeBytes(_ path: String) -> Int? {
        var v = statvfs()
        guard statvfs(path, &v) == 0 else { return nil }
        let (bytes, over) = Int(v.f_bavail).multipliedReportingOverflow(by: Int(v.f_frsize))
        return over ? Int.max : bytes
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
private func cFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func cFdatasync(_ fd: Int32) -> Int32 { fdatasync(fd) }
private func cRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func cLink(_ from: String, _ to: String) -> Int32 { link(from, to) }
private func cUnlink(_ path: String) -> Int32 { unlink(path) }
private func cMkdir(_ path: String, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
private func cRmdir(_ path: String) -> Int32 { rmdir(path) }
private func cStat(_ path: String, _ st: UnsafeMutablePointer<stat>) -> Int32 { stat(path, st) }

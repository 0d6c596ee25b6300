#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A buffered writer to a file descriptor: exporters stream through a fixed 64 KiB buffer, so
/// memory does not grow with the trip. Numbers and times are formatted straight into the buffer
/// (no intermediate strings), which is what makes a million-point export take well under a second.
public final class OutputSink {
    public let path: String
    fileprivate var fd: Int32
    private let ownsFd: Bool
    private let syncOnFinish: Bool
    fileprivate let buf: UnsafeMutablePointer<UInt8>
    fileprivate var count = 0
    static let capacity = 64 * 1024
    /// Bytes handed to `write(2)` so far (the buffer not included).
    fileprivate var flushed = 0
    public private(set) var error: String?
    private var finished = false
    /// Where the bytes go until `finish` renames them to `path` (atomic sinks only).
    private let temporaryPath: String?
    /// What the temporary file is renamed to: `path`, or the file a link at `path` leads to.
    private var finalPath: String?
    private let replace: Bool
    // The date part of `isoTime`, cached per day.
    private var cachedDay: Int64 = .min
    private var cachedDate: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// Standard output.
    public init(stdout: Void = ()) {
        path = "-"
        fd = 1
        ownsFd = false
        syncOnFinish = false
        temporaryPath = nil
        replace = false
        buf = .allocate(capacity: Self.capacity)
    }

    /// Writes `path` through a hidden temporary file in the same directory (`.NAME.part`):
    /// `finish` syncs it, renames it over `path` and syncs the directory, only when every write
    /// succeeded; otherwise (or when the sink is dropped unfinished) the temporary file is
    /// removed. So a failure never leaves a partial file under `path` and never touches the file
    /// already there. Refuses an existing `path` unless `force`.
    /// With `force`, a symbolic link is written through (its target is replaced, the link
    /// stays) and a device or FIFO (`-o /dev/null`) is written into directly: renaming over
    /// either would replace the link or the device node itself with a regular file.
    public init(atomically path: String, force: Bool) throws(ExportError) {
        self.path = path
        if !force && Self.exists(path) { throw ExportError("\(path): already exists (use --force to replace it)") }
        if Self.isDirectory(path) { throw ExportError("\(path): is a directory") }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            let fd = openFile(path, O_WRONLY | O_CLOEXEC, 0)
            if fd < 0 { throw ExportError("\(path): cannot open: \(String(cString: strerror(errno)))") }
            self.fd = fd
            ownsFd = true
            syncOnFinish = false
            temporaryPath = nil
            replace = false
            buf = .allocate(capacity: Self.capacity)
            return
        }
        let final = Self.resolvingLink(path)
        let tmp = Self.temporaryName(for: final)
        unlink(tmp)  // a leftover of a run that was killed
        let fd = openFile(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 { throw ExportError("\(path): cannot create \(tmp): \(String(cString: strerror(errno)))") }
        self.fd = fd
        ownsFd = true
        syncOnFinish = true
        temporaryPath = tmp
        finalPath = final
        replace = force
        buf = .allocate(capacity: Self.capacity)
    }

    /// Where a symbolic link at `path` leads (a link may name a relative target); `path` itself
    /// when it is no link or leads nowhere.
    static func resolvingLink(_ path: String) -> String {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK, let r = realpath(path, nil) else { return path }
        defer { free(r) }
        return String(cString: r)
    }

    /// `.NAME.part` next to `path`.
    public static func temporaryName(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." + path + ".part" }
        return String(path[...slash]) + "." + path[path.index(after: slash)...] + ".part"
    }

    static func exists(_ p: String) -> Bool {
        var st = stat()
        return lstat(p, &st) == 0
    }

    static func isDirectory(_ p: String) -> Bool {
        var st = stat()
        return stat(p, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path`; refuses to replace an existing file unless `force`.
    public init(creating path: String, force: Bool) throws(ExportError) {
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL)
        let fd = openFile(path, flags, 0o644)
        if fd < 0 {
            let e = errno
            if e == EEXIST { throw ExportError("\(path): already exists (use --force to replace it)") }
            if e == EISDIR { throw ExportError("\(path): is a directory") }
            throw ExportError("\(path): cannot create: \(String(cString: strerror(e)))")
        }
        self.fd = fd
        ownsFd = true
        // Not fsynced: an export is derived data, made again from the log at will (the log is
        // the only primary record); a sync would double the time of a large export.
        syncOnFinish = false
        temporaryPath = nil
        replace = false
        buf = .allocate(capacity: Self.capacity)
    }

    /// A sink on a descriptor it owns but never syncs (a spool's temporary file).
    fileprivate init(spoolFd: Int32, path: String) {
        self.path = path
        fd = spoolFd
        ownsFd = true
        syncOnFinish = false
        temporaryPath = nil
        replace = false
        buf = .allocate(capacity: Self.capacity)
    }

    deinit {
        if ownsFd && !finished && fd >= 0 { closeFd(fd) }
        if !finished, let t = temporaryPath { unlink(t) }
        buf.deallocate()
    }

    /// Drops an atomic sink's output: the temporary file goes, `path` is untouched.
    public func discard() {
        guard !finished else { return }
        if ownsFd { closeFd(fd) }
        if let t = temporaryPath { unlink(t) }
        finished = true
    }

    /// Bytes written so far, the buffered ones included: the output's size once finished.
    public var bytesWritten: Int { flushed + count }

    // MARK: Raw bytes

    /// Room for `n` (≤ 64 KiB) bytes at the returned pointer; `commit` how many were used.
    @inline(__always)
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > Self.capacity { flush() }
        return buf + count
    }

    @inline(__always)
    func commit(_ n: Int) { count += n }

    @inline(__always)
    public func byte(_ b: UInt8) {
        if count == Self.capacity { flush() }
        buf[count] = b
        count += 1
    }

    public func write(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// A literal, without going through `String`.
    @inline(__always)
    public func put(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > Self.capacity { flush() }
        if bytes.count > Self.capacity {
            writeAll(base, bytes.count)
            flushed += bytes.count
        } else {
            (buf + count).update(from: base, count: bytes.count)
            count += bytes.count
        }
    }

    public func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    public func flush() {
        guard count > 0 else { return }
        writeAll(buf, count)
        flushed += count
        count = 0
    }

    private func writeAll(_ p0: UnsafePointer<UInt8>, _ n: Int) {
        guard error == nil else { return }
        var p = p0
        var left = n
        while left > 0 {
            let r = writeFd(fd, p, left)
            if r < 0 {
                if errno == EINTR { continue }
                error = "\(path == "-" ? "standard output" : path): write failed: \(String(cString: strerror(errno)))"
                return
            }
            left -= r
            p += r
        }
    }

    /// Overwrites bytes already written (FIT's header, completed at the end). Needs a file.
    public func overwrite(at offset: Int, _ bytes: [UInt8]) {
        flush()
        guard error == nil else { return }
        let r = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        if r != bytes.count {
            error = "\(path): cannot rewrite the header: \(r < 0 ? String(cString: strerror(errno)) : "short write")"
        }
    }

    /// Flushes and closes a created file. Returns an error text if anything failed (a write or
    /// a close: NFS and quotas report late errors at close).
    public func finish() -> String? {
        guard !finished else { return error }
        flush()
        if ownsFd {
            if error == nil && syncOnFinish && fsync(fd) != 0 { error = "\(path): sync failed: \(String(cString: strerror(errno)))" }
            if closeFd(fd) != 0 && error == nil && fd > 2 { error = "\(path): close failed: \(String(cString: strerror(errno)))" }
        }
        finished = true
        if let t = temporaryPath {
            if error == nil { error = Self.moveIntoPlace(t, finalPath ?? path, replace: replace) }
            if error != nil { unlink(t) }
        }
        return error
    }

    /// Renames `tmp` to `path` and syncs the directory. Without `replace`, a file that appeared
    /// at `path` meanwhile is kept: a hard link fails on it (where the file system has links;
    /// FAT has none, and gets the rename).
    private static func moveIntoPlace(_ tmp: String, _ path: String, replace: Bool) -> String? {
        if !replace {
            if link(tmp, path) == 0 {
                unlink(tmp)
                return syncParent(of: path)
            }
            let e = errno
            if e == EEXIST { return "\(path): already exists (use --force to replace it)" }
        }
        if rename(tmp, path) != 0 { return "\(path): cannot rename \(tmp) into place: \(String(cString: strerror(errno)))" }
        return syncParent(of: path)
    }

    private static func syncParent(of path: String) -> String? {
        let dir = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = openFile(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return "\(dir): cannot open to sync: \(String(cString: strerror(errno)))" }
        defer { closeFd(fd) }
        // EINVAL: a file system that cannot sync directories; the rename is done anyway.
        if fsync(fd) != 0 && errno != EINVAL { return "\(dir): sync failed: \(String(cString: strerror(errno)))" }
        return nil
    }

    // MARK: Text

    private static let digitPairs: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 200)
        for i in 0..<100 {
            t[2 * i] = UInt8(ascii: "0") + UInt8(i / 10)
            t[2 * i + 1] = UInt8(ascii: "0") + UInt8(i % 10)
        }
        return t
    }()

    /// Writes the decimal digits of `v` at `p` (at least `minDigits`, zero-padded); returns the count.
    @inline(__always)
    static func digits(_ v0: UInt64, minDigits: Int, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch: a UInt64 has ≤ 20 digits
        return withUnsafeMutableBytes(of: &tmp) { raw -> Int in
            let t = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var v = v0
            var i = 24
            while v >= 10 {
                let r = Int(v % 100)
                v /= 100
                i -= 2
                t[i] = digitPairs[2 * r]
                t[i + 1] = digitPairs[2 * r + 1]
            }
            if v > 0 || i == 24 {
                i -= 1
                t[i] = UInt8(ascii: "0") + UInt8(v)
            }
            var n = 24 - i
            var out = 0
            while n < minDigits {
                p[out] = UInt8(ascii: "0")
                out += 1
                n += 1
            }
            (p + out).update(from: t + i, count: 24 - i)
            return out + 24 - i
        }
    }

    public func int(_ v: Int64) {
        let p = reserve(21)
        var n = 0
        if v < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
        n += Self.digits(v.magnitude, minDigits: 1, p + n)
        commit(n)
    }

    private static let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// `value` with `decimals` (≤ 9) digits after the point, rounded half away from zero, exactly
    /// as `TextFormat.fixed`; `trim` drops trailing zeros as `TextFormat.trimmed`. Every finite
    /// value is written in full; writes nothing and returns false for a non-finite value (the
    /// writers never pass one: they check first).
    @discardableResult
    public func decimal(_ value: Double, _ decimals: Int, trim: Bool = true) -> Bool {
        guard value.isFinite else { return false }
        let scale = Self.powers[decimals]
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else {
            var (int, frac) = TextFormat.largeDigits(value, decimals)
            if trim { while frac.last == UInt8(ascii: "0") { frac.removeLast() } }
            if value < 0 { byte(UInt8(ascii: "-")) }
            append(int)
            if !frac.isEmpty { byte(UInt8(ascii: ".")); append(frac) }
            return true
        }
        let n = UInt64(scaled)
        let pw = UInt64(scale)
        let p = reserve(44)
        var k = 0
        let intPart = n / pw
        var frac = n % pw
        var fd = decimals
        if trim {
            while fd > 0 && frac % 10 == 0 { frac /= 10; fd -= 1 }
        }
        if value < 0 && n != 0 { p[0] = UInt8(ascii: "-"); k = 1 }
        k += Self.digits(intPart, minDigits: 1, p + k)
        if fd > 0 {
            p[k] = UInt8(ascii: ".")
            k += 1
            k += Self.digits(frac, minDigits: fd, p + k)
        }
        commit(k)
        return true
    }

    /// ISO 8601 UTC, as `TextFormat.isoTime`: `2026-05-01T06:00:01Z`, `...01.250Z`.
    public func isoTime(ms: Int64) {
        let (secs, milli) = TextFormat.floorDivMod(ms, 1000)
        let (day, sod) = TextFormat.floorDivMod(secs, 86_400)
        if day != cachedDay {
            let (y, m, d) = TextFormat.civil(fromDays: day)
            var date = [UInt8](repeating: 0, count: 10)
            let ys = TextFormat.pad(y, 4) + "-" + TextFormat.pad(m, 2) + "-" + TextFormat.pad(d, 2)
            let u = Array(ys.utf8)
            guard u.count == 10 else { write(TextFormat.isoTime(ms: ms)); return }
            for i in 0..<10 { date[i] = u[i] }
            cachedDate = (date[0], date[1], date[2], date[3], date[4], date[5], date[6], date[7], date[8], date[9])
            cachedDay = day
        }
        let p = reserve(24)
        withUnsafeBytes(of: cachedDate) { p.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 10) }
        p[10] = UInt8(ascii: "T")
        let h = Int(sod / 3600), mi = Int(sod / 60 % 60), s = Int(sod % 60)
        p[11] = Self.digitPairs[2 * h]; p[12] = Self.digitPairs[2 * h + 1]; p[13] = UInt8(ascii: ":")
        p[14] = Self.digitPairs[2 * mi]; p[15] = Self.digitPairs[2 * mi + 1]; p[16] = UInt8(ascii: ":")
        p[17] = Self.digitPairs[2 * s]; p[18] = Self.digitPairs[2 * s + 1]
        var k = 19
        if milli != 0 {
            p[19] = UInt8(ascii: ".")
            k = 20 + Self.digits(UInt64(milli), minDigits: 3, p + 20)
        }
        p[k] = UInt8(ascii: "Z")
        commit(k + 1)
    }
}

/// A stream an exporter needs to write out of order (GeoJSON's times after its coordinates,
/// KML's `<gx:coord>`s after their `<when>`s): bytes go to a 64 KiB buffer and, past that, to an
/// unlinked temporary file, so memory stays fixed however long the trip. `drain` copies them
/// into the real output and empties the spool.
public final class Spool {
    private var sink: OutputSink?
    private let directory: String
    public private(set) var error: String?

    public init(directory: String? = nil) {
        var d = directory ?? ""
        if d.isEmpty, let t = getenv("TMPDIR") { d = String(cString: t) }
        if d.isEmpty { d = "/tmp" }
        self.directory = d
    }

    deinit {
        _ = sink?.finish()
    }

    /// True when nothing has been written since the last drain.
    public var isEmpty: Bool { (sink?.bytesWritten ?? 0) == 0 }

    /// Where to write: a sink of its own, opened on first use past the in-memory part.
    public var out: OutputSink {
        if let s = sink { return s }
        let s = open()
        sink = s
        return s
    }

    private func open() -> OutputSink {
        // A named file, unlinked at once: nothing is left behind, whatever happens to the process.
        var template = Array((directory + "/cairn-spool-XXXXXX").utf8CString)
        var fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        var name = directory + "/cairn-spool (unlinked)"
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            name = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            unlink(name)
        } else {
            error = "\(directory): cannot create a temporary file: \(String(cString: strerror(errno)))"
            fd = openFile("/dev/null", O_WRONLY | O_CLOEXEC, 0)
        }
        return OutputSink(spoolFd: fd, path: name)
    }

    /// Copies everything written since the last drain into `target`, then empties the spool.
    public func drain(into target: OutputSink) {
        guard let s = sink else { return }
        if s.flushed == 0 {
            // Never left memory: copy the buffer.
            target.append(UnsafeBufferPointer(start: s.buf, count: s.count))
            s.count = 0
            return
        }
        s.flush()
        if let e = s.error { error = error ?? e }
        var offset = 0
        let total = s.flushed
        while offset < total {
            let want = min(OutputSink.capacity, total - offset)
            let p = target.reserve(want)
            let r = pread(s.fd, p, want, off_t(offset))
            if r <= 0 {
                if r < 0 && errno == EINTR { continue }
                error = error ?? "\(s.path): cannot read back: \(r < 0 ? String(cString: strerror(errno)) : "short read")"
                break
            }
            target.commit(r)
            offset += r
        }
        if ftruncate(s.fd, 0) != 0 { error = error ?? "\(s.path): cannot truncate: \(String(cString: strerror(errno)))" }
        lseek(s.fd, 0, SEEK_SET)
        s.flushed = 0
    }
}

public struct ExportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

// File-level wrappers: inside the class, `write`/`close` would resolve to its own methods.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func writeFd(_ fd: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int { write(fd, p, n) }
@discardableResult
private func closeFd(_ fd: Int32) -> Int32 { close(fd) }

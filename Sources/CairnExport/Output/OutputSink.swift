/// A buffered writer: exporters stream through a fixed 64 KiB buffer into an `OutputFile`, so
/// memory does not grow with the trip. Numbers and times are formatted straight into the buffer
/// (`NumberText`, no intermediate strings), which is what makes a million-point export take
/// well under a second.
public final class OutputSink {
    let file: OutputFile
    fileprivate let buf: UnsafeMutablePointer<UInt8>
    fileprivate var count = 0
    static let capacity = 64 * 1024
    /// Bytes handed to the file so far (the buffer not included).
    fileprivate var flushed = 0
    /// The date part of `isoTime`, kept for the day it was made.
    private var dateCache = DateCache()

    public var path: String { file.path }
    public var error: OutputError? { file.error }

    private init(_ file: OutputFile) {
        self.file = file
        buf = .allocate(capacity: Self.capacity)
    }

    /// Standard output.
    public convenience init(stdout: Void = ()) {
        self.init(OutputFile())
    }

    /// Writes `path` through a hidden temporary file in the same directory (`.NAME.part`):
    /// `finish` syncs it, renames it over `path` and syncs the directory, only when every write
    /// succeeded; otherwise (or when the sink is dropped unfinished) the temporary file is
    /// removed. So a failure never leaves a partial file under `path` and never touches the file
    /// already there. Refuses an existing `path` unless `force`.
    /// With `force`, a symbolic link is written through (its target is replaced, the link
    /// stays) and a device or FIFO (`-o /dev/null`) is written into directly: renaming over
    /// either would replace the link or the device node itself with a regular file.
    public convenience init(atomically path: String, force: Bool) throws(ExportError) {
        self.init(try OutputFile(atomically: path, force: force))
    }

    /// Replaces `path`, a file the program owns (the cells index), whole: written under a
    /// temporary name of this write's own (`.NAME.PID-RANDOM.part`), synced, renamed over `path`,
    /// so two runs at once each put a complete file in place. Unlike `init(atomically:force:)`, `path` is
    /// never followed or opened: a link, FIFO or device in its place is replaced as a name, so
    /// nothing it leads to (a log) is ever written; a directory there fails.
    public convenience init(replacing path: String) throws(ExportError) {
        self.init(try OutputFile(replacing: path))
    }

    /// Creates `path`; refuses to replace an existing file unless `force`. Not fsynced: an
    /// export is derived data, made again from the log at will (the log is the only primary
    /// record); a sync would double the time of a large export.
    public convenience init(creating path: String, force: Bool) throws(ExportError) {
        self.init(try OutputFile(creating: path, force: force))
    }

    /// A sink on a descriptor it owns but never syncs (a spool's temporary file).
    convenience init(spoolFd: Int32, path: String) {
        self.init(OutputFile(spoolFd: spoolFd, path: path))
    }

    deinit {
        buf.deallocate()
    }

    /// `.NAME.part` next to `path`.
    public static func temporaryName(for path: String) -> String { OutputFile.temporaryName(for: path) }

    /// Drops an atomic sink's output: the temporary file goes, `path` is untouched.
    public func discard() { file.discard() }

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
            file.write(UnsafeRawBufferPointer(bytes))
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
        file.write(UnsafeRawBufferPointer(start: buf, count: count))
        flushed += count
        count = 0
    }

    /// Overwrites bytes already written (FIT's header, completed at the end). Needs a file.
    public func overwrite(at offset: Int, _ bytes: [UInt8]) {
        flush()
        file.overwrite(at: offset, bytes)
    }

    /// Flushes and closes a created file. Throws if anything failed (a write or a close: NFS
    /// and quotas report late errors at close).
    public func finish() throws(OutputError) {
        if !file.finished { flush() }
        try file.finish()
    }

    // MARK: Numbers and times

    public func int(_ v: Int64) {
        let p = reserve(21)
        var n = 0
        if v < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
        n += NumberText.digits(v.magnitude, minDigits: 1, p + n)
        commit(n)
    }

    /// `value` with `decimals` (≤ 9) digits after the point, rounded half away from zero, exactly
    /// as `TextFormat.fixed`; `trim` drops trailing zeros as `TextFormat.trimmed`. Every finite
    /// value is written in full; writes nothing and returns false for a non-finite value (the
    /// writers never pass one: they check first).
    @discardableResult
    public func decimal(_ value: Double, _ decimals: Int, trim: Bool = true) -> Bool {
        guard value.isFinite else { return false }
        let p = reserve(NumberText.decimalCapacity(decimals))
        if let n = NumberText.decimal(value, decimals, trim: trim, p) {
            commit(n)
            return true
        }
        var (int, frac) = TextFormat.largeDigits(value, decimals)
        if trim { while frac.last == UInt8(ascii: "0") { frac.removeLast() } }
        if value < 0 { byte(UInt8(ascii: "-")) }
        append(int)
        if !frac.isEmpty { byte(UInt8(ascii: ".")); append(frac) }
        return true
    }

    /// ISO 8601 UTC, as `TextFormat.isoTime`: `2026-05-01T06:00:01Z`, `...01.250Z`.
    public func isoTime(ms: Int64) {
        let (secs, milli) = NumberText.floorDivMod(ms, 1000)
        let (day, sod) = NumberText.floorDivMod(secs, 86_400)
        let p = reserve(NumberText.isoTimeCapacity)
        let k = dateCache.write(day: day, p)
        commit(k + NumberText.timeOfDay(seconds: sod, milli: milli, p + k))
    }
}

/// The date text of the last day written: consecutive points share it.
private struct DateCache {
    private var day: Int64 = .min
    private var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: a date is at most 28
    private var length = 0

    /// Writes the date of `day` at `p`; returns the count.
    @inline(__always)
    mutating func write(day d: Int64, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        if d != day {
            length = withUnsafeMutableBytes(of: &bytes) { NumberText.date(days: d, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
            day = d
        }
        withUnsafeBytes(of: bytes) { p.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: length) }
        return length
    }
}

extension OutputSink {
    /// For `Spool`: the buffered bytes, and what was flushed to the file.
    var bufferedBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: buf, count: count) }
    var flushedBytes: Int { flushed }
    func dropBuffered() { count = 0 }
    func rewound() { flushed = 0 }
}

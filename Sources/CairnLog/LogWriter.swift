#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore

/// The system calls whose failures the writer must survive; replaceable in tests.
struct WriterIO: Sendable {
    /// Writes the bytes at the file offset: bytes written (may be short), or -errno.
    var write: @Sendable (Int32, UnsafeRawBufferPointer, Int) -> Int
    /// 0, or the errno of the failure.
    var fdatasync: @Sendable (Int32) -> Int32
    /// Creates the file exclusively: a descriptor, or -errno. Not O_APPEND: the writer writes
    /// at explicit offsets, into space it filled with zeros beforehand.
    var create: @Sendable (String) -> Int32 = { path in
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        return fd < 0 ? -errno : fd
    }
    /// Sets the file's size: 0, or the errno of the failure.
    var truncate: @Sendable (Int32, Int) -> Int32 = { fd, size in sysFtruncate(fd, size) == 0 ? 0 : errno }
    /// Opens a second descriptor on the new file that writes past the page cache (O_DIRECT): a
    /// descriptor, or -errno. Refused by default, so that fakes write through the page cache.
    var openDirect: @Sendable (String) -> Int32 = { _ in -EINVAL }

    static let system = WriterIO(
        write: { fd, bytes, offset in
            let r = sysPwrite(fd, bytes.baseAddress, bytes.count, offset)
            return r < 0 ? -Int(errno) : r
        },
        fdatasync: { fd in sysFdatasync(fd) == 0 ? 0 : errno },
        openDirect: { path in
            guard let flag = oDirect else { return -EINVAL }
            let fd = open(path, O_WRONLY | O_CLOEXEC | flag)
            return fd < 0 ? -errno : fd
        })
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

private func sysPwrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ offset: Int) -> Int { pwrite(fd, p, n, off_t(offset)) }
private func sysFtruncate(_ fd: Int32, _ size: Int) -> Int32 { ftruncate(fd, off_t(size)) }
private func sysFdatasync(_ fd: Int32) -> Int32 { fdatasync(fd) }
private func sysClose(_ fd: Int32) { _ = close(fd) }

/// Appends records to one new log file (see LOG_FORMAT.md).
///
/// Preallocation (`preallocation` > 0): the writer keeps zero-filled space ahead of its data,
/// written explicitly in chunks (a `write` of zeros, synced with the data it follows), and
/// writes each sync into that space. A routine sync then overwrites blocks the file already
/// has: no size change, so no journal commit on ext4 and no directory-entry or FAT write on vfat
/// (LOG_FORMAT.md, "Preallocated space"). `close()` trims the file back to its data. A file cut
/// off by a power cut ends in zeros, which readers take as unused space.
///
/// Direct writes (preallocating writers, where the file system takes O_DIRECT): after the
/// header, data goes to the card past the page cache, in whole 512-byte sectors: each write is
/// the bytes already written in the sector where the data ends, the new bytes, and zeros to the
/// end of the last sector they touch, over zeros the file already has. A one-point sync then
/// writes one sector instead of a 4 KiB page, and rewrites 512 bytes around the last
/// acknowledged ones instead of 4,096. The zeros ahead are still written through the page cache.
/// A write refused with EINVAL (a device whose sectors are larger) goes through the page cache,
/// as does everything after it.
///
/// Durability contract: a record is durable once `sync()` has returned a sequence number ≥ its
/// own. After any write or fdatasync failure the writer is `failed` for good (a failed
/// fdatasync is never retried on the same descriptor: "fsyncgate"); the records it had not
/// acknowledged stay in `unacknowledged` for the caller to write into a new file.
///
/// `append` throws only when it did not accept the record (invalid input, a failed or closed
/// writer). An I/O failure while `append` writes out a full buffer is not thrown by that
/// `append` (the record was accepted and is in `unacknowledged`); the writer becomes `failed`
/// and the next `append` or `sync` throws it.
public final class LogWriter {
    /// Points per automatically framed batch.
    public static let pointsBatchCapacity = 256
    /// Framed bytes beyond which `append` writes them out (without syncing).
    static let spillBytes = 64 * 1024
    /// Unacknowledged points + records beyond which `append` syncs by itself, so that
    /// `unacknowledged` stays bounded even if the caller never syncs (or a replay runs faster
    /// than its 5 s syncs): 256 fixes are ~50 KB; 8,192 let a fast 12-hour replay grow the
    /// recorder by 1.5 MB, 1,024 by 68 kB.
    public static let maxUnacknowledged = 256
    /// Zero-filled space kept ahead of the data. 64 KiB last about 2 h of 1 Hz riding with 5 s
    /// syncs unpadded (33 kB an hour) and 13-14 min padded to 512 bytes (vfat, and ext4 written
    /// direct: 280-300 kB an hour); a file cut off by a power cut carries at most this much of zeros.
    public static let preallocationChunk = 64 * 1024
    /// The unit of direct writes: the logical sector of SD cards and most disks.
    public static let directSectorSize = 512
    /// The aligned buffer direct writes are assembled in; a larger write goes in pieces.
    static let directStageBytes = 16 * 1024

    public let path: String
    public let header: FileHeader
    /// 0, or the boundary (512 or 4096) every sync ends on: the header is that long and a padding
    /// frame fills each sync up to the next multiple, so a later write never shares a sector
    /// (or page) with bytes already acknowledged. See LOG_FORMAT.md, "Padding".
    public let padding: Int
    /// Padding bytes written so far (padding frames and the header's extension area).
    public private(set) var paddingBytes = 0
    /// 0, or the size of the chunks of zeros written ahead of the data.
    public let preallocation: Int

    private var fd: Int32
    private let io: WriterIO
    private let saltRegister: UInt32
    private var out: [UInt8] = []
    private var points = CompactPointsEncoder()
    private var pendingPoints: [Fix] = []
    private var unacked: [LogRecord] = []
    private var unackedWeight = 0
    private var nextSeq: UInt64 = 1
    private var dirty = false
    private var unreportedFailure: LogError?
    private var failureMessage = ""

    /// The highest sequence number made durable (0 until the first successful sync).
    public private(set) var lastSyncedSeq: UInt64 = 0
    /// True after any write or fdatasync failure; the writer then refuses all work.
    public private(set) var failed = false
    /// Bytes of data written to the file so far, header included: where the next frame goes.
    public private(set) var bytesWritten = 0
    /// The file's size as far as this writer knows: `bytesWritten` plus the zeros written ahead.
    public private(set) var fileSize = 0
    /// False once a write of zeros failed (a full card): the writer then only appends.
    private var preallocating: Bool
    /// The O_DIRECT descriptor, or -1 when writing through the page cache.
    private var directFd: Int32 = -1
    /// Page-aligned, `directStageBytes` long; starts with the bytes of the sector where the data ends.
    private var stage: UnsafeMutableRawPointer?
    /// Whether data goes to the card past the page cache, in whole sectors (see above).
    public var writesDirect: Bool { directFd >= 0 }

    /// Creates dir/NNNNNNNN.cairn with O_EXCL, writes+fdatasyncs the header, fsyncs the directory.
    /// `preallocation`: 0, or the size of the chunks of zeros kept ahead of the data (≥ 4096).
    /// `padDirect`: when the writer writes direct, pad to at least `directSectorSize`, so that no
    /// sync rewrites a sector holding acknowledged bytes (see LOG_FORMAT.md, "Direct writes").
    public convenience init(directory: String, number: UInt32, header: FileHeader, padding: Int = 0,
                            preallocation: Int = 0, padDirect: Bool = false) throws {
        try self.init(directory: directory, number: number, header: header, padding: padding,
                      preallocation: preallocation, padDirect: padDirect, io: .system)
    }

    init(directory: String, number: UInt32, header: FileHeader, padding: Int = 0, preallocation: Int = 0,
         padDirect: Bool = false, io: WriterIO) throws {
        let path = LogDirectory.join(directory, LogDirectory.fileName(number: number))
        guard number <= LogDirectory.maxNumber else {
            throw LogError(path: path, message: "file number \(number) has more than 8 digits", kind: .invalidArgument)
        }
        guard padding == 0 || (padding >= 64 && padding <= 32768 && padding & (padding - 1) == 0) else {
            throw LogError(path: path, message: "padding \(padding) is not 0 or a power of two from 64 to 32768",
                           kind: .invalidArgument)
        }
        guard preallocation == 0 || preallocation >= 4096 else {
            throw LogError(path: path, message: "preallocation \(preallocation) is not 0 or at least 4096",
                           kind: .invalidArgument)
        }
        self.preallocation = preallocation
        preallocating = preallocation > 0
        var h = header
        h.version = FrameFormat.version
        self.path = path
        self.header = h
        self.io = io
        self.saltRegister = CRC32C.saltRegister(h.salt)
        fd = io.create(path)
        if fd < 0 {
            let code = -fd
            fd = -1
            throw LogError.system(path, "cannot create log file", code)
        }
        // The direct descriptor is opened before the header, whose length is the padding.
        let direct = preallocation > 0 ? io.openDirect(path) : -1
        self.padding = direct >= 0 && padDirect ? max(padding, Self.directSectorSize) : padding
        out.reserveCapacity(Self.spillBytes + FrameFormat.maxFrame)
        pendingPoints.reserveCapacity(Self.pointsBatchCapacity)
        do {
            let head = h.encoded(length: max(FrameFormat.headerLength, self.padding))
            out = head
            paddingBytes = out.count - FrameFormat.headerLength
            try writeOut()
            let r = io.fdatasync(fd)
            if r != 0 { throw LogError.system(path, "fdatasync of the new file failed", r) }
            dirty = false
            try Self.syncDirectory(directory.isEmpty ? "." : directory, file: path)
            if direct >= 0 { startDirect(direct, head) }
        } catch {
            if direct >= 0 { sysClose(direct) }
            sysClose(fd)
            fd = -1
            failed = true
            // The file holds no record (at most a header): remove it, so a full card does not
            // collect one empty file per retry. The only unlink the writer ever does.
            _ = unlink(path)
            throw error
        }
    }

    deinit {
        if fd >= 0 { sysClose(fd) }
        stopDirect()
    }

    /// Takes the O_DIRECT descriptor `d` into use, and copies into the stage the bytes already
    /// written in the sector where the data ends (`head`: everything written so far). Without
    /// memory for the stage the writer goes on through the page cache.
    private func startDirect(_ d: Int32, _ head: [UInt8]) {
        guard preallocating else {  // the first zeros were refused: no space to write into
            sysClose(d)
            return
        }
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, 4096, Self.directStageBytes) == 0, let p else {
            sysClose(d)
            return
        }
        // Not cleared: each write fills what it sends (kept bytes, new bytes, zeros), and pages
        // of the stage that no write reaches stay untouched.
        let start = bytesWritten / Self.directSectorSize * Self.directSectorSize
        head.withUnsafeBytes { _ = memcpy(p, $0.baseAddress! + start, bytesWritten - start) }
        stage = p
        directFd = d
    }

    private func stopDirect() {
        if directFd >= 0 { sysClose(directFd) }
        directFd = -1
        free(stage)
        stage = nil
    }

    /// Makes the new directory entry durable. EINVAL (a file system that cannot sync
    /// directories) is not an error.
    private static func syncDirectory(_ dir: String, file: String) throws {
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd < 0 { throw LogError.system(file, "cannot open directory \(dir) to sync it", errno) }
        defer { sysClose(dfd) }
        if fsync(dfd) != 0 && errno != EINVAL {
            throw LogError.system(file, "fsync of directory \(dir) failed", errno)
        }
    }

    // MARK: Appending

    /// Queue a point into the pending points batch (capacity `pointsBatchCapacity`; when full it
    /// is framed automatically). Throws (and does not accept the point) if its latitude or
    /// longitude is not finite or out of range. Non-finite optional fields are written as absent.
    public func append(point: Fix) throws {
        try checkUsable()
        guard PointsEncoder.isValid(point) else { throw invalidFix(point) }
        pendingPoints.append(point)
        if pendingPoints.count >= Self.pointsBatchCapacity { framePendingPoints() }
        accepted(weight: 1)
    }

    /// Frame a non-point record (first frames any pending points batch so order is preserved).
    /// A `.points` record is framed as it is (split into batches of `pointsBatchCapacity`).
    public func append(_ record: LogRecord) throws {
        try checkUsable()
        switch record {
        case .points(let fixes):
            if let bad = fixes.first(where: { !PointsEncoder.isValid($0) }) { throw invalidFix(bad) }
            framePendingPoints()
            var i = 0
            repeat {
                let chunk = fixes[i..<min(fixes.count, i + Self.pointsBatchCapacity)]
                let ok = frame(type: FrameFormat.RecordType.compactPoints) { points.encode(chunk, into: &$0) }
                precondition(ok, "a points batch always fits in a frame")
                unacked.append(.points(Array(chunk)))
                i += Self.pointsBatchCapacity
                if out.count >= Self.spillBytes && !failed { spill() }
            } while i < fixes.count
            accepted(weight: max(1, fixes.count))
        default:
            let type = RecordCodec.type(of: record)
            if type == 0 || type == FrameFormat.RecordType.padding {
                throw LogError(path: path, message: "record type \(type) is reserved", kind: .invalidArgument)
            }
            framePendingPoints()
            let ok = frame(type: type) { RecordCodec.encodeBody(record, into: &$0) }
            if !ok {
                throw LogError(path: path, message: "record too large for one frame (max \(FrameFormat.maxPayload) bytes)",
                               kind: .invalidArgument)
            }
            unacked.append(record)
            accepted(weight: 1)
        }
    }

    private func invalidFix(_ f: Fix) -> LogError {
        LogError(path: path, message: "invalid fix (lat \(f.lat), lon \(f.lon), time \(f.timeMs) ms): latitude and longitude must be finite and in range, the time between 2000 and 2100",
                 kind: .invalidArgument)
    }

    private func checkUsable() throws {
        if let f = unreportedFailure {
            unreportedFailure = nil
            throw f
        }
        if failed {
            throw LogError(path: path, message: "writer failed earlier (\(failureMessage)); open a new file",
                           kind: .writerFailed)
        }
        if fd < 0 { throw LogError(path: path, message: "writer is closed", kind: .invalidArgument) }
    }

    /// After a record was accepted: keep memory bounded. Failures are kept for the next call.
    private func accepted(weight: Int) {
        unackedWeight += weight
        if failed { return }
        if unackedWeight >= Self.maxUnacknowledged {
            do { try syncNow() } catch { unreportedFailure = error }
        } else if out.count >= Self.spillBytes {
            spill()
        }
    }

    /// Writes the framed bytes out without syncing; a failure is kept for the next call.
    private func spill() {
        do { try writeOut() } catch { unreportedFailure = error }
    }

    /// Appends one frame to `out`. Returns false (and leaves `out` as it was) if the payload
    /// would exceed the frame limit.
    private func frame(type: UInt8, _ body: (inout [UInt8]) -> Void) -> Bool {
        let start = out.count
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 0] as [UInt8])
        out.appendVarint(nextSeq)
        body(&out)
        let length = out.count - start - FrameFormat.frameHeaderLength
        if length > FrameFormat.maxPayload {
            out.removeSubrange(start...)
            return false
        }
        out[start + 4] = UInt8(truncatingIfNeeded: length)
        out[start + 5] = UInt8(truncatingIfNeeded: length >> 8)
        out[start + 6] = type
        let crc = out.withUnsafeBytes { ~CRC32C.update(saltRegister, UnsafeRawBufferPointer(rebasing: $0[(start + 4)...])) }
        let m = CRC32C.mask(crc)
        for i in 0..<4 { out[start + i] = UInt8(truncatingIfNeeded: m >> (8 * UInt32(i))) }
        nextSeq += 1
        return true
    }

    private func framePendingPoints() {
        guard !pendingPoints.isEmpty else { return }
        let ok = frame(type: FrameFormat.RecordType.compactPoints) { points.encode(pendingPoints[...], into: &$0) }
        precondition(ok, "a points batch always fits in a frame")
        unacked.append(.points(pendingPoints))
        pendingPoints.removeAll(keepingCapacity: true)
    }

    /// Appends a padding frame so that the file will end on a multiple of `padding`.
    private func framePadding() {
        let end = bytesWritten + out.count
        var gap = (padding - end % padding) % padding
        if gap == 0 { return }
        let smallest = FrameFormat.frameHeaderLength + Varint.length(nextSeq)
        if gap < smallest { gap += padding }
        let zeros = gap - smallest
        let ok = frame(type: FrameFormat.RecordType.padding) { $0.append(contentsOf: repeatElement(0, count: zeros)) }
        precondition(ok, "a padding frame always fits")
        paddingBytes += gap
    }

    // MARK: Writing and syncing

    private func fail(_ e: LogError) -> LogError {
        failed = true
        failureMessage = e.message
        return e
    }

    /// Writes all of `out` at the end of the data (short writes continue, EINTR retries), then
    /// keeps zero-filled space ahead of it when preallocating.
    private func writeOut() throws(LogError) {
        var off = directFd >= 0 ? try writeOutDirect() : 0
        while off < out.count {
            let r = out.withUnsafeBytes { io.write(fd, UnsafeRawBufferPointer(rebasing: $0[off...]), bytesWritten) }
            if r < 0 {
                if r == -Int(EINTR) { continue }
                throw fail(.system(path, "write failed", Int32(-r)))
            }
            if r == 0 { throw fail(.system(path, "write made no progress", EIO)) }
            off += r
            bytesWritten += r
            dirty = true
        }
        out.removeAll(keepingCapacity: true)
        fileSize = max(fileSize, bytesWritten)
        if preallocating && bytesWritten >= fileSize { writeZerosAhead() }
    }

    /// Writes `out` past the page cache in whole sectors, piece by piece through the stage, into
    /// zeros written beforehand. Returns how much of `out` it wrote: all of it, or where it left
    /// direct writing (zeros refused, or a write refused with EINVAL: nothing of that write
    /// reached the file), so that the page cache takes the rest.
    private func writeOutDirect() throws(LogError) -> Int {
        let s = Self.directSectorSize
        var off = 0
        while off < out.count, let stage {
            let start = bytesWritten / s * s
            let kept = bytesWritten - start  // already written, in the stage's first sector
            let n = min(out.count - off, Self.directStageBytes - kept)
            let end = (bytesWritten + n + s - 1) / s * s
            if end > fileSize {
                if preallocating { writeZerosAhead(through: end) }
                if end > fileSize {  // no zeros to write into (a full card): append from here
                    stopDirect()
                    break
                }
            }
            out.withUnsafeBytes { _ = memcpy(stage + kept, $0.baseAddress! + off, n) }
            memset(stage + kept + n, 0, end - start - kept - n)
            let r = io.write(directFd, UnsafeRawBufferPointer(start: stage, count: end - start), start)
            if r == -Int(EINTR) { continue }
            if r == -Int(EINVAL) {
                stopDirect()
                break
            }
            if r < 0 { throw fail(.system(path, "write failed", Int32(-r))) }
            // A short write keeps what it covered of the new bytes; the rest goes again.
            let done = min(start + r, bytesWritten + n) - bytesWritten
            if done <= 0 { throw fail(.system(path, "write made no progress", EIO)) }
            off += done
            bytesWritten += done
            dirty = true
            let next = bytesWritten / s * s  // the new last sector moves to the stage's front
            if next > start { memmove(stage, stage + (next - start), bytesWritten - next) }
        }
        return off
    }

    private static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Extends the file with zeros to a page boundary plus one chunk (at least to `through`).
    /// The sync that follows makes them durable with the data before them; later syncs then
    /// overwrite in place. A failure (a full card) is not the data's: the zeros are given up,
    /// and the writer appends from then on.
    private func writeZerosAhead(through: Int = 0) {
        let target = max((bytesWritten + 4095) / 4096 * 4096 + preallocation, (through + 4095) / 4096 * 4096)
        while fileSize < target {
            let n = min(Self.zeros.count, target - fileSize)
            let r = Self.zeros.withUnsafeBytes { io.write(fd, UnsafeRawBufferPointer(rebasing: $0[..<n]), fileSize) }
            if r == -Int(EINTR) { continue }
            if r <= 0 {
                preallocating = false
                return
            }
            fileSize += r
            dirty = true
        }
    }

    private func syncNow() throws(LogError) {
        framePendingPoints()
        if padding > 0 && (dirty || !out.isEmpty) { framePadding() }
        try writeOut()
        if dirty {
            // Any failure, EINTR included, abandons the descriptor: never fdatasync it again.
            let r = io.fdatasync(fd)
            if r != 0 { throw fail(.system(path, "fdatasync failed", r)) }
            dirty = false
        }
        lastSyncedSeq = nextSeq - 1
        unacked.removeAll(keepingCapacity: true)
        unackedWeight = 0
    }

    /// Frames pending points, write()s everything pending (handle short writes and EINTR), then fdatasync.
    /// Returns the highest sequence number now durable. On ANY write or fdatasync failure: throws, and the
    /// writer becomes `failed` permanently; the records not yet acknowledged remain in `unacknowledged`.
    @discardableResult
    public func sync() throws -> UInt64 {
        try checkUsable()
        try syncNow()
        return lastSyncedSeq
    }

    /// Framed but not yet written bytes, plus the exact framed size of the pending points batch
    /// (encoded here to measure it: points are bit-packed only when framed).
    public var pendingBytes: Int {
        var n = out.count
        if !pendingPoints.isEmpty {
            var body: [UInt8] = []
            var e = CompactPointsEncoder()
            e.encode(pendingPoints[...], into: &body)
            n += FrameFormat.frameHeaderLength + Varint.length(nextSeq) + body.count
        }
        return n
    }

    /// Whether anything was appended or written since the last successful sync.
    public var hasUnsynced: Bool { dirty || !out.isEmpty || !pendingPoints.isEmpty || unackedWeight > 0 }

    /// Records (points batches included) appended since the last successful sync, in order.
    /// Bounded: `append` syncs by itself at `maxUnacknowledged` points + records.
    public var unacknowledged: [LogRecord] {
        pendingPoints.isEmpty ? unacked : unacked + [.points(pendingPoints)]
    }

    /// Closes the fd (does NOT sync the data; caller syncs first). Later appends and syncs throw.
    /// A writer that has not failed first trims the zeros ahead of its data and makes the new
    /// size durable; if that fails the zeros stay, which readers take as unused space.
    public func close() {
        guard fd >= 0 else { return }
        if !failed && fileSize > bytesWritten && io.truncate(fd, bytesWritten) == 0 {
            fileSize = bytesWritten
            if !dirty { _ = io.fdatasync(fd) }
        }
        stopDirect()
        sysClose(fd)
        fd = -1
    }
}

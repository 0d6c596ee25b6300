#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// What the writer creates a log file with. Not O_APPEND: the writer writes at explicit
/// offsets, into space it filled with zeros beforehand.
private let createFlags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC

/// One new log file that only grows at its end (LevelDB's WritableFile): `append` writes bytes
/// after the data, `sync` makes them durable. It owns how they get to the card.
///
/// Preallocation (`preallocation` > 0): the file keeps zero-filled space ahead of its data,
/// written explicitly in chunks (a `write` of zeros, synced with the data it follows), and
/// writes each sync into that space. A routine sync then overwrites blocks the file already
/// has: no size change, so no journal commit on ext4 and no directory-entry or FAT write on vfat
/// (LOG_FORMAT.md, "Preallocated space"). `close()` trims the file back to its data. A file cut
/// off by a power cut ends in zeros, which readers take as unused space.
///
/// Direct writes (preallocating files, where the file system takes O_DIRECT): after the
/// header, data goes to the card past the page cache, in whole 512-byte sectors: each write is
/// the bytes already written in the sector where the data ends, the new bytes, and zeros to the
/// end of the last sector they touch, over zeros the file already has. A one-point sync then
/// writes one sector instead of a 4 KiB page, and rewrites 512 bytes around the last
/// acknowledged ones instead of 4,096. The zeros ahead are still written through the page cache.
/// A write refused with EINVAL (a device whose sectors are larger) goes through the page cache,
/// as does everything after it.
///
/// Any failure is thrown and final for the caller: a failed fdatasync is never retried on the
/// same descriptor ("fsyncgate").
final class AppendFile {
    /// The unit of direct writes: the logical sector of SD cards and most disks.
    static let directSectorSize = 512
    /// The aligned buffer direct writes are assembled in; a larger write goes in pieces.
    static let directStageBytes = 16 * 1024
    private static let zeros = [UInt8](repeating: 0, count: 4096)

    let path: String
    /// 0, or the size of the chunks of zeros written ahead of the data.
    let preallocation: Int
    /// Bytes of data written so far: where the next append goes.
    private(set) var bytesWritten = 0
    /// The file's size as far as this file knows: `bytesWritten` plus the zeros written ahead.
    private(set) var fileSize = 0
    /// Whether anything was written since the last successful sync.
    private(set) var dirty = false
    private var fd: Int32
    private let io: FileIO
    /// False once a write of zeros failed (a full card): the file then only appends.
    private var preallocating: Bool
    /// Whether the file system counts the file's links (see `sync`).
    private var linked = false
    /// The O_DIRECT descriptor, or -1 when writing through the page cache.
    private var directFd: Int32 = -1
    /// The descriptor opened for direct writes, not yet taken into use (see `startDirect`).
    private var directCandidate: Int32 = -1
    /// Page-aligned, `directStageBytes` long; starts with the bytes of the sector where the data ends.
    private var stage: UnsafeMutableRawPointer?

    /// Whether data goes to the card past the page cache, in whole sectors (see above).
    var writesDirect: Bool { directFd >= 0 }
    /// Whether the file system took an O_DIRECT descriptor for this file (before the first append).
    var canWriteDirect: Bool { directCandidate >= 0 || directFd >= 0 }
    var isOpen: Bool { fd >= 0 }

    /// Creates `path` exclusively; with `preallocation`, also opens it for direct writes.
    init(creating path: String, preallocation: Int, io: FileIO) throws(LogError) {
        self.path = path
        self.preallocation = preallocation
        self.io = io
        preallocating = preallocation > 0
        do throws(Errno) { fd = try retryingInterrupts { () throws(Errno) in try io.open(path, createFlags, 0o644) } } catch {
            fd = -1
            throw LogError.system(path, "cannot create log file", error.rawValue)
        }
        // A file system that reports no links (some FUSE ones) cannot tell a removal.
        linked = ((try? io.linkCount(fd)) ?? 0) > 0
        // Opened before the header, whose length depends on it (the writer's padding).
        directCandidate = preallocation > 0 ? ((try? io.openDirect(path)) ?? -1) : -1
    }

    deinit {
        if fd >= 0 { POSIX.close(fd) }
        if directCandidate >= 0 { POSIX.close(directCandidate) }
        stopDirect()
    }

    /// Makes the file's entry in `directory` durable. EINVAL (a file system that cannot sync
    /// directories) is not an error.
    func syncDirectory(_ directory: String) throws(LogError) {
        let dir = directory.isEmpty ? "." : directory
        do throws(POSIX.DirectorySyncError) {
            try io.syncDirectory(dir)
        } catch {
            switch error {
            case .open(let e): throw .system(path, "cannot open directory \(dir) to sync it", e.rawValue)
            case .sync(let e): throw .system(path, "fsync of directory \(dir) failed", e.rawValue)
            }
        }
    }

    /// Takes the O_DIRECT descriptor opened at creation into use, and copies into the stage the
    /// bytes already written in the sector where the data ends (`head`: everything written so
    /// far). Without zeros to write into or memory for the stage it goes on through the page cache.
    func startDirect(_ head: [UInt8]) {
        let d = directCandidate
        directCandidate = -1
        guard d >= 0 else { return }
        guard preallocating else {  // the first zeros were refused: no space to write into
            POSIX.close(d)
            return
        }
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, 4096, Self.directStageBytes) == 0, let p else {
            POSIX.close(d)
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
        if directFd >= 0 { POSIX.close(directFd) }
        directFd = -1
        free(stage)
        stage = nil
    }

    /// Writes all of `bytes` at the end of the data (short writes continue, EINTR retries), then
    /// keeps zero-filled space ahead of it when preallocating.
    func append(_ bytes: [UInt8]) throws(LogError) {
        var off = directFd >= 0 ? try appendDirect(bytes) : 0
        while off < bytes.count {
            let r = bytes.withUnsafeBytes { b in
                Result { () throws(Errno) in
                    try retryingInterrupts { () throws(Errno) in try io.write(fd, UnsafeRawBufferPointer(rebasing: b[off...]), bytesWritten) }
                }
            }
            switch r {
            case .failure(let e): throw .system(path, "write failed", e.rawValue)
            case .success(0): throw .system(path, "write made no progress", EIO)
            case .success(let n):
                off += n
                bytesWritten += n
                dirty = true
            }
        }
        fileSize = max(fileSize, bytesWritten)
        if preallocating && bytesWritten >= fileSize { writeZerosAhead() }
    }

    /// Writes `bytes` past the page cache in whole sectors, piece by piece through the stage,
    /// into zeros written beforehand. Returns how much of `bytes` it wrote: all of it, or where
    /// it left direct writing (zeros refused, or a write refused with EINVAL: nothing of that
    /// write reached the file), so that the page cache takes the rest.
    private func appendDirect(_ bytes: [UInt8]) throws(LogError) -> Int {
        let s = Self.directSectorSize
        var off = 0
        while off < bytes.count, let stage {
            let start = bytesWritten / s * s
            let kept = bytesWritten - start  // already written, in the stage's first sector
            let n = min(bytes.count - off, Self.directStageBytes - kept)
            let end = (bytesWritten + n + s - 1) / s * s
            if end > fileSize {
                if preallocating { writeZerosAhead(through: end) }
                if end > fileSize {  // no zeros to write into (a full card): append from here
                    stopDirect()
                    break
                }
            }
            bytes.withUnsafeBytes { _ = memcpy(stage + kept, $0.baseAddress! + off, n) }
            memset(stage + kept + n, 0, end - start - kept - n)
            let r = Result { () throws(Errno) in
                try retryingInterrupts { () throws(Errno) in try io.write(directFd, UnsafeRawBufferPointer(start: stage, count: end - start), start) }
            }
            let written: Int
            switch r {
            case .failure(.invalidArgument):
                stopDirect()
                return off
            case .failure(let e): throw .system(path, "write failed", e.rawValue)
            case .success(let w): written = w
            }
            // A short write keeps what it covered of the new bytes; the rest goes again.
            let done = min(start + written, bytesWritten + n) - bytesWritten
            if done <= 0 { throw .system(path, "write made no progress", EIO) }
            off += done
            bytesWritten += done
            dirty = true
            let next = bytesWritten / s * s  // the new last sector moves to the stage's front
            if next > start { memmove(stage, stage + (next - start), bytesWritten - next) }
        }
        return off
    }

    /// Extends the file with zeros to a page boundary plus one chunk (at least to `through`).
    /// The sync that follows makes them durable with the data before them; later syncs then
    /// overwrite in place. A failure (a full card) is not the data's: the zeros are given up,
    /// and the file appends from then on.
    private func writeZerosAhead(through: Int = 0) {
        let target = max((bytesWritten + 4095) / 4096 * 4096 + preallocation, (through + 4095) / 4096 * 4096)
        while fileSize < target {
            let n = min(Self.zeros.count, target - fileSize)
            let r = Self.zeros.withUnsafeBytes { z in
                Result { () throws(Errno) in
                    try retryingInterrupts { () throws(Errno) in try io.write(fd, UnsafeRawBufferPointer(rebasing: z[..<n]), fileSize) }
                }
            }
            guard case .success(let w) = r, w > 0 else {
                preallocating = false
                return
            }
            fileSize += w
            dirty = true
        }
    }

    /// fdatasync, when anything was written since the last one. Any failure, EINTR included,
    /// is final: the descriptor is never synced again. A file whose name was removed meanwhile
    /// (its directory deleted under the recorder) fails too: its data is synced into a file no
    /// reader will ever find, so it is no acknowledgement.
    func sync(_ what: String = "fdatasync failed") throws(LogError) {
        guard dirty else { return }
        do throws(Errno) { try io.fdatasync(fd) } catch { throw .system(path, what, error.rawValue) }
        if linked && (try? io.linkCount(fd)) == 0 { throw .system(path, "removed while being written", ENOENT) }
        dirty = false
    }

    /// Closes the file (does NOT sync the data). With `trim`, first cuts the zeros ahead of the
    /// data and makes the new size durable; if that fails the zeros stay, which readers take as
    /// unused space.
    func close(trim: Bool) {
        guard fd >= 0 else { return }
        if trim && fileSize > bytesWritten && (try? io.truncate(fd, bytesWritten)) != nil {
            fileSize = bytesWritten
            if !dirty { try? io.fdatasync(fd) }
        }
        stopDirect()
        POSIX.close(fd)
        fd = -1
    }

    /// Closes and removes a file that never held a record (at most a header), so a full card
    /// does not collect one empty file per retry. The only unlink the writer ever does.
    func remove() {
        if directCandidate >= 0 { POSIX.close(directCandidate) }
        directCandidate = -1
        stopDirect()
        if fd >= 0 { POSIX.close(fd) }
        fd = -1
        POSIX.unlink(path)
    }
}

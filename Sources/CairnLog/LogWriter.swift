import CairnCore
import CairnSystem

/// Appends records to one new log file (see LOG_FORMAT.md), along LevelDB's log writer: a
/// `FrameEncoder` frames the records, a `RecordBatcher` batches points and remembers what is not
/// yet acknowledged, and an `AppendFile` gets the bytes to the card (preallocation, O_DIRECT and
/// its fallback). This type decides when: it spills, pads and syncs.
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
    public static let pointsBatchCapacity = RecordBatcher.pointsBatchCapacity
    /// Framed bytes beyond which `append` writes them out (without syncing).
    static let spillBytes = 64 * 1024
    /// Unacknowledged points + records beyond which `append` syncs by itself, so that
    /// `unacknowledged` stays bounded even if the caller never syncs (or a replay runs faster
    /// than its 5 s syncs). Small enough that a fast replay does not grow the recorder, large
    /// enough that at 10 Hz the syncs, not this, set the cadence (Tests/bench/peer-results.md, RSS).
    public static let maxUnacknowledged = 256
    /// Zero-filled space kept ahead of the data, so that a sync never changes the file's size:
    /// hours of riding unpadded, minutes padded to sectors; a file cut off by a power cut carries
    /// at most this much of zeros.
    public static let preallocationChunk = 64 * 1024
    /// The unit of direct writes: the logical sector of SD cards and most disks.
    public static let directSectorSize = AppendFile.directSectorSize
    /// The aligned buffer direct writes are assembled in; a larger write goes in pieces.
    static let directStageBytes = AppendFile.directStageBytes

    public let path: String
    public let header: FileHeader
    /// 0, or the boundary (512 or 4096) every sync ends on: the header is that long and a padding
    /// frame fills each sync up to the next multiple, so a later write never shares a sector
    /// (or page) with bytes already acknowledged. See LOG_FORMAT.md, "Padding".
    public let padding: Int
    /// Padding bytes written so far (padding frames and the header's extension area).
    public private(set) var paddingBytes = 0

    private var frames: FrameEncoder
    private var batch = RecordBatcher()
    private let file: AppendFile
    private var unreportedFailure: LogError?
    private var failureMessage = ""

    /// The highest sequence number made durable (0 until the first successful sync).
    public private(set) var lastSyncedSeq: UInt64 = 0
    /// True after any write or fdatasync failure; the writer then refuses all work.
    public private(set) var failed = false
    /// 0, or the size of the chunks of zeros written ahead of the data.
    public var preallocation: Int { file.preallocation }
    /// Bytes of data written to the file so far, header included: where the next frame goes.
    public var bytesWritten: Int { file.bytesWritten }
    /// The file's size as far as this writer knows: `bytesWritten` plus the zeros written ahead.
    public var fileSize: Int { file.fileSize }
    /// Whether data goes to the card past the page cache, in whole sectors (see `AppendFile`).
    public var writesDirect: Bool { file.writesDirect }

    /// Creates dir/NNNNNNNN.cairn with O_EXCL, writes+fdatasyncs the header, fsyncs the directory.
    /// `preallocation`: 0, or the size of the chunks of zeros kept ahead of the data (≥ 4096).
    /// `padDirect`: when the writer writes direct, pad to at least `directSectorSize`, so that no
    /// sync rewrites a sector holding acknowledged bytes (see LOG_FORMAT.md, "Direct writes").
    public convenience init(
        directory: String, number: UInt32, header: FileHeader, padding: Int = 0,
        preallocation: Int = 0, padDirect: Bool = false
    ) throws {
        try self.init(
            directory: directory, number: number, header: header, padding: padding,
            preallocation: preallocation, padDirect: padDirect, io: .system)
    }

    init(
        directory: String, number: UInt32, header: FileHeader, padding: Int = 0, preallocation: Int = 0,
        padDirect: Bool = false, io: FileIO
    ) throws {
        let path = POSIX.join(directory, LogDirectory.fileName(number: number))
        guard number <= LogDirectory.maxNumber else {
            throw LogError(path: path, message: "file number \(number) has more than 8 digits", kind: .invalidArgument)
        }
        guard padding == 0 || (padding >= 64 && padding <= 32768 && padding & (padding - 1) == 0) else {
            throw LogError(
                path: path, message: "padding \(padding) is not 0 or a power of two from 64 to 32768",
                kind: .invalidArgument)
        }
        guard preallocation == 0 || preallocation >= 4096 else {
            throw LogError(
                path: path, message: "preallocation \(preallocation) is not 0 or at least 4096",
                kind: .invalidArgument)
        }
        var h = header
        h.version = FrameFormat.version
        self.path = path
        self.header = h
        frames = FrameEncoder(salt: h.salt)
        file = try AppendFile(creating: path, preallocation: preallocation, io: io)
        self.padding = file.canWriteDirect && padDirect ? max(padding, Self.directSectorSize) : padding
        frames.bytes.reserveCapacity(Self.spillBytes + FrameFormat.maxFrame)
        do {
            let head = h.encoded(length: max(FrameFormat.headerLength, self.padding))
            paddingBytes = head.count - FrameFormat.headerLength
            try file.append(head)
            try file.sync("fdatasync of the new file failed")
            try file.syncDirectory(directory)
            file.startDirect(head)
        } catch {
            failed = true
            file.remove()
            throw error
        }
    }

    // MARK: Appending

    /// Queue a point into the pending points batch (capacity `pointsBatchCapacity`; when full it
    /// is framed automatically). Throws (and does not accept the point) if its latitude or
    /// longitude is not finite or out of range. Non-finite optional fields are written as absent.
    public func append(point: Fix) throws {
        try checkUsable()
        guard PointsEncoder.isValid(point) else { throw invalidFix(point) }
        if batch.add(point: point) { batch.framePendingPoints(into: &frames) }
        accepted(weight: 1)
    }

    /// Frame a non-point record (first frames any pending points batch so order is preserved).
    /// A `.points` record is framed as it is (split into batches of `pointsBatchCapacity`).
    public func append(_ record: LogRecord) throws {
        try checkUsable()
        switch record {
        case .points(let fixes):
            if let bad = fixes.first(where: { !PointsEncoder.isValid($0) }) { throw invalidFix(bad) }
            batch.framePendingPoints(into: &frames)
            var i = 0
            repeat {
                batch.frame(points: fixes[i..<min(fixes.count, i + Self.pointsBatchCapacity)], into: &frames)
                i += Self.pointsBatchCapacity
                if frames.bytes.count >= Self.spillBytes && !failed { spill() }
            } while i < fixes.count
            accepted(weight: max(1, fixes.count))
        default:
            let type = RecordCodec.type(of: record)
            if type == 0 || type == FrameFormat.RecordType.padding {
                throw LogError(path: path, message: "record type \(type) is reserved", kind: .invalidArgument)
            }
            batch.framePendingPoints(into: &frames)
            let ok = frames.frame(type: type) { RecordCodec.encodeBody(record, into: &$0) }
            if !ok {
                throw LogError(
                    path: path, message: "record too large for one frame (max \(FrameFormat.maxPayload) bytes)",
                    kind: .invalidArgument)
            }
            batch.didFrame(record)
            accepted(weight: 1)
        }
    }

    private func invalidFix(_ f: Fix) -> LogError {
        LogError(
            path: path,
            message:
                "invalid fix (lat \(f.lat), lon \(f.lon), time \(f.timeMs) ms): latitude and longitude must be finite and in range, the time between 2000 and 2100",
            kind: .invalidArgument)
    }

    private func checkUsable() throws {
        if let f = unreportedFailure {
            unreportedFailure = nil
            throw f
        }
        if failed {
            throw LogError(
                path: path, message: "writer failed earlier (\(failureMessage)); open a new file",
                kind: .writerFailed)
        }
        if !file.isOpen { throw LogError(path: path, message: "writer is closed", kind: .invalidArgument) }
    }

    /// After a record was accepted: keep memory bounded. Failures are kept for the next call.
    private func accepted(weight: Int) {
        batch.accepted(weight: weight)
        if failed { return }
        if batch.weight >= Self.maxUnacknowledged {
            do { try syncNow() } catch { unreportedFailure = error }
        } else if frames.bytes.count >= Self.spillBytes {
            spill()
        }
    }

    /// Writes the framed bytes out without syncing; a failure is kept for the next call.
    private func spill() {
        do { try writeOut() } catch { unreportedFailure = error }
    }

    // MARK: Writing and syncing

    private func fail(_ e: LogError) -> LogError {
        failed = true
        failureMessage = e.message
        return e
    }

    /// Hands the framed bytes to the file; any failure makes the writer `failed`.
    private func writeOut() throws(LogError) {
        do throws(LogError) { try file.append(frames.bytes) } catch { throw fail(error) }
        frames.bytes.removeAll(keepingCapacity: true)
    }

    private func syncNow() throws(LogError) {
        batch.framePendingPoints(into: &frames)
        if padding > 0 && (file.dirty || !frames.bytes.isEmpty) {
            paddingBytes += frames.pad(fileEnd: file.bytesWritten, to: padding)
        }
        try writeOut()
        do throws(LogError) { try file.sync() } catch { throw fail(error) }
        lastSyncedSeq = frames.lastSeq
        batch.acknowledge()
    }

    /// Frames pending points, writes everything pending (short writes continue, EINTR retries),
    /// then fdatasyncs. Returns the highest sequence number now durable. On ANY write or
    /// fdatasync failure: throws, and the writer becomes `failed` permanently; the records not
    /// yet acknowledged remain in `unacknowledged`.
    @discardableResult
    public func sync() throws -> UInt64 {
        try checkUsable()
        try syncNow()
        return lastSyncedSeq
    }

    /// Framed but not yet written bytes, plus the exact framed size of the pending points batch
    /// (encoded here to measure it: points are bit-packed only when framed).
    public var pendingBytes: Int {
        frames.bytes.count + (batch.pendingPointsBodyCount.map { frames.framedSize(bodyCount: $0) } ?? 0)
    }

    /// Whether anything was appended or written since the last successful sync.
    public var hasUnsynced: Bool { file.dirty || !frames.bytes.isEmpty || !batch.pendingPoints.isEmpty || batch.weight > 0 }

    /// Records (points batches included) appended since the last successful sync, in order.
    /// Bounded: `append` syncs by itself at `maxUnacknowledged` points + records.
    public var unacknowledged: [LogRecord] { batch.unacknowledged }

    /// Closes the fd (does NOT sync the data; caller syncs first). Later appends and syncs throw.
    /// A writer that has not failed first trims the zeros ahead of its data and makes the new
    /// size durable; if that fails the zeros stay, which readers take as unused space.
    public func close() {
        file.close(trim: !failed)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// One intact record. `offset` is the file offset of its frame.
public struct LogEntry: Sendable {
    public let seq: UInt64
    public let offset: Int
    public let record: LogRecord

    public init(seq: UInt64, offset: Int, record: LogRecord) {
        self.seq = seq
        self.offset = offset
        self.record = record
    }
}

/// What a full scan of one file found.
public struct ScanReport: Sendable {
    /// Intact records (frames whose CRC verified and whose payload decoded).
    public var records: Int = 0
    /// Points in those records.
    public var points: Int = 0
    /// Byte ranges skipped between intact frames (damage; each range ends where an intact frame starts).
    public var damaged: [Range<Int>] = []
    /// Bytes after the last intact frame that held no intact frame and are not all zero: an
    /// interrupted write (normal after a power cut).
    public var tornTailBytes: Int = 0
    /// An all-zero end after the last intact frame: space a writer preallocated and had not used
    /// yet (a recorder that was still running, or stopped by a power cut). Not damage.
    public var unusedTailBytes: Int = 0
    /// Places where the sequence number of an intact record is not the previous one + 1
    /// (including a first record whose number is not 1).
    public var sequenceGaps: Int = 0
    /// Records of a type this version does not know (skipped).
    public var unknownRecords: Int = 0
    /// Bytes in padding frames (skipped; not records).
    public var paddingBytes: Int = 0
    /// Frames whose CRC verified but whose payload did not decode (a writer bug, never damage).
    /// `forEach` skips a frame without a readable sequence number and delivers the others as `.unknown`.
    public var malformedRecords: Int = 0
    /// Frames whose CRC verified but whose points hold an impossible time or position
    /// (`PointBounds`: a latitude of 91, a time in 1980): crafted or corrupt, counted as damage
    /// and skipped.
    public var implausibleRecords: Int = 0
    /// What the first of them held ("latitude 91.0 out of range").
    public var firstImplausible: String? = nil
    /// Optional values outside `PointBounds` (a speed of 10^12 m/s), left out of their points
    /// (the points are kept); not damage.
    public var valuesLeftOut: Int = 0
    public var firstLeftOut: String? = nil
    public var hasTripEnd: Bool = false
    /// Sequence number of the last intact record (0 if none).
    public var lastSeq: UInt64 = 0
    /// Time of the first and last point in file order.
    public var firstTimeMs: Int64? = nil
    public var lastTimeMs: Int64? = nil

    public init() {}

    public var isClean: Bool {
        damaged.isEmpty && tornTailBytes == 0 && sequenceGaps == 0 && malformedRecords == 0 && implausibleRecords == 0
    }
}

/// Reads one log file, streaming, with bounded memory (see LOG_FORMAT.md, "Reading").
public struct LogReader {
    public let header: FileHeader
    public let path: String
    /// The file's size when it was opened; the reader reads no further.
    public let fileSize: Int
    /// Offset of the first frame (the header length).
    public let dataOffset: Int
    private let file: ReadDescriptor

    /// Opens and validates the header; throws LogError ("not a cairn log", "damaged header",
    /// "truncated header", "written by a newer cairn (format N)", or a system error).
    public init(path: String) throws {
        // O_NONBLOCK: opening a FIFO named like a log would otherwise wait for a writer for
        // ever; the check below refuses it (reads of a regular file ignore the flag).
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } catch {
            throw LogError.system(path, "cannot open", error.rawValue)
        }
        let file = ReadDescriptor(fd)
        let st: stat
        do throws(Errno) { st = try POSIX.status(fd) } catch { throw LogError.system(path, "cannot stat", error.rawValue) }
        if (st.st_mode & S_IFMT) != S_IFREG {
            throw LogError(path: path, message: "not a regular file", kind: .notALog)
        }
        let size = Int(st.st_size)
        var prefix = [UInt8](repeating: 0, count: min(size, FrameFormat.headerLength))
        let got = try file.readFully(&prefix, at: 0, path: path)
        if got < prefix.count { prefix.removeSubrange(got...) }
        let (h, length) = try FileHeader.decode(prefix, fileSize: size, path: path)
        self.header = h
        self.path = path
        self.fileSize = size
        self.dataOffset = length
        self.file = file
    }

    /// Calls body for each intact record in file order. Stops early if body returns false.
    /// A record that does not decode (malformed, or holding impossible values) comes as `.unknown`.
    /// Streams: memory is one window and the current record, whatever the file's size.
    public func forEach(_ body: (LogEntry) throws -> Bool) throws {
        _ = try walk(
            onFrame: { offset, type, payload in
                if type == FrameFormat.RecordType.padding { return true }
                var r = ByteReader(payload)
                guard let seq = try? r.varint() else { return true }
                let afterSeq = r.index
                var leftOut = 0
                var firstLeftOut: String?
                let record =
                    (try? RecordCodec.decodeBody(type: type, &r)).flatMap {
                        Self.screened($0, leftOut: &leftOut, firstLeftOut: &firstLeftOut).record
                    } ?? .unknown(type: type, payload: Array(UnsafeRawBufferPointer(rebasing: payload[afterSeq...])))
                return try body(LogEntry(seq: seq, offset: offset, record: record))
            }, onDamage: { _ in })
    }

    /// Full scan summary (for verify/list): counts and damage.
    public func scan() throws -> ScanReport {
        var report = ScanReport()
        var previous: UInt64 = 0
        let tail = try walk(
            onFrame: { _, type, payload in
                var r = ByteReader(payload)
                let seq = try? r.varint()
                if type == FrameFormat.RecordType.padding {
                    // Not a record; its sequence number (a padding writer numbers it) keeps the count.
                    report.paddingBytes += FrameFormat.frameHeaderLength + payload.count
                    if let seq {
                        if seq != previous &+ 1 { report.sequenceGaps += 1 }
                        previous = seq
                    }
                    return true
                }
                guard let seq else {
                    report.malformedRecords += 1
                    return true
                }
                if seq != previous &+ 1 { report.sequenceGaps += 1 }
                previous = seq
                report.lastSeq = seq
                guard let decoded = try? RecordCodec.decodeBody(type: type, &r) else {
                    report.malformedRecords += 1
                    return true
                }
                let (screened, problem) = Self.screened(decoded, leftOut: &report.valuesLeftOut, firstLeftOut: &report.firstLeftOut)
                guard let record = screened else {
                    report.implausibleRecords += 1
                    if report.firstImplausible == nil { report.firstImplausible = problem }
                    return true
                }
                report.records += 1
                switch record {
                case .points(let fixes):
                    report.points += fixes.count
                    if let f = fixes.first, report.firstTimeMs == nil { report.firstTimeMs = f.timeMs }
                    if let l = fixes.last { report.lastTimeMs = l.timeMs }
                case .tripEnd: report.hasTripEnd = true
                case .unknown: report.unknownRecords += 1
                default: break
                }
                return true
            }, onDamage: { report.damaged.append($0) })
        report.tornTailBytes = tail.torn
        report.unusedTailBytes = tail.unused
        return report
    }

    /// A decoded record after `PointBounds`: nil (and the reason) when its points hold an
    /// impossible time or position; otherwise the record, optional values outside left out.
    static func screened(_ record: LogRecord, leftOut: inout Int, firstLeftOut: inout String?) -> (record: LogRecord?, problem: String?) {
        if case .rawFixes(var batch) = record {
            var fixes = batch.fixes.map(\.fix)
            if let p = PointBounds.screen(&fixes, leftOut: &leftOut, firstLeftOut: &firstLeftOut) { return (nil, p) }
            if let bad = batch.fixes.first(where: { !PointBounds.arrival.contains($0.arrivalMs) }) {
                return (nil, "arrival time \(bad.arrivalMs) ms since 1970 out of range")
            }
            for i in fixes.indices { batch.fixes[i].fix = fixes[i] }
            return (.rawFixes(batch), nil)
        }
        // A rider mark whose time no fix could have (a press before the clock was set) is still
        // a press: passed on, its readers see `hasUsableTime` false (not damage: the recorder
        // wrote what its clock said).
        guard case .points(var fixes) = record else { return (record, nil) }
        if let p = PointBounds.screen(&fixes, leftOut: &leftOut, firstLeftOut: &firstLeftOut) { return (nil, p) }
        return (.points(fixes), nil)
    }

    /// Runs the frame scanner over the file. Returns the tail after the last intact frame
    /// (an empty one if `onFrame` stopped the walk).
    func walk(
        onFrame: (Int, UInt8, UnsafeRawBufferPointer) throws -> Bool,
        onDamage: (Range<Int>) -> Void
    ) throws -> FrameScanner.Tail {
        let scanner = FrameScanner(
            file: file, path: path, start: dataOffset, end: fileSize,
            saltRegister: CRC32C.saltRegister(header.salt))
        return try scanner.run(onFrame: onFrame, onDamage: onDamage)
    }
}

/// Owns a read-only descriptor for the lifetime of a `LogReader` (and its copies).
final class ReadDescriptor {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }
    deinit { POSIX.close(fd) }

    /// pread until `buffer` is full or EOF; returns bytes read.
    func readFully(_ buffer: inout [UInt8], at offset: Int, path: String) throws -> Int {
        try buffer.withUnsafeMutableBytes { try read(into: $0, at: offset, path: path) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String) throws -> Int {
        do throws(Errno) {
            return try POSIX.readFully(fd, into: buffer, at: offset)
        } catch {
            throw LogError.system(path, "read failed at offset \(offset)", error.rawValue)
        }
    }
}

/// Finds intact frames in [start, end) with a fixed window.
///
/// Normal path: the frame at the current position is checked directly (CRC over its bytes).
/// After a failure the scanner tries every following byte offset. To keep that linear, it
/// keeps prefix CRC registers P[i] over the window: the raw CRC register of bytes [s, e) is
/// P[e] ^ (P[s] · x^(8(e−s))) mod P(x), so each candidate costs one GF(2) multiplication
/// instead of a CRC over up to 64 KiB.
final class FrameScanner {
    static let windowSize = 192 * 1024  // ≥ 2 frames, so a slide happens every ≥ 128 KiB

    private let file: ReadDescriptor
    private let path: String
    private let start: Int
    private var end: Int
    private let saltRegister: UInt32
    private let buffer: UnsafeMutableRawBufferPointer
    private var base = 0  // file offset of buffer[0]
    private var count = 0  // valid bytes in buffer
    private var prefix: UnsafeMutableBufferPointer<UInt32>?
    private var prefixCount = 0  // prefix[0..<prefixCount] valid; prefix[i] = register over buffer[0..<i]

    init(file: ReadDescriptor, path: String, start: Int, end: Int, saltRegister: UInt32) {
        self.file = file
        self.path = path
        self.start = start
        self.end = end
        self.saltRegister = saltRegister
        buffer = .allocate(byteCount: Self.windowSize, alignment: 8)
        base = start
    }

    deinit {
        buffer.deallocate()
        prefix?.deallocate()
    }

    /// Makes [pos, pos + min(need, end - pos)) resident. Reading stops early only if the file
    /// shrank, in which case `end` moves back.
    private func ensure(_ pos: Int) throws {
        let need = min(FrameFormat.maxFrame, end - pos)
        if pos >= base && pos + need <= base + count { return }
        var keep = 0
        if pos >= base && pos < base + count {
            keep = base + count - pos
            buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + (pos - base), byteCount: keep)
        }
        base = pos
        count = keep
        prefixCount = 0
        let want = min(buffer.count, end - base)
        if count < want {
            let got = try file.read(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<want]),
                at: base + count, path: path)
            count += got
            if count < want { end = base + count }  // the file shrank under us
        }
    }

    @inline(__always) private func le16(_ i: Int) -> Int { Int(buffer[i]) | Int(buffer[i + 1]) << 8 }
    @inline(__always) private func le32(_ i: Int) -> UInt32 {
        UInt32(littleEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: i, as: UInt32.self))
    }

    /// The payload length if an intact frame starts at `pos` (resident), checked directly.
    private func frameDirect(_ pos: Int) -> Int? {
        guard end - pos >= FrameFormat.frameHeaderLength else { return nil }
        let i = pos - base
        let length = le16(i + 4)
        guard buffer[i + 6] != 0, pos + FrameFormat.frameHeaderLength + length <= end else { return nil }
        let covered = UnsafeRawBufferPointer(rebasing: buffer[(i + 4)..<(i + 7 + length)])
        return ~CRC32C.update(saltRegister, covered) == CRC32C.unmask(le32(i)) ? length : nil
    }

    /// Same check, through the prefix registers (used while resyncing).
    private func frameByPrefix(_ pos: Int, _ t: UnsafeBufferPointer<UInt32>, _ shifts: UnsafeBufferPointer<UInt32>) -> Bool {
        guard end - pos >= FrameFormat.frameHeaderLength else { return false }
        let i = pos - base
        let length = le16(i + 4)
        guard buffer[i + 6] != 0, pos + FrameFormat.frameHeaderLength + length <= end else { return false }
        let s = i + 4, e = i + 7 + length
        extendPrefix(to: e, t)
        let p = prefix!
        let register = p[e] ^ CRC32C.multiply(shifts[e - s], p[s] ^ saltRegister)
        return ~register == CRC32C.unmask(le32(i))
    }

    private func extendPrefix(to e: Int, _ t: UnsafeBufferPointer<UInt32>) {
        if prefix == nil { prefix = .allocate(capacity: Self.windowSize + 1) }
        let p = prefix!
        if prefixCount == 0 {
            p[0] = 0
            prefixCount = 1
        }
        while prefixCount <= e {
            p[prefixCount] = CRC32C.step(p[prefixCount - 1], buffer[prefixCount - 1], t)
            prefixCount += 1
        }
    }

    /// What follows the last intact frame: `unused` if it is all zeros, else `torn`.
    struct Tail {
        var torn = 0
        var unused = 0
    }

    /// Delivers each intact frame (offset, type, payload) and each damaged range. Returns the
    /// tail after the last intact frame, or no tail if `onFrame` stopped the walk.
    func run(
        onFrame: (Int, UInt8, UnsafeRawBufferPointer) throws -> Bool,
        onDamage: (Range<Int>) -> Void
    ) throws -> Tail {
        var pos = start
        while pos < end {
            try ensure(pos)
            if let length = frameDirect(pos) {
                let i = pos - base
                let payload = UnsafeRawBufferPointer(rebasing: buffer[(i + 7)..<(i + 7 + length)])
                if try !onFrame(pos, buffer[i + 6], payload) { return Tail() }
                pos += FrameFormat.frameHeaderLength + length
                continue
            }
            // Zeros to the end are preallocated space, not damage: no frame can start there.
            if try zerosToEnd(from: pos) { return Tail(unused: end - pos) }
            guard let next = try resync(from: pos + 1) else { return Tail(torn: max(0, end - pos)) }
            onDamage(pos..<next)
            pos = next
        }
        return Tail()
    }

    /// Whether every byte of [from, end) is zero. Stops at the first byte that is not.
    private func zerosToEnd(from: Int) throws -> Bool {
        var q = from
        while q < end {
            try ensure(q)
            let stop = min(end, base + count)
            if stop <= q { return false }  // the file shrank under us
            for i in (q - base)..<(stop - base) where buffer[i] != 0 { return false }
            q = stop
        }
        return true
    }

    /// The first offset ≥ `from` where an intact frame starts, or nil if none before EOF.
    private func resync(from: Int) throws -> Int? {
        try CRC32C.tables.withUnsafeBufferPointer { t in
            try CRC32C.zeroShift.withUnsafeBufferPointer { shifts in
                var q = from
                while end - q >= FrameFormat.frameHeaderLength {
                    try ensure(q)
                    if frameByPrefix(q, t, shifts) { return q }
                    q += 1
                }
                return nil
            }
        }
    }
}

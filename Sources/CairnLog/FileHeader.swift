#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// An error reading or writing a log file. `description` is "<path>: <message>".
public struct LogError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for callers that react differently (skip a half-created file, stop on a full card).
    public enum Kind: Sendable, Equatable {
        /// A system call failed (`errno` says which error).
        case io
        /// The file does not start with the cairn magic.
        case notALog
        /// The header's magic is right but its CRC or a field is wrong.
        case damagedHeader
        /// The file is shorter than its header or the header is all zeros: the recorder
        /// stopped while creating it. No records can be in it.
        case truncatedHeader
        /// A newer format version than this reader knows.
        case newerVersion
        /// A caller error: an invalid fix, a record too large for one frame, a closed writer.
        case invalidArgument
        /// The writer failed earlier and refuses further work (see `LogWriter.failed`).
        case writerFailed
    }

    public let path: String
    public let message: String
    public let kind: Kind
    /// The errno of the failed system call, when there was one.
    public let errno: Int32?

    public init(path: String, message: String) {
        self.init(path: path, message: message, kind: .io, errno: nil)
    }

    public init(path: String, message: String, kind: Kind, errno: Int32? = nil) {
        self.path = path
        self.message = message
        self.kind = kind
        self.errno = errno
    }

    public var description: String { "\(path): \(message)" }

    static func system(_ path: String, _ what: String, _ code: Int32) -> LogError {
        LogError(path: path, message: "\(what): \(Errno(rawValue: code))", kind: .io, errno: code)
    }
}

/// The 32-byte header at the start of every log file (see LOG_FORMAT.md).
public struct FileHeader: Equatable, Sendable {
    /// Format version; this module writes 2 and reads 1 and 2.
    public var version: UInt16
    /// Random per file; seeds every frame CRC so records from another file never verify.
    public var salt: UInt32
    /// Identifies the trip; all files of one trip carry the same id.
    public var tripId: UInt64
    /// 0 for the file that starts a trip, +1 for each later file of the same trip.
    public var part: UInt32

    public init(tripId: UInt64, part: UInt32, salt: UInt32) {
        self.version = FrameFormat.version
        self.salt = salt
        self.tripId = tripId
        self.part = part
    }

    /// The bytes a writer puts at the start of a file (always the current version): 32, or `length` when
    /// the writer pads (the extension area after byte 32 is zeros).
    func encoded(length: Int = FrameFormat.headerLength) -> [UInt8] {
        precondition(length >= FrameFormat.headerLength && length <= Int(UInt16.max))
        var b: [UInt8] = []
        b.reserveCapacity(length)
        b.append(contentsOf: FrameFormat.magic)
        b.appendLE(FrameFormat.version)
        b.appendLE(UInt16(length))
        b.appendLE(salt)
        b.appendLE(tripId)
        b.appendLE(part)
        b.appendLE(CRC32C.checksum(b))
        b.append(contentsOf: repeatElement(0, count: length - b.count))
        return b
    }

    /// Parses the first bytes of a file. `prefix` holds min(fileSize, 32) bytes.
    /// Returns the header and its length (where frames begin).
    static func decode(_ prefix: [UInt8], fileSize: Int, path: String) throws -> (FileHeader, Int) {
        let magic = FrameFormat.magic
        let n = prefix.count
        if n < 8 {
            if prefix.elementsEqual(magic.prefix(n)) || prefix.allSatisfy({ $0 == 0 }) {
                throw LogError(
                    path: path,
                    message: n == 0
                        ? "empty file (the recorder stopped while creating it)"
                        : "truncated header (\(n) of 32 bytes; the recorder stopped while creating it)",
                    kind: .truncatedHeader)
            }
            throw LogError(path: path, message: "not a cairn log (bad magic)", kind: .notALog)
        }
        if !prefix[0..<8].elementsEqual(magic) {
            if prefix.allSatisfy({ $0 == 0 }) {
                throw LogError(
                    path: path,
                    message: "header is all zeros (the recorder stopped while creating it)",
                    kind: .truncatedHeader)
            }
            throw LogError(path: path, message: "not a cairn log (bad magic)", kind: .notALog)
        }
        if n >= 10 {
            // Magic and version keep their place in every future format, so a newer file is
            // recognised even if the rest of its header is laid out differently.
            let version = UInt16(prefix[8]) | UInt16(prefix[9]) << 8
            if version > FrameFormat.version {
                throw LogError(
                    path: path, message: "written by a newer cairn (format \(version))",
                    kind: .newerVersion)
            }
        }
        if n < FrameFormat.headerLength {
            throw LogError(
                path: path,
                message: "truncated header (\(n) of 32 bytes; the recorder stopped while creating it)",
                kind: .truncatedHeader)
        }
        func le<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            var v: T = 0
            for i in 0..<(T.bitWidth / 8) { v |= T(prefix[at + i]) << (8 * i) }
            return v
        }
        let stored: UInt32 = le(28, UInt32.self)
        if CRC32C.checksum(Array(prefix[0..<28])) != stored {
            throw LogError(path: path, message: "damaged header (CRC mismatch)", kind: .damagedHeader)
        }
        let version: UInt16 = le(8, UInt16.self)
        let length = Int(le(10, UInt16.self) as UInt16)
        if version == 0 {
            throw LogError(path: path, message: "damaged header (format version 0)", kind: .damagedHeader)
        }
        if length < FrameFormat.headerLength {
            throw LogError(path: path, message: "damaged header (header length \(length))", kind: .damagedHeader)
        }
        if length > fileSize {
            throw LogError(
                path: path, message: "truncated header (\(fileSize) of \(length) bytes)",
                kind: .truncatedHeader)
        }
        var h = FileHeader(tripId: le(16, UInt64.self), part: le(24, UInt32.self), salt: le(12, UInt32.self))
        h.version = version
        return (h, length)
    }
}

extension FileHeader {
    /// The first bytes of every log file (`CAIRNLOG`): what tells a log apart from any other file.
    public static var magic: [UInt8] { FrameFormat.magic }

    /// How many first bytes of a log hold its salt (`salt(head:)`).
    public static let saltHeadLength = 16

    /// The salt in a log's first 16 bytes (magic, version, header length, salt), the rest of
    /// the header unread: what tells whose log a copy elsewhere is (a remote's, read in part).
    /// Nil for bytes that do not begin a log.
    public static func salt(head: [UInt8]) -> UInt32? {
        guard head.count == saltHeadLength, head.prefix(8).elementsEqual(FrameFormat.magic) else { return nil }
        return UInt32(head[12]) | UInt32(head[13]) << 8 | UInt32(head[14]) << 16 | UInt32(head[15]) << 24
    }
}

/// Constants of the format. Version 2 added the compact points record (type 7); a version-1
/// reader refuses version-2 files by name rather than skipping their points.
enum FrameFormat {
    static let magic: [UInt8] = Array("CAIRNLOG".utf8)
    static let version: UInt16 = 2
    static let headerLength = 32
    /// masked CRC u32 | length u16 | type u8
    static let frameHeaderLength = 7
    static let maxPayload = 65535
    static let maxFrame = frameHeaderLength + maxPayload
    /// Bytes a frame CRC covers after the salt: length + type + payload.
    static let maxCRCBytes = 3 + maxPayload

    enum RecordType {
        static let tripStart: UInt8 = 1
        static let segmentStart: UInt8 = 2
        static let points: UInt8 = 3
        static let dropped: UInt8 = 4
        static let note: UInt8 = 5
        static let tripEnd: UInt8 = 6
        /// Points, bit-packed (format 2). The writer writes only this; type 3 is still read.
        static let compactPoints: UInt8 = 7
        static let rawFixes: UInt8 = 8
        /// Sensor notifications (heart rate, speed and cadence, power), raw.
        static let sensors: UInt8 = 9
        /// The rider's button (issue 41).
        static let riderMark: UInt8 = 10
        /// Filler up to a sector boundary (a padding writer); readers skip it. The last type
        /// number, so that new record types keep counting up from 8.
        static let padding: UInt8 = 255
    }
}

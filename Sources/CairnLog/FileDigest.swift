#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// A file's size and standard CRC-32C: what `cairn export` records of each log it copied, so
/// that retention deletes a log only while it is still the file that was copied.
public struct FileDigest: Equatable, Sendable {
    public var size: Int
    public var crc: UInt32

    public init(size: Int, crc: UInt32) {
        self.size = size
        self.crc = crc
    }

    /// "size/crc" with the CRC in 8 hex digits.
    public var text: String {
        let hex = String(crc, radix: 16)
        return "\(size)/" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    public init?(text: Substring) {
        let p = text.split(separator: "/", omittingEmptySubsequences: false)
        guard p.count == 2, p[1].utf8.count == 8, let s = Int(p[0]), s >= 0, let c = UInt32(p[1], radix: 16) else { return nil }
        self.init(size: s, crc: c)
    }

    /// Streams a CRC-32C over bytes given in pieces.
    public struct Accumulator {
        private var register: UInt32 = 0xFFFF_FFFF
        public private(set) var size = 0
        public init() {}
        public mutating func add(_ bytes: UnsafeRawBufferPointer) {
            register = CRC32C.update(register, bytes)
            size += bytes.count
        }
        public var digest: FileDigest { FileDigest(size: size, crc: ~register) }
    }

    /// Reads `path` whole (or its first `limit` bytes). With `fromMedium`, the file's cached pages
    /// are dropped first (`POSIX_FADV_DONTNEED`, after an fsync), so that the bytes come from the
    /// card or stick rather than from what was just written to the cache.
    public static func of(_ path: String, limit: Int? = nil, fromMedium: Bool = false) throws(LogError) -> FileDigest {
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(path, O_RDONLY | O_CLOEXEC) } catch { throw LogError.system(path, "cannot open", error.rawValue) }
        defer { POSIX.close(fd) }
        if fromMedium {
            try? POSIX.fsync(fd)
            POSIX.dropCachedPages(fd)
        }
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { buf.deallocate() }
        var acc = Accumulator()
        while true {
            let want = limit.map { min(buf.count, $0 - acc.size) } ?? buf.count
            if want <= 0 { break }
            let n: Int
            do throws(Errno) { n = try POSIX.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buf[0..<want])) } catch {
                throw LogError.system(path, "read failed", error.rawValue)
            }
            if n == 0 { break }
            acc.add(UnsafeRawBufferPointer(rebasing: buf[0..<n]))
        }
        return acc.digest
    }
}

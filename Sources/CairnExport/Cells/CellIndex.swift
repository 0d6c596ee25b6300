/// The explored-cells index a log directory keeps beside its logs (`DIR/.cairn-cells`): for
/// each log file read, what identifies the version read (name, size, modification time, inode),
/// its trip and part, and the finest-precision cells its points touched with their first and
/// last visit. Encoding and decoding only (no I/O): `ExploredCells` reads and writes the file.
/// The format is in CELL_INDEX.md beside this file.
public struct CellIndex: Sendable, Equatable {
    public struct FileEntry: Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var mtimeNs: Int64
        public var inode: UInt64
        public var tripId: UInt64
        public var part: UInt32
        /// The log's points (a file without any is kept, so it is not read again).
        public var points: Int
        /// Sorted by cell.
        public var cells: [(cell: UInt64, visit: CellVisit)]

        public init(
            name: String, size: Int64, mtimeNs: Int64, inode: UInt64, tripId: UInt64,
            part: UInt32, points: Int, cells: [(cell: UInt64, visit: CellVisit)]
        ) {
            self.name = name
            self.size = size
            self.mtimeNs = mtimeNs
            self.inode = inode
            self.tripId = tripId
            self.part = part
            self.points = points
            self.cells = cells.sorted { $0.cell < $1.cell }
        }

        public static func == (a: FileEntry, b: FileEntry) -> Bool {
            a.name == b.name && a.size == b.size && a.mtimeNs == b.mtimeNs && a.inode == b.inode
                && a.tripId == b.tripId && a.part == b.part && a.points == b.points
                && a.cells.count == b.cells.count
                && zip(a.cells, b.cells).allSatisfy { $0.cell == $1.cell && $0.visit == $1.visit }
        }
    }

    public static let fileName = ".cairn-cells"
    static let magic: [UInt8] = Array("CAIRNCEL".utf8)
    /// Raised whenever what a cell means changes (the walk, the precision): an index of another
    /// version is rebuilt, never read.
    public static let version: UInt32 = 1
    static let headerLength = 32

    public var files: [FileEntry]

    public init(files: [FileEntry] = []) { self.files = files }

    public func encode() -> [UInt8] {
        var p: [UInt8] = []
        p.reserveCapacity(64 + files.reduce(0) { $0 + 16 + $1.cells.count * 8 })
        Self.varint(UInt64(files.count), &p)
        for f in files {
            let name = Array(f.name.utf8)
            Self.varint(UInt64(name.count), &p)
            p += name
            Self.varint(UInt64(max(f.size, 0)), &p)
            Self.varint(Self.zigzag(f.mtimeNs), &p)
            Self.varint(f.inode, &p)
            Self.varint(f.tripId, &p)
            Self.varint(UInt64(f.part), &p)
            Self.varint(UInt64(max(f.points, 0)), &p)
            Self.varint(UInt64(f.cells.count), &p)
            var prevCell: UInt64 = 0, prevFirst: Int64 = 0
            for c in f.cells {
                Self.varint(c.cell &- prevCell, &p)
                Self.varint(Self.zigzag(c.visit.firstMs &- prevFirst), &p)
                Self.varint(UInt64(bitPattern: c.visit.lastMs &- c.visit.firstMs), &p)
                prevCell = c.cell
                prevFirst = c.visit.firstMs
            }
        }
        var out = Self.magic
        Self.le(UInt64(Self.version), 4, &out)
        Self.le(UInt64(Geohash.finest), 4, &out)
        Self.le(UInt64(p.count), 8, &out)
        Self.le(Self.checksum(p[...]), 8, &out)
        return out + p
    }

    /// Why an index cannot be used; the caller rebuilds it.
    public struct Damage: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Decodes an index; anything wrong (magic, version, precision, length, checksum, a field
    /// that does not parse, cells out of order, more cells than the entry's points can cross)
    /// is `Damage`: the index is never partly trusted.
    public static func decode(_ bytes: [UInt8]) throws(Damage) -> CellIndex {
        var at = 0
        return try decode(
            length: bytes.count, keeps: { _ in true },
            read: { buffer in
                let n = min(buffer.count, bytes.count - at)
                for i in 0..<n { buffer[i] = bytes[at + i] }
                at += n
                return n
            })
    }

    /// The most bytes an index of log files of these sizes can take: per file, the entry's
    /// fixed fields and name, and the cells its walk can hold (`CellWalk.maxCells(points:)`) for
    /// the most points a log of that size holds, at the most bytes a cell takes. An index any
    /// larger is damaged, whatever it holds; it is not read.
    public static func maxBytes(logSizes: [Int64]) -> UInt64 {
        var total = UInt64(headerLength + 10)
        for size in logSizes {
            let cells = CellWalk.maxCells(points: maxPoints(logSize: size))
            total = total.addingReportingOverflow(UInt64(maxEntryBytes + cells * maxCellBytes)).partialValue
        }
        return total
    }

    /// A name (at most 4,096 bytes and its length) and seven varints.
    static let maxEntryBytes = 4096 + 2 + 7 * 10
    /// A cell's three varints: its difference (35 bits), a first-visit difference and a span.
    static let maxCellBytes = 5 + 10 + 10
    /// The most points a log file of `size` bytes can hold: a frame takes at least 6 bytes
    /// (its header: LOG_FORMAT.md) and holds at most 4,096 points (a compact points record).
    static func maxPoints(logSize size: Int64) -> Int {
        Int(min(max(size, 0) / 6 + 1, Int64(Int32.max))) * 4096
    }

    /// Decodes an index of `length` bytes read in chunks: `read` fills the start of the buffer
    /// it is given and returns how many bytes it put (0 at the end or on a read error). Memory
    /// is the entries kept: an entry whose name `keeps` refuses (a file no longer there) is
    /// checked and skipped.
    public static func decode(
        length: Int, keeps: (String) -> Bool, read: @escaping (inout [UInt8]) -> Int
    ) throws(Damage) -> CellIndex {
        func damaged(_ why: String) -> Damage { Damage(description: why) }
        guard length >= headerLength else { throw damaged("not a cairn cell index") }
        var r = StreamReader(read: read)
        let header: [UInt8]
        do { header = try r.bytes(headerLength) } catch { throw damaged("not a cairn cell index") }
        guard Array(header[0..<8]) == magic else { throw damaged("not a cairn cell index") }
        let version = readLE(header, 8, 4), precision = readLE(header, 12, 4)
        guard version == UInt64(Self.version) else { throw damaged("index format \(version), this cairn reads \(Self.version)") }
        guard precision == UInt64(Geohash.finest) else { throw damaged("index of precision \(precision)") }
        let payloadLength = length - headerLength
        let declared = readLE(header, 16, 8)
        guard declared == UInt64(payloadLength) else {
            throw damaged("\(payloadLength) payload bytes, the header says \(declared)")
        }
        r.hashing = true
        r.limit = payloadLength
        do {
            let count = try r.varint()
            var files: [FileEntry] = []
            var read: UInt64 = 0
            while read < count && r.consumed < payloadLength {
                read += 1
                let nameLength = Int(try r.varint(max: 4096))
                let name = try r.bytes(nameLength)
                guard let text = String(validating: name, as: UTF8.self) else { throw damaged("a file name is not UTF-8") }
                let size = Int64(try r.varint(max: UInt64(Int64.max)))
                let mtime = unzigzag(try r.varint())
                let inode = try r.varint()
                let trip = try r.varint()
                let part = UInt32(try r.varint(max: UInt64(UInt32.max)))
                let points = Int(try r.varint(max: UInt64(Int32.max)))
                let most = CellWalk.maxCells(points: points)
                let cellCount = try r.varint(max: UInt64(payloadLength))
                guard cellCount <= UInt64(most) else {
                    throw damaged("\(text): \(cellCount) cells, more than \(points) points can cross (\(most))")
                }
                let keep = keeps(text)
                var cells: [(cell: UInt64, visit: CellVisit)] = []
                if keep { cells.reserveCapacity(Int(cellCount)) }
                var cell: UInt64 = 0, first: Int64 = 0
                for k in 0..<cellCount {
                    let delta = try r.varint()
                    if k > 0 && delta == 0 { throw damaged("cells out of order") }
                    let (c, over) = cell.addingReportingOverflow(delta)
                    if over || c >> UInt64(5 * Geohash.finest) != 0 { throw damaged("a cell out of range") }
                    cell = c
                    first = first &+ unzigzag(try r.varint())
                    let span = try r.varint(max: UInt64(Int64.max))
                    if keep { cells.append((cell, CellVisit(firstMs: first, lastMs: first &+ Int64(span)))) }
                }
                if keep {
                    files.append(
                        FileEntry(
                            name: text, size: size, mtimeNs: mtime, inode: inode, tripId: trip,
                            part: part, points: points, cells: cells))
                }
            }
            guard read == count, r.consumed == payloadLength, r.atEnd() else {
                throw damaged("\(payloadLength - r.consumed) bytes after the last file")
            }
            guard r.hash == readLE(header, 24, 8) else { throw damaged("checksum mismatch") }
            return CellIndex(files: files)
        } catch let e as Damage {
            throw e
        } catch {
            throw damaged("truncated")
        }
    }

    // MARK: Encoding helpers

    /// FNV-1a, 64 bits: catches the damage a card or a crash does to a derived file.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    static func unzigzag(_ u: UInt64) -> Int64 { Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1) }

    static func varint(_ v0: UInt64, _ out: inout [UInt8]) {
        var v = v0
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        out.append(UInt8(v))
    }

    static func le(_ v: UInt64, _ n: Int, _ out: inout [UInt8]) {
        for i in 0..<n { out.append(UInt8((v >> UInt64(8 * i)) & 0xFF)) }
    }

    static func readLE(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(b[at + i]) << UInt64(8 * i) }
        return v
    }

    struct Truncated: Error {}

    /// Bytes pulled from `read` in chunks, counted, hashed (FNV-1a, once `hashing`) and never
    /// past `limit`.
    struct StreamReader {
        let read: (inout [UInt8]) -> Int
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var at = 0
        var end = 0
        var consumed = 0
        var limit = Int.max
        var hashing = false
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325

        init(read: @escaping (inout [UInt8]) -> Int) { self.read = read }

        mutating func byte() throws -> UInt8 {
            guard consumed < limit else { throw Truncated() }
            if at == end {
                end = read(&buffer)
                at = 0
                guard end > 0 else { throw Truncated() }
            }
            let b = buffer[at]
            at += 1
            if hashing {
                consumed += 1
                hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3
            }
            return b
        }

        /// True when the source has nothing more.
        mutating func atEnd() -> Bool {
            if at < end { return false }
            end = read(&buffer)
            at = 0
            return end == 0
        }

        mutating func varint(max: UInt64 = .max) throws -> UInt64 {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard shift < 64 else { throw Truncated() }
                let b = try byte()
                v |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { break }
                shift += 7
            }
            guard v <= max else { throw Truncated() }
            return v
        }

        mutating func bytes(_ n: Int) throws -> [UInt8] {
            guard n >= 0 else { throw Truncated() }
            var out: [UInt8] = []
            out.reserveCapacity(n)
            for _ in 0..<n { out.append(try byte()) }
            return out
        }
    }
}

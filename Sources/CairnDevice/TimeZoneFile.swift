#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// A zone's UTC offsets from a TZif file (RFC 8536: `/etc/localtime`, `/usr/share/zoneinfo/…`),
/// read without the C library's zone code, which a static binary cannot count on. The transitions
/// of the file's 64-bit block (version 2 and later; the 32-bit one of a version-1 file) give the
/// offset at any moment they cover; after the last one, a footer without summer time (`UTC0`,
/// `<+05>-5`) gives its fixed offset, and one with a rule keeps the last transition's offset
/// (Debian's files list transitions to 2037, so this matters only after that).
public struct TimeZoneFile: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ path: String, _ why: String) { description = "\(path): \(why)" }
    }

    /// Transition times (Unix seconds, ascending) and the offset (seconds east) from each on.
    let times: [Int64]
    let offsets: [Int]
    /// The offset before the first transition (the file's first standard-time type).
    let initial: Int
    /// The footer's fixed offset, when its rule has no summer time.
    let footerFixed: Int?

    /// What the system's zone file (`/etc/localtime`) gives `record --timezone auto`.
    public enum Local: Sendable {
        /// No such file: UTC, as for the C library (a link to no file is `unusable`).
        case utc
        case zone(TimeZoneFile)
        /// There but unusable (unreadable, a directory, a FIFO, not TZif): the reason. The
        /// recorder then records no offset and says so; it never stops for this.
        case unusable(String)
    }

    public static func local(_ path: String = "/etc/localtime") -> Local {
        if case .failure(.noSuchFile) = Result(catching: { () throws(Errno) in try POSIX.checkAccess(path, F_OK) }) {
            // A link to a zone file that is gone (tzdata removed) names a zone, not UTC: an
            // offset of 0 would be a wrong local time, none lets the services place the ride.
            if let st = try? POSIX.status(path, followLinks: false), (st.st_mode & S_IFMT) == S_IFLNK {
                let target = (try? POSIX.readLink(path)).flatMap { $0.isEmpty ? nil : $0 } ?? "?"
                return .unusable("\(path): a link to \(target), which does not exist")
            }
            return .utc
        }
        do {
            return .zone(try load(path))
        } catch {
            return .unusable(error.description)
        }
    }

    /// Zone files are a few kilobytes; anything over this is not one.
    static let sizeLimit = 1 << 20

    public static func load(_ path: String) throws(Failure) -> TimeZoneFile {
        let bytes: [UInt8]
        do {
            let fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            defer { POSIX.close(fd) }
            bytes = try POSIX.readToEnd(fd, limit: sizeLimit, chunk: 8192)
        } catch {
            throw Failure(path, "\(error)")
        }
        if bytes.count > sizeLimit { throw Failure(path, "over 1 MiB: not a zone file") }
        return try parse(bytes, path: path)
    }

    static func parse(_ b: [UInt8], path: String) throws(Failure) -> TimeZoneFile {
        func bad(_ why: String) -> Failure { Failure(path, "not a TZif zone file (\(why))") }
        func be(_ at: Int, _ n: Int) throws(Failure) -> UInt64 {
            guard at >= 0, at + n <= b.count else { throw bad("truncated") }
            var v: UInt64 = 0
            for i in 0..<n { v = v << 8 | UInt64(b[at + i]) }
            return v
        }
        guard b.count >= 44, b[0] == 0x54, b[1] == 0x5A, b[2] == 0x69, b[3] == 0x66 else { throw bad("no TZif magic") }
        // counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
        func counts(_ at: Int) throws(Failure) -> [Int] {
            var c: [Int] = []
            for i in 0..<6 {
                let v = try be(at + 20 + 4 * i, 4)
                guard v <= UInt64(b.count) else { throw bad("counts beyond the file") }
                c.append(Int(v))
            }
            return c
        }
        let c1 = try counts(0)
        let v1Size = c1[3] * 5 + c1[4] * 6 + c1[5] + c1[2] * 8 + c1[1] + c1[0]
        var at = 44, timeSize = 4, c = c1
        if b[4] >= 0x32 {  // version 2 or later: skip the 32-bit block for the 64-bit one
            at = 44 + v1Size
            c = try counts(at)
            at += 44
            timeSize = 8
        }
        let (timecnt, typecnt) = (c[3], c[4])
        guard typecnt >= 1 else { throw bad("no local time types") }
        var times: [Int64] = [], idx: [Int] = []
        for i in 0..<timecnt {
            let raw = try be(at + i * timeSize, timeSize)
            times.append(timeSize == 8 ? Int64(bitPattern: raw) : Int64(Int32(bitPattern: UInt32(raw))))
        }
        at += timecnt * timeSize
        for i in 0..<timecnt { idx.append(Int(try be(at + i, 1))) }
        at += timecnt
        var typeOffsets: [Int] = [], typeDST: [Bool] = []
        for i in 0..<typecnt {
            let off = Int(Int32(bitPattern: UInt32(try be(at + i * 6, 4))))
            guard abs(off) <= 26 * 3600 else { throw bad("an offset of \(off) s") }
            typeOffsets.append(off)
            typeDST.append(try be(at + i * 6 + 4, 1) != 0)
        }
        at += typecnt * 6
        guard idx.allSatisfy({ $0 < typecnt }) else { throw bad("a transition to a type it lacks") }
        for i in 1..<max(1, times.count) where times[i] <= times[i - 1] { throw bad("transitions out of order") }
        var footerFixed: Int?
        if timeSize == 8 {
            at += c[5] + c[2] * 12 + c[1] + c[0]
            if at < b.count, b[at] == 0x0A, let end = b[(at + 1)...].firstIndex(of: 0x0A) {
                footerFixed = fixedOffset(posixTZ: Array(b[(at + 1)..<end]))
            }
        }
        let initial = typeDST.firstIndex(of: false).map { typeOffsets[$0] } ?? typeOffsets[0]
        return TimeZoneFile(times: times, offsets: idx.map { typeOffsets[$0] }, initial: initial, footerFixed: footerFixed)
    }

    /// A fixed zone's offset from a POSIX TZ string without summer time (`UTC0`, `<+0545>-5:45`,
    /// `EST5`): the sign is inverted (POSIX counts west). Nil for a rule with summer time.
    static func fixedOffset(posixTZ s: [UInt8]) -> Int? {
        var i = 0
        if i < s.count, s[i] == UInt8(ascii: "<") {
            guard let close = s.firstIndex(of: UInt8(ascii: ">")) else { return nil }
            i = close + 1
        } else {
            while i < s.count, (s[i] | 0x20) >= UInt8(ascii: "a"), (s[i] | 0x20) <= UInt8(ascii: "z") { i += 1 }
        }
        guard i > 0, i < s.count else { return nil }
        var sign = -1
        if s[i] == UInt8(ascii: "+") { i += 1 } else if s[i] == UInt8(ascii: "-") { sign = 1; i += 1 }
        var parts = [0, 0, 0], p = 0, digits = 0
        while i < s.count {
            let ch = s[i]
            if ch >= 48, ch <= 57 {
                parts[p] = parts[p] * 10 + Int(ch - 48); digits += 1
            } else if ch == UInt8(ascii: ":"), p < 2 {
                p += 1
            } else {
                return nil
            }  // a summer-time name or rule follows
            i += 1
        }
        guard digits > 0, parts[0] <= 24, parts[1] < 60, parts[2] < 60 else { return nil }
        return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])
    }

    /// The offset from UTC (seconds east) at `unixMs`.
    public func offset(atUnixMs ms: Int64) -> Int {
        let t = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        guard let first = times.first, t >= first else { return initial }
        if let f = footerFixed, t >= times.last! { return f }
        var lo = 0, hi = times.count - 1  // the last transition at or before t
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if times[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return offsets[lo]
    }

    /// A zone of one fixed offset (`--timezone +02:00`).
    public static func fixed(_ seconds: Int) -> TimeZoneFile {
        TimeZoneFile(times: [], offsets: [], initial: seconds, footerFixed: seconds)
    }
}

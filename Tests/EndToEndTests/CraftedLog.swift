import Foundation

/// Log files written by hand from LOG_FORMAT.md, for the export and retention tests: a trip's
/// part with chosen times, positions, salt and whether it was closed.
enum CraftedLog {
    /// A new, empty log directory of the test's own.
    static func directory() -> String {
        let d = Harness.tempDir() + "/logs"
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static func crc32c(_ bytes: [UInt8], _ start: UInt32 = 0xFFFF_FFFF) -> UInt32 {
        var c = start
        for x in bytes {
            c ^= UInt32(x)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        }
        return c
    }

    static func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    static func varint(_ v0: UInt64) -> [UInt8] {
        var v = v0, out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        return out + [UInt8(v)]
    }

    static func zigzag(_ v: Int64) -> [UInt8] { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    /// 2025-06-01T08:00:00Z
    static let june1: Int64 = 1_748_764_800_000

    /// One part of a trip: `points` fixes one second apart from `startMs`, heading north ~5 m a
    /// second from 47.0 N 8.5 E (+ `northOffset` points' worth), each in a record of its own; a
    /// trip start in part 0, a resume segment in later parts; the rider's presses (record type
    /// 10: kind 0 a lap, 1 the end; ms since 1970) after the points; a trip end when `closed`.
    static func file(
        trip: UInt64, part: UInt32 = 0, salt: UInt32, startMs: Int64 = june1, points: Int, northOffset: Int = 0, closed: Bool,
        presses: [(kind: UInt8, ms: Int64)] = []
    ) -> Data {
        var h = Array("CAIRNLOG".utf8) + le(UInt16(2)) + le(UInt16(32)) + le(salt) + le(trip) + le(part)
        h += le(~crc32c(h))
        var seq: UInt64 = 0
        func frame(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
            seq += 1
            let payload = varint(seq) + body
            let covered = le(UInt16(payload.count)) + [type] + payload
            let c = ~crc32c(covered, crc32c(le(salt)))
            return le(((c >> 15) | (c << 17)) &+ 0xA282_EAD8) + covered
        }
        var b = h
        if part == 0 {
            let activity = Array("ride".utf8), software = Array("crafted".utf8)
            b += frame(1, varint(UInt64(activity.count)) + activity + varint(UInt64(software.count)) + software)
            b += frame(2, [0, 0])
        } else {
            b += frame(2, [4, 0])
        }
        for i in 0..<points {
            let t = startMs + Int64(i) * 1000
            let lat = Int64(470_000_000 + (i + northOffset) * 450)
            b += frame(7, varint(1) + [0] + varint(7) + varint(0) + zigzag(t) + zigzag(lat) + zigzag(85_000_000))
        }
        for p in presses { b += frame(10, [p.kind] + zigzag(p.ms)) }
        if closed {
            let last = startMs + Int64(max(0, points - 1)) * 1000
            b += frame(6, [1] + varint(UInt64(points)) + varint(0) + varint(0) + [3] + zigzag(startMs) + zigzag(last))
        }
        return Data(b)
    }

    static func write(_ data: Data, _ path: String) throws {
        try data.write(to: URL(fileURLWithPath: path))
    }
}

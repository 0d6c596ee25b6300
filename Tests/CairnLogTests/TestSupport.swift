import CairnCore
import Foundation
import XCTest

@testable import CairnLog

/// A fresh temporary directory per test, removed afterwards.
class LogTestCase: XCTestCase {
    var dir: String = ""

    override func setUpWithError() throws {
        dir =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("cairnlog-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
        try? FileManager.default.removeItem(atPath: dir)
    }

    func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @discardableResult
    func put(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func entries(_ path: String) throws -> [LogEntry] {
        var out: [LogEntry] = []
        try LogReader(path: path).forEach {
            out.append($0); return true
        }
        return out
    }

    func records(_ path: String) throws -> [LogRecord] { try entries(path).map(\.record) }

    /// Writes `records` (points appended one by one via `append(point:)` when `pointsOneByOne`),
    /// syncs, closes, and returns the path.
    func write(
        _ records: [LogRecord], number: UInt32 = 1, salt: UInt32 = 0x1234_5678,
        tripId: UInt64 = 7, syncEach: Bool = false
    ) throws -> String {
        let w = try LogWriter(
            directory: dir, number: number,
            header: FileHeader(tripId: tripId, part: 0, salt: salt))
        for r in records {
            try w.append(r)
            if syncEach { try w.sync() }
        }
        try w.sync()
        w.close()
        return w.path
    }

    /// A frame built by hand from the spec (standard CRC-32C of salt || length || type || payload,
    /// computed bit by bit here, independent of the module's table code).
    static func handFrame(salt: UInt32, type: UInt8, payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        let covered: [UInt8] = [UInt8(n & 0xFF), UInt8(n >> 8), type] + payload
        let crc = bitwiseCRC32C(le32(salt) + covered)
        let masked = ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
        return le32(masked) + covered
    }

    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    static func bitwiseCRC32C(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in data {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        }
        return ~c
    }

    static func varint(_ v: UInt64) -> [UInt8] {
        var a: [UInt8] = []
        a.appendVarint(v)
        return a
    }

    /// A small multi-record trip.
    static func sampleRecords() -> [LogRecord] {
        let t0: Int64 = 1_700_000_000_000
        func fix(_ i: Int) -> Fix {
            Fix(
                timeMs: t0 + Int64(i) * 1000, lat: 47.0 + Double(i) * 1e-5, lon: 8.5 + Double(i) * 2e-5, mode: 3,
                altMSL: 400 + Double(i) * 0.1, eph: 3.5, speed: 6.0, track: 45)
        }
        return [
            .tripStart(activity: "ride", software: "cairn test"),
            .segmentStart(.start, timeMs: t0),
            .points((0..<5).map(fix)),
            .note("gpsd lost"),
            .points((5..<9).map(fix)),
            .segmentStart(.gap, timeMs: nil),
            .points((9..<20).map(fix)),
            .dropped([DropCount(rule: 1, count: 3), DropCount(rule: 7, count: 300)]),
            .points([fix(20)]),
            .tripEnd(
                TripEnd(
                    reason: .shutdown, points: 21, distanceM: 1234.56, movingTimeMs: 20_000,
                    firstTimeMs: t0, lastTimeMs: t0 + 20_000))
        ]
    }
}

/// Deterministic PRNG (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func gaussian() -> Double {
        let u1 = max(Double.random(in: 0..<1, using: &self), 1e-12)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// Fixes as a writer stores them: every value on the format's integer grid.
func quantised(_ f: Fix) -> Fix {
    func q(_ v: Double?, _ scale: Double) -> Double? {
        guard let v, v.isFinite else { return nil }
        let r = (v * scale).rounded(.toNearestOrAwayFromZero)
        return Double(Int64(min(max(r, -0x1p50), 0x1p50))) / scale
    }
    return Fix(
        timeMs: f.timeMs, lat: q(f.lat, 1e7)!, lon: q(f.lon, 1e7)!, mode: f.mode,
        altHAE: q(f.altHAE, 100), altMSL: q(f.altMSL, 100),
        eph: q(f.eph, 100), epx: q(f.epx, 100), epy: q(f.epy, 100), epv: q(f.epv, 100),
        // The writer keeps speed to whole cm/s (LOG_FORMAT.md 7b); the unit stays mm/s.
        speed: q(f.speed, 100), track: q(f.track, 100), climb: q(f.climb, 1000),
        pressurePa: q(f.pressurePa, 10), temperatureC: q(f.temperatureC, 100))
}

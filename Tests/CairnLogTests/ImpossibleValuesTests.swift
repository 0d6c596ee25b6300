import CairnCore
import Foundation
import XCTest

@testable import CairnLog

/// CRC-valid records holding values no receiver gives (what a crafted file or a bit flip with
/// its CRC recomputed makes): the reader takes an impossible time or position as damage and
/// skips the record, leaves out an impossible optional value, and delivers everything else.
/// The same file is committed as Tests/Fixtures/logs/crafted-values/00000001.cairn (the
/// end-to-end tests convert it to every format) and, one case a file, in the fuzz corpus.
final class ImpossibleValuesTests: LogTestCase {
    static let salt: UInt32 = 0xC0FF_EE01
    static let t0: Int64 = 1_748_764_800_000  // 2025-06-01T08:00:00Z

    /// One crafted point as a compact points body (count 1: the bases are the values), any
    /// 64-bit value per field, in the field's unit (LOG_FORMAT.md 7b).
    static func onePoint(_ values: [Int: Int64]) -> [UInt8] {
        var fields: UInt64 = 0
        for bit in values.keys { fields |= 1 << UInt64(bit) }
        var b = varint(1) + [0] + varint(fields) + varint(0)
        for bit in values.keys.sorted() { b += varint(Varint.zigzag(values[bit]!)) }
        return b
    }

    static func point(_ i: Int, lat: Int64? = nil, lon: Int64? = nil, time: Int64? = nil, extra: [Int: Int64] = [:]) -> [UInt8] {
        var v: [Int: Int64] = [
            PointField.time: time ?? t0 + Int64(i) * 1000,
            PointField.lat: lat ?? 470_000_000 + Int64(i) * 200,
            PointField.lon: lon ?? 85_000_000 + Int64(i) * 200,
            PointField.mode: 3
        ]
        for (k, x) in extra { v[k] = x }
        return onePoint(v)
    }

    /// The crafted cases: name, body, and whether the record is damage (else a value is left out).
    static let cases: [(name: String, body: [UInt8], damage: Bool)] = [
        ("lat-91", point(10, lat: 910_000_000), true),
        ("lon-181", point(11, lon: 1_810_000_000), true),
        ("lat-8e11", point(12, lat: 8_000_000_000_000_000_000), true),  // 8e11 degrees in 1e-7 degrees
        ("lon-2p52", point(13, lon: 1 << 52), true),
        ("time-1980", point(14, time: 315_532_800_000), true),
        ("time-2300", point(15, time: 10_413_792_000_000), true),
        ("time-int64-min", point(16, time: Int64.min), true),
        ("height-2p52", point(17, extra: [PointField.altMSL: 1 << 52, PointField.epv: 300]), false),
        ("speed-2p62", point(18, extra: [PointField.speed: 1 << 62, PointField.track: -(1 << 40)]), false)
    ]

    static func good(_ range: Range<Int>) -> [Fix] {
        range.map { i in
            Fix(
                timeMs: t0 + Int64(i) * 1000, lat: 47 + Double(i) * 2e-5, lon: 8.5 + Double(i) * 2e-5, mode: 3,
                altHAE: 500 + Double(i), altMSL: 450 + Double(i), eph: 4, epv: 6, speed: 5, track: 45)
        }
    }

    static func body(_ record: LogRecord) -> [UInt8] {
        var b: [UInt8] = []
        RecordCodec.encodeBody(record, into: &b)
        return b
    }

    /// A whole trip: start, 10 good points, the crafted records (or only `only`), 10 good
    /// points, the end.
    static func file(only: String? = nil) -> [UInt8] {
        var out = FileHeader(tripId: 1, part: 0, salt: salt).encoded()
        var seq: UInt64 = 0
        func add(_ type: UInt8, _ body: [UInt8]) {
            seq += 1
            out += handFrame(salt: salt, type: type, payload: varint(seq) + body)
        }
        typealias T = FrameFormat.RecordType
        add(T.tripStart, body(.tripStart(activity: "ride", software: "crafted")))
        add(T.segmentStart, body(.segmentStart(.start, timeMs: t0)))
        add(T.compactPoints, body(.points(good(0..<10))))
        for c in cases where only == nil || c.name == only { add(T.compactPoints, c.body) }
        add(T.compactPoints, body(.points(good(20..<30))))
        add(
            T.tripEnd,
            body(
                .tripEnd(
                    TripEnd(
                        reason: .shutdown, points: 20, distanceM: 0, movingTimeMs: 0,
                        firstTimeMs: t0, lastTimeMs: t0 + 29_000))))
        return out
    }

    static var repo: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    func testImpossibleTimesAndPositionsAreDamageAndOtherValuesAreLeftOut() throws {
        let p = try put(Self.file(), "00000001.cairn")
        let r = try LogReader(path: p)
        let s = try r.scan()
        let damage = Self.cases.filter(\.damage).count
        XCTAssertEqual(s.implausibleRecords, damage)
        XCTAssertEqual(s.firstImplausible, "latitude 91.0 out of range")
        XCTAssertEqual(s.valuesLeftOut, 3, "height, speed and course")
        XCTAssertEqual(s.firstLeftOut, "sea-level height \(Double(1 << 52) / 100)")
        XCTAssertEqual(s.malformedRecords, 0)
        XCTAssertEqual(s.sequenceGaps, 0)
        XCTAssertFalse(s.isClean)
        XCTAssertEqual(s.points, 22)
        XCTAssertEqual(s.records, 3 + 2 + 2)

        var points: [Fix] = []
        var unknown = 0
        try r.forEach { e in
            switch e.record {
            case .points(let f): points += f
            case .unknown: unknown += 1
            default: break
            }
            return true
        }
        XCTAssertEqual(unknown, damage, "a damaged record comes as unknown: every reader skips it")
        XCTAssertEqual(points.count, 22)
        XCTAssertEqual(points.map(\.timeMs), (Array(0..<10) + [17, 18] + Array(20..<30)).map { Self.t0 + Int64($0) * 1000 })
        for f in points { XCTAssertNil(PointBounds.positionProblem(f)) }
        // The kept optional values stay; the impossible ones are absent, never clamped or invented.
        XCTAssertNil(points[10].altMSL)
        XCTAssertEqual(points[10].epv, 3)
        XCTAssertNil(points[11].speed)
        XCTAssertNil(points[11].track)
        XCTAssertEqual(points[0].altMSL, 450)
    }

    /// The writer never writes what the reader would skip: it refuses impossible times.
    func testBoundsAreTheWritersToo() {
        XCTAssertTrue(PointsEncoder.isValid(Fix(timeMs: PointBounds.earliestMs, lat: 90, lon: -180, mode: 3)))
        XCTAssertTrue(PointsEncoder.isValid(Fix(timeMs: PointBounds.latestMs - 1, lat: -90, lon: 180, mode: 3)))
        XCTAssertFalse(PointsEncoder.isValid(Fix(timeMs: PointBounds.earliestMs - 1, lat: 0, lon: 0, mode: 3)))
        XCTAssertFalse(PointsEncoder.isValid(Fix(timeMs: PointBounds.latestMs, lat: 0, lon: 0, mode: 3)))
        XCTAssertFalse(PointsEncoder.isValid(Fix(timeMs: Self.t0, lat: .nan, lon: 0, mode: 3)))
    }

    /// The committed fixture and fuzz seeds are what this file builds (CAIRN_WRITE_FIXTURES=1
    /// writes them again).
    func testFixtureAndFuzzSeedsAreCurrent() throws {
        let fixture = Self.repo.appendingPathComponent("Tests/Fixtures/logs/crafted-values/00000001.cairn")
        var seeds: [(URL, [UInt8])] = [(fixture, Self.file())]
        for c in Self.cases {
            // Fuzz input kind 0: a whole file as it is.
            seeds.append((Self.repo.appendingPathComponent("Tests/crash/fuzz-corpus/crafted-\(c.name)"), [0] + Self.file(only: c.name)))
        }
        if ProcessInfo.processInfo.environment["CAIRN_WRITE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(at: fixture.deletingLastPathComponent(), withIntermediateDirectories: true)
            for (url, b) in seeds { try Data(b).write(to: url) }
        }
        for (url, b) in seeds {
            XCTAssertEqual([UInt8](try Data(contentsOf: url)), b, "\(url.path) is stale: rerun with CAIRN_WRITE_FIXTURES=1")
        }
    }
}

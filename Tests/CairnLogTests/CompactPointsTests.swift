import CairnCore
import Foundation
import XCTest

@testable import CairnLog

/// The compact points record (type 7, LOG_FORMAT.md 7b): exact round trips of every shape of
/// batch, bounded cost, malformed bodies refused, and format-1 logs still read.
final class CompactPointsTests: LogTestCase {
    func encode(_ fixes: [Fix]) -> [UInt8] {
        var e = CompactPointsEncoder()
        var out: [UInt8] = []
        e.encode(fixes[...], into: &out)
        return out
    }

    func decode(_ body: [UInt8]) throws -> [Fix] {
        try body.withUnsafeBytes { b in
            var r = ByteReader(b)
            do { return try CompactPointsDecoder.decode(&r) } catch { throw error }
        }
    }

    /// Random batches: every optional field present everywhere, nowhere or in runs; receivers
    /// with coarse and fine resolutions; noise small and huge. The same 400 batches every time.
    static func randomBatches() -> [(plan: [Int], fixes: [Fix])] {
        var g = SplitMix64(seed: 7)
        var batches: [(plan: [Int], fixes: [Fix])] = []
        for round in 0..<400 {
            let n = [1, 2, 3, 5, 17, 256, Int(g.next() % 300) + 1][round % 7]
            var fixes: [Fix] = []
            var lat = Double(Int64(g.next() % 1_800_000_000) - 900_000_000) / 1e7
            var lon = Double(Int64(g.next() % 3_600_000_000) - 1_800_000_000) / 1e7
            var t = Int64(g.next() % (1 << 42))
            let noise = [1e-7, 1e-5, 1e-3, 1.0][Int(g.next() % 4)]
            // Per field: 0 never, 1 always, 2 in random runs.
            // Over fields 0-13: these pinned batches predate temperature (field 14) and hold none.
            let plan = (0..<14).map { _ in Int(g.next() % 3) }
            func maybe(_ bit: Int, _ i: Int, _ v: @autoclosure () -> Double) -> Double? {
                switch plan[bit] {
                case 0: return nil
                case 1: return v()
                default: return (i / 3 + bit) % 2 == 0 ? v() : nil
                }
            }
            for i in 0..<n {
                lat = max(-90, min(90, lat + noise * g.gaussian()))
                lon = max(-180, min(180, lon + noise * g.gaussian()))
                t &+= Int64(g.next() % 4) * 1000 - (g.next() % 50 == 0 ? 5000 : 0)
                let alt = 400 + 30 * g.gaussian()
                var f = Fix(timeMs: t, lat: lat, lon: lon, mode: Int(g.next() % 4))
                f.altHAE = maybe(4, i, (alt * 10).rounded() / 10)
                f.altMSL = maybe(5, i, alt - 47.3)
                f.eph = maybe(6, i, Double(g.next() % 4) * 1.9)
                f.epx = maybe(7, i, 2 * g.gaussian())
                f.epy = maybe(8, i, 1e9 * g.gaussian())
                f.epv = maybe(9, i, 3.0)
                f.speed = maybe(10, i, 6 + g.gaussian())
                f.track = maybe(11, i, Double(g.next() % 3600) / 10)
                f.climb = maybe(12, i, -1e12)
                f.pressurePa = maybe(13, i, 95_000 + 100 * g.gaussian())
                fixes.append(f)
            }
            batches.append((plan, fixes))
        }
        return batches
    }

    func testRandomBatchesRoundTripExactly() throws {
        var e = CompactPointsEncoder()  // one encoder reused, as the writer does
        for (round, batch) in Self.randomBatches().enumerated() {
            var body: [UInt8] = []
            e.encode(batch.fixes[...], into: &body)
            XCTAssertEqual(
                try decode(body), batch.fixes.map(quantised),
                "round \(round), n \(batch.fixes.count), plan \(batch.plan)")
        }
    }

    /// The writer's bytes for the random batches, pinned: a change to how the encoder works
    /// (its speed, its scratch memory) must not change one byte it writes. A deliberate change
    /// of the writer's choices (section 7b's informative part) updates the digest here.
    func testEncoderBytesArePinned() {
        var e = CompactPointsEncoder()
        var all: [UInt8] = []
        for batch in Self.randomBatches() {
            e.encode(batch.fixes[...], into: &all)
            var fresh = CompactPointsEncoder()  // a new encoder writes the same bytes as a reused one
            var one: [UInt8] = [], again: [UInt8] = []
            fresh.encode(batch.fixes[...], into: &one)
            e.encode(batch.fixes[...], into: &again)
            XCTAssertEqual(one, again, "n \(batch.fixes.count)")
        }
        let digest = all.withUnsafeBytes { CRC32C.update(0, $0) }
        print("compact encoder: \(all.count) bytes, CRC-32C \(String(digest, radix: 16))")
        XCTAssertEqual(all.count, 321_754)
        XCTAssertEqual(digest, 0x10bc_640b)
    }

    /// Temperature (field 14) round trips in both point records, in every shape of presence;
    /// points without it are written as before (`testEncoderBytesArePinned`).
    func testTemperatureRoundTrips() throws {
        for n in [1, 2, 7, 40] {
            for shape in 0..<3 {
                let fixes: [Fix] = (0..<n).map { i in
                    var f = Fix(
                        timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47 + Double(i) * 1e-5, lon: 8, mode: 3,
                        pressurePa: 95_000 - Double(i))
                    if shape == 1 || (shape == 2 && i % 3 != 1) { f.temperatureC = 23.45 - Double(i) * 0.01 }
                    return f
                }
                let decoded = try decode(encode(fixes))
                XCTAssertEqual(decoded, fixes.map(quantised), "n \(n), shape \(shape)")
                XCTAssertEqual(decoded.compactMap(\.temperatureC).count, fixes.compactMap(\.temperatureC).count)
                if shape == 1 { XCTAssertEqual(decoded[0].temperatureC, 23.45) }
                var old = PointsEncoder()
                for f in fixes { old.add(f) }
                var body: [UInt8] = []
                body.appendVarint(UInt64(old.count))
                body += old.body
                let format1 = try body.withUnsafeBytes { b in
                    var r = ByteReader(b)
                    do { return try PointsDecoder.decode(&r) } catch { throw error }
                }
                XCTAssertEqual(format1, fixes.map(quantised), "type 3, n \(n), shape \(shape)")
            }
        }
        // A steady temperature costs a few bytes a record (its presence bit, base and zero step), nothing per point.
        let plain = (0..<10).map { Fix(timeMs: Int64($0) * 1000 + 1_748_764_800_000, lat: 47, lon: 8, mode: 3, pressurePa: 95_000) }
        var warm = plain
        for i in warm.indices { warm[i].temperatureC = 20 }
        XCTAssertLessThanOrEqual(encode(warm).count, encode(plain).count + 4)
        XCTAssertGreaterThan(encode(warm).count, encode(plain).count)
    }

    func testExtremeValuesRoundTrip() throws {
        let cases: [[Fix]] = [
            // Times at the ends of Int64, going backwards, all equal.
            [
                Fix(timeMs: .min, lat: -90, lon: -180, mode: 0), Fix(timeMs: .max, lat: 90, lon: 180, mode: .max),
                Fix(timeMs: 0, lat: 0, lon: 0, mode: .min)
            ],
            (0..<50).map { Fix(timeMs: 5, lat: 1, lon: 2, mode: 3, speed: Double($0)) },
            (0..<50).map { Fix(timeMs: Int64(100 - $0) * 1000, lat: 1, lon: 2, mode: 3) },
            // Across the antimeridian and the poles, then a jump across the globe (escape codes).
            [
                Fix(timeMs: 0, lat: 89.9999999, lon: 179.9999999, mode: 3), Fix(timeMs: 1000, lat: 90, lon: -180, mode: 3),
                Fix(timeMs: 2000, lat: -90, lon: 179.5, mode: 3), Fix(timeMs: 3000, lat: 0.0000001, lon: -0.0000001, mode: 3)
            ],
            // Quantised magnitudes at the clamp; altMSL without altHAE (no separation).
            [
                Fix(timeMs: 1, lat: 1, lon: 1, mode: 3, altMSL: 1e300, climb: -1e300),
                Fix(timeMs: 2, lat: 1, lon: 1, mode: 3, altHAE: 10, altMSL: -1e300, climb: 1e300)
            ]
        ]
        for (i, fixes) in cases.enumerated() {
            XCTAssertEqual(try decode(encode(fixes)), fixes.map(quantised), "case \(i)")
        }
        XCTAssertEqual(try decode(encode([])), [])
    }

    /// Steady motion at a receiver's real resolution costs a few bits per field, and a field
    /// that never changes (mode, geoid separation) costs nothing per point.
    func testSteadyRideIsCheap() throws {
        let fixes = (0..<256).map { (i: Int) -> Fix in
            let d = Double(i)
            var f = Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 47 + d * 4e-5, lon: 8 + d * 2e-5, mode: 3)
            f.altHAE = 500.1 + d / 10
            f.altMSL = 452.8 + d / 10
            f.eph = 3.8
            f.epv = 6.4
            f.speed = 6.43
            f.track = 21.3
            f.climb = 0.1
            return f
        }
        let body = encode(fixes)
        XCTAssertEqual(try decode(body), fixes.map(quantised))
        XCTAssertLessThan(Double(body.count) / 256, 1.5)  // time, lat, lon: a bit or so each
    }

    func testMalformedBodiesAreRefused() throws {
        let good = encode((0..<10).map { Fix(timeMs: Int64($0) * 1000, lat: Double($0), lon: 1, mode: 3, speed: Double($0)) })
        XCTAssertEqual(try decode(good).count, 10)
        // Every truncation of the header or the stream fails cleanly (never a partial batch).
        for cut in 0..<good.count { XCTAssertThrowsError(try decode(Array(good[..<cut])), "cut \(cut)") }
        var v: [UInt8] = []
        v.appendVarint(4097)
        XCTAssertThrowsError(try decode(v + [0, 7, 0]))  // more points than any writer frames
        XCTAssertThrowsError(try decode([1, 0, 3, 0]))  // fields without longitude
        XCTAssertThrowsError(try decode([1, 0, 7, 1]))  // time marked as sometimes absent
        XCTAssertThrowsError(try decode([2, 0, 7, 0, 0, 1, 63, 0, 0, 0, 0]))  // Rice parameter 63
        // A partial field whose runs do not fit the count.
        XCTAssertThrowsError(try decode([2, 0, 0x17, 0x10, 0x05, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
        // Random bodies never trap.
        var g = SplitMix64(seed: 3)
        for _ in 0..<20_000 {
            let n = Int(g.next() % 40)
            var b = (0..<n).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            if !b.isEmpty { b[0] = b[0] % 8 }
            _ = try? decode(b)
        }
    }

    /// A log written by format 1 (point records of type 3) still reads: the fixture is a 2-hour
    /// ride recorded by the format-1 cairn; the figures were read from it by the independent
    /// Python reader in Tests/crash/cairnlog.py.
    func testFormat1LogStillReads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("Fixtures/logs/format1-ride.cairn").path
        let r = try LogReader(path: path)
        XCTAssertEqual(r.header.version, 1)
        var fixes: [Fix] = []
        try r.forEach {
            if case .points(let p) = $0.record { fixes += p }; return true
        }
        XCTAssertEqual(fixes.count, 1819)
        XCTAssertEqual(
            fixes.first,
            Fix(
                timeMs: 1_748_764_800_000, lat: 47.3768833, lon: 8.5417633, mode: 3,
                altHAE: 467.10, altMSL: 420.10, eph: 19.00, epv: 29.90, speed: 6.436, track: 95.20))
        XCTAssertEqual(fixes.last?.climb, 1.5)
        func sum(_ bit: Int, _ v: (Fix) -> Double?) -> Int64 {
            fixes.reduce(0) { $0 + (v($1).map { PointField.quantise($0, bit) } ?? 0) }
        }
        XCTAssertEqual(fixes.reduce(0) { $0 + $1.timeMs }, 3_181_009_855_460_000)
        XCTAssertEqual(sum(1, { $0.lat }), 861_184_537_563)
        XCTAssertEqual(sum(2, { $0.lon }), 158_015_200_678)
        XCTAssertEqual(sum(5, { $0.altMSL }), 76_566_590)
        XCTAssertEqual(sum(10, { $0.speed }), 12_329_462)
        XCTAssertEqual(sum(11, { $0.track }), 25_625_910)
        XCTAssertEqual(sum(12, { $0.climb }), -19_400)
        XCTAssertTrue(try LogReader(path: path).scan().isClean)
    }
}

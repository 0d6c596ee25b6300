import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Writes the benchmark's trip log with the real `LogWriter` (Tests/bench/convert-bench.sh sets
/// CAIRN_BENCH_DIR and CAIRN_BENCH_POINTS and runs only this test; CAIRN_BENCH_RAW=1 adds raw
/// fixes: each point kept and a thinned fix half a second after it). Without them it writes a
/// 10,000-point log to a temporary directory and checks it reads back whole.
final class BenchmarkLogTests: XCTestCase {
    func testWritesBenchmarkLog() throws {
        let env = ProcessInfo.processInfo.environment
        let own = env["CAIRN_BENCH_DIR"] == nil
        let dir = env["CAIRN_BENCH_DIR"] ?? ExportSupport.tempDir()
        defer { if own { try? FileManager.default.removeItem(atPath: dir) } }
        let n = Int(env["CAIRN_BENCH_POINTS"] ?? "") ?? 10_000
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let raw = env["CAIRN_BENCH_RAW"] == "1"
        let path = try Self.write(points: n, segments: 10, dir: dir, raw: raw)
        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        XCTAssertEqual(trips.count, 1)
        let s = try TripCatalog.read(trips[0])
        XCTAssertEqual(s.stats.points, n)
        XCTAssertEqual(s.stats.segments, 10)
        XCTAssertEqual(s.status, .closed)
        if raw { XCTAssertEqual(try TripRaw.read(trips[0]) { _, _ in }, 2 * n) }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("benchmark log: \(path) \(n) points \(size) bytes")
    }

    /// Streams `points` synthetic 1 Hz fixes into one trip, `segments` segments (a 20 s gap
    /// between them), framed 5 points at a time as the recorder's 5 s sync cadence does; with
    /// `raw`, each batch's raw fixes after it (the points kept, and a fix thinned out between each
    /// two: too_close).
    static func write(points n: Int, segments: Int, dir: String, raw: Bool = false) throws -> String {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0xBE4C_4001))
        try w.append(.tripStart(activity: "ride", software: "cairn benchmark"))
        var ride = SyntheticRide(seed: 42)
        var stats = TripStats()
        var batch: [Fix] = []
        batch.reserveCapacity(5)
        let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)
        func append(_ fixes: [Fix]) throws {
            try w.append(.points(fixes))
            guard raw else { return }
            var judged: [RawFix] = []
            for f in fixes {
                judged.append(RawFix(fix: f, arrivalMs: f.timeMs, verdict: .kept, settings: settings))
                var between = f
                between.timeMs += 500
                judged.append(RawFix(fix: between, arrivalMs: between.timeMs, verdict: .dropped(.tooClose), settings: settings))
            }
            try w.append(.rawFixes(RawBatch(activity: "ride", fixes: judged)))
        }
        let perSegment = max(1, (n + segments - 1) / segments)
        var shift: Int64 = 0
        for i in 0..<n {
            if i % perSegment == 0 {
                if !batch.isEmpty { try append(batch); batch.removeAll(keepingCapacity: true) }
                if i > 0 { shift += 20_000 }
                let reason: SegmentReason = i == 0 ? .start : .gap
                try w.append(.segmentStart(reason, timeMs: nil))
                stats.startSegment(reason)
            }
            var f = ride.next()
            f.timeMs += shift
            stats.add(f)
            batch.append(f)
            if batch.count == 5 { try append(batch); batch.removeAll(keepingCapacity: true) }
        }
        if !batch.isEmpty { try append(batch) }
        try w.append(
            .tripEnd(
                TripEnd(
                    reason: .shutdown, points: UInt64(stats.points), distanceM: stats.distanceM,
                    movingTimeMs: stats.movingTimeMs, firstTimeMs: stats.firstTimeMs, lastTimeMs: stats.lastTimeMs)))
        _ = try w.sync()
        w.close()
        return w.path
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Writes the benchmark's trip log with the real `LogWriter` (Tests/bench/convert-bench.sh sets
/// CAIRN_BENCH_DIR and CAIRN_BENCH_POINTS and runs only this test). Without them it writes a
/// 10,000-point log to a temporary directory and checks it reads back whole.
final class BenchmarkLogTests: XCTestCase {
    func testWritesBenchmarkLog() throws {
        let env = ProcessInfo.processInfo.environment
        let own = env["CAIRN_BENCH_DIR"] == nil
        let dir = env["CAIRN_BENCH_DIR"] ?? ExportSupport.tempDir()
        defer { if own { try? FileManager.default.removeItem(atPath: dir) } }
        let n = Int(env["CAIRN_BENCH_POINTS"] ?? "") ?? 10_000
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = try Self.write(points: n, segments: 10, dir: dir)
        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        XCTAssertEqual(trips.count, 1)
        let s = try TripCatalog.read(trips[0])
        XCTAssertEqual(s.stats.points, n)
        XCTAssertEqual(s.stats.segments, 10)
        XCTAssertEqual(s.status, "closed")
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("benchmark log: \(path) \(n) points \(size) bytes")
    }

    /// Streams `points` synthetic 1 Hz fixes into one trip, `segments` segments (a 20 s gap
    /// between them), framed 5 points at a time as the recorder's 5 s sync cadence does.
    static func write(points n: Int, segments: Int, dir: String) throws -> String {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0xBE4C_4001))
        try w.append(.tripStart(activity: "ride", software: "cairn benchmark"))
        var ride = SyntheticRide(seed: 42)
        var stats = TripStats()
        var batch: [Fix] = []
        batch.reserveCapacity(5)
        let perSegment = max(1, (n + segments - 1) / segments)
        var shift: Int64 = 0
        for i in 0..<n {
            if i % perSegment == 0 {
                if !batch.isEmpty { try w.append(.points(batch)); batch.removeAll(keepingCapacity: true) }
                if i > 0 { shift += 20_000 }
                let reason: SegmentReason = i == 0 ? .start : .gap
                try w.append(.segmentStart(reason, timeMs: nil))
                stats.startSegment(reason)
            }
            var f = ride.next()
            f.timeMs += shift
            stats.add(f)
            batch.append(f)
            if batch.count == 5 { try w.append(.points(batch)); batch.removeAll(keepingCapacity: true) }
        }
        if !batch.isEmpty { try w.append(.points(batch)) }
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

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Writes the `cairn cells` benchmark's logs with the real `LogWriter` (Tests/bench/cells-bench.sh
/// sets CAIRN_CELLS_DIR and CAIRN_CELLS_TRIPS and runs only this test): one 45-minute ride a day
/// from one of five homes in one city, so trips cross each other's cells as commutes do.
/// Without them it writes 12 trips to a temporary directory and checks what cells counts.
final class CellsBenchmarkLogTests: XCTestCase {
    func testWritesCellsBenchmarkLogs() throws {
        let env = ProcessInfo.processInfo.environment
        let own = env["CAIRN_CELLS_DIR"] == nil
        let dir = env["CAIRN_CELLS_DIR"] ?? ExportSupport.tempDir()
        defer { if own { try? FileManager.default.removeItem(atPath: dir) } }
        let trips = Int(env["CAIRN_CELLS_TRIPS"] ?? "") ?? 12
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.write(trips: trips, dir: dir)
        let report = ExploredCells.collect(
            paths: [dir], precision: 7, prefix: nil, saveIndex: own, settleNs: 0, problem: { XCTFail($0) }, note: { _ in })
        XCTAssertEqual(report.filesRead, trips)
        XCTAssertGreaterThan(report.cells.map(\.trips).max() ?? 0, 1, "commutes share cells")
        print("cells benchmark logs: \(dir) \(trips) trips, \(report.cells.count) cells at precision 7")
    }

    static func write(trips: Int, dir: String, points: Int = 2700) throws {
        let homes = [(47.3769, 8.5417), (47.3900, 8.5100), (47.3600, 8.5600), (47.4000, 8.5500), (47.3700, 8.5000)]
        let day: Int64 = 86_400_000
        for k in 0..<trips {
            let n = UInt32(k + 1)
            let w = try LogWriter(directory: dir, number: n, header: FileHeader(tripId: UInt64(n), part: 0, salt: 0xCE11_0000 | n))
            try w.append(.tripStart(activity: "ride", software: "cairn benchmark", utcOffsetS: nil))
            try w.append(.segmentStart(.start, timeMs: nil))
            let home = homes[k % homes.count]
            var ride = SyntheticRide(seed: UInt64(k + 1), lat: home.0, lon: home.1, t0: 1_748_764_800_000 + Int64(k) * day)
            var stats = TripStats()
            var batch: [Fix] = []
            for _ in 0..<points {
                let f = ride.next()
                stats.add(f)
                batch.append(f)
                if batch.count == 256 { try w.append(.points(batch)); batch.removeAll(keepingCapacity: true) }
            }
            if !batch.isEmpty { try w.append(.points(batch)) }
            try w.append(
                .tripEnd(
                    TripEnd(
                        reason: .shutdown, points: UInt64(stats.points), distanceM: stats.distanceM,
                        movingTimeMs: stats.movingTimeMs, firstTimeMs: stats.firstTimeMs, lastTimeMs: stats.lastTimeMs)))
            _ = try w.sync()
            w.close()
        }
    }
}

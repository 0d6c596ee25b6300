import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class GeohashTests: XCTestCase {
    func testKnownGeohashes() {
        // Niemeyer's examples and the geohash.org reference points.
        XCTAssertEqual(Geohash.string(Geohash.cell(lat: 57.64911, lon: 10.40744, precision: 7), precision: 7), "u4pruyd")
        XCTAssertEqual(Geohash.string(Geohash.cell(lat: 42.6, lon: -5.6, precision: 5), precision: 5), "ezs42")
        XCTAssertEqual(Geohash.string(Geohash.cell(lat: -25.382708, lon: -49.265506, precision: 6), precision: 6), "6gkzwg")
        let b = Geohash.bounds(Geohash.cell("ezs42")!, precision: 5)
        XCTAssertEqual(b.south, 42.5830078125, accuracy: 1e-12)
        XCTAssertEqual(b.north, 42.626953125, accuracy: 1e-12)
        XCTAssertEqual(b.west, -5.6249999999, accuracy: 1e-9)
        XCTAssertEqual(b.east, -5.5810546875, accuracy: 1e-12)
    }

    func testParentIsTheShorterGeohash() {
        var rng = SplitMix64(state: 7)
        for _ in 0..<2000 {
            let lat = rng.uniform() * 180 - 90, lon = rng.uniform() * 360 - 180
            let fine = Geohash.cell(lat: lat, lon: lon)
            let s7 = Geohash.string(fine, precision: 7)
            for p in 5...6 {
                XCTAssertEqual(Geohash.string(Geohash.parent(fine, to: p), precision: p), String(s7.prefix(p)))
                XCTAssertEqual(Geohash.cell(lat: lat, lon: lon, precision: p), Geohash.parent(fine, to: p))
            }
            let b = Geohash.bounds(fine, precision: 7)
            XCTAssertTrue(b.south <= lat && lat <= b.north && b.west <= lon && lon <= b.east)
        }
    }

    func testParsing() {
        XCTAssertNil(Geohash.cell("u4pa"))  // a, i, l, o are not geohash characters
        XCTAssertNil(Geohash.cell("u4p-"))
        XCTAssertEqual(Geohash.cell("U4PR"), Geohash.cell("u4pr"))
        XCTAssertEqual(Geohash.cell(""), 0)
    }
}

final class CellWalkTests: XCTestCase {
    /// Every point along a step lies in a cell the walk marked, and it marks no more cells than
    /// the grid lines the step crosses.
    func testEveryCellAlongAStepIsMarked() {
        var rng = SplitMix64(state: 11)
        for _ in 0..<300 {
            let lat = rng.uniform() * 150 - 75, lon = rng.uniform() * 350 - 175
            let dLat = (rng.uniform() - 0.5) * 0.05, dLon = (rng.uniform() - 0.5) * 0.05
            var walk = CellWalk()
            walk.add(lat: lat, lon: lon, timeMs: 0)
            walk.add(lat: lat + dLat, lon: lon + dLon, timeMs: 100_000)
            let g = walk.grid
            for k in 0...400 {
                let s = Double(k) / 400
                let c = Geohash.cell(lat: lat + s * dLat, lon: lon + s * dLon)
                XCTAssertNotNil(walk.cells[c], "a point of the step at \(s) is in an unmarked cell")
            }
            let crossings = abs(floor(g.x(lon: lon + dLon)) - floor(g.x(lon: lon))) + abs(floor(g.y(lat: lat + dLat)) - floor(g.y(lat: lat)))
            XCTAssertLessThanOrEqual(Double(walk.cells.count), crossings + 1)
        }
    }

    func testTimesAreInterpolatedAlongTheStep() {
        var walk = CellWalk()
        // Due east along one row, 20 cells of ~0.00137° each.
        let w = 360 / Double(1 << 18)
        let west = -180 + (188 / w).rounded(.down) * w  // a cell's west edge near 8° E
        walk.add(lat: 47.0001, lon: west + w / 2, timeMs: 0)
        walk.add(lat: 47.0001, lon: west + 20.5 * w, timeMs: 20_000)
        XCTAssertEqual(walk.cells.count, 21)
        // West to east: along one row the cell number grows with the column (times to the
        // second tie, and the dictionary's order decided between equal times).
        let ordered = walk.cells.sorted { $0.key < $1.key }
        // Cell i is entered at i - 0.5 s, and said to the second.
        for (i, c) in ordered.enumerated() {
            XCTAssertEqual(c.value.firstMs % 1000, 0)
            XCTAssertEqual(Double(c.value.firstMs), max(0, Double(i) * 1000 - 500), accuracy: 500)
            XCTAssertEqual(Double(c.value.lastMs), min(20_000, Double(i) * 1000 + 500), accuracy: 500)
        }
    }

    func testAntimeridianTakesTheShortWay() {
        var walk = CellWalk()
        walk.add(lat: 10, lon: 179.9990, timeMs: 0)
        walk.add(lat: 10, lon: -179.9990, timeMs: 1000)
        XCTAssertLessThanOrEqual(walk.cells.count, 3)
        XCTAssertTrue(walk.cells.keys.contains(Geohash.cell(lat: 10, lon: 179.9999)))
        XCTAssertTrue(walk.cells.keys.contains(Geohash.cell(lat: 10, lon: -179.9999)))
    }

    func testAJumpAcrossTheWorldMarksItsEndsOnly() {
        var walk = CellWalk()
        walk.add(lat: 47, lon: 8, timeMs: 0)
        walk.add(lat: -33, lon: 151, timeMs: 1000)
        XCTAssertEqual(walk.cells.count, 2)
    }

    func testABrokenLineIsNotJoined() {
        var walk = CellWalk()
        walk.add(lat: 47, lon: 8, timeMs: 0)
        walk.breakLine()
        walk.add(lat: 47, lon: 8.1, timeMs: 1000)
        XCTAssertEqual(walk.cells.count, 2)
    }
}

final class CellIndexTests: XCTestCase {
    func sample() -> CellIndex {
        var rng = SplitMix64(state: 3)
        let files = (1...4).map { n -> CellIndex.FileEntry in
            let cells = (0..<50).map { _ -> (cell: UInt64, visit: CellVisit) in
                let t = 1_748_764_800_000 + Int64(rng.next() % 10_000_000)
                return (rng.next() >> 29, CellVisit(firstMs: t, lastMs: t + Int64(rng.next() % 100_000)))
            }
            return CellIndex.FileEntry(
                name: LogDirectory.fileName(number: UInt32(n)), size: Int64(1000 * n), mtimeNs: 1_700_000_000_123_456_789,
                inode: UInt64(n) + 100, tripId: UInt64(n), part: 0, points: 10 * n, cells: cells)
        }
        return CellIndex(files: files)
    }

    func testRoundTrip() throws {
        let i = sample()
        XCTAssertEqual(try CellIndex.decode(i.encode()), i)
        XCTAssertEqual(try CellIndex.decode(CellIndex().encode()), CellIndex())
    }

    /// Any one byte changed, and any truncation, is found: the index is rebuilt, never trusted.
    func testDamageIsAlwaysFound() {
        let bytes = sample().encode()
        for i in stride(from: 0, to: bytes.count, by: 1) {
            var b = bytes
            b[i] ^= 0x40
            XCTAssertThrowsError(try CellIndex.decode(b), "byte \(i) changed")
        }
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try CellIndex.decode(Array(bytes[0..<n])), "cut at \(n)")
        }
        XCTAssertThrowsError(try CellIndex.decode(bytes + [0]))
    }
}

final class ExploredCellsTests: XCTestCase {
    func bytes(_ dir: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where f.hasSuffix(".cairn") {
            out[f] = FileManager.default.contents(atPath: dir + "/" + f)
        }
        return out
    }

    func collect(_ dir: String, precision: Int = 7, prefix: String? = nil, notes: inout [String]) -> ExploredCells.Report {
        var n: [String] = []
        let r = ExploredCells.collect(
            paths: [dir], precision: precision, prefix: prefix, settleNs: 0, problem: { XCTFail($0) }, note: { n.append($0) })
        notes += n
        return r
    }

    func testIncrementalIndexAndReadOnlyLogs() throws {
        let dir = ExportSupport.tempDir()
        let day: Int64 = 86_400_000
        // Trips 1 and 2 ride the same road a day apart; trip 3 rides elsewhere.
        let road = ExportSupport.ride(600)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, road)]), dir: dir, number: 1)
        try ExportSupport.writeLog(
            TripSpec(
                id: 2,
                segments: [
                    (
                        .start,
                        road.map {
                            var f = $0; f.timeMs += day; return f
                        }
                    )
                ]), dir: dir, number: 2)
        try ExportSupport.writeLog(TripSpec(id: 3, segments: [(.start, ExportSupport.ride(300, seed: 5, lat: 46.2, lon: 6.1))]), dir: dir, number: 3)
        let before = bytes(dir)
        var notes: [String] = []
        let first = collect(dir, notes: &notes)
        XCTAssertEqual(first.filesRead, 3)
        XCTAssertEqual(first.filesFromIndex, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: ExploredCells.indexPath(dir)))
        let shared = first.cells.filter { $0.trips == 2 }
        XCTAssertFalse(shared.isEmpty)
        for c in shared { XCTAssertGreaterThanOrEqual(c.visit.lastMs - c.visit.firstMs, day - 600_000) }
        XCTAssertEqual(first.cells.map(\.trips).max(), 2)

        // Nothing new: everything from the index, the same answer.
        let second = collect(dir, notes: &notes)
        XCTAssertEqual(second.filesRead, 0)
        XCTAssertEqual(second.filesFromIndex, 3)
        XCTAssertEqual(second.cells, first.cells)

        // A new trip: only it is read.
        try ExportSupport.writeLog(TripSpec(id: 4, segments: [(.start, ExportSupport.ride(100, seed: 9, lat: 40, lon: 3))]), dir: dir, number: 4)
        let third = collect(dir, notes: &notes)
        XCTAssertEqual(third.filesRead, 1)
        XCTAssertEqual(third.filesFromIndex, 3)
        XCTAssertGreaterThan(third.cells.count, first.cells.count)

        // A removed log leaves the answer.
        try FileManager.default.removeItem(atPath: dir + "/00000004.cairn")
        let fourth = collect(dir, notes: &notes)
        XCTAssertEqual(fourth.cells, first.cells)

        // A damaged index is said and rebuilt, and gives the same answer.
        var idx = try Data(contentsOf: URL(fileURLWithPath: ExploredCells.indexPath(dir)))
        idx[idx.count / 2] ^= 1
        try idx.write(to: URL(fileURLWithPath: ExploredCells.indexPath(dir)))
        notes = []
        let fifth = collect(dir, notes: &notes)
        XCTAssertTrue(notes.contains { $0.contains("rebuilding") && $0.contains(".cairn-cells") }, "\(notes)")
        XCTAssertEqual(fifth.filesRead, 3)
        XCTAssertEqual(fifth.cells, first.cells)
        let after = collect(dir, notes: &notes)
        XCTAssertEqual(after.filesRead, 0)

        var logsNow = bytes(dir)
        logsNow["00000004.cairn"] = nil
        XCTAssertEqual(logsNow, before, "a log file was modified")
    }

    /// A log written moments ago (a recorder's open trip: same size after each sync, written
    /// into reserved space) is answered but not kept in the index: the next run reads it again.
    func testAFileStillBeingWrittenIsReadAgain() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(100))]), dir: dir, number: 1)
        try ExportSupport.writeLog(TripSpec(id: 2, segments: [(.start, ExportSupport.ride(100, seed: 2))]), dir: dir, number: 2)
        let old = Date(timeIntervalSinceNow: -60)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/00000001.cairn")
        func run() -> ExploredCells.Report {
            ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, problem: { XCTFail($0) }, note: { XCTFail($0) })
        }
        let first = run()
        XCTAssertEqual(first.filesRead, 2)
        let second = run()
        XCTAssertEqual(second.filesFromIndex, 1, "the settled file from the index")
        XCTAssertEqual(second.filesRead, 1, "the fresh one read again")
        XCTAssertEqual(second.cells, first.cells)
        let stamp = try FileManager.default.attributesOfItem(atPath: ExploredCells.indexPath(dir))[.modificationDate] as? Date
        usleep(20_000)
        _ = run()
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: ExploredCells.indexPath(dir))[.modificationDate] as? Date, stamp,
            "an index that would not change is not rewritten")
    }

    /// A file in the directory that is no log is named and counted; the rest is answered.
    func testAFileThatIsNoLogIsAProblem() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(100))]), dir: dir, number: 1)
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: dir + "/00000002.cairn"))
        var problems: [String] = []
        let r = ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, settleNs: 0, problem: { problems.append($0) }, note: { XCTFail($0) })
        XCTAssertEqual(r.problems, 1)
        XCTAssertTrue(problems.first?.contains("00000002.cairn") ?? false, "\(problems)")
        XCTAssertFalse(r.cells.isEmpty)
    }

    func testPrecisionAndPrefix() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(900))]), dir: dir)
        var notes: [String] = []
        let fine = collect(dir, notes: &notes)
        let coarse = collect(dir, precision: 5, notes: &notes)
        XCTAssertEqual(Set(fine.cells.map { Geohash.parent($0.cell, to: 5) }), Set(coarse.cells.map(\.cell)))
        let p = String(Geohash.string(fine.cells[fine.cells.count / 2].cell, precision: 7).prefix(6))
        let some = collect(dir, prefix: p, notes: &notes)
        XCTAssertFalse(some.cells.isEmpty)
        XCTAssertTrue(some.cells.allSatisfy { Geohash.string($0.cell, precision: 7).hasPrefix(p) })
        XCTAssertEqual(some.cells, fine.cells.filter { Geohash.string($0.cell, precision: 7).hasPrefix(p) })
    }

    /// An index that cannot be written (here a directory in its place: root writes anywhere) is
    /// said, naming it, and the answer is the same.
    func testUnwritableIndexStillAnswers() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(200))]), dir: dir)
        try FileManager.default.createDirectory(atPath: ExploredCells.indexPath(dir), withIntermediateDirectories: false)
        var notes: [String] = []
        let r = collect(dir, notes: &notes)
        XCTAssertFalse(r.cells.isEmpty)
        XCTAssertTrue(notes.contains { $0.contains(".cairn-cells") && $0.contains("without saving the index") }, "\(notes)")
    }

    func testTripWithoutPointsIsSaidAndSkipped() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [], close: false), dir: dir)
        var notes: [String] = []
        let r = collect(dir, notes: &notes)
        XCTAssertTrue(r.cells.isEmpty)
        XCTAssertTrue(notes.contains { $0.contains("no points") && $0.contains("00000001.cairn") }, "\(notes)")
    }

    func testGeoJSONCellsValidate() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(600))]), dir: dir)
        var notes: [String] = []
        let r = collect(dir, precision: 6, notes: &notes)
        let path = dir + "/cells.geojson"
        let sink = try OutputSink(creating: path, force: true)
        CellsWriter.geoJSON(r.cells, precision: 6, to: sink)
        XCTAssertNil(sink.finish())
        let checker = ExportSupport.repoRoot.appendingPathComponent("Tests/tools/check-cells.py").path
        let res = try ExportSupport.run("/usr/bin/env", ["python3", checker, path, "--precision", "6"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertTrue(res.stdout.contains("\"features\": \(r.cells.count)"), res.stdout)
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

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

    /// A delivered logs folder (copies named `NNNNNNNN-SALT.cairn`) is read as `cairn list`
    /// reads it, and no index is written into it (the remote's or the stick's folder): said.
    /// Before, it gave 0 cells and wrote `.cairn-cells` there (attack r23 c04).
    func testAFolderOfCopiesIsReadAndNotIndexed() throws {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(900))]), dir: dir)
        var notes: [String] = []
        let card = collect(dir, notes: &notes)
        XCTAssertFalse(card.cells.isEmpty)
        let copies = ExportSupport.tempDir()
        try FileManager.default.copyItem(atPath: dir + "/00000001.cairn", toPath: copies + "/00000001-4a875be0.cairn")
        notes = []
        let delivered = collect(copies, notes: &notes)
        XCTAssertEqual(delivered.cells, card.cells)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ExploredCells.indexPath(copies)))
        XCTAssertTrue(notes.contains { $0.contains("a folder of delivered or exported copies; its cell index is not written there") }, "\(notes)")
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
        XCTAssertNoThrow(try sink.finish())
        let checker = ExportSupport.repoRoot.appendingPathComponent("Tests/tools/check-cells.py").path
        let res = try ExportSupport.run("/usr/bin/env", ["python3", checker, path, "--precision", "6"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertTrue(res.stdout.contains("\"features\": \(r.cells.count)"), res.stdout)
    }
}

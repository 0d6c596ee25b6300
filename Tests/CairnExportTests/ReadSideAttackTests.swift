import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Round 8 of the attacks (Tests/crash/RESULTS.md): what is in the way of the cells index and of
/// an export's output must never lead a read-side command to write a log.
final class ReadSideAttackTests: XCTestCase {
    func logBytes(_ dir: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where f.hasSuffix(".cairn") {
            out[f] = FileManager.default.contents(atPath: dir + "/" + f)
        }
        return out
    }

    func twoTrips() throws -> String {
        let dir = ExportSupport.tempDir()
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ExportSupport.ride(200))]), dir: dir, number: 1)
        try ExportSupport.writeLog(TripSpec(id: 2, segments: [(.start, ExportSupport.ride(200, seed: 3, lat: 46.2, lon: 6.1))]), dir: dir, number: 2)
        return dir
    }

    func collect(_ dir: String, notes: inout [String]) -> ExploredCells.Report {
        var n: [String] = []
        let r = ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, settleNs: 0, problem: { XCTFail($0) }, note: { n.append($0) })
        notes += n
        return r
    }

    /// `.cairn-cells` a symbolic link to a log of the directory: the index used to be read through
    /// it (no index: rebuilt) and saved through it, renaming the new index over the log itself.
    func testAnIndexLinkedToALogNeverWritesTheLog() throws {
        let dir = try twoTrips()
        var notes: [String] = []
        let truth = ExploredCells.collect(
            paths: [dir], precision: 7, prefix: nil, saveIndex: false, settleNs: 0,
            problem: { XCTFail($0) }, note: { _ in })
        let before = logBytes(dir)
        let index = ExploredCells.indexPath(dir)
        try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: "00000001.cairn")
        let r = collect(dir, notes: &notes)
        XCTAssertEqual(logBytes(dir), before, "a log file was written through the index's link")
        XCTAssertEqual(r.cells, truth.cells)
        XCTAssertTrue(notes.contains { $0.contains(".cairn-cells") && $0.contains("symbolic link") }, "\(notes)")
        // The link is replaced by an index of its own, which the next run uses.
        let attrs = try FileManager.default.attributesOfItem(atPath: index)
        XCTAssertEqual(attrs[.type] as? FileAttributeType, .typeRegular)
        notes = []
        let again = collect(dir, notes: &notes)
        XCTAssertEqual(again.filesFromIndex, 2)
        XCTAssertEqual(again.cells, truth.cells)
        XCTAssertEqual(logBytes(dir), before)
    }

    /// A link to a log of another directory, by absolute path: the same.
    func testAnIndexLinkedToALogElsewhereNeverWritesIt() throws {
        let dir = try twoTrips()
        let other = try twoTrips()
        let before = logBytes(other)
        try FileManager.default.createSymbolicLink(atPath: ExploredCells.indexPath(dir), withDestinationPath: other + "/00000002.cairn")
        var notes: [String] = []
        XCTAssertFalse(collect(dir, notes: &notes).cells.isEmpty)
        XCTAssertEqual(logBytes(other), before)
    }

    /// A FIFO in the index's place: `cells` used to open it for writing and block forever.
    func testAFIFOInTheIndexPlaceDoesNotBlock() throws {
        let dir = try twoTrips()
        XCTAssertEqual(mkfifo(ExploredCells.indexPath(dir), 0o644), 0)
        let done = DispatchSemaphore(value: 0)
        let cells = Box<Int>(0)
        Thread.detachNewThread {
            let r = ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, settleNs: 0, problem: { _ in }, note: { _ in })
            cells.set(r.cells.count)
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success else {
            return XCTFail("cells blocked on a FIFO named .cairn-cells")
        }
        XCTAssertGreaterThan(cells.get(), 0)
        let attrs = try FileManager.default.attributesOfItem(atPath: ExploredCells.indexPath(dir))
        XCTAssertEqual(attrs[.type] as? FileAttributeType, .typeRegular, "the FIFO is replaced by the index")
    }

    /// `-o` naming a log (directly or through a link), even with `--force`: refused, the log
    /// kept. It used to be replaced by the export.
    func testAnExportNeverReplacesALog() throws {
        let dir = try twoTrips()
        let before = logBytes(dir)
        let log = dir + "/00000001.cairn"
        XCTAssertThrowsError(try OutputSink(atomically: log, force: true)) { e in
            XCTAssertTrue("\(e)".contains("00000001.cairn") && "\(e)".contains("is a cairn log"), "\(e)")
        }
        XCTAssertThrowsError(try OutputSink(creating: log, force: true))
        let link = dir + "/ride.gpx"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: log)
        XCTAssertThrowsError(try OutputSink(atomically: link, force: true))
        XCTAssertThrowsError(try OutputSink(creating: link, force: true))
        XCTAssertEqual(logBytes(dir), before)
        // Any other file is still replaced with --force.
        let other = dir + "/old.gpx"
        try Data("old".utf8).write(to: URL(fileURLWithPath: other))
        let s = try OutputSink(atomically: other, force: true)
        s.write("new")
        XCTAssertNoThrow(try s.finish())
        XCTAssertEqual(try String(contentsOfFile: other, encoding: .utf8), "new")
    }
}

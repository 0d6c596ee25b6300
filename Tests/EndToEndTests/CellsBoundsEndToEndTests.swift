import Foundation
import XCTest

/// Issue 27, findings 7 and 10: `cells` on a damaged index of any size, and on a crafted log
/// whose every step crosses thousands of cells.
final class CellsBoundsEndToEndTests: XCTestCase {
    /// A directory holding the crafted log of Tests/crash/cells/cells-bomb.py (`points` points,
    /// each step ~3,950 new cells), settled (older than the index's 10 s).
    func bomb(points: Int) throws -> String {
        let dir = Harness.tempDir()
        let script = Harness.repoRoot.appendingPathComponent("Tests/crash/cells/cells-bomb.py").path
        let r = try Harness.run("/usr/bin/env", ["python3", script, Harness.repoRoot.path, dir + "/00000001.cairn", String(points)])
        XCTAssertEqual(r.status, 0, r.stderr)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: dir + "/00000001.cairn")
        return dir
    }

    func testAHugeDamagedIndexIsRebuiltNotRead() throws {
        let dir = try bomb(points: 20)
        let index = dir + "/.cairn-cells"
        // 200 GB, sparse, with a valid magic: read whole, it aborted every run.
        XCTAssertTrue(FileManager.default.createFile(atPath: index, contents: Data("CAIRNCEL".utf8)))
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: index))
        try h.truncate(atOffset: 200 << 30)
        try h.close()
        let first = try Harness.cairn("cells", dir)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("more than its 1 log file can produce"), first.stderr)
        XCTAssertTrue(first.stderr.contains("rebuilding the index from the logs"), first.stderr)
        let size = try FileManager.default.attributesOfItem(atPath: index)[.size] as? Int ?? -1
        XCTAssertLessThan(size, 1 << 20, "the index was rebuilt")
        let second = try Harness.cairn("cells", dir)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertFalse(second.stderr.contains("rebuilding"), second.stderr)
        XCTAssertEqual(second.stdout, first.stdout)
    }

    func testACraftedLogCannotMakeMillionsOfCells() throws {
        let dir = try bomb(points: 230)
        let text = try Harness.cairn("cells", dir)
        XCTAssertEqual(text.status, 0, text.stderr)
        // Unbounded: 42.8 MB of text. Now the walk's budget: 4,096 + 32 a point.
        XCTAssertLessThan(text.stdout.utf8.count, 1_000_000)
        XCTAssertTrue(text.stderr.contains("steps marked by their ends only"), text.stderr)
        let json = try Harness.cairn("cells", dir, "--to", "geojson")
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertLessThan(json.stdout.utf8.count, 5_000_000)
    }
}

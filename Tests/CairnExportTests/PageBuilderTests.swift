import Foundation
import XCTest

@testable import CairnExport

/// The page's builder: an older cairn's entry is drawn again (issue 42).
final class PageBuilderTests: XCTestCase {
    func testAnOlderCairnsEntryIsNotCurrentSoItsPictureIsDrawnAgain() throws {
        let dir = ExportSupport.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/pictures", withIntermediateDirectories: true)
        try "<svg/>".write(toFile: dir + "/pictures/n.svg", atomically: true, encoding: .utf8)
        let old = """
            # cairn trip index, version 1
            key\ttrip\tstart_ms\tutc_offset_s\tactivity\tdistance_m\tmoving_s\tascent_m\tpoints\tname\tpicture\tfiles
            trip1\t1\t1748764800000\t7200\tride\t41360.5\t4632\t320\t4600\tn\tpictures/n.svg\tgpx/n.gpx

            """
        try old.write(toFile: dir + "/index.tsv", atomically: true, encoding: .utf8)
        XCTAssertFalse(try PageBuilder(folder: dir) { XCTFail($0) }.isCurrent(key: "trip1"), "no picture size: an older cairn's picture")
        let now = old.replacingOccurrences(of: "\tfiles\n", with: "\tfiles\tpicture_px\n").replacingOccurrences(
            of: "gpx/n.gpx\n", with: "gpx/n.gpx\t320x516\n")
        try now.write(toFile: dir + "/index.tsv", atomically: true, encoding: .utf8)
        XCTAssertTrue(try PageBuilder(folder: dir) { XCTFail($0) }.isCurrent(key: "trip1"))
        try FileManager.default.removeItem(atPath: dir + "/pictures/n.svg")
        XCTAssertFalse(try PageBuilder(folder: dir) { XCTFail($0) }.isCurrent(key: "trip1"), "its picture gone")
    }
}

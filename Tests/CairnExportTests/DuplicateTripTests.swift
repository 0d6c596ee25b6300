import CairnCore
import Foundation
import XCTest
@testable import CairnExport
@testable import CairnLog

/// Two files of one directory claiming the same trip and part: two recordings, never merged.
final class DuplicateTripTests: XCTestCase {
    func testTwoFilesClaimingOneTripAndPartAreTwoTrips() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // File 1: a ride in the afternoon; file 2, a second recorder's, the same morning: merged
        // by part, the morning's points would all go as "not after" the afternoon's.
        let afternoon = ExportSupport.ride(120, seed: 1, startMs: 1_748_790_000_000)
        let morning = ExportSupport.ride(280, seed: 2, startMs: 1_748_764_800_000)
        let resumed = ExportSupport.ride(30, seed: 3, startMs: afternoon.last!.timeMs + 60_000)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, afternoon)], close: false), dir: dir, number: 1)
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, morning)]), dir: dir, number: 2)
        // File 3 continues the first recording (part 1, after a restart).
        let w = try LogWriter(directory: dir, number: 3, header: FileHeader(tripId: 1, part: 1, salt: 3))
        try w.append(.segmentStart(.resume, timeMs: resumed[0].timeMs))
        try w.append(.points(resumed))
        _ = try w.sync()
        w.close()

        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        XCTAssertEqual(trips.count, 2)
        XCTAssertEqual(trips.map { $0.files.map { String($0.path.suffix(14)) } }, [["00000001.cairn", "00000003.cairn"], ["00000002.cairn"]])
        XCTAssertEqual(trips.map(\.id), [1, 1])
        XCTAssertNil(trips[0].note)
        XCTAssertEqual(
            trips[1].note,
            "two files claim trip 1 part 0: \(dir)/00000001.cairn and \(dir)/00000002.cairn "
                + "(two recorders on one directory, or a file left over); each is read as a trip of its own")
        XCTAssertEqual(trips.map(\.nameSuffix), ["", "-00000002"])
        let s = try trips.map { try TripCatalog.read($0) }
        XCTAssertEqual(s.map(\.stats.points), [150, 280], "every point of both recordings")
        XCTAssertEqual(
            ExportFormat.fit.fileName(tripId: 1, startMs: s[1].stats.firstTimeMs, suffix: trips[1].nameSuffix),
            "20250601-080000-trip1-00000002.fit")
    }
}

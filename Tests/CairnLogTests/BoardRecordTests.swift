import CairnCore
import Foundation
import XCTest

@testable import CairnLog

/// The board id in the trip start record (LOG_FORMAT.md section 6, flags bit 1): an appended
/// field, so a trip without one is written as before and old logs still read.
final class BoardRecordTests: XCTestCase {
    func decode(_ body: [UInt8]) throws -> LogRecord {
        try body.withUnsafeBytes { b -> LogRecord in
            var r = ByteReader(b)
            do { return try RecordCodec.decodeBody(type: 1, &r) } catch { throw error }
        }
    }

    func encode(_ record: LogRecord) -> [UInt8] {
        var out: [UInt8] = []
        RecordCodec.encodeBody(record, into: &out)
        return out
    }

    /// The bytes with a board, pinned: flags 2 (3 with an offset), then the id as a string.
    func testTripStartWithABoardIsPinned() {
        let plain = [4] + Array("ride".utf8) + [1] + Array("s".utf8)
        XCTAssertEqual(encode(.tripStart(activity: "ride", software: "s")), plain)
        XCTAssertEqual(
            encode(.tripStart(activity: "ride", software: "s", board: "pi-7")), plain + [2, 4] + Array("pi-7".utf8))
        XCTAssertEqual(
            encode(.tripStart(activity: "ride", software: "s", utcOffsetS: 3600, board: "pi-7")),
            plain + [3, 0xA0, 0x38, 4] + Array("pi-7".utf8))
    }

    func testBoardRoundTrips() throws {
        for r: LogRecord in [
            .tripStart(activity: "ride", software: "cairn", board: "a"),
            .tripStart(activity: "walk", software: "cairn", utcOffsetS: -34_200, board: "rpi4-3fa9c2"),
            .tripStart(activity: "ride", software: "cairn", utcOffsetS: 0, board: String(repeating: "z", count: 32)),
            .tripStart(activity: "ride", software: "cairn", utcOffsetS: 7200, board: nil)
        ] {
            XCTAssertEqual(try decode(encode(r)), r)
        }
    }

    /// A reader from before the board took flags bit 0 only and ignored what followed: a record
    /// with a board still gives it the activity and the offset (the same decoding, offset first).
    func testTheOffsetStillComesFirst() throws {
        let body = encode(.tripStart(activity: "ride", software: "s", utcOffsetS: -3600, board: "b1"))
        XCTAssertEqual(try decode(body), .tripStart(activity: "ride", software: "s", utcOffsetS: -3600, board: "b1"))
        // What follows the offset is the board alone: cut it off and the rest reads the same.
        XCTAssertEqual(try decode(Array(body.dropLast(3))), .tripStart(activity: "ride", software: "s", utcOffsetS: -3600))
    }

    /// A crafted id (a path, a control character, too long) or one cut short is no id; the
    /// record's other fields still count (they name the trip's activity and zone).
    func testAnUnsafeOrTornBoardIsNone() throws {
        let head = [4] + Array("ride".utf8) + [1] + Array("s".utf8)
        for bad in ["../../etc", "", "a b", "a\u{1B}[2J", String(repeating: "x", count: 33), "-x"] {
            let body = head + [2] + [UInt8(bad.utf8.count)] + Array(bad.utf8)
            XCTAssertEqual(try decode(body), .tripStart(activity: "ride", software: "s"), bad)
        }
        // The length says 9, 2 bytes follow.
        XCTAssertEqual(try decode(head + [3, 2, 9] + Array("ab".utf8)), .tripStart(activity: "ride", software: "s", utcOffsetS: 1))
    }

    /// A log from before the field (format 1, a fixture from an older cairn) reads as it did:
    /// no board.
    func testAnOldLogHasNoBoard() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/logs/format1-ride.cairn").path
        var starts: [LogRecord] = []
        try LogReader(path: path).forEach { e in
            if case .tripStart = e.record { starts.append(e.record) }
            return true
        }
        XCTAssertEqual(starts.count, 1)
        guard case .tripStart(let activity, _, _, let board) = starts.first else { return XCTFail("no trip start") }
        XCTAssertEqual(activity, "ride")
        XCTAssertNil(board)
    }

    /// The recorder's log writes its board into each new trip's start, and none without one.
    func testTripLogRecordsTheBoard() throws {
        for board in ["pi-zero", nil] as [String?] {
            let dir = NSTemporaryDirectory() + "cairn-board-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 1000, say: { _ in })
            log.board = board
            for trip in 0..<2 {
                log.apply(.openTrip(resume: false), monoMs: Int64(trip) * 10_000)
                log.apply(.keep(Fix(timeMs: 1_748_764_800_000 + Int64(trip) * 100_000, lat: 47, lon: 8, mode: 3)), monoMs: Int64(trip) * 10_000 + 1)
                log.closeTrip(
                    TripEnd(reason: .shutdown, points: 1, distanceM: 0, movingTimeMs: 0, firstTimeMs: nil, lastTimeMs: nil),
                    drops: DropCounts(), monoMs: Int64(trip) * 10_000 + 2)
            }
            var boards: [String?] = []
            for f in try LogDirectory.logFiles(in: dir) {
                try LogReader(path: f.path).forEach { e in
                    if case .tripStart(_, _, _, let b) = e.record { boards.append(b) }
                    return true
                }
            }
            XCTAssertEqual(boards, [board, board])
        }
    }
}

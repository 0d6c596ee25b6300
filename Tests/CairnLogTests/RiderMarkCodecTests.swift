import XCTest

@testable import CairnLog

/// Record type 10, the rider's button (LOG_FORMAT.md section 6; issue 41, item 3).
final class RiderMarkCodecTests: LogTestCase {
    func testMarksRoundTripAmongOtherRecords() throws {
        let marks: [LogRecord] = [
            .note("a"), .riderMark(RiderMark(kind: .lap, timeMs: 1_717_000_000_123)),
            .riderMark(RiderMark(kind: .end, timeMs: 1_717_000_060_000)), .riderMark(RiderMark(kind: .lap, timeMs: 1_717_000_061_000)), .note("b")
        ]
        let p = try write(marks)
        XCTAssertEqual(try records(p), marks)
        XCTAssertTrue(try LogReader(path: p).scan().isClean)
        XCTAssertEqual(try LogReader(path: p).scan().unknownRecords, 0)
    }

    func testTheBytesAreTheDocumentedOnes() throws {
        let salt: UInt32 = 10
        let t: Int64 = 1_717_000_000_123
        let p = try write([.riderMark(RiderMark(kind: .end, timeMs: t))], salt: salt)
        let b = try bytes(p)
        // type 10, then the sequence number 1, u8 kind 1, zigzag varint time
        let frame = Self.handFrame(salt: salt, type: 10, payload: Self.varint(1) + [1] + Self.varint(Varint.zigzag(t)))
        XCTAssertEqual(Array(b[32...]), frame)
        XCTAssertEqual(Self.varint(Varint.zigzag(1000)), [0xD0, 0x0F])
    }

    func testAnUnknownKindReadsAsOtherAndTrailingBytesAreIgnored() throws {
        let salt: UInt32 = 11
        var b = try bytes(try write([], salt: salt))
        let t: Int64 = 1_717_000_000_000
        b += Self.handFrame(salt: salt, type: 10, payload: Self.varint(1) + [7] + Self.varint(Varint.zigzag(t)))
        b += Self.handFrame(salt: salt, type: 10, payload: Self.varint(2) + [0] + Self.varint(Varint.zigzag(t + 1)) + [9, 9])
        let p = try put(b, "kinds.cairn")
        XCTAssertEqual(try records(p), [.riderMark(RiderMark(kind: .other, timeMs: t)), .riderMark(RiderMark(kind: .lap, timeMs: t + 1))])
        XCTAssertTrue(try LogReader(path: p).scan().isClean)
    }

    func testAMarkCutShortIsDamagedNotFatal() throws {
        let salt: UInt32 = 12
        var b = try bytes(try write([.note("a")], salt: salt))
        b += Self.handFrame(salt: salt, type: 10, payload: Self.varint(2) + [0])  // no time
        b += Self.handFrame(salt: salt, type: 5, payload: Self.varint(3) + Array("b".utf8))
        let p = try put(b, "short.cairn")
        XCTAssertEqual(try records(p), [.note("a"), .unknown(type: 10, payload: [0]), .note("b")])
        XCTAssertEqual(try LogReader(path: p).scan().malformedRecords, 1)
    }

    /// A mark no fix could have the time of (a press before the clock was set: 0 or 5 ms since
    /// 1970) is a press without a usable time, read and kept, not damage (attack-laps-r20,
    /// finding 3; it was an implausible record, the file reported damaged).
    func testAMarkNoFixCouldHaveIsAPressWithoutATime() throws {
        let marks: [LogRecord] = [.riderMark(RiderMark(kind: .lap, timeMs: 5)), .riderMark(RiderMark(kind: .end, timeMs: 0)), .note("b")]
        let p = try write(marks)
        let report = try LogReader(path: p).scan()
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.implausibleRecords, 0)
        XCTAssertEqual(report.records, 3)
        XCTAssertEqual(try records(p), marks)
        XCTAssertFalse(RiderMark(kind: .lap, timeMs: 5).hasUsableTime)
        XCTAssertTrue(RiderMark(kind: .lap, timeMs: 1_717_000_000_000).hasUsableTime)
    }
}

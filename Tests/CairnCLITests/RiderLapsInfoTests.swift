import CairnCore
import CairnLog
import XCTest

@testable import CairnExport
@testable import cairn

/// `cairn info` lists the rider's presses (issue 41): the laps the exports make of them, when
/// each was pressed, and a long press's end; nothing for a trip without presses.
final class RiderLapsInfoTests: XCTestCase {
    func testInfoListsTheRidersLaps() {
        let t0: Int64 = 1_748_764_800_000  // 2025-06-01T08:00:00Z
        let s = TripSummary(id: 7, files: ["/x/00000007.cairn"])
        let two = InfoCommand.describe(s, laps: InfoLaps(made: ButtonLaps(startsMs: [t0 + 65_000, t0 + 3_600_000]), endedByButton: true))
        XCTAssertTrue(two.contains("  laps:       3 (the rider's button: a lap from 08:01:05Z, 09:00:00Z; ended by the button)"), two)
        let ended = InfoCommand.describe(s, laps: InfoLaps(made: ButtonLaps(pauseLaps: 2), endedByButton: true))
        XCTAssertTrue(ended.contains("  laps:       2 (pauses; ended by the button)"), ended)
        let endedOnly = InfoCommand.describe(s, laps: InfoLaps(made: ButtonLaps(), endedByButton: true))
        XCTAssertTrue(endedOnly.contains("  laps:       1 (ended by the button)"), endedOnly)
        let many = InfoCommand.describe(s, laps: InfoLaps(made: ButtonLaps(startsMs: (1...12).map { t0 + Int64($0) * 1000 }), endedByButton: false))
        XCTAssertTrue(many.contains("  laps:       13 (the rider's button: a lap from 08:00:01Z"), many)
        XCTAssertTrue(many.contains("08:00:10Z and 2 more)"), many)
        XCTAssertFalse(InfoCommand.describe(s).contains("laps:"))
        let zoned = InfoCommand.describe(
            s, published: true, laps: InfoLaps(made: ButtonLaps(startsMs: [t0 + 65_000]), endedByButton: false))
        XCTAssertTrue(zoned.contains("  laps:       2 (the rider's button; no times with privacy zones)"), zoned)
    }

    /// `info --json` has the laps the text has: the count, the rule, the starts (none with zones).
    func testInfoJSONHasTheLaps() {
        let t0: Int64 = 1_748_764_800_000
        let l = InfoLaps(made: ButtonLaps(startsMs: [t0 + 65_000]), endedByButton: true)
        XCTAssertEqual(l.json(published: false), #"{"count": 2, "by": "button", "starts": ["2025-06-01T08:01:05Z"], "ended_by_button": true}"#)
        XCTAssertEqual(l.json(published: true), #"{"count": 2, "by": "button", "ended_by_button": true}"#)
        let s = TripSummary(id: 7, files: ["/x/00000007.cairn"])
        XCTAssertTrue(tripJSON(s, indent: "", laps: l).contains(#""laps": {"count": 2"#))
        XCTAssertFalse(tripJSON(s, indent: "").contains(#""laps""#))
    }

    /// attack-r21 U5: a long press before the trip's first point, or with no usable time, is
    /// placed nowhere and the exports keep the whole trip: `info` said "ended by the button".
    func testAnEndPressPlacedNowhereIsSaid() {
        let s = TripSummary(id: 7, files: ["/x/00000007.cairn"])
        var before = ButtonLaps()
        before.endBeforeStart = true
        let early = InfoLaps(made: before, endedByButton: true)
        let said = InfoCommand.describe(s, laps: early)
        let want = "ended by the button, but its press is before the trip's first point: placed nowhere, every export keeps the whole trip"
        XCTAssertTrue(said.contains("  laps:       1 (" + want + ")"), said)
        XCTAssertEqual(early.json(published: false), #"{"count": 1, "by": "pause", "ended_by_button": true, "end_press_before_start": true}"#)
        let untimed = InfoLaps(made: ButtonLaps(), endedByButton: true, untimed: 1, endUntimed: true)
        XCTAssertTrue(
            InfoCommand.describe(s, laps: untimed).contains(
                "ended by the button, but its press has no usable time: placed nowhere, every export keeps the whole trip)"),
            InfoCommand.describe(s, laps: untimed))
    }
}

/// attack c08: a ride with a stand longer than the pause's time (the line breaks there) has two
/// pause laps in FIT (`LapRule.marksElsePause` without presses), and `info` listed none.
final class PauseLapsInfoTests: XCTestCase {
    func testInfoListsThePauseLapsTheExportsWrite() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-pauselaps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let t0: Int64 = 1_748_764_800_000
        func ride(from ms: Int64, lon: Double) -> [Fix] {
            (0..<100).map { Fix(timeMs: ms + Int64($0) * 1000, lat: 47.0, lon: lon + Double($0) * 0.00008, mode: 3, speed: 6) }
        }
        let a = ride(from: t0, lon: 8.0), b = ride(from: t0 + 99_000 + 200_000, lon: a.last!.lon)
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 0x5EED_0001))
        try w.append(.tripStart(activity: "ride", software: "cairn tests", utcOffsetS: nil, board: nil))
        for (reason, fixes) in [(SegmentReason.start, a), (.pause, b)] {
            try w.append(.segmentStart(reason, timeMs: fixes.first?.timeMs))
            try w.append(.points(fixes))
        }
        _ = try w.sync()
        w.close()
        let trip = try XCTUnwrap(TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) }).first)
        let s = try TripCatalog.read(trip)
        let laps = try XCTUnwrap(try InfoLaps.read(trip, zones: PrivacyZones(), summary: s))
        XCTAssertEqual(laps.made.count, 2, "the laps FIT writes (LapsAndPrivacyTests.testPauseLapsAreContiguousInTime)")
        XCTAssertEqual(laps.made.rule, .pause)
        XCTAssertTrue(InfoCommand.describe(s, laps: laps).contains("  laps:       2 (pauses)"), InfoCommand.describe(s, laps: laps))
        XCTAssertTrue(laps.json(published: false).hasPrefix(#"{"count": 2, "by": "pause""#), laps.json(published: false))
    }
}

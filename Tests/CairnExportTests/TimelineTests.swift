import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// `info --why`'s timeline of a trip.
final class TimelineTests: XCTestCase {
    func testTimelineTellsTheStartTheRunsAndTheSegmentsInTimeOrder() throws {
        let dir = ProcessInfo.processInfo.environment["CAIRN_WHY_DIR"] ?? ExportSupport.tempDir()
        var fixes = RefilterTests.eventfulRide()
        // A rider who waits a minute before setting off, with a receiver that starts rough: the
        // trip waits for movement and a good first fix.
        for i in 0..<60 {
            fixes[i].lat = fixes[60].lat + Double(i % 3) * 1e-6
            fixes[i].lon = fixes[60].lon
            fixes[i].speed = 0.05
            if i < 10 { fixes[i].eph = 900; fixes[i].epx = 600; fixes[i].epy = 600 }
        }
        let rec = try RefilterTests.record(fixes, dir: dir, lostAt: [1200])
        let trip = RefilterTests.trips(dir)[0]
        var events: [TimelineEvent] = []
        try TripTimeline.read(trip) { events.append($0) }
        XCTAssertEqual(events.first, .recorderStarted(atMs: fixes[0].timeMs))
        guard
            let startIndex = events.firstIndex(where: {
                if case .started = $0 { return true }; return false
            })
        else {
            return XCTFail("no start in \(events)")
        }
        XCTAssertEqual(events[startIndex], .started(atMs: rec.kept[0].timeMs))
        // Why not earlier: the runs before the start hold every fix before the first point.
        var before = 0
        for e in events[..<startIndex] {
            if case .dropped(let r, let n, _, _, let beforeStart) = e {
                XCTAssertTrue(beforeStart)
                XCTAssertNotNil(r)
                before += n
            }
        }
        XCTAssertEqual(before, fixes.firstIndex { $0.timeMs == rec.kept[0].timeMs }!)
        XCTAssertTrue(
            events[..<startIndex].contains {
                if case .dropped(.standing, _, _, _, true) = $0 { return true }; return false
            })
        XCTAssertTrue(
            events[..<startIndex].contains {
                if case .dropped(.rough, 10, _, _, true) = $0 { return true }; return false
            })
        // Every dropped fix is in exactly one run, runs never overlap and go forward in time.
        var dropped = 0
        var lastTo = Int64.min
        var segments: [SegmentReason] = []
        var lastTime = Int64.min
        for e in events {
            switch e {
            case .dropped(_, let n, let from, let to, _):
                dropped += n
                XCTAssertGreaterThan(from, lastTo)
                XCTAssertLessThanOrEqual(from, to)
                lastTo = to
                lastTime = max(lastTime, to)
            case .segment(let r, let at):
                segments.append(r)
                XCTAssertGreaterThanOrEqual(at!, lastTime, "a segment start comes after the fixes before it")
            case .started(let at), .gpsdLost(let at):
                lastTime = max(lastTime, at)
            default: break
            }
        }
        XCTAssertEqual(dropped, fixes.count - rec.kept.count)
        XCTAssertEqual(segments, Array(rec.segments.dropFirst()), "every segment break after the start, with its reason")
        XCTAssertTrue(segments.contains(.pause))
        XCTAssertTrue(events.contains(.gpsdLost(atMs: fixes[1200].timeMs)))
        XCTAssertTrue(
            events.contains {
                if case .dropped(.standing, let n, _, _, false) = $0 { return n > 100 }; return false
            },
            "the standstill is one long run")
        XCTAssertEqual(events.last, .ended(.shutdown, atMs: rec.kept.last!.timeMs))
    }
}

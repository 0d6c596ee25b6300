import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Issue 27, finding 11: `convert --refilter` over many trips of one recorder run (a board never
/// switched off) replays the run once, with the same output as replaying it for each trip.
final class RefilterRunTests: XCTestCase {
    /// `trips` rides of 40 s, each closed by a 330 s standstill (close limit 5 min), one run.
    static func oneRun(trips: Int, dir: String) throws {
        var fixes: [Fix] = []
        var ride = SyntheticRide(seed: 11)
        for _ in 0..<trips {
            for _ in 0..<40 { fixes.append(ride.next()) }
            let stop = fixes.last!
            for _ in 0..<330 {
                var f = ride.next()
                f.lat = stop.lat
                f.lon = stop.lon
                f.speed = 0
                fixes.append(f)
            }
        }
        var profile = ActivityProfile.ride
        profile.closeAfterMs = 300_000
        try RefilterTests.record(fixes, dir: dir, profile: profile)
    }

    func replayAll(_ trips: [TripRef], carry: TripReplay.Carry?) throws -> [([Fix], [SegmentReason], DropCounts)] {
        var out: [([Fix], [SegmentReason], DropCounts)] = []
        for t in trips {
            var o = TripReplay.Options()
            o.logTrips = trips
            o.carry = carry
            var points: [Fix] = [], segments: [SegmentReason] = []
            let s = try TripReplay.read(
                t, options: o,
                visit: { e in
                    switch e {
                    case .point(let f): points.append(f)
                    case .segment(let r): segments.append(r)
                    case .raw: break
                    }
                })
            out.append((points, segments, s.drops))
        }
        return out
    }

    func testTripsOfOneRunReplayTheRunOnceWithTheSameOutput() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.oneRun(trips: 40, dir: dir)
        let trips = RefilterTests.trips(dir)
        XCTAssertEqual(trips.count, 40)
        // The thread's CPU time, not the wall clock: the ratio is the work's, whatever else the
        // machine runs meanwhile.
        func cpu() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        var start = cpu()
        let each = try replayAll(trips, carry: nil)
        let quadratic = cpu() - start
        start = cpu()
        let once = try replayAll(trips, carry: TripReplay.Carry())
        let linear = cpu() - start
        XCTAssertEqual(each.count, once.count)
        for (k, (a, b)) in zip(each, once).enumerated() {
            XCTAssertEqual(a.0, b.0, "trip \(k + 1): points")
            XCTAssertEqual(a.1, b.1, "trip \(k + 1): segments")
            XCTAssertEqual(a.2, b.2, "trip \(k + 1): drops")
        }
        XCTAssertGreaterThan(each.reduce(0) { $0 + $1.0.count }, 40 * 5)
        // Replaying each trip's run from its start is ~20 times the work at 40 trips.
        XCTAssertLessThan(linear * 5, quadratic, "linear \(linear) s, quadratic \(quadratic) s")
    }
}

import XCTest
@testable import CairnCore

/// The status LED's plan (issue 41, item 2) as a table: the recorder's and delivery's state in,
/// one pattern out.
final class LedPlanTests: XCTestCase {
    func testThePlanAsATable() {
        typealias S = LedSituation
        let rows: [(S, LedPattern, String)] = [
            (S(tripOpen: true, hasFix: true), .solid, "recording with a fix"),
            (S(tripOpen: true, hasFix: false), .slow, "a trip open, the fix lost (a tunnel)"),
            (S(hasFix: false), .slow, "waiting for a fix"),
            (S(hasFix: true), .solid, "a fix, ready to record"),
            (S(tripOpen: true, gpsdUp: false), .fast, "gpsd gone mid-ride"),
            (S(gpsdUp: false), .fast, "gpsd gone"),
            (S(tripOpen: true, hasFix: true, baroFailing: true), .fast, "the barometer failing"),
            (S(tripOpen: true, hasFix: true, diskNearlyFull: true), .fast, "the card nearly full"),
            (S(tripOpen: true, hasFix: true, delivery: .failing), .solid, "delivery's news waits while a trip is open"),
            (S(tripOpen: true, hasFix: false, delivery: .waiting), .slow, "and so does a ride waiting"),
            (S(hasFix: true, delivery: .waiting), .wink, "a ride waiting to go up"),
            (S(hasFix: false, delivery: .waiting), .wink, "indoors, no fix: the ride still waits"),
            (S(hasFix: true, delivery: .delivering), .flicker, "delivering"),
            (S(hasFix: true, delivery: .delivered), .glow, "delivered"),
            (S(hasFix: true, delivery: .failing), .fast, "delivery failing"),
            (S(gpsdUp: false, delivery: .delivered), .fast, "a fault before good news"),
            (S(stopped: true, tripOpen: true, hasFix: true), .dark, "the recorder stopped"),
            (S(stopped: true, gpsdUp: false), .dark, "stopped, whatever else")
        ]
        for (s, want, why) in rows { XCTAssertEqual(LedPlan.pattern(for: s), want, why) }
    }

    func testDeliveryPhaseAsATable() {
        // (running, result, waiting, newThisRun, closedSince) -> phase
        let rows: [(Bool, String?, Int, Bool, Bool, DeliveryPhase, String)] = [
            (false, nil, 0, false, false, .none, "no delivery on this card"),
            (false, nil, 0, false, true, .none, "a trip closed, delivery never ran: not set up"),
            (true, nil, 0, false, false, .delivering, "the first run going"),
            (true, "ok", 0, false, true, .delivering, "a run going after the close"),
            (false, "ok", 0, false, true, .waiting, "closed at home, the run not started yet"),
            (false, "ok", 0, true, false, .delivered, "a run this boot sent everything"),
            (false, "ok", 0, false, false, .none, "an earlier boot's news"),
            (false, "ok", 2, true, false, .waiting, "a run that left trips"),
            (false, "deferred", 1, true, false, .waiting, "the remote out of reach: waiting, not failing"),
            (false, "deferred", 0, true, false, .none, "deferred with nothing to send"),
            (false, "failed", 1, true, false, .failing, "a run failed"),
            (false, "failed", 1, false, false, .failing, "a failure from an earlier boot still stands"),
            (false, "failed", 1, false, true, .waiting, "a new ride since the failure: waiting for its run")
        ]
        for (running, result, waiting, new, closed, want, why) in rows {
            XCTAssertEqual(LedPlan.delivery(running: running, result: result, waiting: waiting, newThisRun: new, closedSince: closed), want, why)
        }
    }

    /// Every pattern a rider tells apart: no two with the same delays, each blinking one slower
    /// than 10 Hz, and none asking the kernel for the 0/0 it reads as "blink at 1 Hz".
    func testPatternsAreDistinctAndKernelSafe() {
        let all = LedPattern.allCases.map { "\($0.delays.onMs)/\($0.delays.offMs)" }
        XCTAssertEqual(Set(all).count, all.count, "\(all)")
        for p in LedPattern.allCases {
            let (on, off) = p.delays
            XCTAssertFalse(on == 0 && off == 0, "\(p)")
            if on > 0 && off > 0 { XCTAssertGreaterThanOrEqual(on + off, 200, "\(p)") }
        }
        XCTAssertEqual(LedPattern.solid.delays.offMs, 0)
        XCTAssertEqual(LedPattern.dark.delays.onMs, 0)
    }
}

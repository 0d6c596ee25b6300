import XCTest
@testable import CairnCore

/// `StillDoppler` as a table: a doppler saying "standing" while the positions walk on for
/// minutes is disowned; a standing wander, a doppler that said it moved, and a receiver without
/// speed are not.
final class StillDopplerTests: XCTestCase {
    struct Row {
        var name: String
        /// Seconds, north and east (m), speed at every second of the run.
        var at: (Int) -> (north: Double, east: Double, speed: Double?)
        var seconds: Int
        /// When it must be disowned (seconds), or nil: never.
        var disownedBy: Int?
    }

    func testTable() {
        let rows: [Row] = [
            Row(name: "walking 1.2 m/s, speed 0.0 on every fix", at: { (1.2 * Double($0), 0, 0) }, seconds: 600, disownedBy: 481),
            Row(
                name: "walking 0.7 m/s with a 120° bend, speed 0.0",
                at: { t in
                    let d = 0.7 * Double(t)
                    return d < 200 ? (d, 0, 0) : (200 - 0.5 * (d - 200), 0.866 * (d - 200), 0)
                }, seconds: 900, disownedBy: 900),
            Row(
                name: "standing, wandering 150 m out and back every 4 minutes",
                at: { t in
                    (150 * sin(Double(t) * .pi / 240), 0, 0)
                }, seconds: 1800, disownedBy: nil),
            Row(
                name: "standing, wandering 100 m about in circles",
                at: { t in
                    (100 * cos(Double(t) * .pi / 300), 100 * sin(Double(t) * .pi / 300), 0)
                }, seconds: 1800, disownedBy: nil),
            Row(
                name: "walking 1.2 m/s, a doppler that said 1 m/s 5 minutes ago",
                at: { t in
                    (1.2 * Double(t), 0, t == 300 ? 1.0 : 0)
                }, seconds: 700, disownedBy: nil),
            Row(name: "walking 1.2 m/s without any speed (nothing to disown)", at: { (1.2 * Double($0), 0, nil) }, seconds: 900, disownedBy: nil)
        ]
        for row in rows {
            var d = StillDoppler()
            var when: Int?
            for t in 0...row.seconds {
                let p = row.at(t)
                d.learn(fix(Double(t), north: p.north, east: p.east, speed: p.speed), standingSpeedMps: 0.28)
                if d.disowned && when == nil { when = t }
            }
            if let by = row.disownedBy {
                XCTAssertNotNil(when, row.name)
                XCTAssertLessThanOrEqual(when ?? .max, by, row.name)
                XCTAssertGreaterThanOrEqual(when ?? 0, 480, "\(row.name): not before 8 minutes")
            } else {
                XCTAssertNil(when, row.name)
            }
            d.reset()
            XCTAssertFalse(d.disowned, "\(row.name): a reset forgets")
        }
    }
}

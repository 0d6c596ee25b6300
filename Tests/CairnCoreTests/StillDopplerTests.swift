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
        /// The measured course at every second (none by default).
        var course: (Int) -> Double? = { _ in nil }
        /// Not before this (seconds): the 8 minutes of way, or the 4 of a doppler moving in place.
        var notBefore = 480
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
            Row(name: "walking 1.2 m/s without any speed (nothing to disown)", at: { (1.2 * Double($0), 0, nil) }, seconds: 900, disownedBy: nil),
            // Round 25: a course drawn afresh on every fix says standing; its walk disowns it.
            Row(
                name: "walking 1.2 m/s, speed 1.2, course anywhere on every fix", at: { (1.2 * Double($0), 0, 1.2) }, seconds: 600,
                disownedBy: 511, course: { (Double($0) * 137.5).truncatingRemainder(dividingBy: 360) }),
            Row(name: "walking 1.2 m/s, an honest doppler", at: { (1.2 * Double($0), 0, 1.2) }, seconds: 900, disownedBy: nil, course: { _ in 0 }),
            Row(
                name: "walking 1.2 m/s round a loop of 40 m across, an honest doppler",
                at: { t in (20 * sin(Double(t) * 1.2 / 20), 20 - 20 * cos(Double(t) * 1.2 / 20), 1.2) }, seconds: 900, disownedBy: nil,
                course: { t in (Double(t) * 1.2 / 20 * 180 / .pi).truncatingRemainder(dividingBy: 360) }),
            // A speed saying moving where the positions stay is not disowned here: a receiver
            // without its doppler stands by its positions, whose wander under σ 30 opened trips
            // of 247-717 m where the doppler's lie had held it (NoiseAttackTests).
            Row(
                name: "standing, speed stuck at 2.13 m/s without a course", at: { t in (10 * sin(Double(t) / 20), 0, 2.13) }, seconds: 600,
                disownedBy: nil),
            Row(
                name: "standing, speed stuck at 2.13 m/s, course east", at: { t in (10 * sin(Double(t) / 20), 0, 2.13) }, seconds: 600,
                disownedBy: nil, course: { _ in 90 }),
            Row(
                name: "standing, a lying tablet: 1.5 m/s, its course wandering", at: { t in (10 * sin(Double(t) / 20), 0, 1.5) }, seconds: 1800,
                disownedBy: nil, course: { t in (Double(t * t) * 7).truncatingRemainder(dividingBy: 360) })
        ]
        for row in rows {
            var d = StillDoppler()
            var when: Int?
            for t in 0...row.seconds {
                let p = row.at(t)
                var f = fix(Double(t), north: p.north, east: p.east, speed: p.speed)
                f.track = row.course(t)
                d.learn(f, standingSpeedMps: 0.28)
                if d.disowned && when == nil { when = t }
            }
            if let by = row.disownedBy {
                XCTAssertNotNil(when, row.name)
                XCTAssertLessThanOrEqual(when ?? .max, by, row.name)
                XCTAssertGreaterThanOrEqual(when ?? 0, row.notBefore, "\(row.name): not before \(row.notBefore) s")
            } else {
                XCTAssertNil(when, row.name)
            }
            d.reset()
            XCTAssertFalse(d.disowned, "\(row.name): a reset forgets")
        }
    }
}

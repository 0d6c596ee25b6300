import XCTest
@testable import CairnCore

/// Issue 39, item 2: without a doppler, a trip opens only on minutes of steady way beyond the
/// wander (`MovementWindow.movedOverMinutes`), and the fixes that led to it are kept
/// (`TripStart`). The fixes come from `SlowMoverTests`' seeded generator.
extension FixRulesTests {
    /// A receiver standing 5-15 minutes, 2-D without speed, its positions wandering σ 5-35 m over
    /// 10-60 s while it claims HDOP 1-3: it opened a trip of 449-822 m on each of these seeds.
    func testStandingWithoutSpeedUnderAWanderOpensNoTrip() {
        for seed: UInt64 in [1, 2, 3, 4, 101, 102] {
            let c = SlowMoverTests.cases(seed: seed)[11]
            XCTAssertTrue(c.name.hasPrefix("standing, σ 5-35 τ 10-60, no speed"), c.name)
            let r = run(c.scenario.reports.map(\.fix), profile: c.profile)
            XCTAssertEqual(r.kept.count, 0, "seed \(seed) (\(c.note)): a trip of \(r.kept.count) points")
        }
    }

    /// A walker without speed whose trip opens minutes in keeps the way there: its first point is
    /// where it set off (the first 10 s it stood). Before, seed 122's first point came 115 s in
    /// and seed 103's 32 s in.
    func testWalkerWithoutSpeedKeepsTheWayToALateStart() {
        for seed: UInt64 in [103, 122] {
            let c = SlowMoverTests.cases(seed: seed)[1]
            XCTAssertTrue(c.name.hasPrefix("walk 2-D no speed, σ 5-35 τ 10-60, own σ"), c.name)
            let r = run(c.scenario.reports.map(\.fix), profile: c.profile)
            let first = r.kept.first.map { ($0.timeMs - ScenarioGenerator.t0Ms) / 1000 }
            XCTAssertLessThanOrEqual(first ?? .max, 15, "seed \(seed) (\(c.note)): first point \(first.map { "\($0) s" } ?? "none")")
        }
    }
}

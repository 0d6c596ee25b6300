import XCTest

@testable import CairnCore

/// Distance after a stand (attack on round 24: 0.8-1.4 % of a ride lost after a stand of a few
/// minutes, the first metres after the rider set off again not counted).
final class StandDistanceTests: XCTestCase {
    typealias G = ScenarioGenerator

    static func ride(stopS: Int) -> [G.Leg] {
        [.straight(metres: 1500, speed: 6), .bend(radius: 30, degrees: 90, speed: 5), .straight(metres: 500, speed: 6)]
            + (stopS > 0 ? [.stop(seconds: stopS)] : [])
            + [.straight(metres: 800, speed: 6), .bend(radius: 25, degrees: -60, speed: 5), .straight(metres: 1200, speed: 7)]
    }

    func testProbe() {
        for seed: UInt64 in 1...8 {
            var g = G(seed: seed)
            let s = g.scenario("stand", Self.ride(stopS: 180), .init())
            var g2 = G(seed: seed)
            let n = g2.scenario("no stand", Self.ride(stopS: 0), .init())
            let a = ScenarioTests.evaluate(s, raw: false, window: nil)
            let b = ScenarioTests.evaluate(n, raw: false, window: nil)
            print("PROBE seed \(seed): stand \(a.distance / s.trueDistance) (trips \(a.trips)) no stand \(b.distance / n.trueDistance) true \(s.trueDistance)")
        }
    }
}

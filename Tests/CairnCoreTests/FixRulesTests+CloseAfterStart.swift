import XCTest
@testable import CairnCore

/// After a trip closes on the close-after limit, the next trip opens at the first fix that
/// moves, as after a home close or a cold start. (r23 attack, case 6, saw it open 22 s late:
/// its fake gpsd sent course 0 while the second trip rode south. A trusted course pointing
/// 180° off holds a cold start back the same 22 s, until `CourseTrust` finds it wrong: the
/// close is not the cause. This pins that a close-after close costs nothing more than a cold
/// start does, with either course.)
final class CloseAfterStartTests: XCTestCase {
    /// The attack's scenario: ride 60 s north, stand 20 s, no fix for 330 s, stand 10 s, ride
    /// 120 s `bearing` (north 0, south 180) at 8 m/s; gpsd says course 0 throughout.
    func scenario(bearing: Double) -> (fixes: [Fix], firstMoving: Int64) {
        var fixes: [Fix] = []
        var t = 0.0, n = 0.0
        func add(_ v: Double, jitter: Double = 0) {
            var f = fix(t, north: n + jitter, eph: 3, speed: v)
            f.track = 0
            fixes.append(f)
            t += 1
        }
        for _ in 0..<20 { add(0.1) }
        for _ in 0..<60 { n += 8; add(8) }
        for i in 0..<20 { add(0.1, jitter: 0.2 * sin(Double(i))) }
        t += 330
        for i in 0..<10 { add(0.1, jitter: 0.2 * sin(Double(i))) }
        let firstMoving = fix(t).timeMs
        let dir = bearing == 0 ? 1.0 : -1.0
        for _ in 0..<120 { n += 8 * dir; add(8) }
        return (fixes, firstMoving)
    }

    func testNextTripOpensAsAColdStartDoes() {
        for bearing in [0.0, 180.0] {
            let (fixes, firstMoving) = scenario(bearing: bearing)
            var profile = ActivityProfile.ride
            profile.closeAfterMs = 5 * 60_000
            var rules = FixRules(profile: profile)
            var closed = false
            var nextStart: Int64?
            var newest = Int64.min
            for f in fixes {
                newest = max(newest, f.timeMs)
                rules.offer(f, nowMs: newest) { o in
                    switch o {
                    case .closeTrip: closed = true
                    case .keep(let k) where closed && nextStart == nil: nextStart = k.timeMs
                    default: break
                    }
                }
            }
            XCTAssertTrue(closed, "bearing \(bearing): close-after closes the trip")
            let late = (nextStart ?? .max) - firstMoving
            // The same ride from a cold start: only the fixes after the stand before the gap.
            let cold = fixes.filter { $0.timeMs >= firstMoving - 10_000 }
            var fresh = FixRules(profile: profile)
            var coldStart: Int64?
            for f in cold {
                fresh.offer(f, nowMs: f.timeMs) { o in if case .keep(let k) = o, coldStart == nil { coldStart = k.timeMs } }
            }
            XCTAssertEqual(nextStart, coldStart, "bearing \(bearing): as a cold start opens")
            if bearing == 0 { XCTAssertLessThanOrEqual(late, 2_000, "the next trip opens \(late) ms after the first moving fix") }
        }
    }
}

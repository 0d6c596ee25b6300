import XCTest
@testable import CairnCore

/// A trip ends at home (issue 41, item 1): the rule as a table, then the fix rules fed rides that
/// come home and stand, stop at a light near home, pass it, or stand elsewhere.
final class HomePlaceTests: XCTestCase {
    let home = HomePlace(lat: fix(0, north: 114).lat, lon: fix(0, north: 114).lon, radiusM: 100)

    func testTheRuleAsATable() {
        let thirty: Int64 = 30 * 60_000, two: Int64 = 2 * 60_000
        var long = home
        long.standMs = 45 * 60_000
        // (home, standing at m north of home, its eph, close-after) -> limit
        let rows: [(HomePlace?, Double, Double?, Int64, Int64, String)] = [
            (nil, 0, 8, thirty, thirty, "no home: close-after"),
            (home, 0, 8, thirty, two, "at the door: home's stand"),
            (home, 95, 8, thirty, two, "inside the radius"),
            (home, 130, 8, thirty, thirty, "30 m outside, a good fix: elsewhere"),
            (home, 130, 40, thirty, two, "30 m outside, a fix good to 40 m: maybe home (indoors)"),
            (home, 250, 400, thirty, thirty, "the widening stops at the radius: 250 m is never home"),
            (home, 600, 8, thirty, thirty, "a café 600 m away"),
            (home, 0, nil, thirty, two, "no error figure: the position alone"),
            (long, 0, 8, thirty, thirty, "a home stand longer than close-after: close-after"),
            (home, 0, 8, 60_000, 60_000, "close-after shorter than home's stand")
        ]
        for (h, north, eph, closeAfter, want, why) in rows {
            let f = fix(0, north: 114 + north, eph: eph, speed: 0.02)
            XCTAssertEqual(HomePlace.closeLimitMs(home: h, standingAt: f, closeAfterMs: closeAfter), want, why)
        }
    }

    /// A ride of `rideS` seconds north at 6 m/s arriving `north` metres from home (home is 114 m
    /// up the road), standing there `standS` seconds, then riding on for 30 s unless it stood for
    /// good. Returns the seconds from the stand's first second to the close (nil: not closed)
    /// and the segments begun.
    func ride(standS: Int, at north: Double = 0, rideOn: Bool = true, profile p: ActivityProfile? = nil) -> (
        closeS: Double?, segments: [SegmentReason]
    ) {
        var profile = p ?? .ride
        if p == nil { profile.home = home }
        var fixes = (0..<20).map { i in fix(Double(i), north: 114 + north - 6 * Double(19 - i), eph: 8, speed: 6 + 0.03 * sin(Double(i))) }
        for i in 0..<standS { fixes.append(fix(20 + Double(i), north: 114 + north + 0.5 * sin(Double(i) / 7), eph: 8, speed: 0.03)) }
        if rideOn {
            for i in 0..<30 {
                fixes.append(fix(20 + Double(standS + i), north: 114 + north + 6 * Double(i + 1), eph: 8, speed: 6 + 0.03 * sin(Double(i))))
            }
        }
        var rules = FixRules(profile: profile)
        var closeAt: Int64?
        var segments: [SegmentReason] = []
        var newest = Int64.min
        var current: Fix?
        let sink: (RuleOutput) -> Void = { o in
            switch o {
            case .closeTrip: if closeAt == nil { closeAt = current?.timeMs }
            case .segment(let s): segments.append(s)
            default: break
            }
        }
        for f in fixes {
            newest = max(newest, f.timeMs)
            current = f
            rules.offer(f, nowMs: newest, emit: sink)
        }
        rules.flush(emit: sink)
        return (closeAt.map { Double($0 - fix(20).timeMs) / 1000 }, segments)
    }

    func testRidesHomeAsATable() {
        // (stand s, metres from home, ride on after) -> closed how many s after the stand began
        let rows: [(Int, Double, Bool, ClosedRange<Double>?, String)] = [
            (180, 0, false, 120...125, "home, stood for good: closed at 2 minutes"),
            (150, 0, true, 120...125, "home, off again after 150 s: closed at 2 minutes"),
            (40, 0, true, nil, "a light at home's corner: not cut"),
            (100, 0, true, nil, "100 s at home (the gate, the post box): not cut"),
            (150, 600, true, nil, "150 s at a café 600 m away: a pause"),
            (0, -300, true, nil, "riding past home: not cut")
        ]
        for (standS, north, rideOn, want, why) in rows {
            let r = ride(standS: standS, at: north, rideOn: rideOn)
            if let w = want {
                XCTAssertNotNil(r.closeS, why)
                if let s = r.closeS { XCTAssertTrue(w.contains(s), "\(why): closed \(s) s after the stand began") }
            } else {
                XCTAssertNil(r.closeS, why)
            }
        }
        XCTAssertEqual(ride(standS: 150, at: 600).segments, [.pause], "a stand away from home is a pause")
        XCTAssertNil(ride(standS: 180, rideOn: false, profile: .ride).closeS, "no home: 180 s is a pause")
    }
}

import CairnCore
import XCTest

@testable import CairnExport

/// `Activity`: a trip's activity name is read one way by every choice made by activity. A
/// hike is judged as a walk by the rules, so it is smoothed, coloured and named as one too.
final class ActivityTests: XCTestCase {
    func testNamesAndProfiles() {
        XCTAssertEqual(Activity.allCases.map(\.name), ["walk", "run", "ride", "drive"])
        for a in Activity.allCases {
            XCTAssertEqual(Activity(name: a.name), a)
            XCTAssertEqual(a.profile.name, a.name)
            XCTAssertEqual(ActivityProfile.named(a.name), a.profile)
        }
        XCTAssertEqual(Activity(name: "hike"), .walk)
        XCTAssertNil(Activity(name: "swim"))
        XCTAssertNil(Activity(name: nil))
        XCTAssertNil(Activity(name: "Ride"), "names are exact, as the recorder stores them")
    }

    func testAHikeIsAWalkEverywhere() {
        XCTAssertEqual(SpeedBands.defaults(activity: "hike"), SpeedBands.defaults(activity: "walk"))
        XCTAssertTrue(FITWriter.sport("hike") == FITWriter.sport("walk"))
        XCTAssertTrue(FITWriter.sport("hike") == (11, 0))
        let hike = TrackSmoother.Tuning.forActivity("hike"), walk = TrackSmoother.Tuning.forActivity("walk")
        XCTAssertEqual(hike.unknownVelocityMps, walk.unknownVelocityMps)
        XCTAssertEqual(hike.courseMinMps, walk.courseMinMps)
        XCTAssertEqual(hike.maxAidSpeedMps, walk.maxAidSpeedMps)
    }

    func testUnknownActivitiesKeepTheirDefaults() {
        XCTAssertEqual(SpeedBands.defaults(activity: "swim"), SpeedBands.defaults(activity: "ride"))
        XCTAssertTrue(FITWriter.sport("swim") == (0, 0))
        XCTAssertTrue(FITWriter.sport(nil) == (0, 0))
        XCTAssertFalse(FuelRate.applies(to: "ride"))
        XCTAssertTrue(FuelRate.applies(to: "drive"))
        XCTAssertEqual(TrackPicture.Options.defaults(activity: "drive").colours, TrackPicture.Options.carColours)
    }
}

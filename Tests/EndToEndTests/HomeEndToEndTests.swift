import Foundation
import XCTest

/// Home by itself (issue 41, item 1): a ride that stands at home for `--home-stand` minutes is
/// closed there (and `trip-closed` tells cairn-deliver.path to deliver it); the same stand away
/// from home is a pause, and riding past home cuts nothing. Through a real gpsd.
final class HomeEndToEndTests: XCTestCase {
    struct Truth: Decodable {
        var start: Double
        var track: [[Double]]
    }

    func testAStandAtHomeClosesTheTripAndPassingHomeDoesNot() throws {
        let work = Harness.tempDir()
        let log = work + "/ride.nmea", truthPath = work + "/truth.json"
        // 12 minutes, standing 3 minutes from 6 minutes on.
        let make = try Harness.run(
            "/usr/bin/env",
            ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path, "0.2", log, "--truth", truthPath]
                + ["--seed", "5", "--stop", "360:180"])
        XCTAssertEqual(make.status, 0, make.stderr)
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: truthPath)))
        let stand = truth.track[400], passed = truth.track[150]
        func home(_ p: [Double]) -> [String] { ["--home", "\(p[0]),\(p[1]),100"] }

        let atHome = try Harness.record(log, extra: home(stand))
        XCTAssertEqual(atHome.status, 0, atHome.stderr)
        XCTAssertEqual(try Harness.trips(atHome.dir).count, 2, "closed at home, a new trip when the rider sets off again")
        XCTAssertTrue(FileManager.default.fileExists(atPath: atHome.dir + "/trip-closed"), atHome.stderr)

        let away = try Harness.record(log, extra: home(passed))
        XCTAssertEqual(away.status, 0, away.stderr)
        XCTAssertEqual(try Harness.trips(away.dir).count, 1, "riding past home, then standing away from it: one trip")

        let none = try Harness.record(log, extra: ["--home", "none"])
        XCTAssertEqual(try Harness.trips(none.dir).count, 1, "the stand is a pause")
    }
}

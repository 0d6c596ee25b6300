import XCTest

@testable import CairnExport
@testable import cairn

/// `cairn info` with sensors: three lines and six JSON keys, only for a trip that has them.
final class SensorInfoTests: XCTestCase {
    func testInfoShowsTheSensorsFiguresOnlyWithSensors() {
        var f = SensorFigures()
        f.add(heartRate: 120, cadence: 0, powerW: 200)
        f.add(heartRate: 140, cadence: 90, powerW: 0)
        f.add(heartRate: nil, cadence: 92, powerW: nil)
        let s = TripSummary(id: 7, files: ["/x/00000007.cairn"])
        let with = InfoCommand.describe(s, sensors: f)
        XCTAssertTrue(with.contains("  heart rate: avg 130 bpm, max 140 bpm"), with)
        XCTAssertTrue(with.contains("  cadence:    avg 91 rpm, max 92 rpm"), with)
        XCTAssertTrue(with.contains("  power:      avg 100 W, max 200 W"), with)
        XCTAssertEqual(InfoCommand.describe(s), InfoCommand.describe(s, sensors: nil))
        XCTAssertFalse(InfoCommand.describe(s).contains("heart rate"))
        let json = tripJSON(s, indent: "", sensors: f)
        XCTAssertTrue(json.contains("\"heart_rate_avg\": 130") && json.contains("\"power_max_w\": 200"), json)
        XCTAssertFalse(tripJSON(s, indent: "").contains("heart_rate"))
    }
}

import XCTest

@testable import CairnCore

/// Speed and distance from wheel revolutions: CSC's 1/1024 s and Cycling Power's 1/2048 s clocks,
/// the 32-bit counter rolling over and going back, distance kept across a gap.
final class WheelSpeedTests: XCTestCase {
    func steps(_ speed: inout WheelSpeed, _ readings: [(UInt32, UInt16, Int64)]) -> [WheelSpeed.Step] {
        readings.map { speed.add(RevolutionData(revolutions: $0.0, eventTime: $0.1), arrivalMs: $0.2) }
    }

    func testCSCWheelAcrossTheCounterRollover() {
        var speed = WheelSpeed(circumferenceM: 2.0)
        let s = steps(&speed, [(0xFFFF_FFFA, 0, 0), (0xFFFF_FFFE, 1024, 1000), (2, 2048, 2000), (6, 3072, 3000)])
        XCTAssertEqual(s.map(\.event), [.first, .started, .revolutions, .revolutions])
        XCTAssertEqual(s.map(\.metresPerSecond), [nil, nil, 8, 8])
        XCTAssertEqual(s.map(\.metres), [0, 8, 8, 8])
    }

    func testPowerWheelTicks2048AndWrapsEvery32Seconds() {
        var speed = WheelSpeed(circumferenceM: 2.105, format: .powerWheel)
        let s = steps(
            &speed,
            [
                (0, 0, 0), (5, 2048, 1000), (10, 4096, 2000), (100, UInt16(truncatingIfNeeded: 20 * 2048), 20_000),
                (105, UInt16(truncatingIfNeeded: 21 * 2048), 21_000)
            ])
        XCTAssertEqual(s.map(\.event), [.first, .started, .revolutions, .afterGap, .revolutions])
        XCTAssertEqual(s[2].metresPerSecond!, 5 * 2.105, accuracy: 1e-9)
        XCTAssertNil(s[3].metresPerSecond, "18 s is over half of the 32 s wrap: no speed from it")
        XCTAssertEqual(s[3].metres, 90 * 2.105, accuracy: 1e-9, "but its distance counts")
    }

    func testAResetCountsNoDistance() {
        var speed = WheelSpeed(circumferenceM: 2.0)
        let s = steps(&speed, [(5000, 0, 0), (5004, 1024, 1000), (3, 1500, 2000), (7, 2524, 3000), (11, 3548, 4000)])
        XCTAssertEqual(s.map(\.event), [.first, .started, .counterWentBack, .started, .revolutions])
        XCTAssertEqual(s.map(\.metres), [0, 8, 0, 8, 8])
        XCTAssertEqual(s.last?.metresPerSecond, 8)
    }

    func testStandingStill() {
        var speed = WheelSpeed(circumferenceM: 2.0)
        let s = steps(&speed, [(0, 0, 0), (2, 1024, 1000), (4, 2048, 2000), (4, 2048, 4000), (4, 2048, 5000)])
        XCTAssertEqual(s.map(\.metresPerSecond), [nil, nil, 4, 4, 0])
        XCTAssertEqual(s.last?.event, .stopped)
    }
}

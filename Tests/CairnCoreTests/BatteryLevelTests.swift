import XCTest

@testable import CairnCore

/// Battery Level (0x2A19): 0-100 %, nothing else.
final class BatteryLevelTests: XCTestCase {
    func testLevels() throws {
        XCTAssertEqual(try BatteryLevel(decoding: [0]).percent, 0)
        XCTAssertEqual(try BatteryLevel(decoding: [0x64]).percent, 100)
        XCTAssertEqual(try BatteryLevel(decoding: [57, 0xAA]).percent, 57)
        XCTAssertThrowsError(try BatteryLevel(decoding: [])) {
            XCTAssertEqual($0 as? NotificationError, .truncated(.batteryLevel, needs: 1, left: 0))
        }
        XCTAssertThrowsError(try BatteryLevel(decoding: [101])) {
            XCTAssertEqual($0 as? NotificationError, .outOfRange(.batteryLevel, value: 101))
        }
    }
}

import XCTest

@testable import CairnCore

/// CSC Measurement (0x2A5B): real sensors' notifications, all four flag combinations, every
/// truncation, and half a pair.
final class CSCMeasurementTests: XCTestCase {
    func testRealSensorsNotifications() throws {
        // A SunDing 515 speed and cadence sensor, both pairs (quoted in a question on parsing it).
        let both = try CSCMeasurement(decoding: SensorBytes.hex("03 6d 01 00 00 fc 7e 2c 01 f8 7e"))
        XCTAssertEqual(both.wheel, RevolutionData(revolutions: 365, eventTime: 32_508))
        XCTAssertEqual(both.crank, RevolutionData(revolutions: 300, eventTime: 32_504))
        // A Wahoo cadence sensor: crank only, 4 revolutions, last at 5982/1024 s.
        let crank = try CSCMeasurement(decoding: [2, 4, 0, 94, 23])
        XCTAssertEqual(crank, CSCMeasurement(crank: RevolutionData(revolutions: 4, eventTime: 5982)))
        // Reserved bits ignored; nothing announced is nothing decoded.
        XCTAssertEqual(try CSCMeasurement(decoding: [0xFC]), CSCMeasurement())
    }

    func testEveryFlagCombinationAndEveryTruncation() {
        for flags in UInt8(0)..<4 {
            var bytes: [UInt8] = [flags]
            var expected = CSCMeasurement()
            if flags & 0x01 != 0 {
                bytes += SensorBytes.le32(0xFFFF_FFF0) + SensorBytes.le16(UInt16(0xFFFE))
                expected.wheel = RevolutionData(revolutions: 0xFFFF_FFF0, eventTime: 0xFFFE)
            }
            if flags & 0x02 != 0 {
                bytes += SensorBytes.le16(UInt16(0xFFFF)) + SensorBytes.le16(UInt16(1))
                expected.crank = RevolutionData(revolutions: 0xFFFF, eventTime: 1)
            }
            XCTAssertEqual(try CSCMeasurement(decoding: bytes), expected, "flags \(flags)")
            for length in 0..<bytes.count {
                XCTAssertThrowsError(try CSCMeasurement(decoding: Array(bytes[..<length])), "flags \(flags), \(length)")
            }
        }
    }

    func testHalfAPairIsTruncated() {
        let table: [(String, NotificationError)] = [
            ("", .truncated(.flags, needs: 1, left: 0)),
            ("01 6d 01 00 00", .truncated(.wheelRevolutions, needs: 6, left: 4)),
            ("02 2c 01", .truncated(.crankRevolutions, needs: 4, left: 2)),
            ("03 6d 01 00 00 fc 7e 2c 01 f8", .truncated(.crankRevolutions, needs: 4, left: 3))
        ]
        for (bytes, error) in table {
            XCTAssertThrowsError(try CSCMeasurement(decoding: SensorBytes.hex(bytes)), bytes) {
                XCTAssertEqual($0 as? NotificationError, error, bytes)
            }
        }
    }
}

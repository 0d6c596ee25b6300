import XCTest

@testable import CairnCore

/// Cycling Power Measurement (0x2A63): the SIG's own example, hand-written notifications, all
/// 1,024 combinations of the ten flag bits that announce fields (with the qualifying bits 1, 3
/// and 12 and the reserved 13-15 set in turn), every truncation of each, values out of range.
final class CyclingPowerMeasurementTests: XCTestCase {
    typealias CP = CyclingPowerMeasurement

    /// The Bluetooth SIG's characteristic definition gives one example of the bytes: "if the
    /// Maximum Angle is 0xABC and the Minimum Angle is 0x123, the transmitted value is 0x123ABC"
    /// (org.bluetooth.characteristic.cycling_power_measurement, Extreme Angles).
    func testTheSIGsExtremeAnglesExample() throws {
        let m = try CP(decoding: SensorBytes.hex("00 01 00 00 bc 3a 12"))
        XCTAssertEqual(m.extremeAngles, CP.AngleExtremes(maximum: 0xABC, minimum: 0x123))
    }

    func testHandWrittenNotifications() throws {
        XCTAssertEqual(try CP(decoding: SensorBytes.hex("00 00 fa 00")), CP(powerWatts: 250))
        XCTAssertEqual(try CP(decoding: SensorBytes.hex("00 00 f6 ff")).powerWatts, -10)
        XCTAssertEqual(try CP(decoding: SensorBytes.hex("00 e0 b8 0b")), CP(flags: 0xE000, powerWatts: 3000))
        let crank = try CP(decoding: SensorBytes.hex("20 00 2c 01 0a 00 00 04"))
        XCTAssertEqual(crank.powerWatts, 300)
        XCTAssertEqual(crank.crank, RevolutionData(revolutions: 10, eventTime: 1024))
        let balance = try CP(decoding: SensorBytes.hex("0f 10 c8 00 64 40 01"))
        XCTAssertEqual(balance.pedalPowerBalance, 100)  // 50 %
        XCTAssertTrue(balance.balanceIsLeft)
        XCTAssertEqual(balance.accumulatedTorque, 0x0140)  // 10 N·m
        XCTAssertTrue(balance.torqueIsCrankBased)
        XCTAssertTrue(balance.offsetCompensation)
        // A balance of 0xFF is "not available": the power is kept (attack r19, finding 11).
        let noBalance = try CP(decoding: SensorBytes.hex("01 00 fa 00 ff"))
        XCTAssertEqual(noBalance.powerWatts, 250)
        XCTAssertNil(noBalance.pedalPowerBalance)
    }

    /// Builds the bytes of every announcing-bit combination from known field values, decodes
    /// them, and cuts each short at every length.
    func testEveryFlagCombinationAndEveryTruncation() {
        let announcing = [0, 2, 4, 5, 6, 7, 8, 9, 10, 11]
        let qualifying: [UInt16] = [0, 0x0002, 0x0008, 0x1000, 0xE000, 0xF00A]
        var decoded = 0
        for combination in 0..<(1 << announcing.count) {
            var flags = qualifying[combination % qualifying.count]
            for (i, bit) in announcing.enumerated() where combination & (1 << i) != 0 { flags |= 1 << UInt16(bit) }
            var bytes = SensorBytes.le16(flags) + SensorBytes.le16(Int16(-123))
            var expected = CP(flags: flags, powerWatts: -123)
            func has(_ bit: Int) -> Bool { flags & (1 << UInt16(bit)) != 0 }
            if has(0) {
                bytes += [200]
                expected.pedalPowerBalance = 200
            }
            if has(2) {
                bytes += SensorBytes.le16(UInt16(0xBEEF))
                expected.accumulatedTorque = 0xBEEF
            }
            if has(4) {
                bytes += SensorBytes.le32(0x0102_0304) + SensorBytes.le16(UInt16(0x0506))
                expected.wheel = RevolutionData(revolutions: 0x0102_0304, eventTime: 0x0506)
            }
            if has(5) {
                bytes += SensorBytes.le16(UInt16(0x0708)) + SensorBytes.le16(UInt16(0x090A))
                expected.crank = RevolutionData(revolutions: 0x0708, eventTime: 0x090A)
            }
            if has(6) {
                bytes += SensorBytes.le16(Int16(900)) + SensorBytes.le16(Int16(-50))
                expected.extremeForces = CP.Extremes(maximum: 900, minimum: -50)
            }
            if has(7) {
                bytes += SensorBytes.le16(Int16(1600)) + SensorBytes.le16(Int16(-32))
                expected.extremeTorques = CP.Extremes(maximum: 1600, minimum: -32)
            }
            if has(8) {
                bytes += [0x5A, 0x41, 0x0B]  // maximum 0x15A (346°), minimum 0x0B4 (180°)
                expected.extremeAngles = CP.AngleExtremes(maximum: 346, minimum: 180)
            }
            if has(9) {
                bytes += SensorBytes.le16(UInt16(12))
                expected.topDeadSpotAngle = 12
            }
            if has(10) {
                bytes += SensorBytes.le16(UInt16(192))
                expected.bottomDeadSpotAngle = 192
            }
            if has(11) {
                bytes += SensorBytes.le16(UInt16(1234))
                expected.accumulatedEnergyKJ = 1234
            }
            XCTAssertEqual(try CP(decoding: bytes), expected, "flags \(String(flags, radix: 16))")
            for length in 0..<bytes.count {
                do throws(NotificationError) {
                    _ = try CP(decoding: Array(bytes[..<length]))
                    XCTFail("flags \(String(flags, radix: 16)): \(length) of \(bytes.count) bytes decoded")
                } catch {
                    if case .truncated = error {} else { XCTFail("\(error)") }
                }
                decoded += 1
            }
        }
        XCTAssertGreaterThan(decoded, 10_000)
    }

    func testMalformedNotificationsAreTypedErrors() {
        let table: [(String, NotificationError)] = [
            ("", .truncated(.flags, needs: 2, left: 0)),
            ("00", .truncated(.flags, needs: 2, left: 1)),
            ("00 00 fa", .truncated(.power, needs: 2, left: 1)),
            ("01 00 fa 00", .truncated(.pedalPowerBalance, needs: 1, left: 0)),
            ("10 00 fa 00 01 00 00 00 00", .truncated(.wheelRevolutions, needs: 6, left: 5)),
            ("20 00 fa 00 01 00", .truncated(.crankRevolutions, needs: 4, left: 2)),
            ("40 00 fa 00 01 00 02", .truncated(.extremeForces, needs: 4, left: 3)),
            ("80 00 fa 00 01 00", .truncated(.extremeTorques, needs: 4, left: 2)),
            ("00 01 fa 00 bc 3a", .truncated(.extremeAngles, needs: 3, left: 2)),
            ("00 08 fa 00 01", .truncated(.accumulatedEnergy, needs: 2, left: 1)),
            ("00 00 b9 0b", .outOfRange(.power, value: 3001)),
            ("00 00 47 f4", .outOfRange(.power, value: -3001)),
            ("00 00 00 80", .outOfRange(.power, value: -32_768)),
            ("01 00 fa 00 c9", .outOfRange(.pedalPowerBalance, value: 201))
        ]
        for (bytes, error) in table {
            XCTAssertThrowsError(try CP(decoding: SensorBytes.hex(bytes)), bytes) {
                XCTAssertEqual($0 as? NotificationError, error, bytes)
            }
        }
    }
}

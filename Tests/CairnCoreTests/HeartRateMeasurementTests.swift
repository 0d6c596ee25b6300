import XCTest

@testable import CairnCore

/// Heart Rate Measurement (0x2A37): hand-written notifications, every combination of the flag
/// bits that carry or qualify fields, every truncation, odd bytes and values out of range.
final class HeartRateMeasurementTests: XCTestCase {
    typealias HR = HeartRateMeasurement

    func testHandWrittenNotifications() throws {
        let table: [(String, HR)] = [
            ("00 48", HR(beatsPerMinute: 72)),
            ("02 48", HR(beatsPerMinute: 72, contact: .notSupported)),  // bit 1 alone: not supported
            ("04 48", HR(beatsPerMinute: 72, contact: .notDetected)),
            ("06 48", HR(beatsPerMinute: 72, contact: .detected)),
            ("01 2c 01", HR(beatsPerMinute: 300)),
            ("01 3c 00", HR(beatsPerMinute: 60)),
            ("00 00", HR(beatsPerMinute: 0)),  // what a strap without a reading sends
            ("08 50 10 27", HR(beatsPerMinute: 80, energyExpendedKJ: 10_000)),
            ("08 50 ff ff", HR(beatsPerMinute: 80, energyExpendedKJ: 0xFFFF)),
            ("10 46 00 04", HR(beatsPerMinute: 70, rrIntervals: [1024])),
            ("10 48", HR(beatsPerMinute: 72)),  // the RR flag with no interval keeps the rate (attack r19, 12)
            ("16 4b 1a 03 28 03", HR(beatsPerMinute: 75, contact: .detected, rrIntervals: [794, 808])),
            (
                "1f 4b 00 e8 03 00 04 00 02 55 03",
                HR(beatsPerMinute: 75, contact: .detected, energyExpendedKJ: 1000, rrIntervals: [1024, 512, 853])
            ),
            ("e0 3c", HR(beatsPerMinute: 60)),  // reserved bits 5-7 ignored
            ("00 48 99 99", HR(beatsPerMinute: 72))  // bytes no flag announces: left alone
        ]
        for (bytes, expected) in table {
            XCTAssertEqual(try HR(decoding: SensorBytes.hex(bytes)), expected, bytes)
        }
        XCTAssertEqual(try HR(decoding: SensorBytes.hex("10 46 00 04")).rrIntervalsMs, [1000])
    }

    /// Bits 0-4 in all 32 combinations, with one RR interval: the bytes built from the fields
    /// decode to them, and every shorter prefix is a typed error, except the one that ends
    /// where the RR intervals begin: the rate without intervals (attack r19, finding 12).
    func testEveryFlagCombinationAndEveryTruncation() {
        for flags in UInt8(0)..<32 {
            let wide = flags & 0x01 != 0
            var bytes: [UInt8] = [flags]
            bytes += wide ? SensorBytes.le16(UInt16(0x0102)) : [0x9B]
            var expected = HR(beatsPerMinute: wide ? 0x0102 : 0x9B)
            expected.contact = flags & 0x06 == 0x06 ? .detected : flags & 0x04 != 0 ? .notDetected : .notSupported
            if flags & 0x08 != 0 {
                bytes += SensorBytes.le16(UInt16(4321))
                expected.energyExpendedKJ = 4321
            }
            if flags & 0x10 != 0 {
                bytes += SensorBytes.le16(UInt16(777))
                expected.rrIntervals = [777]
            }
            XCTAssertEqual(try HR(decoding: bytes), expected, "flags \(flags)")
            let rrStart = flags & 0x10 != 0 ? bytes.count - 2 : bytes.count
            for length in 0..<bytes.count {
                if length == rrStart {
                    var rateOnly = expected
                    rateOnly.rrIntervals = []
                    XCTAssertEqual(try HR(decoding: Array(bytes[..<length])), rateOnly, "flags \(flags), no interval")
                    continue
                }
                XCTAssertThrowsError(try HR(decoding: Array(bytes[..<length])), "flags \(flags), \(length) bytes") {
                    if length > rrStart {
                        XCTAssertEqual($0 as? NotificationError, .oddByte(.rrInterval))
                    } else if case .truncated? = $0 as? NotificationError {
                    } else {
                        XCTFail("\($0)")
                    }
                }
            }
        }
    }

    func testMalformedNotificationsAreTypedErrors() {
        let table: [(String, NotificationError)] = [
            ("", .truncated(.flags, needs: 1, left: 0)),
            ("01", .truncated(.heartRate, needs: 2, left: 0)),
            ("01 48", .truncated(.heartRate, needs: 2, left: 1)),
            ("08 48 01", .truncated(.energyExpended, needs: 2, left: 1)),
            ("10 48 00 04 00", .oddByte(.rrInterval)),
            ("18 48 01 00 00 04 00", .oddByte(.rrInterval)),
            ("01 2d 01", .outOfRange(.heartRate, value: 301)),
            ("01 ff ff", .outOfRange(.heartRate, value: 65_535))
        ]
        for (bytes, error) in table {
            XCTAssertThrowsError(try HR(decoding: SensorBytes.hex(bytes)), bytes) {
                XCTAssertEqual($0 as? NotificationError, error, bytes)
            }
        }
        XCTAssertEqual(
            NotificationError.truncated(.rrInterval, needs: 2, left: 1).description, "RR interval: 2 bytes announced, 1 left")
    }
}

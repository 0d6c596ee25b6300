import CairnCore
import Foundation
import XCTest
@testable import CairnExport
@testable import CairnLog

final class FITEncodingTests: XCTestCase {
    func testCRCAndCombine() {
        XCTAssertEqual(FITCRC.checksum(Array("123456789".utf8)), 0xBB3D, "CRC-16/ARC check value")
        var rng = SplitMix64(state: 3)
        for _ in 0..<200 {
            let a = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let b = (0..<Int(rng.next() % 5000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            XCTAssertEqual(FITCRC.combine(FITCRC.checksum(a), FITCRC.checksum(b), lengthB: b.count), FITCRC.checksum(a + b))
        }
    }

    /// A lap's average beyond the 32-bit field is written as invalid, not saturated (export-fuzz
    /// seed 10: a far jump in a lap whose timer a privacy zone's break had stopped).
    func testASpeedBeyondTheFieldIsInvalid() {
        XCTAssertEqual(FITWriter.speed32(6.395), 6395)
        XCTAssertEqual(FITWriter.speed32(4_294_967.294), 4_294_967_294)
        XCTAssertEqual(FITWriter.speed32(14_518_126), 0xFFFF_FFFF)
        XCTAssertEqual(FITWriter.speed32(nil), 0xFFFF_FFFF)
        XCTAssertEqual(FITWriter.speed32(.infinity), 0xFFFF_FFFF)
    }

    func testSemicirclesAndNames() {
        XCTAssertEqual(FITWriter.semicircles(90), 1 << 30)
        XCTAssertEqual(FITWriter.semicircles(-180), -2_147_483_647, "clamped inside the valid range")
        XCTAssertEqual(FITWriter.semicircles(FITWriter.wrapLon(180)), -2_147_483_647)
        XCTAssertEqual(ExportFormat.fit.fileName(tripId: 7, startMs: 1_748_764_801_250), "20250601-080001-trip7.fit")
        XCTAssertEqual(FITWriter.sport("ride").0, 2)
    }
}

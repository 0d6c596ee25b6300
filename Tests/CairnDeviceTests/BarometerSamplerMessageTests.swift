import XCTest
import Foundation
@testable import CairnDevice

/// What the sampler says of a barometer at start, as the journal shows it.
final class BarometerSamplerMessageTests: XCTestCase {
    func testTheFirstReadingIsSaidInTenthsOfAHectopascal() throws {
        let dev = NSTemporaryDirectory() + "iio-\(UUID().uuidString)/iio:device0"
        try FileManager.default.createDirectory(atPath: dev, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (dev as NSString).deletingLastPathComponent) }
        try "bmp280\n".write(toFile: dev + "/name", atomically: true, encoding: .utf8)
        // The kernel's bmp280 driver gives kPa with nine decimals.
        try "101.324992187\n".write(toFile: dev + "/in_pressure_input", atomically: true, encoding: .utf8)
        let said = Box()
        let s = BarometerSampler(source: .path(dev), sampleEveryMs: 1000) { said.lines.append($0) }
        XCTAssertNil(s.openNamedDevice(monoMs: 0))
        s.poll(monoMs: 0, wallClockMs: 1_748_764_800_000)
        let reads = said.lines.filter { $0.contains(" reads ") }
        XCTAssertEqual(reads.count, 1, "said once: \(said.lines)")
        XCTAssertTrue(reads.first?.contains("reads 1013.2 hPa") ?? false, "rounded to 0.1 hPa: \(reads)")
    }

    private final class Box: @unchecked Sendable { var lines: [String] = [] }
}

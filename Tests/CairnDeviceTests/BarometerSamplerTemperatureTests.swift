import XCTest
import Foundation
@testable import CairnDevice

/// The recorder's sampler keeps the sensor's temperature with the pressure.
final class BarometerSamplerTemperatureTests: XCTestCase {
    func testTemperatureIsReadWithThePressureAndGoesStale() throws {
        let dev = NSTemporaryDirectory() + "iio-\(UUID().uuidString)/iio:device0"
        try FileManager.default.createDirectory(atPath: dev, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (dev as NSString).deletingLastPathComponent) }
        try "bmp280\n".write(toFile: dev + "/name", atomically: true, encoding: .utf8)
        try "95.000000000\n".write(toFile: dev + "/in_pressure_input", atomically: true, encoding: .utf8)
        try "23450\n".write(toFile: dev + "/in_temp_input", atomically: true, encoding: .utf8)
        let s = BarometerSampler(source: .path(dev), sampleEveryMs: 1000) { _ in }
        XCTAssertNil(s.openNamedDevice(monoMs: 0))
        XCTAssertNil(s.temperatureC(monoMs: 0), "nothing before the first reading")
        s.poll(monoMs: 0, wallClockMs: 1_748_764_800_000)
        XCTAssertEqual(s.temperatureC(monoMs: 500) ?? .nan, 23.45, accuracy: 1e-9, "milli-°C as IIO gives it")
        try "24000\n".write(toFile: dev + "/in_temp_input", atomically: true, encoding: .utf8)
        s.poll(monoMs: 1000, wallClockMs: 1_748_764_801_000)
        XCTAssertEqual(s.temperatureC(monoMs: 1000) ?? .nan, 24.0, accuracy: 1e-9)
        XCTAssertNil(s.temperatureC(monoMs: 1000 + s.staleAfterMs + 1), "an old reading is no temperature")
        // A sensor without a temperature gives none, and the pressure still.
        try FileManager.default.removeItem(atPath: dev + "/in_temp_input")
        s.poll(monoMs: 2000, wallClockMs: 1_748_764_802_000)
        XCTAssertNil(s.temperatureC(monoMs: 2000))
        XCTAssertNotNil(s.pressurePa(monoMs: 2000))
    }
}

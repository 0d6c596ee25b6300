import XCTest
@testable import CairnCore

/// `Fix.atLogResolution` rounds in floating point (`Fix.gridValue`); what the log stores must not
/// change by a bit: it must equal the integer rounding (`Fix.onGrid`) converted back.
final class LogResolutionTests: XCTestCase {
    private func viaInteger(_ v: Double, _ units: Double) -> Double { Double(Fix.onGrid(v, units)) / units }

    private func assertSame(_ v: Double, _ units: Double, file: StaticString = #filePath, line: UInt = #line) {
        let a = Fix.gridValue(v, units), b = viaInteger(v, units)
        XCTAssertEqual(a.bitPattern, b.bitPattern, "\(v) at \(units) per unit: \(a) against \(b)", file: file, line: line)
    }

    func testTiesNearTiesSignsAndTheClampGiveTheIntegerRoundingsBits() {
        let units: [Double] = [1e7, 1000, 100, 10]
        var values: [Double] = [
            0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
            3.4999999999999996, -3.4999999999999996, 1e-300, -1e-300, .infinity, -.infinity,
            0x1p50, -0x1p50, 0x1p50 + 0.25, -0x1p50 - 0.25, 0x1p52, -0x1p52, 1e300, -1e300
        ]
        for k in stride(from: -2000, through: 2000, by: 1) {
            let half = Double(k) + 0.5
            values += [half, half.nextUp, half.nextDown, Double(k), Double(k).nextUp, Double(k).nextDown]
        }
        for u in units {
            for v in values { assertSame(v, u); assertSame(v / u, u) }
        }
    }

    func testRandomFixValuesGiveTheIntegerRoundingsBits() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let lat = Double.random(in: -90...90, using: &g), lon = Double.random(in: -180...180, using: &g)
            assertSame(lat, 1e7)
            assertSame(lon, 1e7)
            let u = [1000.0, 100, 10].randomElement(using: &g)!
            assertSame(Double.random(in: -10_000...10_000, using: &g), u)
            // Values already on the grid (a fix stored and read back) stay where they are.
            let k = Double(Int64.random(in: -1_800_000_000...1_800_000_000, using: &g))
            assertSame(k / 1e7, 1e7)
            XCTAssertEqual(Fix.gridValue(k / 1e7, 1e7), k / 1e7)
        }
    }

    func testAtLogResolutionIsTheGridOfEveryField() {
        let f = Fix(
            timeMs: 1_750_000_000_123, lat: 52.123456789, lon: -0.00000005, mode: 3, altHAE: 12.345, altMSL: -0.005,
            eph: 2.5, epx: 1.0049999, epy: nil, epv: .infinity, speed: 0.0125, track: 359.995, climb: -0.0005,
            pressurePa: 101_325.05, temperatureC: 21.125)
        let r = f.atLogResolution
        XCTAssertEqual(r.lat.bitPattern, viaInteger(f.lat, 1e7).bitPattern)
        XCTAssertEqual(r.lon.bitPattern, viaInteger(f.lon, 1e7).bitPattern)
        XCTAssertEqual(r.altHAE?.bitPattern, viaInteger(12.345, 100).bitPattern)
        XCTAssertEqual(r.altMSL?.bitPattern, viaInteger(-0.005, 100).bitPattern)
        XCTAssertEqual(r.eph, 2.5)
        XCTAssertEqual(r.epx?.bitPattern, viaInteger(1.0049999, 100).bitPattern)
        XCTAssertNil(r.epy)
        XCTAssertNil(r.epv, "a non-finite value is absent, as in the log")
        XCTAssertEqual(r.speed?.bitPattern, viaInteger(0.0125, 1000).bitPattern)
        XCTAssertEqual(r.track?.bitPattern, viaInteger(359.995, 100).bitPattern)
        XCTAssertEqual(r.climb?.bitPattern, viaInteger(-0.0005, 1000).bitPattern)
        XCTAssertEqual(r.pressurePa?.bitPattern, viaInteger(101_325.05, 10).bitPattern)
        XCTAssertEqual(r.temperatureC?.bitPattern, viaInteger(21.125, 100).bitPattern)
        XCTAssertEqual(r.timeMs, f.timeMs)
        XCTAssertEqual(r.atLogResolution, r, "on the grid already: unchanged")
    }
}

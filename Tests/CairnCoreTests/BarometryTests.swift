import XCTest
import Foundation
@testable import CairnCore

final class BarometryTests: XCTestCase {
    func testISA() {
        XCTAssertEqual(ISA.altitude(pressurePa: 101_325), 0, accuracy: 1e-9)
        XCTAssertEqual(ISA.altitude(pressurePa: 95_000, seaLevelPa: ISA.seaLevel(pressurePa: 95_000, altitude: 540)), 540, accuracy: 1e-6)
        // 950.00 hPa at 540 m gives a sea-level pressure of 1013.21 hPa.
        XCTAssertEqual(ISA.seaLevel(pressurePa: 95_000, altitude: 540) / 100, 1013.21, accuracy: 0.01)
        // About 8.3 m per hPa near sea level.
        XCTAssertEqual(ISA.altitude(pressurePa: 101_225) - ISA.altitude(pressurePa: 101_325), 8.3, accuracy: 0.1)
    }

    func testPressureFilterRejectsSpikesAndSmooths() {
        var f = PressureFilter()
        var rng = SplitMix(seed: 9)
        var out: [Double] = []
        for i in 0..<400 {
            var p = 95_000 + 3 * rng.gauss()
            if i % 50 == 25 { p += 400 }      // an I2C glitch: 4 hPa for one sample
            out.append(f.add(pressurePa: p, timeMs: Int64(i) * 250)!)
        }
        XCTAssertEqual(f.rejected, 8)
        let tail = out.suffix(300)
        XCTAssertLessThan(tail.map { abs($0 - 95_000) }.max()!, 3, "no glitch gets through, noise shrinks")
        XCTAssertNil(PressureFilter().value)
    }

    /// A 2-hour ride: climbs of 150, 250 and 200 m with descents, 8 m rollers every 3 minutes; the
    /// barometer sees the true height plus 3 Pa of noise at 4 Hz and a 3 hPa weather change; GPS
    /// heights wander (σ 4 m, correlated over a minute) plus 1.5 m of white noise.
    func testAscentFromBarometerAndFromGPS() throws {
        var rows: [String] = []
        var worstBaro = 0.0, worstGPS = 0.0
        for seed in UInt64(1)...10 {
            let (truth, baro, gps) = Self.ride(seed: seed)
            let b = (baro - truth) / truth * 100, g = (gps - truth) / truth * 100
            worstBaro = max(worstBaro, abs(b))
            worstGPS = max(worstGPS, abs(g))
            rows.append(String(format: "| %llu | %.1f | %.1f | %+.2f | %.1f | %+.2f |", seed, truth, baro, b, gps, g))
        }
        let table = "| seed | true ascent m | barometer m | error % | GPS only m | error % |\n|---:|---:|---:|---:|---:|---:|\n" + rows.joined(separator: "\n")
        print(table)
        if let path = ProcessInfo.processInfo.environment["CAIRN_CLIMB_REPORT"] {
            let head = """
            Ascent on a generated 2-hour ride (climbs of 150, 250 and 200 m, 8 m rollers every 3 minutes);
            barometer: 3 Pa noise at 4 Hz and a 3 hPa weather change over the ride, through the
            pressure filter, the GPS-calibrated altimeter and a 2 m hysteresis; GPS only: heights
            wandering σ 4 m (correlated over a minute) plus 1.5 m white noise, a 20 s average and a
            5 m hysteresis. Produced by `CAIRN_CLIMB_REPORT=Tests/bench/climb-results.md swift test --filter BarometryTests`.


            """
            try (head + table + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssertLessThanOrEqual(worstBaro, 3, "barometer within ±3 %")
        XCTAssertLessThanOrEqual(worstGPS, 10, "GPS alone within ±10 %")
    }

    /// A 2-hour ride: climbs of 150, 250 and 200 m with descents, 8 m rollers every 3 minutes; the
    /// barometer sees the true height plus 3 Pa of noise at 4 Hz and a 3 hPa weather change; GPS
    /// heights wander (σ 4 m, correlated over a minute) plus 1.5 m of white noise.
    static func ride(seed: UInt64) -> (truth: Double, baro: Double, gps: Double) {
        func truth(_ t: Double) -> Double {
            let base: Double
            switch t {
            case ..<1200: base = 300 + 150 * t / 1200
            case ..<1800: base = 450 - 150 * (t - 1200) / 600
            case ..<3600: base = 300 + 250 * (t - 1800) / 1800
            case ..<4500: base = 550 - 250 * (t - 3600) / 900
            case ..<6300: base = 300 + 200 * (t - 4500) / 1800
            default: base = 500 - 200 * (t - 6300) / 900
            }
            return base + 4 * sin(2 * .pi * t / 180)
        }
        var trueAscent = 0.0
        var prev = truth(0)
        for i in 1...7200 {
            let h = truth(Double(i))
            if h > prev { trueAscent += h - prev }
            prev = h
        }
        var rng = SplitMix(seed: seed)
        var filter = PressureFilter()
        var alti = BaroAltimeter()
        var withBaro = AscentTracker(), gpsOnly = AscentTracker()
        var gpsErr = 0.0
        let a = exp(-1.0 / 60), q = 4 * (1 - a * a).squareRoot()
        for s in 0..<7200 {
            let p0 = 101_325 - 300 * Double(s) / 7200   // the weather: -3 hPa over the ride
            for k in 0..<4 {
                let t = Double(s) + Double(k) / 4
                let p = p0 * pow(1 - truth(t) / 44_330.77, 5.25588) + 3 * rng.gauss()
                filter.add(pressurePa: p, timeMs: Int64(t * 1000))
            }
            gpsErr = a * gpsErr + q * rng.gauss()
            let gpsH = truth(Double(s)) + gpsErr + 1.5 * rng.gauss()
            withBaro.addBarometric(altitude: alti.climbAltitude(pressurePa: filter.value!))
            alti.addGPS(height: gpsH, trusted: true, timeMs: Int64(s) * 1000)
            gpsOnly.addGPS(height: gpsH, timeMs: Int64(s) * 1000)
        }
        return (trueAscent, withBaro.ascentM!, gpsOnly.ascentM!)
    }

    func testNoHeightIsADash() {
        let t = AscentTracker()
        XCTAssertNil(t.ascentM)
        XCTAssertNil(t.descentM)
    }
}

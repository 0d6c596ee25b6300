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
    /// barometer sees the true height plus 3 Pa of noise at 1 Hz and a 3 hPa weather change; GPS
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
            barometer: 3 Pa noise at 1 Hz and a 3 hPa weather change over the ride, through the
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
    /// barometer sees the true height plus 3 Pa of noise at 1 Hz and a 3 hPa weather change; GPS
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
            // One reading a second, as BarometerSampler takes them.
            let p = p0 * pow(1 - truth(Double(s)) / 44_330.77, 5.25588) + 3 * rng.gauss()
            filter.add(pressurePa: p, timeMs: Int64(s) * 1000)
            gpsErr = a * gpsErr + q * rng.gauss()
            let gpsH = truth(Double(s)) + gpsErr + 1.5 * rng.gauss()
            withBaro.addBarometric(altitude: alti.climbAltitude(pressurePa: filter.value!))
            alti.addGPS(height: gpsH, trusted: true, timeMs: Int64(s) * 1000)
            gpsOnly.addGPS(height: gpsH, timeMs: Int64(s) * 1000)
        }
        return (trueAscent, withBaro.ascentM!, gpsOnly.ascentM!)
    }

    /// At one reading a second the filter still drops glitches and keeps the noise well under
    /// the climb counter's 2 m (3 Pa of noise: about 0.1 m after the filter).
    func testPressureFilterAtOneHertz() {
        var f = PressureFilter()
        var rng = SplitMix(seed: 11)
        var out: [Double] = []
        for i in 0..<600 {
            var p = 95_000 + 3 * rng.gauss()
            if i % 60 == 30 { p += 400 }
            out.append(f.add(pressurePa: p, timeMs: Int64(i) * 1000)!)
        }
        XCTAssertEqual(f.rejected, 10)
        let tail = Array(out.suffix(500))
        XCTAssertLessThan(tail.map { abs($0 - 95_000) }.max()!, 5, "no glitch gets through")
        let mean = tail.reduce(0, +) / Double(tail.count)
        let sd = (tail.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(tail.count)).squareRoot()
        XCTAssertLessThan(sd, 1.6, "3 Pa of noise to ~1.2 Pa (0.1 m)")
    }

    func testPressureHistoryInterpolatesAndKnowsItsGaps() {
        var h = PressureHistory()
        XCTAssertNil(h.value(atMonoMs: 0, maxGapMs: 2500))
        for (t, p) in [(1000, 95_000.0), (2000, 95_010.0), (3000, 95_030.0), (10_000, 95_100.0)] {
            h.add(monoMs: Int64(t), pressurePa: p)
        }
        h.add(monoMs: 9000, pressurePa: 1)             // out of order: dropped
        h.add(monoMs: 11_000, pressurePa: .nan)       // not a number: dropped
        XCTAssertEqual(h.value(atMonoMs: 1500, maxGapMs: 2500)!, 95_005, accuracy: 1e-9)
        XCTAssertEqual(h.value(atMonoMs: 2750, maxGapMs: 2500)!, 95_025, accuracy: 1e-9)
        XCTAssertEqual(h.value(atMonoMs: 2000, maxGapMs: 2500)!, 95_010, accuracy: 1e-9)
        // Before the first and after the last: the nearest, while near.
        XCTAssertEqual(h.value(atMonoMs: 0, maxGapMs: 2500), 95_000)
        XCTAssertNil(h.value(atMonoMs: -2000, maxGapMs: 2500))
        XCTAssertEqual(h.value(atMonoMs: 12_000, maxGapMs: 2500), 95_100)
        XCTAssertNil(h.value(atMonoMs: 13_000, maxGapMs: 2500))
        // A 7 s silence (the sensor failed): its edges count, its middle does not.
        XCTAssertEqual(h.value(atMonoMs: 4000, maxGapMs: 2500), 95_030)
        XCTAssertEqual(h.value(atMonoMs: 8000, maxGapMs: 2500), 95_100)
        XCTAssertNil(h.value(atMonoMs: 6500, maxGapMs: 2500))
        // Two minutes are kept, the oldest go first.
        for k in 1...200 { h.add(monoMs: 10_000 + Int64(k) * 1000, pressurePa: 95_000 + Double(k)) }
        XCTAssertNil(h.value(atMonoMs: 30_000, maxGapMs: 2500))
        XCTAssertEqual(h.value(atMonoMs: 200_000, maxGapMs: 2500), 95_190)
        h.removeAll()
        XCTAssertTrue(h.isEmpty)
    }

    /// Fixes read in 5 s batches at 1 Hz: each gets back (within a second) the moment it
    /// arrived; a replay 20 times faster than real time, and a GPS clock that jumps, stay in
    /// order between the batches' reads.
    func testArrivalClockForBatchedReports() {
        var c = ArrivalClock()
        let offset: Int64 = 1_700_000_000_000   // GPS time − monotonic time
        var worst: Int64 = 0
        var t: Int64 = 0
        for batch in 1...20 {
            let read = Int64(batch) * 5000 + 300   // the batch is read a little after its last report
            while t <= read - 300 {
                let got = c.arrival(fixTimeMs: offset + t, readMonoMs: read)
                if batch > 1 { worst = max(worst, abs(got - t)) }
                XCTAssertLessThanOrEqual(got, read)
                t += 1000
            }
            c.endBatch(monoMs: read)
        }
        XCTAssertLessThanOrEqual(worst, 1000, "within a second of the arrival")

        // 20 epochs a second of ride time: a batch of 100 fixes read every 5 s. Arrivals stay
        // between the previous read and this one, and never go back.
        var fast = ArrivalClock()
        var last: Int64 = .min
        var fixTime: Int64 = 0
        for batch in 1...5 {
            let read = Int64(batch) * 5000
            for _ in 0..<100 {
                fixTime += 1000
                let got = fast.arrival(fixTimeMs: fixTime, readMonoMs: read)
                XCTAssertGreaterThanOrEqual(got, last)
                XCTAssertLessThanOrEqual(got, read)
                if batch > 1 { XCTAssertGreaterThanOrEqual(got, read - 5000) }
                last = got
            }
            fast.endBatch(monoMs: read)
        }

        // The GPS clock jumps back an hour: the next fixes land at the previous read, not before.
        var jump = ArrivalClock()
        _ = jump.arrival(fixTimeMs: offset + 4000, readMonoMs: 5000)
        jump.endBatch(monoMs: 5000)
        XCTAssertEqual(jump.arrival(fixTimeMs: offset + 5000 - 3_600_000, readMonoMs: 10_000), 5000)
    }

    func testNoHeightIsADash() {
        let t = AscentTracker()
        XCTAssertNil(t.ascentM)
        XCTAssertNil(t.descentM)
    }
}

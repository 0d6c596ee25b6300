import XCTest

@testable import CairnCore

/// Cadence and speed from cumulative counters, as tables of readings: steady pedalling, the event
/// clock and the counters rolling over, coasting, a sensor reset, a gap longer than a wrap,
/// contradictions and garbage.
final class RevolutionCounterTests: XCTestCase {
    typealias Event = RevolutionCounter.Event

    /// (revolutions, event time in ticks, arrival ms) → (rpm, event).
    struct Row {
        var revolutions: UInt32
        var ticks: UInt16
        var arrivalMs: Int64
        var rpm: Double?
        var event: Event
        init(_ revolutions: UInt32, _ ticks: UInt16, _ arrivalMs: Int64, _ rpm: Double?, _ event: Event) {
            (self.revolutions, self.ticks, self.arrivalMs, self.rpm, self.event) = (revolutions, ticks, arrivalMs, rpm, event)
        }
    }

    func run(_ name: String, _ rows: [Row], format: RevolutionFormat = .cscCrank, line: UInt = #line) {
        var cadence = CrankCadence(format: format)
        for (i, row) in rows.enumerated() {
            let step = cadence.add(RevolutionData(revolutions: row.revolutions, eventTime: row.ticks), arrivalMs: row.arrivalMs)
            XCTAssertEqual(step.event, row.event, "\(name), reading \(i)", line: line)
            switch (step.rpm, row.rpm) {
            case (nil, nil): break
            case (let got?, let want?): XCTAssertEqual(got, want, accuracy: 1e-9, "\(name), reading \(i)", line: line)
            default: XCTFail("\(name), reading \(i): rpm \(String(describing: step.rpm)), not \(String(describing: row.rpm))", line: line)
            }
        }
    }

    func testSteadyPedalling() {
        run(
            "60 rpm at 1 Hz",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(3, 3072, 3000, 60, .revolutions)
            ])
        run(
            "90 rpm: 3 revolutions in 2 s, notified each second",
            [
                Row(10, 100, 0, nil, .first), Row(11, 100 + 683, 1000, nil, .started),
                Row(13, 100 + 2048, 2000, 2 * 60 / (1365.0 / 1024), .revolutions),
                Row(14, 100 + 2731, 3000, 60 / (683.0 / 1024), .revolutions)
            ])
    }

    func testRollovers() {
        run(
            "the event clock wraps (every 64 s)",
            [
                Row(10, 62 * 1024, 0, nil, .first), Row(11, 63 * 1024, 1000, nil, .started), Row(12, 0, 2000, 60, .revolutions),
                Row(13, 1024, 3000, 60, .revolutions), Row(15, 1536, 3500, 240, .revolutions)
            ])
        run(
            "the 16-bit crank counter wraps",
            [
                Row(65_534, 1000, 0, nil, .first), Row(65_535, 2024, 1000, nil, .started), Row(0, 3048, 2000, 60, .revolutions),
                Row(1, 4072, 3000, 60, .revolutions)
            ])
        run(
            "both at once",
            [
                Row(65_534, 64_000, 0, nil, .first), Row(65_535, 65_024, 1000, nil, .started),
                Row(1, 65_024 &+ 1024, 2000, 120, .revolutions)
            ])
    }

    func testCoastingStopsAfterThreeSecondsAndPedallingStartsAgain() {
        run(
            "a repeated event time is no revolution",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(2, 2048, 3000, 60, .noRevolution), Row(2, 2048, 4000, 60, .noRevolution), Row(2, 2048, 5000, 0, .stopped),
                Row(2, 2048, 6000, 0, .stopped),
                // The first revolution after 5 s standing: a rate over the stop would be a lie.
                Row(3, 7168, 7000, nil, .started), Row(4, 8192, 8000, 60, .revolutions)
            ])
        run(
            "slow pedalling (40 rpm) at 1 Hz holds its rate between revolutions",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1536, 1600, nil, .started), Row(1, 1536, 2600, nil, .noRevolution),
                Row(2, 3072, 3200, 40, .revolutions), Row(2, 3072, 4200, 40, .noRevolution), Row(3, 4608, 4800, 40, .revolutions)
            ])
        run(
            "stopped for longer than a wrap, the notifications still coming",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(2, 2048, 5000, 0, .stopped), Row(2, 2048, 40_000, 0, .stopped),
                // 70 s later the clock has wrapped once: 6 s apparent, 70 s true.
                Row(3, 2048 &+ UInt16(truncatingIfNeeded: 70 * 1024), 72_000, nil, .afterGap),
                Row(4, 2048 &+ UInt16(truncatingIfNeeded: 71 * 1024), 73_000, 60, .revolutions)
            ])
    }

    func testASensorResetStartsCountingAgain() {
        run(
            "the counter goes back to 0",
            [
                Row(100, 10_240, 10_000, nil, .first), Row(101, 11_264, 11_000, nil, .started),
                Row(102, 12_288, 12_000, 60, .revolutions), Row(0, 500, 13_000, nil, .counterWentBack),
                Row(1, 1524, 14_000, nil, .started), Row(2, 2548, 15_000, 60, .revolutions)
            ])
        run(
            "the counter goes back by one",
            [
                Row(100, 0, 0, nil, .first), Row(101, 1024, 1000, nil, .started), Row(100, 2048, 2000, nil, .counterWentBack)
            ])
    }

    func testAGapLongerThanAWrap() {
        run(
            "out of range for 78 s while pedalling",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(80, UInt16(truncatingIfNeeded: 80 * 1024), 80_000, nil, .afterGap),
                Row(81, UInt16(truncatingIfNeeded: 81 * 1024), 81_000, 60, .revolutions)
            ])
        run(
            "a gap under half a wrap keeps the rate",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(31, 31 * 1024, 31_000, 60, .revolutions)
            ])
    }

    func testContradictionsAndGarbage() {
        run(
            "a burst far beyond 250 rpm between close readings",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(10, 2148, 2100, 60, .implausibleRate), Row(11, 3172, 3100, 60, .revolutions)
            ])
        run(
            "a counter jump no crank can turn",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(5000, 2048, 2000, nil, .counterWentBack)
            ])
        run(
            "revolutions with the event time unchanged, and a time moved without one",
            [
                Row(0, 0, 0, nil, .first), Row(1, 1024, 1000, nil, .started), Row(2, 2048, 2000, 60, .revolutions),
                Row(3, 2048, 3000, 60, .contradictoryTime), Row(3, 2500, 3500, 60, .contradictoryTime),
                Row(4, 4096, 4000, nil, .started), Row(5, 5120, 5000, 60, .revolutions)
            ])
        run(
            "an arrival before the base",
            [Row(0, 0, 5000, nil, .first), Row(1, 1024, 4000, nil, .outOfOrder), Row(2, 2048, 5000, nil, .started)])
    }

    /// Cycling Power's crank has the CSC crank's format; its wheel ticks 2048 a second and wraps
    /// every 32 s (`WheelSpeedTests`).
    func testPowerCrankFormat() {
        XCTAssertEqual(RevolutionFormat.powerCrank, .cscCrank)
        XCTAssertEqual(RevolutionFormat.powerWheel.clockWrapMs, 32_000)
        XCTAssertEqual(RevolutionFormat.cscWheel.clockWrapMs, 64_000)
        run("power crank", [Row(7, 0, 0, nil, .first), Row(8, 512, 500, nil, .started), Row(9, 1024, 1000, 120, .revolutions)], format: .powerCrank)
    }
}

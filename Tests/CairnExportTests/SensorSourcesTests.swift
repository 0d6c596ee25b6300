import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// Which source gives each figure, and the values every output takes (attack r19, findings 2,
/// 3, 5, 6, 8 and 17; the devices boot of round 19): each figure's sources in an order of
/// preference, a point taking the first source's value that is fresh, never two interleaved;
/// cadence from a power meter before a speed and cadence sensor; no rate without skin contact
/// or above 254 bpm; negative watts as 0.
final class SensorSourcesTests: XCTestCase {
    typealias N = SensorNotification
    static let strap: UInt64 = 0xA1, strap2: UInt64 = 0xA2
    static let csc: UInt64 = 0xB1
    static let pedals: UInt64 = 0xC1, trainer: UInt64 = 0xC2

    static func hr(_ a: UInt64, _ t: Int64, _ bpm: Int, flags: UInt8 = 0) -> N {
        let v: [UInt8] = bpm > 255 ? [flags | 1, UInt8(bpm & 0xFF), UInt8(bpm >> 8)] : [flags, UInt8(bpm)]
        return N(address: a, characteristic: 0x2A37, arrivalMonoMs: t, value: v)
    }

    static func power(_ a: UInt64, _ t: Int64, _ w: Int, crank: (revs: Int, ticks: Int)? = nil) -> N {
        let u = UInt16(bitPattern: Int16(w))
        var v: [UInt8] = [crank == nil ? 0 : 0x20, 0, UInt8(u & 0xFF), UInt8(u >> 8)]
        if let c = crank { v += le(c.revs) + le(c.ticks) }
        return N(address: a, characteristic: 0x2A63, arrivalMonoMs: t, value: v)
    }

    static func cscCrank(_ a: UInt64, _ t: Int64, revs: Int, ticks: Int) -> N {
        N(address: a, characteristic: 0x2A5B, arrivalMonoMs: t, value: [2] + le(revs) + le(ticks))
    }

    static func le(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }

    /// 90 rpm: 1.5 revolutions a second; `i` seconds in, from counter `rev0` at event time `tick0`.
    static func crankAt(_ i: Int, rev0: Int = 0, tick0: Int = 0) -> (revs: Int, ticks: Int) {
        let n = 3 * i / 2
        return ((rev0 + n) & 0xFFFF, (tick0 + Int((Double(n) / 1.5 * 1024).rounded())) & 0xFFFF)
    }

    func track(_ ns: [N]) -> SensorTrack {
        var b = SensorTrack.Builder()
        let sorted = ns.sorted { $0.arrivalMonoMs < $1.arrivalMonoMs }
        for s in stride(from: 0, to: sorted.count, by: 20) {
            b.add(SensorBatch(notifications: Array(sorted[s..<min(sorted.count, s + 20)]), gpsMinusMonoMs: 0, clockMinusMonoMs: 0))
        }
        return b.finish()
    }

    /// A power meter with crank data all ride, and one stray crank notification from a wheel
    /// sensor: the power meter's cadence at every point.
    func testPowerMeterCadenceSurvivesASpeedAndCadenceSensorsCrank() {
        var ns = (0..<300).map { i in Self.power(Self.pedals, Int64(i) * 1000, 200, crank: Self.crankAt(i)) }
        ns.append(Self.cscCrank(Self.csc, 150_500, revs: 7, ticks: 100))
        let t = track(ns)
        XCTAssertEqual((5...299).filter { t.values(atMs: Int64($0) * 1000).cadence == 90 }.count, 295)
        // A combined sensor's crank giving 60 rpm too: the power meter's still wins, and it is said.
        let both = ns + (0..<300).map { i in Self.cscCrank(Self.csc, Int64(i) * 1000 + 300, revs: i, ticks: i * 1024) }
        let t2 = track(both)
        XCTAssertEqual(t2.values(atMs: 200_000).cadence, 90)
        XCTAssertEqual(
            t2.notes,
            [
                "cadence: 296 values of speed and cadence sensor 00:00:00:00:00:B1 set aside "
                    + "(power meter 00:00:00:00:00:C1 comes first and had a value within 3 s)"
            ])
        // Without a power meter's cranks, the speed and cadence sensor's.
        let cscOnly = (0..<300).map { i in Self.cscCrank(Self.csc, Int64(i) * 1000, revs: i, ticks: i * 1024) }
        XCTAssertEqual(track(cscOnly + [Self.power(Self.pedals, 100_000, 200)]).values(atMs: 100_000).cadence, 60)
    }

    /// Pedals and a trainer out of step: the first that gave a value wherever it has one fresh,
    /// the other set aside and said.
    func testTwoPowerMetersAreNotInterleaved() {
        let ns = (0..<150).flatMap { i in
            [Self.power(Self.pedals, Int64(i) * 2000, 250), Self.power(Self.trainer, Int64(i) * 2000 + 1000, 300)]
        }
        let t = track(ns)
        XCTAssertEqual(Set((0..<290).map { t.values(atMs: Int64($0) * 1000).powerW }), [250])
        XCTAssertEqual(
            t.notes,
            [
                "power: 150 values of power meter 00:00:00:00:00:C2 set aside "
                    + "(power meter 00:00:00:00:00:C1 comes first and had a value within 3 s)"
            ])
        // Two straps likewise.
        let straps = (0..<100).flatMap { i in [Self.hr(Self.strap2, Int64(i) * 1000, 150), Self.hr(Self.strap, Int64(i) * 1000 + 500, 120)] }
        XCTAssertEqual(Set((0..<99).map { track(straps).values(atMs: Int64($0) * 1000).heartRate }), [150])
    }

    /// The power meter's cadence while it sends; while it is away (the adapter reset, out of
    /// range) the speed and cadence sensor fills in; back, the power meter again. One source a
    /// point, and each counter its own: no value made of both.
    func testASecondSourceFillsInWhileTheFirstIsAway() {
        var ns: [N] = []
        for i in 0..<300 {
            let t = Int64(i) * 1000
            // The power meter away from 100 s to 200 s; the speed and cadence sensor at 60 rpm all ride.
            if i < 100 || i >= 200 { ns.append(Self.power(Self.pedals, t, 250, crank: Self.crankAt(i))) }
            ns.append(Self.cscCrank(Self.csc, t + 400, revs: i, ticks: i * 1024))
            // Two straps: the first away from 50 s to 80 s.
            if i < 50 || i >= 80 { ns.append(Self.hr(Self.strap, t + 100, 150)) }
            ns.append(Self.hr(Self.strap2, t + 600, 120))
        }
        let t = track(ns)
        let cadence = (5..<295).map { t.values(atMs: Int64($0) * 1000).cadence }
        XCTAssertEqual(Set(cadence[0..<95]), [90])
        // Fresh means within 3 s either side: the power meter's value at 99 s fills up to 102 s,
        // its first at 200 s from 197 s.
        XCTAssertEqual(Set(cadence[98..<191]), [60])
        XCTAssertEqual(Set(cadence[196...]), [90])
        XCTAssertFalse(cadence.contains(nil))
        let hr = (0..<300).map { t.values(atMs: Int64($0) * 1000 + 100).heartRate }
        XCTAssertEqual(Set(hr[0..<53] + hr[77...]), [150])
        XCTAssertEqual(Set(hr[53..<77]), [120])
        XCTAssertEqual(
            t.notes,
            [
                "heart rate: strap 00:00:00:00:00:A2 filled in 25 of its 300 values while the sources before it "
                    + "(first strap 00:00:00:00:00:A1) had none within 3 s",
                "cadence: speed and cadence sensor 00:00:00:00:00:B1 filled in 96 of its 298 values while the sources before it "
                    + "(first power meter 00:00:00:00:00:C1) had none within 3 s"
            ])
    }

    /// Two crank counters answering to one address: no figure made of both, and it is said.
    func testTwoCrankCountersUnderOneAddressAreSaid() {
        let ns = (0..<300).flatMap { i in
            [
                Self.cscCrank(Self.csc, Int64(i) * 1000, revs: Self.crankAt(i, rev0: 1000).revs, ticks: Self.crankAt(i).ticks),
                Self.cscCrank(
                    Self.csc, Int64(i) * 1000 + 500, revs: Self.crankAt(i, rev0: 30_000).revs, ticks: Self.crankAt(i, tick0: 20_000).ticks)
            ]
        }
        let t = track(ns)
        XCTAssertEqual(t.notes.count, 1, "\(t.notes)")
        XCTAssertTrue(t.notes[0].contains("two sensors answering to one address?"), t.notes[0])
        XCTAssertTrue(t.isEmpty, "no cadence made of two counters")
    }

    /// A strap without skin contact, a rate over 254, negative watts: one rule, in the track
    /// every output reads.
    func testValuesEveryOutputTakesAlike() {
        var ns: [N] = []
        for i in 0..<300 {
            let t = Int64(i) * 1000
            // Contact supported and detected (flags 0x06) for 200 s, then not detected (0x04) at 220.
            ns.append(i < 200 ? Self.hr(Self.strap, t, 150, flags: 0x06) : Self.hr(Self.strap, t, 220, flags: 0x04))
            ns.append(Self.power(Self.pedals, t, i % 2 == 0 ? 200 : -200))
        }
        ns.append(Self.hr(Self.strap, 100_500, 280))
        let t = track(ns)
        XCTAssertEqual(Set((0..<200).map { t.values(atMs: Int64($0) * 1000).heartRate }), [150])
        XCTAssertNil(t.values(atMs: 280_000).heartRate, "no rate without skin contact")
        XCTAssertEqual(t.values(atMs: 100_500).heartRate, 150, "280 bpm is no value")
        XCTAssertEqual(t.values(atMs: 1000).powerW, 0, "negative watts are 0")
        XCTAssertEqual(t.values(atMs: 2000).powerW, 200)
        XCTAssertEqual(
            t.notes,
            [
                "heart rate: 100 readings without skin contact left out", "heart rate: 1 readings above 254 bpm left out",
                "power: 150 negative readings taken as 0 W"
            ])
    }

    /// Several trips in one CSV, the first without sensors (attack r19, finding 4): the header
    /// the document was given has the sensor columns, and the second trip's values are in it.
    func testACSVOfSeveralTripsHasEveryTripsSensorColumns() throws {
        let dir = ExportSupport.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/trips.csv"
        var settings = ExportFormat.Settings(version: "1.2.3")
        settings.sensorColumns = true
        let w = ExportFormat.csv.makeWriter(.sink(try OutputSink(creating: path, force: true)), settings)
        w.begin()
        let fixes = ExportSupport.ride(2)
        for (id, sensors) in [(UInt64(1), false), (2, true)] {
            var heading = TripHeading(id: id, activity: "ride")
            heading.hasSensors = sensors
            try w.beginTrip(heading)
            w.beginSegment(.start)
            var extras = PointExtras()
            if sensors { (extras.heartRate, extras.cadence, extras.powerW) = (140, 90, 250) }
            w.point(fixes[Int(id) - 1], extras)
            XCTAssertNoThrow(try w.endTrip())
        }
        XCTAssertNoThrow(try w.end())
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(rows[0].hasSuffix(",heartrate,cadence,power"), String(rows[0]))
        XCTAssertTrue(rows[1].hasSuffix(",,,"), String(rows[1]))
        XCTAssertTrue(rows[2].hasSuffix(",140,90,250"), String(rows[2]))
    }
}

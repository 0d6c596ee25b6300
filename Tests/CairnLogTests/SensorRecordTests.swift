import CairnCore
import Foundation
import XCTest

@testable import CairnLog

/// The sensor notifications record (LOG_FORMAT.md section 7d, type 9): its bytes, its round
/// trip, what a reader refuses, and that a trip with it reads as the same trip without it.
final class SensorRecordTests: XCTestCase {
    static let heart: UInt64 = 0xC0_11_22_33_44_55
    static let wheel: UInt64 = 0xD1_00_00_00_00_07

    func encode(_ b: SensorBatch) -> [UInt8] {
        var out: [UInt8] = []
        RecordCodec.encodeBody(.sensors(b), into: &out)
        return out
    }

    func decode(_ body: [UInt8], type: UInt8 = 9) throws -> LogRecord {
        try body.withUnsafeBytes { b -> LogRecord in
            var r = ByteReader(b)
            do { return try RecordCodec.decodeBody(type: type, &r) } catch { throw error }
        }
    }

    /// Two notifications of one strap, pinned byte for byte.
    func testTheBytesArePinned() {
        let b = SensorBatch(
            notifications: [
                SensorNotification(address: Self.heart, characteristic: 0x2A37, arrivalMonoMs: 1000, value: [0, 72]),
                SensorNotification(address: Self.heart, characteristic: 0x2A37, arrivalMonoMs: 1990, value: [0, 73])
            ], gpsMinusMonoMs: 5, clockMinusMonoMs: -1, leftOutBefore: 3)
        XCTAssertEqual(
            encode(b),
            [
                2, 3, 10, 1, 3, 1,  // n, flags, gps offset 5, clock offset -1, left out, one source
                0xD5, 0x88, 0xCD, 0x91, 0x92, 0x82, 0x30, 0xB7, 0x54,  // the address, the characteristic
                0, 0xD0, 0x0F, 2, 0, 72,  // source 0, arrival 1000, two bytes
                0, 0xBC, 0x0F, 2, 0, 73  // source 0, +990
            ])
    }

    /// The wheel's circumference (issue 40), appended after the notifications: pinned, read
    /// back; a record without it (written before it) reads the default, one outside 0.5-3.5 m
    /// reads as none.
    func testTheWheelsCircumferenceIsAppended() throws {
        let n = SensorNotification(address: Self.heart, characteristic: 0x2A5B, arrivalMonoMs: 1000, value: [1, 9, 0, 0, 0, 0, 4])
        let without = SensorBatch(notifications: [n], gpsMinusMonoMs: nil, clockMinusMonoMs: 0)
        var with = without
        with.wheelCircumferenceMm = 2105
        XCTAssertEqual(encode(with), encode(without) + [0xB9, 0x10], "2105 as a varint, last")
        XCTAssertEqual(try decode(encode(with)), .sensors(with))
        guard case .sensors(let old) = try decode(encode(without)) else { return XCTFail() }
        XCTAssertNil(old.wheelCircumferenceMm)
        XCTAssertEqual(old.wheelCircumferenceM, 2.105)
        for mm: UInt32 in [0, 499, 3501, 100_000] {
            var odd = without
            odd.wheelCircumferenceMm = mm
            guard case .sensors(let b) = try decode(encode(odd)) else { return XCTFail() }
            XCTAssertNil(b.wheelCircumferenceMm, "\(mm)")
        }
    }

    func testItRoundTrips() throws {
        var ns: [SensorNotification] = []
        for i in 0..<300 {
            let csc: [UInt8] = [3] + withUnsafeBytes(of: UInt32(i).littleEndian, Array.init) + [0, 4, UInt8(i % 256), 0, 8, 0]
            ns.append(SensorNotification(address: Self.wheel, characteristic: 0x2A5B, arrivalMonoMs: Int64(i) * 250, value: csc))
            if i % 4 == 0 {
                ns.append(SensorNotification(address: Self.heart, characteristic: 0x2A37, arrivalMonoMs: Int64(i) * 250 + 3, value: [0x10, 90, 0, 4]))
            }
        }
        ns.append(SensorNotification(address: Self.heart, characteristic: 0x2A19, arrivalMonoMs: -5, value: []))
        for b in [
            SensorBatch(notifications: ns, gpsMinusMonoMs: 1_780_000_000_000, clockMinusMonoMs: nil),
            SensorBatch(notifications: [], gpsMinusMonoMs: nil, clockMinusMonoMs: 42, leftOutBefore: 7),
            SensorBatch(notifications: Array(ns.prefix(1)), gpsMinusMonoMs: nil, clockMinusMonoMs: nil)
        ] {
            XCTAssertEqual(try decode(encode(b)), .sensors(b))
        }
    }

    /// A reader refuses what no writer makes: an index past the sources, a value over 255
    /// bytes, an address over 48 bits, more than 4,096 notifications, a count its bytes cannot hold.
    func testMalformedIsRefused() {
        let one = encode(
            SensorBatch(
                notifications: [SensorNotification(address: 1, characteristic: 0x2A37, arrivalMonoMs: 0, value: [0, 60])],
                gpsMinusMonoMs: nil, clockMinusMonoMs: nil))
        XCTAssertEqual(one, [1, 0, 0, 1, 1, 0xB7, 0x54, 0, 0, 2, 0, 60])
        var badIndex = one
        badIndex[7] = 1
        var long = Array(one.prefix(9))
        long.appendVarint(256)
        long += Array(repeating: 0, count: 256)
        var wide = [1, 0, 0, 1] as [UInt8]
        wide.appendVarint(1 << 48)
        wide += [0xB7, 0x54, 0, 0, 0]
        var many = [UInt8]()
        many.appendVarint(4097)
        many += [0, 0, 0]
        for (body, what) in [
            (badIndex, "index"), (long, "long value"), (wide, "wide address"), (many, "too many"),
            ([200, 1, 0, 0, 0] as [UInt8], "count over the bytes"), (Array(one.dropLast()), "truncated")
        ] {
            XCTAssertThrowsError(try decode(body), what)
        }
    }

    /// A reader from before type 9 delivers it as unknown and skips it: the trip it reads (its
    /// points, segments, figures) is the trip written without sensors.
    func testAReaderOfThePreviousShapeReadsTheTripTheSame() throws {
        func ride(sensors: Bool) throws -> (records: [LogRecord], dir: String) {
            let dir = NSTemporaryDirectory() + "cairn-sensors-\(UUID().uuidString)"
            let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 5000, say: { _ in })
            var mono: Int64 = 0
            log.apply(.openTrip(resume: false), monoMs: mono)
            log.apply(.startSegment(.start, timeMs: 1_780_000_000_000), monoMs: mono)
            for i in 0..<120 {
                mono += 1000
                let f = Fix(timeMs: 1_780_000_000_000 + Int64(i) * 1000, lat: 47 + Double(i) * 1e-4, lon: 8, mode: 3, speed: 8)
                log.fixArrived(timeMs: f.timeMs, arrivalMonoMs: mono)
                log.apply(.keep(f), monoMs: mono)
                if sensors {
                    for k in 0..<3 {
                        log.add(
                            sensor: SensorNotification(
                                address: Self.heart, characteristic: 0x2A37, arrivalMonoMs: mono + Int64(k) * 333, value: [0, UInt8(100 + k)]),
                            clockMinusMonoMs: 0, monoMs: mono)
                    }
                }
                log.tick(monoMs: mono)
            }
            log.closeTrip(
                TripEnd(reason: .shutdown, points: 120, distanceM: 1300, movingTimeMs: 120_000, firstTimeMs: nil, lastTimeMs: nil),
                drops: DropCounts(), monoMs: mono)
            var records: [LogRecord] = []
            for f in try LogDirectory.logFiles(in: dir) {
                try LogReader(path: f.path).forEach { e in
                    records.append(e.record)
                    return true
                }
            }
            return (records, dir)
        }
        let with = try ride(sensors: true)
        let without = try ride(sensors: false)
        let batches = with.records.compactMap { r -> SensorBatch? in if case .sensors(let b) = r { b } else { nil } }
        XCTAssertEqual(batches.reduce(0) { $0 + $1.notifications.count }, 360)
        XCTAssertGreaterThanOrEqual(batches.count, 20, "one record per sync")
        // Each notification's time: its arrival plus the fixes' offset, here GPS = mono + base - 1000.
        XCTAssertEqual(batches[0].timeMs(of: batches[0].notifications[0]), 1_780_000_000_000 + 0)
        // The previous shape: type 9 is a type it does not know.
        let previous = with.records.map { r -> LogRecord in
            guard case .sensors = r else { return r }
            var body: [UInt8] = []
            RecordCodec.encodeBody(r, into: &body)
            return (try? decode(body, type: 200)) ?? r
        }
        XCTAssertEqual(previous.filter { if case .unknown = $0 { false } else { true } }, without.records)
    }

    /// What three sensors cost on the card: an hour at 1 Hz fixes with a heart rate strap
    /// (1 Hz, one RR interval), a speed and cadence sensor (2 Hz, wheel and crank) and a power
    /// meter (4 Hz, crank data), synced every 5 s, against the same hour without them. Printed
    /// (the figure in the report); bounded so that a change to the format that doubles it fails.
    func testBytesPerHourWithThreeSensors() throws {
        func hour(sensors: Bool) throws -> Int {
            let dir = NSTemporaryDirectory() + "cairn-sensorsize-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 5000, say: { _ in })
            var mono: Int64 = 0
            let t0: Int64 = 1_780_000_000_000
            log.apply(.openTrip(resume: false), monoMs: mono)
            log.apply(.startSegment(.start, timeMs: t0), monoMs: mono)
            var wheel: UInt32 = 0, crank: UInt16 = 0, powerCrank: UInt16 = 0
            for i in 0..<3600 {
                let f = Fix(
                    timeMs: t0 + Int64(i) * 1000, lat: 47 + Double(i) * 7e-5, lon: 8 + Double(i % 50) * 1e-6, mode: 3,
                    altHAE: 400 + Double(i % 30) / 10,
                    eph: 3, speed: 7.8 + Double(i % 7) / 10, track: 12)
                for k in 0..<4 {
                    mono = Int64(i) * 1000 + Int64(k) * 250
                    guard sensors else { continue }
                    func add(_ c: UInt16, _ v: [UInt8], _ a: UInt64) {
                        log.add(
                            sensor: SensorNotification(address: a, characteristic: c, arrivalMonoMs: mono + 7, value: v), clockMinusMonoMs: 0,
                            monoMs: mono)
                    }
                    if k == 0 { add(0x2A37, [0x10, UInt8(120 + i % 30), 0x20, 0x03], 1) }
                    if k % 2 == 0 {
                        wheel &+= 2
                        crank &+= 1
                        let wt = UInt16(truncatingIfNeeded: mono * 1024 / 1000), ct = UInt16(truncatingIfNeeded: mono * 1024 / 1000 - 40)
                        add(
                            0x2A5B,
                            [3] + withUnsafeBytes(of: wheel.littleEndian, Array.init) + withUnsafeBytes(of: wt.littleEndian, Array.init)
                                + withUnsafeBytes(of: crank.littleEndian, Array.init) + withUnsafeBytes(of: ct.littleEndian, Array.init), 2)
                    }
                    powerCrank &+= UInt16(k % 2)
                    let w = Int16(180 + (i * 7 + k) % 60)
                    let pt = UInt16(truncatingIfNeeded: mono * 1024 / 1000)
                    add(
                        0x2A63,
                        [0x20, 0] + withUnsafeBytes(of: w.littleEndian, Array.init) + withUnsafeBytes(of: powerCrank.littleEndian, Array.init)
                            + withUnsafeBytes(of: pt.littleEndian, Array.init), 3)
                }
                log.fixArrived(timeMs: f.timeMs, arrivalMonoMs: Int64(i) * 1000 + 300)
                log.apply(.keep(f), monoMs: mono)
                log.tick(monoMs: mono)
            }
            log.closeTrip(
                TripEnd(reason: .shutdown, points: 3600, distanceM: 28_000, movingTimeMs: 3_600_000, firstTimeMs: nil, lastTimeMs: nil),
                drops: DropCounts(), monoMs: mono)
            return try LogDirectory.logFiles(in: dir).reduce(0) {
                $0 + ((try FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int) ?? 0)
            }
        }
        let with = try hour(sensors: true), without = try hour(sensors: false)
        let notifications = 3600 * (1 + 2 + 4)
        print(
            "sensors: \(with - without) bytes an hour for \(notifications) notifications (\(Double(with - without) / Double(notifications)) a notification); log \(without) -> \(with) bytes"
        )
        XCTAssertLessThan(with - without, 600_000)
    }
}

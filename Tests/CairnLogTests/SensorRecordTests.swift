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
}

import CairnCore
import Foundation
import XCTest

@testable import CairnLog

final class CodecTests: LogTestCase {
    // MARK: CRC

    func testCRC32CKnownVectors() {
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([]), 0)
        // RFC 3720 (iSCSI) B.4 vectors.
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0, count: 32)), 0x8A91_36AA)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)), 0x62A8_AB43)
        XCTAssertEqual(CRC32C.checksum((0..<32).map { UInt8($0) }), 0x46DD_794E)
    }

    func testSlicingMatchesBitwiseAtEveryLengthAndAlignment() {
        var g = SplitMix64(seed: 1)
        let data = (0..<300).map { _ in UInt8.random(in: 0...255, using: &g) }
        for start in 0..<9 {
            for end in stride(from: start, through: data.count, by: 7) {
                let slice = Array(data[start..<end])
                XCTAssertEqual(CRC32C.checksum(slice), Self.bitwiseCRC32C(slice))
            }
        }
    }

    func testMaskRoundTrips() {
        for c: UInt32 in [0, 1, 0xFFFF_FFFF, 0xE306_9283, 0xA282_EAD8] {
            XCTAssertEqual(CRC32C.unmask(CRC32C.mask(c)), c)
        }
        XCTAssertNotEqual(CRC32C.mask(0xE306_9283), 0xE306_9283)
    }

    /// The scanner's prefix shortcut equals a direct CRC for any sub-range and seed.
    func testPrefixRegisterIdentity() {
        var g = SplitMix64(seed: 2)
        let data = (0..<2000).map { _ in UInt8.random(in: 0...255, using: &g) }
        var prefix: [UInt32] = [0]
        CRC32C.tables.withUnsafeBufferPointer { t in
            for b in data { prefix.append(CRC32C.step(prefix.last!, b, t)) }
        }
        for _ in 0..<500 {
            let s = Int.random(in: 0..<data.count, using: &g)
            let e = Int.random(in: s...data.count, using: &g)
            let seed = UInt32.random(in: .min ... .max, using: &g)
            let direct = data[s..<e].withUnsafeBytes { CRC32C.update(seed, $0) }
            let viaPrefix = prefix[e] ^ CRC32C.multiply(CRC32C.zeroShift[e - s], prefix[s] ^ seed)
            XCTAssertEqual(direct, viaPrefix)
        }
    }

    func testFrameCRCIsStandardCRCOfSaltAndFrame() throws {
        // The spec's definition, checked against the writer's bytes with a bitwise CRC.
        let path = try write([.note("hello")], salt: 0xDEAD_BEEF)
        let b = try bytes(path)
        let frame = Array(b[32...])
        let payload = Self.varint(1) + Array("hello".utf8)
        XCTAssertEqual(frame, Self.handFrame(salt: 0xDEAD_BEEF, type: 5, payload: payload))
    }

    /// The example in LOG_FORMAT.md, byte for byte.
    func testGoldenExampleFromTheSpec() throws {
        let path = try write([.note("hi")], salt: 0x1234_5678, tripId: 7)
        let expected: [UInt8] =
            Array("CAIRNLOG".utf8) + [
                0x02, 0x00, 0x20, 0x00, 0x78, 0x56, 0x34, 0x12,
                0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x00, 0x00, 0x00, 0x00, 0xA8, 0xAB, 0x04, 0x63,
                0xD2, 0x82, 0xD9, 0x05, 0x03, 0x00, 0x05, 0x01, 0x68, 0x69
            ]
        XCTAssertEqual(try bytes(path), expected)
    }

    /// Any bytes after a valid header: the reader never traps and only delivers verified frames.
    func testRandomFramesNeverTrap() throws {
        var g = SplitMix64(seed: 12)
        let salt: UInt32 = 31
        var b = try bytes(try write([], salt: salt))
        var verifiable = 0
        for i in 0..<3000 {
            let type = UInt8.random(in: 0...255, using: &g)
            let n = Int.random(in: 0...40, using: &g)
            var payload = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            if i % 2 == 0 { payload = Self.varint(UInt64(i)) + payload }
            if i % 7 == 0 {  // a points record with random points
                payload =
                    Self.varint(UInt64(i)) + Self.varint(UInt64.random(in: 0...5, using: &g))
                    + (0..<Int.random(in: 0...60, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
                b += Self.handFrame(salt: salt, type: 3, payload: payload)
                verifiable += 1
            } else {
                b += Self.handFrame(salt: salt, type: type, payload: payload)
                if type != 0 && type != FrameFormat.RecordType.padding { verifiable += 1 }
            }
            if i % 97 == 0 { b += (0..<Int.random(in: 1...30, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) } }
        }
        let p = try put(b, "fuzz.cairn")
        var n = 0
        try LogReader(path: p).forEach { _ in
            n += 1; return true
        }
        let r = try LogReader(path: p).scan()
        XCTAssertEqual(r.records + r.malformedRecords + r.implausibleRecords, verifiable)
        XCTAssertLessThanOrEqual(n, verifiable)
        XCTAssertGreaterThan(n, 2000)
    }

    // MARK: Varints

    func testVarintEdgeCases() throws {
        let cases: [(UInt64, [UInt8])] = [
            (0, [0]), (1, [1]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
            (16383, [0xFF, 0x7F]), (16384, [0x80, 0x80, 0x01]),
            (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
            (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        ]
        for (v, enc) in cases {
            XCTAssertEqual(Self.varint(v), enc, "\(v)")
            XCTAssertEqual(Varint.length(v), enc.count)
            let decoded = try enc.withUnsafeBytes { p in
                var r = ByteReader(p)
                let x = try r.varint()
                XCTAssertTrue(r.isAtEnd)
                return x
            }
            XCTAssertEqual(decoded, v)
        }
        let bad: [[UInt8]] = [
            [],  // empty
            [0x80],  // truncated
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],  // > 64 bits
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]  // 11 bytes
        ]
        for enc in bad {
            enc.withUnsafeBytes { p in
                var r = ByteReader(p)
                XCTAssertNil(try? r.varint(), "\(enc)")
            }
        }
    }

    func testZigzagEdgeCases() {
        let cases: [(Int64, UInt64)] = [
            (0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (63, 126), (-64, 127),
            (Int64.max, UInt64.max - 1), (Int64.min, UInt64.max)
        ]
        for (v, z) in cases {
            XCTAssertEqual(Varint.zigzag(v), z)
            XCTAssertEqual(Varint.unzigzag(z), v)
        }
        var g = SplitMix64(seed: 3)
        for _ in 0..<1000 {
            let v = Int64(bitPattern: g.next())
            XCTAssertEqual(Varint.unzigzag(Varint.zigzag(v)), v)
        }
    }

    // MARK: Records

    /// The trip start's UTC offset is an appended field: without one, the bytes are as before;
    /// a reader takes an absurd offset as none.
    func testTripStartOffsetIsAnAppendedField() throws {
        var plain: [UInt8] = [], zoned: [UInt8] = []
        RecordCodec.encodeBody(.tripStart(activity: "ride", software: "s"), into: &plain)
        RecordCodec.encodeBody(.tripStart(activity: "ride", software: "s", utcOffsetS: 3600), into: &zoned)
        XCTAssertEqual(plain, [4] + Array("ride".utf8) + [1] + Array("s".utf8))
        XCTAssertEqual(zoned, plain + [1, 0xA0, 0x38])  // flags, zigzag(3600) = 7200 as a varint
        var absurd = plain + [1]
        absurd.appendZigzag(19 * 3600)
        let decoded = try absurd.withUnsafeBytes { b -> LogRecord in
            var r = ByteReader(b)
            do { return try RecordCodec.decodeBody(type: 1, &r) } catch { throw error }
        }
        XCTAssertEqual(decoded, .tripStart(activity: "ride", software: "s", utcOffsetS: nil))
    }

    func testEveryRecordTypeRoundTrips() throws {
        let recs: [LogRecord] = [
            .tripStart(activity: "", software: ""),
            .tripStart(activity: "mtb ⛰️ Zürich", software: "cairn 0.1 (linux-aarch64)"),
            .tripStart(activity: "ride", software: "cairn", utcOffsetS: 7200),
            .tripStart(activity: "ride", software: "cairn", utcOffsetS: -34_200),
            .tripStart(activity: "ride", software: "cairn", utcOffsetS: 0),
            .segmentStart(.start, timeMs: nil),
            .segmentStart(.resume, timeMs: -5),
            .segmentStart(.reconnect, timeMs: Int64.max),
            .segmentStart(.other, timeMs: Int64.min),
            .dropped([]),
            .dropped([DropCount(rule: 0, count: 0), DropCount(rule: 255, count: UInt64.max)]),
            .note(""),
            .note("write failed: ENOSPC — 日本"),
            .points([]),
            .tripEnd(
                TripEnd(
                    reason: .standstill, points: 0, distanceM: 0, movingTimeMs: 0,
                    firstTimeMs: nil, lastTimeMs: nil)),
            .tripEnd(
                TripEnd(
                    reason: .fault, points: UInt64.max, distanceM: 42_195.01, movingTimeMs: Int64.max,
                    firstTimeMs: -1, lastTimeMs: nil)),
            .tripEnd(
                TripEnd(
                    reason: .other, points: 1, distanceM: 0.5, movingTimeMs: 1,
                    firstTimeMs: nil, lastTimeMs: 1_700_000_000_000)),
            .unknown(type: 200, payload: [1, 2, 3]),
            .unknown(type: 100, payload: [])
        ]
        let path = try write(recs)
        let got = try entries(path)
        XCTAssertEqual(got.map(\.record), recs)
        XCTAssertEqual(got.map(\.seq), Array(1...UInt64(recs.count)))
        let report = try LogReader(path: path).scan()
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.unknownRecords, 2)
        XCTAssertEqual(report.records, recs.count)
        XCTAssertTrue(report.hasTripEnd)
    }

    func testTripEndClampsWhatItCannotStore() throws {
        let path = try write([
            .tripEnd(
                TripEnd(
                    reason: .shutdown, points: 3, distanceM: -.infinity,
                    movingTimeMs: -7, firstTimeMs: nil, lastTimeMs: nil))
        ])
        guard case .tripEnd(let e) = try records(path).first else { return XCTFail() }
        XCTAssertEqual(e.distanceM, 0)
        XCTAssertEqual(e.movingTimeMs, 0)
        let nan = try write(
            [
                .tripEnd(
                    TripEnd(
                        reason: .shutdown, points: 3, distanceM: .nan,
                        movingTimeMs: 0, firstTimeMs: nil, lastTimeMs: nil))
            ], number: 2)
        guard case .tripEnd(let e2) = try records(nan).first else { return XCTFail() }
        XCTAssertEqual(e2.distanceM, 0)
    }

    func testUnknownEnumRawValuesReadAsOther() throws {
        let salt: UInt32 = 99
        let path = try write([], salt: salt)
        var b = try bytes(path)
        b += Self.handFrame(salt: salt, type: 2, payload: Self.varint(1) + [77, 0])  // segment reason 77
        b += Self.handFrame(salt: salt, type: 6, payload: Self.varint(2) + [99, 0, 0, 0, 0])  // trip end reason 99
        let p = try put(b, "x.cairn")
        XCTAssertEqual(
            try records(p),
            [
                .segmentStart(.other, timeMs: nil),
                .tripEnd(TripEnd(reason: .other, points: 0, distanceM: 0, movingTimeMs: 0, firstTimeMs: nil, lastTimeMs: nil))
            ])
    }

    func testTrailingBytesAfterKnownFieldsAreIgnored() throws {
        let salt: UInt32 = 5
        var b = try bytes(try write([], salt: salt))
        b += Self.handFrame(salt: salt, type: 2, payload: Self.varint(1) + [1, 1] + Self.varint(Varint.zigzag(-3)) + [9, 9, 9])
        let p = try put(b, "x.cairn")
        XCTAssertEqual(try records(p), [.segmentStart(.gap, timeMs: -3)])
        XCTAssertTrue(try LogReader(path: p).scan().isClean)
    }

    func testMalformedKnownRecordIsReportedNotFatal() throws {
        let salt: UInt32 = 6
        var b = try bytes(try write([.note("a")], salt: salt))
        // A points record whose head is 0 for the first point (no previous mask).
        b += Self.handFrame(salt: salt, type: 3, payload: Self.varint(2) + [1, 0, 0, 0, 0])
        // A frame with an empty payload (no sequence number).
        b += Self.handFrame(salt: salt, type: 5, payload: [])
        b += Self.handFrame(salt: salt, type: 5, payload: Self.varint(3) + Array("b".utf8))
        let p = try put(b, "x.cairn")
        let got = try entries(p)
        XCTAssertEqual(got.map(\.seq), [1, 2, 3])
        XCTAssertEqual(got[1].record, .unknown(type: 3, payload: [1, 0, 0, 0, 0]))
        XCTAssertEqual(got[2].record, .note("b"))
        let r = try LogReader(path: p).scan()
        XCTAssertEqual(r.malformedRecords, 2)
        XCTAssertEqual(r.records, 2)
        XCTAssertTrue(r.damaged.isEmpty)
        XCTAssertFalse(r.isClean)
    }

    // MARK: Points

    func testPointsEveryFieldPresentOrAbsent() throws {
        // All 512 subsets of the nine optional fields, in one trip (so the mask changes, repeats
        // and fields come and go between present values).
        var fixes: [Fix] = []
        for m in 0..<512 {
            let i = Double(m)
            func f(_ bit: Int, _ v: Double) -> Double? { m & (1 << bit) != 0 ? v : nil }
            fixes.append(
                Fix(
                    timeMs: 1_600_000_000_000 + Int64(m) * 1000,
                    lat: -33.8688 + i * 1e-5, lon: 151.2093 - i * 1e-5, mode: m % 2 == 0 ? 3 : 2,
                    altHAE: f(0, 20 + i * 0.01), altMSL: f(1, -3.5 - i), eph: f(2, 1.23),
                    epx: f(3, 0.5 + i / 100), epy: f(4, 0.7), epv: f(5, 12.34),
                    speed: f(6, i / 10), track: f(7, (i * 7).truncatingRemainder(dividingBy: 360)),
                    climb: f(8, -i / 1000)))
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 1))
        for (k, f) in fixes.enumerated() {
            try w.append(point: f)
            if k % 37 == 0 { try w.sync() }
        }
        try w.sync()
        var got: [Fix] = []
        for r in try records(w.path) { if case .points(let p) = r { got += p } }
        XCTAssertEqual(got, fixes.map(quantised))
        for (a, b) in zip(got, fixes) {
            XCTAssertEqual(a.lat, b.lat, accuracy: 0.5e-7)
            XCTAssertEqual(a.lon, b.lon, accuracy: 0.5e-7)
            if let x = b.altHAE { XCTAssertEqual(a.altHAE!, x, accuracy: 0.005) }
            if let x = b.speed { XCTAssertEqual(a.speed!, x, accuracy: 0.0005) }
        }
    }

    func testPointsNegativeCoordinatesPolesAndAntimeridian() throws {
        let coords: [(Double, Double)] = [
            (-90, -180), (90, 180), (0, 0), (-0.0000001, -0.0000001),
            (-16.5, 179.9999999), (-16.5, -179.9999999), (-16.5, 179.9999998), (-16.5, -180),
            (-54.8019, -68.3030), (71.1710, 25.7837), (-77.846, 166.676)
        ]
        let fixes = coords.enumerated().map { i, c in
            Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: c.0, lon: c.1, mode: 3)
        }
        let path = try write([.points(fixes)])
        XCTAssertEqual(try records(path), [.points(fixes.map(quantised))])
        guard case .points(let got) = try records(path)[0] else { return XCTFail() }
        for (a, b) in zip(got, fixes) {
            XCTAssertEqual(a.lat, b.lat, accuracy: 0.5e-7)
            XCTAssertEqual(a.lon, b.lon, accuracy: 0.5e-7)
        }
    }

    /// The codec carries any 64-bit value exactly (what a reader then accepts is `PointBounds`:
    /// ReaderTests.testImpossibleValuesAreDamageOrLeftOut), so this runs the encoder and decoder
    /// directly: the writer refuses these times.
    func testPointsExtremeValues() throws {
        func roundTrip(_ fixes: [Fix]) throws -> [Fix] {
            var e = CompactPointsEncoder()
            var body: [UInt8] = []
            e.encode(fixes[...], into: &body)
            return try body.withUnsafeBytes { b in
                var r = ByteReader(b)
                return try CompactPointsDecoder.decode(&r)
            }
        }
        let fixes = [
            Fix(timeMs: Int64.min, lat: 1, lon: 1, mode: 3),
            Fix(timeMs: Int64.max, lat: 1, lon: 1, mode: 3),
            Fix(timeMs: 0, lat: 1, lon: 1, mode: Int.min),
            Fix(timeMs: Int64.min, lat: 1, lon: 1, mode: Int.max),
            Fix(
                timeMs: -1, lat: 1, lon: 1, mode: 0, altHAE: 1e300, altMSL: -1e300, eph: 0x1p60,
                epx: -0.0, epy: .leastNonzeroMagnitude, epv: 0.004999, speed: 1e9, track: 359.995, climb: -1e9),
            Fix(timeMs: 1, lat: 1, lon: 1, mode: 3, altHAE: -1e300, altMSL: 1e300)
        ]
        let got = try roundTrip(fixes)
        XCTAssertEqual(got.map(\.timeMs), fixes.map(\.timeMs))
        XCTAssertEqual(got.map(\.mode), fixes.map(\.mode))
        XCTAssertEqual(got, fixes.map(quantised))
        XCTAssertEqual(got[4].altHAE, 0x1p50 / 100)  // clamped to ±2^50 units
        XCTAssertEqual(got[4].altMSL, -0x1p50 / 100)
        XCTAssertEqual(got[4].epy, 0)
        XCTAssertEqual(got[4].epv, 0)
        // Re-encoding what was read gives the same values (the grid is stable).
        XCTAssertEqual(try roundTrip(got), got)
    }

    func testNonFiniteOptionalsAreAbsentAndBadPositionsRejected() throws {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 1))
        let t: Int64 = 1_700_000_000_000
        try w.append(
            point: Fix(
                timeMs: t + 5, lat: 1, lon: 2, mode: 3, altHAE: .nan, altMSL: .infinity,
                eph: -.infinity, speed: 1.5, track: .nan))
        for bad in [
            Fix(timeMs: t, lat: .nan, lon: 0, mode: 3), Fix(timeMs: t, lat: 0, lon: .infinity, mode: 3),
            Fix(timeMs: t, lat: 90.0000001, lon: 0, mode: 3), Fix(timeMs: t, lat: 0, lon: -180.5, mode: 3),
            // Times a reader would take as damage (PointBounds) are refused too.
            Fix(timeMs: 0, lat: 1, lon: 2, mode: 3), Fix(timeMs: 946_684_799_999, lat: 1, lon: 2, mode: 3),
            Fix(timeMs: 4_102_444_800_000, lat: 1, lon: 2, mode: 3)
        ] {
            XCTAssertThrowsError(try w.append(point: bad)) {
                XCTAssertEqual(($0 as? LogError)?.kind, .invalidArgument)
            }
            XCTAssertThrowsError(try w.append(.points([Fix(timeMs: t + 1, lat: 0, lon: 0, mode: 3), bad])))
        }
        XCTAssertFalse(w.failed)
        XCTAssertEqual(try w.sync(), 1)
        XCTAssertEqual(try records(w.path), [.points([Fix(timeMs: t + 5, lat: 1, lon: 2, mode: 3, speed: 1.5)])])
    }

    func testManyPointsAreBatchedAndRoundTrip() throws {
        var g = SplitMix64(seed: 4)
        var fixes: [Fix] = []
        var lat = 46.0, lon = 7.0, t: Int64 = 1_700_000_000_000
        for _ in 0..<10_000 {
            lat += 5e-5 + 1e-6 * g.gaussian()
            lon += -3e-5 + 1e-6 * g.gaussian()
            t += Int64.random(in: 900...1100, using: &g)
            fixes.append(
                Fix(
                    timeMs: t, lat: lat, lon: lon, mode: 3, altMSL: 500 + g.gaussian(),
                    speed: 6 + g.gaussian(), track: Double.random(in: 0..<360, using: &g)))
        }
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 77))
        for f in fixes { try w.append(point: f) }
        XCTAssertEqual(try w.sync(), UInt64((10_000 + 255) / 256))
        var got: [Fix] = []
        var batches: [Int] = []
        for r in try records(w.path) {
            guard case .points(let p) = r else { return XCTFail() }
            got += p
            batches.append(p.count)
        }
        XCTAssertEqual(got, fixes.map(quantised))
        XCTAssertEqual(batches.first, LogWriter.pointsBatchCapacity)
        // A large `.points` record is split into batches too.
        let big = try write([.points(fixes)], number: 2)
        XCTAssertEqual(try records(big).count, (10_000 + 255) / 256)
    }

    func testUnknownFieldBitsAreSkipped() throws {
        // A points record from a "newer writer": mask has bits 0-2 and 14, and 40.
        let salt: UInt32 = 11
        var b = try bytes(try write([], salt: salt))
        let mask: UInt64 = 0b111 | (1 << 14) | (1 << 40)
        var body = Self.varint(1) + Self.varint(2)  // seq 1, 2 points
        body += Self.varint(mask + 1)
        body += Self.varint(Varint.zigzag(1_700_000_001_000)) + Self.varint(Varint.zigzag(100)) + Self.varint(Varint.zigzag(-200))
        body += Self.varint(Varint.zigzag(123_456)) + Self.varint(Varint.zigzag(-1))  // unknown fields
        body += [0]  // same mask
        body += Self.varint(Varint.zigzag(5)) + Self.varint(Varint.zigzag(1)) + Self.varint(Varint.zigzag(2))
        body += Self.varint(UInt64.max) + [0]
        b += Self.handFrame(salt: salt, type: 3, payload: body)
        let p = try put(b, "x.cairn")
        XCTAssertEqual(
            try records(p),
            [
                .points([
                    Fix(timeMs: 1_700_000_001_000, lat: 100e-7, lon: -200e-7, mode: 0),
                    Fix(timeMs: 1_700_000_001_005, lat: 101e-7, lon: -198e-7, mode: 0)
                ])
            ])
    }

    func testSecondOrderPredictionMakesSteadyMotionCheap() throws {
        // Constant velocity: after the first two points each point is head + 4 one-byte residuals.
        let fixes = (0..<100).map { i in
            Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 47 + Double(i) * 5e-5, lon: 8 + Double(i) * 3e-5, mode: 3)
        }
        var e = PointsEncoder()
        for f in fixes.prefix(2) { e.add(f) }
        let afterTwo = e.body.count
        for f in fixes.dropFirst(2) { e.add(f) }
        XCTAssertEqual(e.body.count - afterTwo, 98 * 5)
    }
}

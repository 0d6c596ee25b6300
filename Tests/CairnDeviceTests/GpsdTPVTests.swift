import CairnCore
import Foundation
import XCTest

@testable import CairnDevice

/// The one-pass TPV reader must give exactly what libgps gives whenever it answers.
final class GpsdTPVTests: XCTestCase {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let state = GpsdSource.DecodeState()

    /// "" when both agree (or the fast path defers), else what differs.
    func disagreement(_ line: [UInt8]) -> String? {
        let fast = line.withUnsafeBufferPointer { GpsdTPV.report($0) }
        guard let fast else { return nil }
        let lib = GpsdSource.decodeWithLibgps(line: line, state: state)
        switch (fast, lib) {
        case (.fix(let a), .report(.fix(let b))) where a == b: return ""
        case (.noFix, .report(.noFix)), (.noTime, .report(.noTime)): return ""
        default: return "fast \(fast), libgps \(lib)"
        }
    }

    /// Every TPV line of gpsd's regression outputs (13 receivers).
    func testAgreesWithLibgpsOnGpsdsOwnOutput() throws {
        let dir = Self.repoRoot.appendingPathComponent("Tests/Fixtures/gpsd/expected")
        var lines = 0, fast = 0, fixes = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".json") {
            // gpsd ends its lines with CR LF; GpsdSource strips the CR.
            let data = try Data(contentsOf: dir.appendingPathComponent(name))
            for raw in data.split(separator: 10) {
                let bytes = Array(raw.last == 13 ? raw.dropLast() : raw[...])
                guard bytes.starts(with: Array("{\"class\":\"TPV\"".utf8)) else { continue }
                lines += 1
                let l = String(decoding: bytes, as: UTF8.self)
                guard let d = disagreement(bytes) else { continue }
                fast += 1
                XCTAssertEqual(d, "", "\(name): \(l)")
                if case .fix = bytes.withUnsafeBufferPointer({ GpsdTPV.report($0) })! { fixes += 1 }
            }
        }
        print("GpsdTPV: \(lines) TPV lines, \(fast) read by the fast path (\(fixes) fixes), the rest by libgps")
        XCTAssertGreaterThan(lines, 3000)
        XCTAssertGreaterThan(Double(fast), 0.99 * Double(lines))
        XCTAssertGreaterThan(fixes, 1000)
    }

    /// Variations of a real line: fields dropped, repeated, retyped, reordered, odd times and
    /// numbers. Wherever the fast path answers, libgps agrees; the odd ones go to libgps.
    func testAgreesWithLibgpsOnVariations() {
        let base =
            #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2025-06-01T08:00:00.000Z","ept":0.005,"lat":47.376883333,"lon":8.541763333,"altHAE":467.100,"altMSL":420.100,"alt":420.100,"epx":2.871,"epy":3.470,"epv":6.831,"track":95.2000,"magtrack":97.1,"speed":6.436,"climb":-0.100,"eps":6.94,"epc":13.66,"geoidSep":47.000,"eph":4.512,"sep":8.203}"#
        var variants: [String] = [base]
        let fields = [
            "\"mode\":3,", "\"lat\":47.376883333,", "\"lon\":8.541763333,", "\"time\":\"2025-06-01T08:00:00.000Z\",",
            "\"altHAE\":467.100,", "\"speed\":6.436,", "\"track\":95.2000,"
        ]
        for f in fields { variants.append(base.replacingOccurrences(of: f, with: "")) }
        let swaps: [(String, String)] = [
            ("\"mode\":3", "\"mode\":2"), ("\"mode\":3", "\"mode\":1"), ("\"mode\":3", "\"mode\":0"),
            ("\"mode\":3", "\"mode\":3.0"), ("\"mode\":3", "\"mode\":\"3\""), ("\"mode\":3", "\"mode\":-1"),
            ("\"lat\":47.376883333", "\"lat\":\"47\""), ("\"lat\":47.376883333", "\"lat\":-0.000000001"),
            ("\"lat\":47.376883333", "\"lat\":4.7376883333e1"), ("\"lat\":47.376883333", "\"lat\":47.3768833331234567"),
            ("\"lat\":47.376883333", "\"lat\":0"), ("\"lat\":47.376883333", "\"lat\":-90"), ("\"lon\":8.541763333", "\"lon\":-179.999999999"),
            ("\"lat\":47.376883333", "\"lat\":null"), ("\"speed\":6.436", "\"speed\":0.000"), ("\"climb\":-0.100", "\"climb\":-0"),
            ("000Z", "Z"), ("000Z", "5Z"), ("000Z", "123456789Z"), (".000Z", "Z"), ("08:00:00", "23:59:59"),
            ("2025-06-01", "1980-01-06"), ("2025-06-01", "2024-02-29"), ("2025-06-01", "2023-02-29"), ("2025-06-01", "2025-13-01"),
            ("08:00:00", "08:00:60"), ("2025-06-01T", "2025-06-01 "), (".000Z", ".000+00:00"), ("2025", "1970"), ("2025", "0225"), ("2025", "2100"),
            ("\"device\":\"/dev/pts/1\"", "\"device\":\"\\u002Fdev\""), ("\"ept\":0.005", "\"ept\":[1,{\"a\":[true,false,null]}]"),
            ("\"speed\"", "\"sp\\u0065ed\""), (",\"sep\":8.203}", ",\"sep\":8.203,\"lat\":1.5}"), ("{", "{ "), ("}", " } "),
            ("\"ept\":0.005", "\"ept\":true"), ("\"ept\":0.005", "\"ept\":\"x\""), ("\"ept\":0.005", "\"newkey\":1"),
            ("\"device\":\"/dev/pts/1\"", "\"device\":7"), ("\"class\":\"TPV\",", "\"class\":\"TPV\",\"status\":2,"),
            (
                "\"class\":\"TPV\",",
                "\"class\":\"TPV\",\"ecefx\":4283530.15,\"ecefy\":641062.06,\"ecefz\":4669834.3,\"ecefvx\":0.01,\"ecefvy\":-0.2,\"ecefvz\":0.05,\"ecefpAcc\":3.1,\"ecefvAcc\":0.4,"
            ),
            ("\"class\":\"TPV\",", "\"class\":\"TPV\",\"velN\":1.5,\"velE\":-6.2,\"velD\":0.1,"),
            ("\"class\":\"TPV\",", "\"class\":\"TPV\",\"dgpsAge\":1.0,\"dgpsSta\":12,\"depth\":3.5,"),
            // libgps refuses a device name that does not fit its 128-byte buffer (found by the fuzzer).
            ("/dev/pts/1", "/dev/" + String(repeating: "p", count: 122)), ("/dev/pts/1", "/dev/" + String(repeating: "p", count: 123))
        ]
        for (a, b) in swaps { variants.append(base.replacingOccurrences(of: a, with: b)) }
        var answered = 0
        for v in variants {
            guard let d = disagreement(Array(v.utf8)) else { continue }
            answered += 1
            XCTAssertEqual(d, "", v)
        }
        XCTAssertGreaterThan(answered, variants.count / 2)
        // The fast path defers on what it cannot be sure of.
        for odd in [
            "\"mode\":3.0", "\"lat\":\"47\"", "sp\\u0065ed", "08:00:60", ".000+00:00", "2023-02-29", "\"lat\":1.5}",
            "\"ept\":[1", "\"ept\":true", "\"newkey\":1", "\"device\":7", "{ ", String(repeating: "p", count: 123)
        ] {
            let v = swaps.first { $0.1.contains(odd) }.map { base.replacingOccurrences(of: $0.0, with: $0.1) }!
            XCTAssertNil(Array(v.utf8).withUnsafeBufferPointer { GpsdTPV.report($0) }, odd)
        }
    }

    /// Valid JSON with whitespace after the colons and commas (`"class": "TPV"`), as some
    /// gpsd-compatible servers write it, reads as the same report as gpsd's compact line, by
    /// the one-pass reader or by libgps; whitespace inside strings is kept. Other classes so
    /// laid out stay other lines; a spaced TPV that is not valid JSON is counted unreadable.
    func testTPVWithWhitespaceReadsLikeTheCompactLine() {
        let compact =
            #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2025-06-01T08:00:00.000Z","lat":47.376883333,"lon":8.541763333,"altHAE":467.100,"eph":4.512,"speed":6.436,"track":95.2,"climb":-0.1}"#
        func decode(_ s: String) -> GpsdSource.LineResult { GpsdSource.decode(line: Array(s.utf8), state: state) }
        func fix(_ r: GpsdSource.LineResult) -> Fix? { if case .report(.fix(let f)) = r { return f }; return nil }
        guard let want = fix(decode(compact)) else { return XCTFail("the compact line is a fix") }
        let spaced = compact.replacingOccurrences(of: "\":", with: "\": ").replacingOccurrences(of: ",\"", with: ", \"")
        XCTAssertTrue(spaced.hasPrefix(#"{"class": "TPV", "device": "#), spaced)
        for line in [
            spaced, "{ " + spaced.dropFirst(), spaced.replacingOccurrences(of: ": ", with: " :\t"),
            spaced.replacingOccurrences(of: "}", with: " }  ")
        ] {
            XCTAssertEqual(fix(decode(line)), want, line)
        }
        // A key the one-pass reader leaves to libgps (last: libgps stops reading at it): libgps
        // gets the compacted line.
        let odd = spaced.replacingOccurrences(of: #""climb": -0.1}"#, with: #""climb": -0.1, "newkey": [1, 2]}"#)
        XCTAssertNil(Array(odd.utf8).withUnsafeBufferPointer { GpsdTPV.report($0) })
        XCTAssertEqual(fix(decode(odd)), want, odd)
        // Whitespace inside a string is the string's.
        let device = spaced.replacingOccurrences(of: "/dev/pts/1", with: "/dev/my gps")
        XCTAssertEqual(fix(decode(device)), want)
        // Not a TPV, or not JSON.
        if case .other = decode(#"{"class": "SKY", "device": "/dev/pts/1", "satellites": []}"#) {} else { XCTFail("SKY is another class") }
        if case .unreadable = decode(#"{"class": "TPV", "mode": 3, "lat": 47.1,"#) {} else { XCTFail("a torn spaced TPV is unreadable") }
        if case .unreadable = decode(#"{"class": "TPV", "mode": 3} x"#) {} else { XCTFail("trailing garbage is unreadable") }
    }

    /// The perfect hash finds every key gpsd writes, each in its own slot, read from a short
    /// line (byte by byte) or a long one (8 bytes at once), and finds no other key.
    func testKeyTableFindsExactlyTheKnownKeys() {
        var slots = Set<Int>()
        for (i, (name, _)) in GpsdTPV.kindsByName.enumerated() {
            for padding in [0, 12] {
                // The key then `":0` and padding: short lines end within 8 bytes of the key.
                let line = Array(name.utf8) + Array("\":0".utf8) + [UInt8](repeating: 32, count: padding)
                let found = line.withUnsafeBufferPointer { b in
                    GpsdTPV.table.withUnsafeBufferPointer { t in
                        GpsdTPV.entry(UnsafeBufferPointer(rebasing: b[0..<name.utf8.count]), readableTo: b.baseAddress! + b.count, t)
                    }
                }
                XCTAssertEqual(found?.slot, i, "\(name), padding \(padding)")
            }
            var p: UInt64 = 0
            for (k, c) in name.utf8.enumerated() { p |= UInt64(c) << (8 * UInt64(k)) }
            slots.insert(GpsdTPV.hashSlot(p))
        }
        XCTAssertEqual(slots.count, GpsdTPV.kindsByName.count)
        for other in ["la", "latt", "Lat", "class1", "modes", "x", "speed\u{7f}", "ecefvAcX", "altMSLx"] {
            let line = Array(other.utf8) + Array("\":0           ".utf8)
            let found = line.withUnsafeBufferPointer { b in
                GpsdTPV.table.withUnsafeBufferPointer { t in
                    GpsdTPV.entry(UnsafeBufferPointer(rebasing: b[0..<other.utf8.count]), readableTo: b.baseAddress! + b.count, t)
                }
            }
            XCTAssertNil(found, other)
        }
    }

    func testIsoTimes() {
        func ms(_ s: String) -> Int64? { Array(s.utf8).withUnsafeBufferPointer { GpsdTPV.isoTimeMs($0) } }
        XCTAssertEqual(ms("1970-01-01T00:00:00.000Z"), 0)
        XCTAssertEqual(ms("2025-06-01T08:00:00.123Z"), 1_748_764_800_123)
        XCTAssertEqual(ms("2025-06-01T08:00:00.1239Z"), 1_748_764_800_123)
        XCTAssertEqual(ms("2025-06-01T08:00:00.5Z"), 1_748_764_800_500)
        XCTAssertEqual(ms("2000-02-29T23:59:59Z"), 951_868_799_000)
        XCTAssertNil(ms("2001-02-29T00:00:00Z"))
        XCTAssertNil(ms("0225-06-01T08:00:00.000Z"))  // libgps decides years outside 1970-2099
        XCTAssertNil(ms("2025-06-01T08:00:00.Z"))
        XCTAssertNil(ms("2025-06-01T08:00:00.0000000001Z"))
    }
}

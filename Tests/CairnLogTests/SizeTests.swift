import CairnCore
import CairnSystem
import Foundation
import XCTest

@testable import CairnLog

/// Measures the on-card cost of a synthetic ride and prints it.
final class SizeTests: LogTestCase {
    /// A 1 Hz ride at ~6 m/s: a wandering heading, rolling terrain, and receiver noise that is
    /// correlated from epoch to epoch (as a tracking receiver's is), with every gpsd TPV field.
    static func ride(points: Int, seed: UInt64 = 42) -> [Fix] {
        var g = SplitMix64(seed: seed)
        var lat = 47.3769, lon = 8.5417, alt = 410.0
        var heading = 30.0, speed = 6.0, grade = 0.0
        var nN = 0.0, nE = 0.0, nU = 0.0  // position noise (m), AR(1)
        var eph = 4.2, epv = 9.1
        var fixes: [Fix] = []
        let t0: Int64 = 1_717_000_000_000
        for i in 0..<points {
            heading += 3 * g.gaussian()
            if i % 90 == 45 { heading += 90 * (g.gaussian() > 0 ? 1 : -1) }  // a turn now and then
            heading = (heading + 360).truncatingRemainder(dividingBy: 360)
            speed = min(9, max(3, speed + 0.15 * g.gaussian()))
            grade = min(0.08, max(-0.08, grade + 0.004 * g.gaussian()))
            let dN = speed * cos(heading * .pi / 180), dE = speed * sin(heading * .pi / 180)
            lat += dN / 111_195
            lon += dE / (111_195 * cos(lat * .pi / 180))
            alt += speed * grade
            nN = 0.9 * nN + 0.15 * g.gaussian()
            nE = 0.9 * nE + 0.15 * g.gaussian()
            nU = 0.9 * nU + 0.3 * g.gaussian()
            eph = min(12, max(2.5, eph + 0.02 * g.gaussian()))
            epv = min(25, max(5, epv + 0.04 * g.gaussian()))
            let fixLat = lat + nN / 111_195
            let fixLon = lon + nE / (111_195 * cos(lat * .pi / 180))
            let msl = alt + nU
            fixes.append(
                Fix(
                    timeMs: t0 + Int64(i) * 1000, lat: fixLat, lon: fixLon, mode: 3,
                    altHAE: msl + 48.27, altMSL: msl,
                    eph: eph, epx: eph * 0.61, epy: eph * 0.74, epv: epv,
                    speed: speed + 0.03 * g.gaussian(),
                    track: (heading + 0.4 * g.gaussian() + 360).truncatingRemainder(dividingBy: 360),
                    climb: speed * grade + 0.05 * g.gaussian()))
        }
        return fixes
    }

    /// Bytes per point in a file holding only `fixes`, synced every `batch` points.
    func bytesPerPoint(_ fixes: [Fix], batch: Int, number: UInt32) throws -> Double {
        // fdatasync is irrelevant to the size; skip it to keep the test fast.
        let io = FileIO(fdatasync: { _ in })
        let w = try LogWriter(directory: dir, number: number, header: FileHeader(tripId: 1, part: 0, salt: 9), io: io)
        for (i, f) in fixes.enumerated() {
            try w.append(point: f)
            if (i + 1) % batch == 0 { try w.sync() }
        }
        try w.sync()
        let report = try LogReader(path: w.path).scan()
        XCTAssertEqual(report.points, fixes.count)
        XCTAssertTrue(report.isClean)
        return Double(w.bytesWritten - 32) / Double(fixes.count)
    }

    /// What format 1 (type 3 points records, still read) spent on the same batches.
    func format1BytesPerPoint(_ fixes: [Fix], batch: Int) -> Double {
        var total = 0, seq: UInt64 = 0
        var i = 0
        while i < fixes.count {
            var e = PointsEncoder()
            for f in fixes[i..<min(fixes.count, i + batch)] { e.add(f) }
            seq += 1
            total += FrameFormat.frameHeaderLength + Varint.length(seq) + Varint.length(UInt64(e.count)) + e.body.count
            i += batch
        }
        return Double(total) / Double(fixes.count)
    }

    func testBytesPerPointOfASyntheticRide() throws {
        let full = Self.ride(points: 3600)
        let minimal = full.map { Fix(timeMs: $0.timeMs, lat: $0.lat, lon: $0.lon, mode: $0.mode) }
        let withAlt = full.map { Fix(timeMs: $0.timeMs, lat: $0.lat, lon: $0.lon, mode: $0.mode, altMSL: $0.altMSL) }
        var n: UInt32 = 0
        var lines: [String] = []
        for (name, fixes) in [
            ("all 13 TPV fields", full), ("time+lat+lon+mode+altMSL", withAlt),
            ("time+lat+lon+mode", minimal)
        ] {
            var cols: [String] = []
            for batch in [1, 5, 60, 256] {
                n += 1
                let bpp = try bytesPerPoint(fixes, batch: batch, number: n)
                let old = format1BytesPerPoint(fixes, batch: batch)
                cols.append("batch \(batch): \(String(format: "%.2f", bpp)) B/pt (format 1: \(String(format: "%.2f", old)))")
                if batch > 1 { XCTAssertLessThan(bpp, old, "\(name), batch \(batch)") }
            }
            lines.append("\(name): " + cols.joined(separator: ", "))
        }
        print("cairn log size, 1 Hz ride at ~6 m/s, 3600 points, frame overhead included:")
        for l in lines { print("  " + l) }
        // Guard against regressions in the predictor: steady motion must stay cheap.
        let b60 = try bytesPerPoint(full, batch: 60, number: 100)
        XCTAssertLessThan(b60, 10)
        let b256 = try bytesPerPoint(full, batch: 256, number: 102)
        XCTAssertLessThan(b256, 8.5)
        let m60 = try bytesPerPoint(minimal, batch: 60, number: 101)
        XCTAssertLessThan(m60, 3)
    }
}

import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

/// A small deterministic generator (SplitMix64) with Gaussian draws.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gauss(_ sigma: Double) -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return sigma * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// A 1 Hz bike ride as gpsd reports it from an NMEA receiver (the shape of
/// Tests/tools/make-ride.py): 4-9 m/s along a wandering path over rolling hills, a few metres of
/// receiver noise, every field gpsd fills. Heights are trusted (epv 12 m) except for one minute
/// in five, when gpsd says epv 80 m (VDOP 3.5) and exports must leave them out.
struct SyntheticRide {
    var rng: SplitMix64
    var lat: Double
    var lon: Double
    var heading = 90.0
    var speed = 6.0
    var alt = 420.0
    var i = 0
    let t0: Int64

    init(seed: UInt64 = 1, lat: Double = 47.3769, lon: Double = 8.5417, t0: Int64 = 1_748_764_800_000) {
        rng = SplitMix64(state: seed)
        self.lat = lat
        self.lon = lon
        self.t0 = t0
    }

    mutating func next() -> Fix {
        heading = (heading + rng.gauss(4)).truncatingRemainder(dividingBy: 360)
        if heading < 0 { heading += 360 }
        speed = min(9, max(4, speed + rng.gauss(0.3)))
        lat += speed * cos(heading * .pi / 180) / 111_195
        lon += speed * sin(heading * .pi / 180) / (111_195 * cos(lat * .pi / 180))
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        let newAlt = 420 + 60 * sin(Double(i) / 600) + rng.gauss(1.5)
        let climb = newAlt - alt
        alt = newAlt
        let hdop = 0.8 + 0.3 * rng.uniform()
        let trusted = (i / 60) % 5 != 4
        let f = Fix(
            timeMs: t0 + Int64(i) * 1000,
            lat: lat + rng.gauss(1.5e-5), lon: lon + rng.gauss(2e-5), mode: 3,
            altHAE: alt + 47, altMSL: alt,
            eph: hdop * 19, epx: hdop * 12, epy: hdop * 14, epv: trusted ? 12 : 80,
            speed: speed, track: heading, climb: climb)
        i += 1
        return f
    }
}

/// A trip to write into a log: segments of points, each with the reason it began.
struct TripSpec {
    var id: UInt64 = 1
    var activity = "ride"
    var segments: [(SegmentReason, [Fix])]
    var close = true
    /// The recorder's UTC offset, recorded with the trip start.
    var utcOffsetS: Int? = nil
    /// The board that recorded it (`BoardId`), recorded with the trip start.
    var board: String? = nil
    /// The rider's presses (record type 10), written after the points, as the recorder writes
    /// them before the raw fixes' sync.
    var marks: [RiderMark] = []
}

enum ExportSupport {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var gpxSchema: String { repoRoot.appendingPathComponent("Tests/Fixtures/schemas/gpx.xsd").path }
    static var checker: String { repoRoot.appendingPathComponent("Tests/tools/check-export.py").path }

    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-export-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Writes `trip` into `dir` as the recorder would (points framed every `batch` points: the
    /// recorder's 5 s sync cadence at 1 Hz), returning the file's path.
    @discardableResult
    static func writeLog(_ trip: TripSpec, dir: String, number: UInt32 = 1, batch: Int = 5) throws -> String {
        let w = try LogWriter(directory: dir, number: number, header: FileHeader(tripId: trip.id, part: 0, salt: 0x5EED_0000 | number))
        try w.append(.tripStart(activity: trip.activity, software: "cairn tests", utcOffsetS: trip.utcOffsetS, board: trip.board))
        var stats = TripStats()
        for (reason, fixes) in trip.segments {
            try w.append(.segmentStart(reason, timeMs: fixes.first?.timeMs))
            stats.startSegment(reason)
            var i = 0
            while i < fixes.count {
                let chunk = Array(fixes[i..<min(i + batch, fixes.count)])
                try w.append(.points(chunk))
                for f in chunk { stats.add(f) }
                i += batch
            }
        }
        for m in trip.marks { try w.append(.riderMark(m)) }
        if trip.close {
            try w.append(
                .tripEnd(
                    TripEnd(
                        reason: .shutdown, points: UInt64(stats.points), distanceM: stats.distanceM,
                        movingTimeMs: stats.movingTimeMs, firstTimeMs: stats.firstTimeMs, lastTimeMs: stats.lastTimeMs)))
        }
        _ = try w.sync()
        w.close()
        return w.path
    }

    /// The convert loop (as `cairn convert` runs it): every trip under `dir` through `writer`.
    @discardableResult
    static func export(_ dir: String, _ writer: TrackExporter, extras: (Fix) -> PointExtras = { _ in .none }) throws -> [TripSummary] {
        let trips = TripCatalog.trips(TripCatalog.files([dir]) { XCTFail($0) })
        var out: [TripSummary] = []
        writer.begin()
        for t in trips {
            var h = TripHeading(id: t.id, activity: nil)
            if writer.wantsSummaryFirst {
                h.summary = try TripCatalog.read(t)
                h.activity = h.summary?.activity
            }
            try writer.beginTrip(h)
            let s = try TripCatalog.read(t) { e in
                switch e {
                case .segment(let r): writer.beginSegment(r)
                case .point(let f): writer.point(f, extras(f))
                case .raw: break  // not asked for
                }
            }
            XCTAssertNoThrow(try writer.endTrip())
            out.append(s)
        }
        XCTAssertNoThrow(try writer.end())
        return out
    }

    /// Runs Tests/tools/check-export.py; fails the test (never skips) when a reader rejects the
    /// file or is missing. Returns what the readers saw.
    @discardableResult
    static func check(
        _ format: String, _ path: String, expectFailure: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String: Any] {
        var args = [checker, format, path]
        if format == "gpx" { args += ["--gpx-schema", gpxSchema] }
        let r = try run("/usr/bin/env", ["python3"] + args)
        if expectFailure {
            XCTAssertEqual(r.status, 1, "a reader should reject \(path): \(r.stdout) \(r.stderr)", file: file, line: line)
            return ["stderr": r.stderr]
        }
        XCTAssertEqual(r.status, 0, "check-export \(format): \(r.stderr)", file: file, line: line)
        guard r.status == 0, let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return [:] }
        return obj
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ exe: String, _ args: [String]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let d = tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        _ = FileManager.default.createFile(atPath: d + "/o", contents: nil)
        _ = FileManager.default.createFile(atPath: d + "/e", contents: nil)
        let o = FileHandle(forWritingAtPath: d + "/o")!, e = FileHandle(forWritingAtPath: d + "/e")!
        p.standardOutput = o
        p.standardError = e
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try? o.close()
        try? e.close()
        return Result(
            status: p.terminationStatus,
            stdout: String(decoding: FileManager.default.contents(atPath: d + "/o") ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileManager.default.contents(atPath: d + "/e") ?? Data(), as: UTF8.self))
    }

    static func ride(_ n: Int, seed: UInt64 = 1, startMs: Int64 = 1_748_764_800_000, lat: Double = 47.3769, lon: Double = 8.5417) -> [Fix] {
        var r = SyntheticRide(seed: seed, lat: lat, lon: lon, t0: startMs)
        return (0..<n).map { _ in r.next() }
    }
}

/// A value shared with the threads of a test, behind a lock.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ v: T) { value = v }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ v: T) { update { $0 = v } }
    func update(_ f: (inout T) -> Void) { lock.lock(); f(&value); lock.unlock() }
}

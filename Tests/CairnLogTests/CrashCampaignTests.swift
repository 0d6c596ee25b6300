import CairnCore
import Foundation
import XCTest

@testable import CairnLog

/// The in-process part of the crash-test protocol (Tests/crash/RESULTS.md): A1-A5 (damage
/// to a finished file) and C (simulated power loss while writing). Every test prints its
/// figures as `FIGURE <test> key=value ...` lines, which Tests/crash/run-campaign.sh collects.
///
/// Always on, each test runs a slice; with `CAIRN_CRASH_FULL=1` it runs the protocol's trial
/// counts (the campaign does that, in a release build).
final class CrashCampaignTests: LogTestCase {
    static let full = ProcessInfo.processInfo.environment["CAIRN_CRASH_FULL"] == "1"

    func figure(_ name: String, _ pairs: KeyValuePairs<String, Any>) {
        print("FIGURE \(name) " + pairs.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }

    /// A reference file written by the real writer (deterministic except for the salt, which is
    /// fixed here): ~600 records of mixed types and sizes, and one record larger than 24 KiB.
    /// Returns the path, its bytes, the entries, and each frame's byte range.
    func reference(
        records: Int = 600, salt: UInt32 = 0x5EED_0001, number: UInt32 = 1, tripId: UInt64 = 3,
        seed: UInt64 = 1
    ) throws -> (path: String, bytes: [UInt8], entries: [LogEntry], frames: [Range<Int>]) {
        var g = SplitMix64(seed: seed)
        let w = try LogWriter(directory: dir, number: number, header: FileHeader(tripId: tripId, part: 0, salt: salt))
        var t: Int64 = 1_748_764_800_000
        var lat = 47.0, lon = 8.5
        try w.append(.tripStart(activity: "ride", software: "cairn crash test"))
        try w.append(.segmentStart(.start, timeMs: t))
        var n = 2
        while n < records {
            let k = Int.random(in: 0..<100, using: &g)
            if n == records / 2 {
                try w.append(.note(String(repeating: "big record ", count: 2300)))  // 25,300 bytes
            } else if k < 75 {
                let count = Int.random(in: 1...12, using: &g)
                var fixes: [Fix] = []
                for _ in 0..<count {
                    t += 1000
                    lat += Double.random(in: -1e-4...1e-4, using: &g)
                    lon += Double.random(in: -1e-4...1e-4, using: &g)
                    fixes.append(
                        Fix(
                            timeMs: t, lat: lat, lon: lon, mode: 3, altMSL: 400 + Double(k), eph: 4.5,
                            speed: Double(k) / 10, track: Double(k * 3)))
                }
                try w.append(.points(fixes))
                if k % 3 == 0 {
                    // The raw fixes record (type 8) the recorder writes beside its points: the
                    // campaign's damage must cost it no more than any other record.
                    let settings = RawSettings(clockIsFix: false, closeAfterMs: 1_800_000)
                    let raws = fixes.enumerated().map { i, f in
                        RawFix(
                            fix: f.atLogResolution, arrivalMs: f.timeMs + 180 + Int64(i), verdict: i % 2 == 0 ? .kept : .dropped(.tooClose),
                            events: n == 2 && i == 0 ? .runStart : [], settings: settings)
                    }
                    try w.append(.rawFixes(RawBatch(activity: "ride", fixes: raws)))
                }
            } else if k < 85 {
                try w.append(.note(String(repeating: "n", count: Int.random(in: 0...40, using: &g))))
            } else if k < 92 {
                try w.append(.segmentStart(.gap, timeMs: t))
            } else {
                try w.append(.dropped([DropCount(rule: UInt8(k % 7), count: UInt64(n))]))
            }
            n += 1
            if k % 9 == 0 { try w.sync() }
        }
        try w.append(.tripEnd(TripEnd(reason: .shutdown, points: 1, distanceM: 2, movingTimeMs: 3, firstTimeMs: t, lastTimeMs: t)))
        try w.sync()
        w.close()
        let b = try bytes(w.path)
        let e = try entries(w.path)
        let offsets = e.map(\.offset)
        let frames = zip(offsets, offsets.dropFirst() + [b.count]).map { $0..<$1 }
        return (w.path, b, e, frames)
    }

    /// A ~1 MiB file of point batches (S2).
    func bigReference() throws -> (path: String, bytes: [UInt8], entries: [LogEntry], frames: [Range<Int>]) {
        let w = try LogWriter(directory: dir, number: 9, header: FileHeader(tripId: 9, part: 0, salt: 0x5EED_0002))
        let ride = SizeTests.ride(points: 50_000)
        var i = 0
        while i < ride.count {
            let k = 1 + (i * 7919) % 23
            try w.append(.points(Array(ride[i..<min(ride.count, i + k)])))
            i += k
        }
        try w.sync()
        w.close()
        let b = try bytes(w.path)
        let e = try entries(w.path)
        let offsets = e.map(\.offset)
        return (w.path, b, e, zip(offsets, offsets.dropFirst() + [b.count]).map { $0..<$1 })
    }

    /// Scratch files live on tmpfs when there is one (each trial writes a whole file).
    lazy var scratch: String = {
        let shm = "/dev/shm"
        var st = stat()
        if stat(shm, &st) == 0 && access(shm, W_OK) == 0 {
            let d = shm + "/cairn-crash-\(getpid())-\(UUID().uuidString.prefix(8))"
            mkdir(d, 0o755)
            return d
        }
        return dir
    }()

    override func tearDownWithError() throws {
        if scratch.hasPrefix("/dev/shm/") { try? FileManager.default.removeItem(atPath: scratch) }
        try super.tearDownWithError()
    }

    func scratchFile(_ b: [UInt8]) throws -> String {
        let p = scratch + "/t.cairn"
        let fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let n = b.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        XCTAssertEqual(n, b.count)
        return p
    }

    /// What the reader makes of `b`: entries and scan (nil when the header does not read).
    func read(_ b: [UInt8]) throws -> (entries: [LogEntry], scan: ScanReport)? {
        let p = try scratchFile(b)
        guard let r = try? LogReader(path: p) else { return nil }
        var out: [LogEntry] = []
        try r.forEach {
            out.append($0); return true
        }
        return (out, try r.scan())
    }

    /// Entries not in the original (same seq, offset and record): fabricated.
    func fabricated(_ got: [LogEntry], _ original: [LogEntry], byOffset: [Int: Int]) -> Int {
        got.filter { e in
            guard let i = byOffset[e.offset] else { return true }
            return original[i].seq != e.seq || original[i].record != e.record
        }.count
    }

    // MARK: A1 truncation at every offset

    func testA1TruncationAtEveryOffset() throws {
        let s1 = try reference()
        var mismatches = 0, falseCorruption = 0, cases = 0
        let stride1 = Self.full ? 1 : 97
        for cut in Swift.stride(from: 0, through: s1.bytes.count, by: stride1) {
            cases += 1
            let b = Array(s1.bytes[0..<cut])
            guard let got = try read(b) else {
                if cut >= 32 { mismatches += 1 }
                continue
            }
            let want = zip(s1.entries, s1.frames).filter { $0.1.upperBound <= cut }.map(\.0)
            if got.entries.map(\.seq) != want.map(\.seq) || got.entries.map(\.offset) != want.map(\.offset) { mismatches += 1 }
            if !got.scan.damaged.isEmpty || got.scan.sequenceGaps != 0 || got.scan.malformedRecords != 0 { falseCorruption += 1 }
        }
        // S2: a 1 MiB file, every 97th offset (full) or every 9,973rd.
        let s2 = try bigReference()
        var cases2 = 0
        for cut in Swift.stride(from: 32, through: s2.bytes.count, by: Self.full ? 97 : 50_021) {
            cases2 += 1
            guard let got = try read(Array(s2.bytes[0..<cut])) else { mismatches += 1; continue }
            let want = s2.frames.filter { $0.upperBound <= cut }.count
            if got.entries.count != want || got.entries.last?.seq != (want == 0 ? nil : UInt64(want)) { mismatches += 1 }
            if !got.scan.damaged.isEmpty || got.scan.sequenceGaps != 0 { falseCorruption += 1 }
        }
        figure(
            "A1",
            [
                "s1_bytes": s1.bytes.count, "s1_records": s1.entries.count, "s1_cases": cases,
                "s2_bytes": s2.bytes.count, "s2_records": s2.entries.count, "s2_cases": cases2,
                "mismatches": mismatches, "false_corruption_reports": falseCorruption
            ])
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(falseCorruption, 0)
    }

    // MARK: A2 a single-bit flip at every byte

    func testA2BitFlipAtEveryByte() throws {
        let s1 = try reference()
        let byOffset = Dictionary(uniqueKeysWithValues: s1.entries.enumerated().map { ($1.offset, $0) })
        var fabricatedTotal = 0, failedResyncs = 0, unreported = 0, cases = 0, headerFlips = 0
        var lost: [Int] = []
        let step = Self.full ? 1 : 211
        for offset in Swift.stride(from: 0, to: s1.bytes.count, by: step) {
            cases += 1
            var b = s1.bytes
            b[offset] ^= UInt8(1 << (offset % 8))
            guard let got = try read(b) else {
                // The header is damaged: the file is refused as a whole, never misread.
                XCTAssertLessThan(offset, 32)
                headerFlips += 1
                continue
            }
            XCTAssertGreaterThanOrEqual(offset, 28, "a flip in bytes 0..<28 must fail the header CRC")
            fabricatedTotal += fabricated(got.entries, s1.entries, byOffset: byOffset)
            let k = s1.frames.firstIndex { $0.contains(offset) }
            let survivors = Set(got.entries.map(\.offset))
            // Every frame other than the damaged one must come back (resync).
            for (i, f) in s1.frames.enumerated() where i != k && !survivors.contains(f.lowerBound) { failedResyncs += 1 }
            lost.append(s1.entries.count - got.entries.count)
            if let k, k != s1.frames.count - 1, got.scan.damaged.isEmpty { unreported += 1 }
        }
        lost.sort()
        let mean = lost.isEmpty ? 0 : Double(lost.reduce(0, +)) / Double(lost.count)
        figure(
            "A2",
            [
                "cases": cases, "header_flips_refused": headerFlips, "fabricated": fabricatedTotal,
                "failed_resyncs": failedResyncs, "unreported_damage": unreported,
                "lost_mean": String(format: "%.3f", mean), "lost_p99": lost.isEmpty ? 0 : lost[lost.count * 99 / 100],
                "lost_max": lost.last ?? 0
            ])
        XCTAssertEqual(fabricatedTotal, 0)
        XCTAssertEqual(failedResyncs, 0)
        XCTAssertEqual(unreported, 0)
        XCTAssertEqual(lost.last ?? 0, 1, "a flip loses exactly the frame it hits")
    }

    // MARK: A3 sector damage

    func testA3SectorDamage() throws {
        let s = try bigReference()
        let byOffset = Dictionary(uniqueKeysWithValues: s.entries.enumerated().map { ($1.offset, $0) })
        var g = SplitMix64(seed: 33)
        let sectors = s.bytes.count / 512
        struct Row { var name: String; var trials: Int; var fabricated = 0; var unconfined = 0; var lost: [Int] = [] }
        var rows = [
            Row(name: "sector512", trials: Self.full ? 10_000 : 30),
            Row(name: "page4k", trials: Self.full ? 1_000 : 8),
            Row(name: "sectors2to5", trials: Self.full ? 1_000 : 8)
        ]
        for r in rows.indices {
            for trial in 0..<rows[r].trials {
                // Data sectors only: damage to sector 0 (the header) is A-hdr below.
                let count = r == 0 ? 1 : r == 1 ? 8 : Int.random(in: 2...5, using: &g)
                let first = r == 1 ? 8 * Int.random(in: 1..<(sectors / 8), using: &g) : Int.random(in: 1..<(sectors - count), using: &g)
                let range = (first * 512)..<((first + count) * 512)
                var b = s.bytes
                let fill = trial % 3
                for i in range { b[i] = fill == 0 ? 0 : fill == 1 ? 0xFF : UInt8.random(in: 0...255, using: &g) }
                guard let got = try read(b) else { XCTFail("header lost"); continue }
                rows[r].fabricated += fabricated(got.entries, s.entries, byOffset: byOffset)
                let have = Set(got.entries.map(\.offset))
                // Loss confined to the frames that overlap the damaged bytes.
                for f in s.frames where !have.contains(f.lowerBound) && !f.overlaps(range) { rows[r].unconfined += 1 }
                rows[r].lost.append(s.entries.count - got.entries.count)
            }
        }
        // Header sector: the whole file is refused with a clear error, nothing is misread.
        var headerRefused = 0
        for fill: UInt8 in [0, 0xFF, 0x5A] {
            var b = s.bytes
            for i in 0..<512 { b[i] = fill }
            if try read(b) == nil { headerRefused += 1 }
        }
        for row in rows {
            let mean = Double(row.lost.reduce(0, +)) / Double(max(1, row.lost.count))
            figure(
                "A3",
                [
                    "damage": row.name, "trials": row.trials, "file_bytes": s.bytes.count, "fabricated": row.fabricated,
                    "lost_outside_damage": row.unconfined, "lost_mean": String(format: "%.2f", mean),
                    "lost_max": row.lost.max() ?? 0
                ])
            XCTAssertEqual(row.fabricated, 0, row.name)
            XCTAssertEqual(row.unconfined, 0, row.name)
        }
        figure("A3", ["damage": "header_sector", "trials": 3, "file_refused": headerRefused])
    }

    // MARK: A4 garbage tail

    func testA4GarbageTail() throws {
        let s1 = try reference()
        let other = try reference(records: 200, salt: 0x0BAD_5A17, number: 2, tripId: 3, seed: 2)  // same trip, next file
        let byOffset = Dictionary(uniqueKeysWithValues: s1.entries.enumerated().map { ($1.offset, $0) })
        var g = SplitMix64(seed: 44)
        var lostValid = 0, staleAccepted = 0, sameFileDelivered = 0, sameFileUnflagged = 0
        let trials = Self.full ? 2_000 : 60
        for trial in 0..<trials {
            let n = Int.random(in: 1...8192, using: &g)
            var tail: [UInt8] = []
            switch trial % 4 {
            case 0: tail = [UInt8](repeating: 0, count: n)
            case 1: tail = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            case 2:  // stale records from another file (preallocated space, reused blocks)
                while tail.count < n { tail += other.bytes[other.frames.randomElement(using: &g)!] }
            default:  // stale copies of this file's own records
                while tail.count < n { tail += s1.bytes[s1.frames.randomElement(using: &g)!] }
            }
            guard let got = try read(s1.bytes + tail) else { lostValid += s1.entries.count; continue }
            let head = got.entries.filter { $0.offset < s1.bytes.count }
            lostValid += s1.entries.count - head.count
            lostValid += fabricated(head, s1.entries, byOffset: byOffset)
            let extra = got.entries.count - head.count
            if trial % 4 == 3 {
                // Same salt: the copies verify. Their sequence numbers go back, so the scan
                // must flag them (a gap), and verify does not call the file clean.
                sameFileDelivered += extra
                if extra > 0 && got.scan.sequenceGaps == 0 { sameFileUnflagged += 1 }
            } else {
                staleAccepted += extra
            }
        }
        figure(
            "A4",
            [
                "trials": trials, "valid_lost": lostValid, "stale_accepted": staleAccepted,
                "same_file_copies_delivered": sameFileDelivered, "same_file_copies_unflagged": sameFileUnflagged
            ])
        XCTAssertEqual(lostValid, 0)
        XCTAssertEqual(staleAccepted, 0)
        XCTAssertEqual(sameFileUnflagged, 0)
    }

    // MARK: A5 foreign records and swapped blocks

    func testA5ForeignRecordsAndSwappedBlocks() throws {
        let s1 = try reference()
        let other = try reference(records: 200, salt: 0x0BAD_5A17, number: 2, tripId: 4, seed: 2)
        let byOffset = Dictionary(uniqueKeysWithValues: s1.entries.enumerated().map { ($1.offset, $0) })
        var g = SplitMix64(seed: 55)
        var foreignAccepted = 0, i3Violations = 0, trials = 0
        let n = Self.full ? 1_000 : 40
        for _ in 0..<n {
            // A frame of another trip's file spliced in between two frames.
            trials += 1
            let f = other.frames.randomElement(using: &g)!
            let at = s1.frames.randomElement(using: &g)!.lowerBound
            let b = Array(s1.bytes[..<at]) + other.bytes[f] + Array(s1.bytes[at...])
            guard let got = try read(b) else { foreignAccepted += 1; continue }
            let shifted = got.entries.map { e -> LogEntry in
                LogEntry(seq: e.seq, offset: e.offset >= at + f.count ? e.offset - f.count : e.offset, record: e.record)
            }
            if got.entries.contains(where: { $0.offset >= at && $0.offset < at + f.count }) { foreignAccepted += 1 }
            if fabricated(shifted, s1.entries, byOffset: byOffset) > 0 { foreignAccepted += 1 }
            if got.entries.count != s1.entries.count { i3Violations += 1 }
        }
        for _ in 0..<n {
            // Two 512-byte blocks swapped (a misdirected write).
            trials += 1
            let blocks = s1.bytes.count / 512
            let x = Int.random(in: 1..<blocks, using: &g)
            var y = Int.random(in: 1..<blocks, using: &g)
            if y == x { y = x == 1 ? 2 : x - 1 }
            var b = s1.bytes
            for i in 0..<512 { b.swapAt(x * 512 + i, y * 512 + i) }
            guard let got = try read(b) else { i3Violations += 1; continue }
            // No record of another file can appear; records may come back from moved blocks,
            // but every break in the sequence must be reported.
            var expect: UInt64 = 1, breaks = 0
            for e in got.entries {
                if e.seq != expect { breaks += 1 }
                expect = e.seq &+ 1
                if s1.entries.first(where: { $0.seq == e.seq })?.record != e.record { foreignAccepted += 1 }
            }
            if breaks > 0 && got.scan.sequenceGaps == 0 && got.scan.damaged.isEmpty { i3Violations += 1 }
            if breaks > got.scan.sequenceGaps { i3Violations += 1 }
        }
        figure("A5", ["trials": trials, "foreign_accepted": foreignAccepted, "i3_violations": i3Violations])
        XCTAssertEqual(foreignAccepted, 0)
        XCTAssertEqual(i3Violations, 0)
    }
}

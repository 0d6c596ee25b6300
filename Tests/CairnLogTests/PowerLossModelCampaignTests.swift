import CairnCore
import CairnSystem
import Foundation
import XCTest

@testable import CairnLog

/// Crash test C: simulated power loss (the idea of SQLite's test6 crash VFS). The real writer
/// runs over a simulated disk: `write` puts bytes in a page cache, `fdatasync` makes them
/// durable. At a crash every write not yet synced is written (3/8), dropped (3/8) or trashed
/// (1/4: random bytes). File-size models:
///   M1 ext4 data=ordered: the size never covers unwritten data (holes read as zeros);
///   M2 FAT: the size is extended over garbage or zeros (1/2), or kept at the synced size although
///      data was written (1/4), else as M1;
///   M3 M2 without power-safe overwrite: trashing covers whole 512-byte sectors, including bytes
///      that were already durable in a sector the write shares.
/// Direct writes (O_DIRECT, whole 512-byte sectors) rewrite the bytes already written in the
/// sector where the data ends. Like the kernel's rewrite of the rest of a 4 KiB page under a
/// buffered write, which the models above do not trash either, rewriting a byte with its own
/// value is taken to leave it intact under M1 and M2: a direct write's pending range starts at
/// its first changed byte. M3 trashes whole sectors, those bytes included.
/// Invariants checked after each crash: I1 every acknowledged record is read back, equal to what
/// was appended; nothing fabricated; I3 every break in the sequence is reported.
final class PowerLossModelCampaignTests: LogTestCase {
    enum Model: String, CaseIterable {
        case m1 = "M1"
        case m2 = "M2"
        case m3 = "M3"
    }

    /// The simulated disk behind one writer. The power goes off before system call number
    /// `crashAtCall` (0-based; the header's write and fdatasync are calls 0 and 1): from then on
    /// calls return success but change nothing, as if the process ran on for an instant.
    final class SimDisk: @unchecked Sendable {
        var durable: [UInt8] = []
        var pending: [(offset: Int, bytes: [UInt8])] = []
        var logical = 0
        var calls = 0
        var crashAtCall = Int.max
        var crashed: Bool { calls >= crashAtCall }
        /// Give the writer a (simulated) O_DIRECT descriptor.
        var direct = false
        static let directFd: Int32 = 1_000_001

        /// The byte at `i` as the file reads now (durable, then pending writes in order).
        func current(_ i: Int) -> UInt8? {
            for w in pending.reversed() where w.offset <= i && i < w.offset + w.bytes.count { return w.bytes[i - w.offset] }
            return i < durable.count ? durable[i] : (i < logical ? 0 : nil)
        }

        var io: FileIO {
            var io = FileIO(
                write: { fd, buf, offset in
                    defer { self.calls += 1 }
                    if self.crashed { return buf.count }
                    var same = 0
                    if fd == Self.directFd {
                        while same < buf.count && self.current(offset + same) == buf[same] { same += 1 }
                    }
                    if same < buf.count { self.pending.append((offset + same, Array(buf[same...]))) }
                    self.logical = max(self.logical, offset + buf.count)
                    return buf.count
                },
                fdatasync: { _ in
                    defer { self.calls += 1 }
                    if self.crashed { return }
                    self.durable = self.image(applyingAll: true)
                    self.pending = []
                })
            // The trim at close (preallocating writers): the new size is the file's once synced.
            io.truncate = { _, size in
                defer { self.calls += 1 }
                if self.crashed { return }
                self.logical = size
                self.pending = self.pending.filter { $0.offset < size }.map { w in
                    (w.offset, Array(w.bytes.prefix(size - w.offset)))
                }
            }
            io.openDirect = { _ throws(Errno) in
                guard self.direct else { throw .invalidArgument }
                return Self.directFd
            }
            return io
        }

        /// Durable bytes with every pending write applied (what a clean sync leaves).
        func image(applyingAll: Bool) -> [UInt8] {
            var b = durable
            for w in pending {
                if b.count < w.offset + w.bytes.count { b += [UInt8](repeating: 0, count: w.offset + w.bytes.count - b.count) }
                b.replaceSubrange(w.offset..<(w.offset + w.bytes.count), with: w.bytes)
            }
            return Array(b.prefix(logical))
        }

        /// The file as it reads after a power cut under `model`.
        func crash(_ model: Model, _ g: inout SplitMix64) -> [UInt8] {
            let durableSize = durable.count
            var b = durable
            if b.count < logical { b += [UInt8](repeating: 0, count: logical - b.count) }
            var sizeCoverage = durableSize  // how far written data reaches (M1's size)
            for w in pending {
                let r = w.offset..<(w.offset + w.bytes.count)
                let u = Int.random(in: 0..<8, using: &g)
                if u < 3 {  // written
                    b.replaceSubrange(r, with: w.bytes)
                    sizeCoverage = max(sizeCoverage, r.upperBound)
                } else if u < 6 {  // dropped
                    continue
                } else {  // trashed
                    let t = model == .m3 ? (r.lowerBound / 512 * 512)..<min(b.count, (r.upperBound + 511) / 512 * 512) : r
                    for i in t { b[i] = UInt8.random(in: 0...255, using: &g) }
                    sizeCoverage = max(sizeCoverage, r.upperBound)
                }
            }
            var size = sizeCoverage
            if model != .m1 {
                let s = Int.random(in: 0..<4, using: &g)
                if s < 2 {
                    // FAT: the directory entry says `logical`; clusters never written hold garbage or zeros.
                    size = logical
                    let garbage = s == 0
                    for i in sizeCoverage..<logical where !pending.contains(where: { $0.offset <= i && i < $0.offset + $0.bytes.count }) {
                        b[i] = garbage ? UInt8.random(in: 0...255, using: &g) : 0
                    }
                } else if s == 2 {
                    size = durableSize  // the size update was lost although data was written
                }
            }
            return Array(b[0..<min(size, b.count)])
        }
    }

    enum Op {
        case point(Fix)
        case note(String)
        case segment
        case raw([RawFix])
        case sync
    }

    /// A deterministic workload: points at 1 Hz with notes and segment starts, synced every
    /// 1-40 operations (the recorder syncs every few seconds); before each sync, as the recorder
    /// does, a raw fixes record (type 8) of the fixes since the previous one.
    static func workload(_ g: inout SplitMix64, ops: Int) -> [Op] {
        var out: [Op] = []
        var raws: [RawFix] = []
        let settings = RawSettings(clockIsFix: false, closeAfterMs: 1_800_000)
        var t: Int64 = 1_748_764_800_000
        var nextSync = Int.random(in: 1...40, using: &g)
        for i in 0..<ops {
            let k = Int.random(in: 0..<100, using: &g)
            if k < 88 {
                t += 1000
                let f = Fix(
                    timeMs: t, lat: 47 + Double(i) * 1e-5, lon: 8.5 + Double(k) * 1e-6, mode: 3,
                    altMSL: 400, eph: 5, speed: 6, track: Double(k))
                out.append(.point(f))
                raws.append(
                    RawFix(
                        fix: f.atLogResolution, arrivalMs: t + 250, verdict: k % 3 == 0 ? .dropped(.tooClose) : .kept,
                        settings: settings))
            } else if k < 94 {
                out.append(.note(String(repeating: "e", count: k)))
            } else {
                out.append(.segment)
            }
            nextSync -= 1
            if nextSync == 0 {
                if !raws.isEmpty { out.append(.raw(raws)) }
                raws.removeAll()
                out.append(.sync)
                nextSync = Int.random(in: 1...40, using: &g)
            }
        }
        out.append(.sync)
        return out
    }

    func apply(_ op: Op, _ w: LogWriter) throws {
        switch op {
        case .point(let f): try w.append(point: f)
        case .note(let s): try w.append(.note(s))
        case .segment: try w.append(.segmentStart(.gap, timeMs: nil))
        case .raw(let r): try w.append(.rawFixes(RawBatch(activity: "ride", fixes: r)))
        case .sync: try w.sync()
        }
    }

    struct Tally {
        var trials = 0, i1 = 0, fabricated = 0, i3 = 0, headerLost = 0, ackedRecords = 0
    }

    /// One crash: run `ops` until system call `crashAt`, cut the power, read back, check.
    /// Acknowledged = what the last sync that completed before the cut returned.
    func crashTrial(
        ops: [Op], crashAt: Int, model: Model, padding: Int, preallocation: Int, direct: Bool, salt: UInt32,
        g: inout SplitMix64, reference: Reference, tally: inout Tally
    ) throws {
        let disk = SimDisk()
        disk.crashAtCall = crashAt
        disk.direct = direct
        let name: UInt32 = 1
        unlink(scratch + "/" + LogDirectory.fileName(number: name))
        let w = try LogWriter(
            directory: scratch, number: name, header: FileHeader(tripId: 1, part: 0, salt: salt),
            padding: padding, preallocation: preallocation, io: disk.io)
        XCTAssertEqual(w.writesDirect, direct && preallocation > 0)
        var acked: UInt64 = 0
        for op in ops {
            if disk.crashed { break }
            try apply(op, w)
            if !disk.crashed { acked = w.lastSyncedSeq }
        }
        w.close()
        let image = disk.crash(model, &g)
        tally.trials += 1
        tally.ackedRecords += Int(acked)
        let path = scratch + "/img.cairn"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(image)))
        guard let r = try? LogReader(path: path) else {
            tally.headerLost += 1
            if acked > 0 { tally.i1 += 1 }
            return
        }
        var got: [UInt64: LogRecord] = [:]
        var breaks = 0, expect = reference.seqs.first ?? 1
        try r.forEach { e in
            // The next record seq in a clean file (padding frames are numbered but not delivered).
            if e.seq != expect { breaks += 1 }
            expect = reference.next[e.seq] ?? e.seq &+ 1
            if reference.records[e.seq] != e.record { tally.fabricated += 1 }
            got[e.seq] = e.record
            return true
        }
        let scan = try r.scan()
        if acked > 0, (1...acked).contains(where: { got[$0] == nil && reference.records[$0] != nil }) { tally.i1 += 1 }
        if breaks > 0 && scan.sequenceGaps == 0 && scan.damaged.isEmpty { tally.i3 += 1 }
    }

    struct Reference {
        var records: [UInt64: LogRecord] = [:]
        var seqs: [UInt64] = []
        var next: [UInt64: UInt64] = [:]
        /// System calls a clean run makes.
        var calls = 0
    }

    /// The seq → record map the writer produces for `ops` (a clean run; padding frames are not records).
    func referenceRecords(_ ops: [Op], padding: Int, preallocation: Int, direct: Bool, salt: UInt32) throws -> Reference {
        let disk = SimDisk()
        disk.direct = direct
        unlink(scratch + "/00000002.cairn")
        let w = try LogWriter(
            directory: scratch, number: 2, header: FileHeader(tripId: 1, part: 0, salt: salt),
            padding: padding, preallocation: preallocation, io: disk.io)
        for op in ops { try apply(op, w) }
        try w.sync()
        let path = scratch + "/ref.cairn"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(disk.durable)))
        var out = Reference()
        try LogReader(path: path).forEach {
            out.records[$0.seq] = $0.record; out.seqs.append($0.seq); return true
        }
        for (a, b) in zip(out.seqs, out.seqs.dropFirst()) { out.next[a] = b }
        out.calls = disk.calls
        return out
    }

    lazy var scratch: String = {
        let d = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : dir) + "/cairn-power-\(getpid())-\(UUID().uuidString.prefix(8))"
        mkdir(d, 0o755)
        return d
    }()

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
        try super.tearDownWithError()
    }

    func testPowerLossModel() throws {
        let full = CrashCampaignTests.full
        var g = SplitMix64(seed: 77)
        // Preallocating writers (4096, the smallest chunk, so that the file grows often) write
        // their syncs into zeros they wrote and synced before.
        // Direct writes (the recorder's writer where the file system takes O_DIRECT) only
        // preallocate.
        for (padding, preallocation, direct) in [
            (0, 0, false), (512, 0, false), (4096, 0, false), (0, 4096, false),
            (512, 4096, false), (0, 4096, true), (512, 4096, true)
        ] {
            for model in Model.allCases {
                var tally = Tally()
                // Sweep: every crash point of one workload (TH3-style), 3 draws each.
                var wg = SplitMix64(seed: 1000 + UInt64(padding))
                let sweepOps = Self.workload(&wg, ops: full ? 400 : 120)
                let salt: UInt32 = 0xC0FF_EE00 | UInt32(padding % 251)
                let ref = try referenceRecords(sweepOps, padding: padding, preallocation: preallocation, direct: direct, salt: salt)
                for crashAt in 0...ref.calls {
                    for _ in 0..<(full ? 20 : 4) {
                        try crashTrial(
                            ops: sweepOps, crashAt: crashAt, model: model, padding: padding,
                            preallocation: preallocation, direct: direct, salt: salt,
                            g: &g, reference: ref, tally: &tally)
                    }
                }
                let swept = tally.trials
                // Random: fresh workloads, random crash points.
                let random = full ? 10_000 : 150
                var done = 0
                while done < random {
                    var wg2 = SplitMix64(seed: g.next())
                    let ops = Self.workload(&wg2, ops: 200)
                    let salt2 = UInt32(truncatingIfNeeded: g.next()) | 1
                    let ref2 = try referenceRecords(ops, padding: padding, preallocation: preallocation, direct: direct, salt: salt2)
                    for _ in 0..<20 where done < random {
                        try crashTrial(
                            ops: ops, crashAt: Int.random(in: 0...ref2.calls, using: &g), model: model,
                            padding: padding, preallocation: preallocation, direct: direct, salt: salt2, g: &g,
                            reference: ref2, tally: &tally)
                        done += 1
                    }
                }
                figure(model: model, padding: padding, preallocation: preallocation, direct: direct, swept: swept, tally)
                let what = "\(model) padding \(padding) preallocation \(preallocation) direct \(direct)"
                XCTAssertEqual(tally.fabricated, 0, what)
                XCTAssertEqual(tally.i3, 0, what)
                if model != .m3 || padding >= 512 {
                    XCTAssertEqual(tally.i1, 0, "\(what): acknowledged records lost")
                }
            }
        }
    }

    func figure(model: Model, padding: Int, preallocation: Int, direct: Bool, swept: Int, _ t: Tally) {
        print(
            "FIGURE C model=\(model.rawValue) padding=\(padding) preallocation=\(preallocation) direct=\(direct) "
                + "trials=\(t.trials) swept=\(swept) "
                + "acked_records=\(t.ackedRecords) i1_violations=\(t.i1) fabricated=\(t.fabricated) i3_violations=\(t.i3) "
                + "header_unreadable=\(t.headerLost)")
    }

    /// What padding costs on the card: a 1 Hz ride synced every 5 s, for one hour.
    func testPaddingCostPerHour() throws {
        let ride = SizeTests.ride(points: 3600)
        var sizes: [Int: (Int, Int)] = [:]
        for (i, padding) in [0, 512, 4096].enumerated() {
            let w = try LogWriter(
                directory: scratch, number: UInt32(10 + i),
                header: FileHeader(tripId: 1, part: 0, salt: 5), padding: padding)
            for (k, f) in ride.enumerated() {
                try w.append(point: f)
                if k % 5 == 4 { try w.sync() }
            }
            try w.sync()
            XCTAssertEqual(try LogReader(path: w.path).scan().points, 3600)
            XCTAssertTrue(try LogReader(path: w.path).scan().isClean)
            if padding > 0 { XCTAssertEqual(w.bytesWritten % padding, 0) }
            sizes[padding] = (w.bytesWritten, w.paddingBytes)
        }
        for p in [0, 512, 4096] {
            print("FIGURE padding_cost padding=\(p) bytes_per_hour=\(sizes[p]!.0) padding_bytes_per_hour=\(sizes[p]!.1) sync_s=5")
        }
    }
}

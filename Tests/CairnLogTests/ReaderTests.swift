import CairnCore
import Foundation
import XCTest

@testable import CairnLog

final class ReaderTests: LogTestCase {
    /// The sample file, its bytes, and the [start, end) of each frame.
    func sample(salt: UInt32 = 0x1234_5678, number: UInt32 = 1) throws -> (path: String, bytes: [UInt8], frames: [Range<Int>]) {
        let path = try write(Self.sampleRecords(), number: number, salt: salt)
        let b = try bytes(path)
        let offsets = try entries(path).map(\.offset)
        let frames = zip(offsets, offsets.dropFirst() + [b.count]).map { $0..<$1 }
        XCTAssertEqual(frames.count, Self.sampleRecords().count)
        XCTAssertEqual(frames.first?.lowerBound, 32)
        return (path, b, frames)
    }

    func testCleanFileScan() throws {
        let s = try sample()
        let r = try LogReader(path: s.path)
        XCTAssertEqual(r.header, FileHeader(tripId: 7, part: 0, salt: 0x1234_5678))
        XCTAssertEqual(r.fileSize, s.bytes.count)
        let report = try r.scan()
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.records, 10)
        XCTAssertEqual(report.points, 21)
        XCTAssertEqual(report.lastSeq, 10)
        XCTAssertTrue(report.hasTripEnd)
        XCTAssertEqual(report.firstTimeMs, 1_700_000_000_000)
        XCTAssertEqual(report.lastTimeMs, 1_700_000_020_000)
        XCTAssertEqual(try records(s.path), Self.sampleRecords().map(quantisedRecord))
    }

    func testForEachStopsEarly() throws {
        let s = try sample()
        var n = 0
        try LogReader(path: s.path).forEach { _ in
            n += 1; return n < 3
        }
        XCTAssertEqual(n, 3)
    }

    func testTruncationAtEveryOffset() throws {
        let s = try sample()
        let all = try entries(s.path)
        for cut in 0...s.bytes.count {
            let p = try put(Array(s.bytes[0..<cut]), "cut.cairn")
            if cut < 32 {
                XCTAssertThrowsError(try LogReader(path: p), "cut \(cut)") {
                    XCTAssertEqual(($0 as? LogError)?.kind, .truncatedHeader, "cut \(cut): \($0)")
                }
                continue
            }
            let expected = zip(all, s.frames).filter { $0.1.upperBound <= cut }.map(\.0)
            let got = try entries(p)
            XCTAssertEqual(got.map(\.seq), expected.map(\.seq), "cut \(cut)")
            XCTAssertEqual(got.map(\.record), expected.map(\.record), "cut \(cut)")
            let report = try LogReader(path: p).scan()
            let lastEnd = s.frames.last(where: { $0.upperBound <= cut })?.upperBound ?? 32
            XCTAssertEqual(report.damaged, [], "cut \(cut)")
            XCTAssertEqual(report.sequenceGaps, 0, "cut \(cut)")
            XCTAssertEqual(report.tornTailBytes, cut - lastEnd, "cut \(cut)")
            XCTAssertEqual(report.records, expected.count)
        }
    }

    /// A bit flipped anywhere in a frame loses that frame only; the reader resyncs at the next.
    func testBitFlipAtEveryByteLosesOnlyItsRecord() throws {
        let s = try sample()
        let all = try entries(s.path)
        for offset in 32..<s.bytes.count {
            var b = s.bytes
            b[offset] ^= UInt8(1 << (offset % 8))
            let p = try put(b, "flip.cairn")
            let k = s.frames.firstIndex { $0.contains(offset) }!
            var expected = all
            expected.remove(at: k)
            let got = try entries(p)
            XCTAssertEqual(got.map(\.seq), expected.map(\.seq), "offset \(offset)")
            XCTAssertEqual(got.map(\.record), expected.map(\.record), "offset \(offset)")
            let report = try LogReader(path: p).scan()
            if k == s.frames.count - 1 {
                // Nothing verifies after it: indistinguishable from a torn tail.
                XCTAssertEqual(report.damaged, [])
                XCTAssertEqual(report.tornTailBytes, s.frames[k].count)
            } else {
                XCTAssertEqual(report.damaged, [s.frames[k]], "offset \(offset)")
                XCTAssertEqual(report.tornTailBytes, 0)
                XCTAssertEqual(report.sequenceGaps, 1)
            }
        }
    }

    func testCorruptedMiddleRecordReportsOneDamagedRange() throws {
        let s = try sample()
        var b = s.bytes
        let k = 4
        b[s.frames[k].lowerBound + 9] ^= 0xFF
        let p = try put(b, "x.cairn")
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.damaged, [s.frames[k]])
        XCTAssertEqual(report.records, 9)
        XCTAssertEqual(report.sequenceGaps, 1)
        XCTAssertEqual(report.tornTailBytes, 0)
        XCTAssertFalse(report.isClean)
        XCTAssertEqual(try entries(p).map(\.seq), [1, 2, 3, 4, 6, 7, 8, 9, 10])
    }

    func testSectorOverwriteNeverFabricatesRecords() throws {
        // A larger file; 512-byte blocks overwritten with random bytes, zeros or 0xFF.
        var g = SplitMix64(seed: 9)
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 3))
        for i in 0..<600 {
            try w.append(point: Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 10 + Double(i) * 1e-4, lon: 20, mode: 3, speed: 5))
            if i % 5 == 4 { try w.sync() }
            if i % 50 == 0 { try w.append(.note("note \(i)")) }
        }
        try w.sync()
        let original = try entries(w.path)
        let bySeq = Dictionary(uniqueKeysWithValues: original.map { ($0.seq, $0) })
        let b = try bytes(w.path)
        for trial in 0..<60 {
            var c = b
            let start = Int.random(in: 32..<(b.count - 512), using: &g)
            for i in start..<(start + 512) {
                c[i] = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 0xFF : UInt8.random(in: 0...255, using: &g)
            }
            let p = try put(c, "sector.cairn")
            let got = try entries(p)
            for e in got {
                XCTAssertEqual(bySeq[e.seq]?.record, e.record, "trial \(trial): fabricated seq \(e.seq)")
                XCTAssertEqual(bySeq[e.seq]?.offset, e.offset)
            }
            // Every record that lies wholly outside the damaged sector survives.
            let survivors = original.filter { e in
                let end = bySeq[e.seq + 1]?.offset ?? b.count
                return end <= start || e.offset >= start + 512
            }
            XCTAssertTrue(Set(got.map(\.seq)).isSuperset(of: survivors.map(\.seq)), "trial \(trial)")
            XCTAssertLessThan(got.count, original.count)
        }
    }

    func testRecordFromAnotherFileIsNotAccepted() throws {
        let a = try sample(salt: 1, number: 1)
        let b = try sample(salt: 2, number: 2)
        let foreign = Array(b.bytes[b.frames[3]])
        // Spliced between two frames of A.
        let at = a.frames[5].lowerBound
        let spliced = Array(a.bytes[..<at]) + foreign + Array(a.bytes[at...])
        let p = try put(spliced, "spliced.cairn")
        XCTAssertEqual(try entries(p).map(\.seq), Array(1...10))
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.damaged, [at..<(at + foreign.count)])
        XCTAssertEqual(report.sequenceGaps, 0)
        // Appended at the end of A: a torn tail, not a record.
        let tail = try put(a.bytes + foreign, "tail.cairn")
        XCTAssertEqual(try entries(tail).map(\.seq), Array(1...10))
        XCTAssertEqual(try LogReader(path: tail).scan().tornTailBytes, foreign.count)
        // A whole foreign file body behind A's header: nothing verifies.
        let body = try put(Array(a.bytes[0..<32]) + Array(b.bytes[32...]), "body.cairn")
        XCTAssertEqual(try entries(body).count, 0)
        XCTAssertEqual(try LogReader(path: body).scan().tornTailBytes, b.bytes.count - 32)
    }

    func testZeroFilledTailIsUnusedSpaceNotATornTail() throws {
        let s = try sample()
        for n in [1, 6, 7, 8, 511, 4096, 70_000, 300_000] {
            let p = try put(s.bytes + [UInt8](repeating: 0, count: n), "zero.cairn")
            let report = try LogReader(path: p).scan()
            XCTAssertEqual(report.records, 10)
            XCTAssertEqual(report.damaged, [])
            XCTAssertEqual(report.unusedTailBytes, n)
            XCTAssertEqual(report.tornTailBytes, 0)
            XCTAssertEqual(report.sequenceGaps, 0)
            XCTAssertTrue(report.isClean)
            XCTAssertEqual(try entries(p).map(\.seq), Array(1...10))
        }
        // A header followed only by zeros (preallocated, nothing written).
        let p = try put(Array(s.bytes[0..<32]) + [UInt8](repeating: 0, count: 1 << 20), "empty.cairn")
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.records, 0)
        XCTAssertEqual(report.unusedTailBytes, 1 << 20)
        XCTAssertEqual(report.tornTailBytes, 0)
    }

    func testHalfWrittenFrameBeforeZerosIsATornTail() throws {
        // A write into preallocated space cut short: the start of a frame, then zeros.
        let s = try sample()
        let last = s.frames[9]
        for keep in [1, 7, last.count - 1] {
            var b = Array(s.bytes[..<(last.lowerBound + keep)])
            b += [UInt8](repeating: 0, count: 5000)
            let p = try put(b, "half.cairn")
            let report = try LogReader(path: p).scan()
            XCTAssertEqual(report.records, 9, "keep \(keep)")
            XCTAssertEqual(report.damaged, [])
            XCTAssertEqual(report.tornTailBytes, keep + 5000, "keep \(keep)")
            XCTAssertEqual(report.unusedTailBytes, 0)
        }
        // A nonzero byte anywhere in the tail makes it torn, not unused.
        var b = s.bytes + [UInt8](repeating: 0, count: 5000)
        b[b.count - 1] = 1
        let p = try put(b, "late.cairn")
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.records, 10)
        XCTAssertEqual(report.tornTailBytes, 5000)
        XCTAssertEqual(report.unusedTailBytes, 0)
    }

    func testZeroedSectorInTheMiddleIsDamage() throws {
        let s = try sample()
        var b = s.bytes
        let from = s.frames[2].lowerBound + 3, to = s.frames[6].lowerBound + 2
        for i in from..<to { b[i] = 0 }
        let p = try put(b, "z.cairn")
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.damaged, [s.frames[2].lowerBound..<s.frames[7].lowerBound])
        XCTAssertEqual(try entries(p).map(\.seq), [1, 2, 8, 9, 10])
    }

    func testGarbageTailIsATornTail() throws {
        let s = try sample()
        var g = SplitMix64(seed: 5)
        for _ in 0..<50 {
            let n = Int.random(in: 1...8192, using: &g)
            let garbage = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            let p = try put(s.bytes + garbage, "g.cairn")
            let report = try LogReader(path: p).scan()
            XCTAssertEqual(report.records, 10)
            XCTAssertEqual(report.damaged, [])
            XCTAssertEqual(report.tornTailBytes, n)
        }
    }

    func testHugeGarbageScanIsLinearAndBounded() throws {
        // 1 MiB of random bytes after a header: every offset is a candidate whose length field
        // claims up to 64 KiB; a naive re-CRC per offset would cost ~32 GB of CRC work.
        var g = SplitMix64(seed: 6)
        let s = try sample()
        var b = Array(s.bytes[0..<32])
        b.reserveCapacity(32 + (1 << 20) + s.bytes.count)
        for _ in 0..<((1 << 20) / 8) { withUnsafeBytes(of: g.next()) { b.append(contentsOf: $0) } }
        let garbageEnd = b.count
        b += Array(s.bytes[32...])  // intact records after the garbage
        let p = try put(b, "huge.cairn")
        // The thread's CPU time, not the wall clock: on a loaded machine (CI's two cores running
        // other stages) the wall clock says how busy the machine is, not how much work the scan did.
        let t0 = Self.threadCPUSeconds()
        let report = try LogReader(path: p).scan()
        let elapsed = Self.threadCPUSeconds() - t0
        XCTAssertEqual(report.records, 10)
        XCTAssertEqual(report.damaged, [32..<garbageEnd])
        XCTAssertEqual(report.tornTailBytes, 0)
        XCTAssertLessThan(elapsed, 5, "resync scan must be linear")
    }

    /// CPU seconds this thread has used.
    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    func testMillionTinyRecordsStream() throws {
        let w = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 8))
        let n = 200_000
        for _ in 0..<n { try w.append(.note("")) }
        try w.sync()
        XCTAssertEqual(w.lastSyncedSeq, UInt64(n))
        var count = 0
        var last: UInt64 = 0
        try LogReader(path: w.path).forEach { e in
            count += 1
            XCTAssertEqual(e.seq, last + 1)
            last = e.seq
            return true
        }
        XCTAssertEqual(count, n)
        let report = try LogReader(path: w.path).scan()
        XCTAssertEqual(report.records, n)
        XCTAssertTrue(report.isClean)
    }

    func testUnknownRecordTypeIsSkippedAndReported() throws {
        let p = try write([.note("a"), .unknown(type: 42, payload: [9, 8, 7]), .note("b")])
        let got = try entries(p)
        XCTAssertEqual(got.map(\.record), [.note("a"), .unknown(type: 42, payload: [9, 8, 7]), .note("b")])
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.unknownRecords, 1)
        XCTAssertEqual(report.records, 3)
        XCTAssertTrue(report.isClean)
    }

    func testSequenceGapsAreCounted() throws {
        let salt: UInt32 = 4
        var b = try bytes(try write([], salt: salt))
        for seq: UInt64 in [2, 3, 7, 8, 8, 1] {
            b += Self.handFrame(salt: salt, type: 5, payload: Self.varint(seq))
        }
        let p = try put(b, "gaps.cairn")
        let report = try LogReader(path: p).scan()
        XCTAssertEqual(report.sequenceGaps, 4)  // 0→2, 3→7, 8→8, 8→1
        XCTAssertEqual(report.records, 6)
        XCTAssertTrue(report.damaged.isEmpty)
    }

    func testTypeZeroFrameNeverParses() throws {
        let salt: UInt32 = 4
        var b = try bytes(try write([], salt: salt))
        b += Self.handFrame(salt: salt, type: 0, payload: Self.varint(1))
        b += Self.handFrame(salt: salt, type: 5, payload: Self.varint(2) + [65])
        let p = try put(b, "t0.cairn")
        XCTAssertEqual(try records(p), [.note("A")])
        XCTAssertEqual(try LogReader(path: p).scan().damaged, [32..<40])
    }

    // MARK: Header errors

    func testBadMagic() throws {
        var b = try bytes(try write([.note("x")]))
        b[0] = UInt8(ascii: "X")
        let p = try put(b, "m.cairn")
        XCTAssertThrowsError(try LogReader(path: p)) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.kind, .notALog)
            XCTAssertEqual(e?.description, "\(p): not a cairn log (bad magic)")
        }
        let text = try put(Array("hello, this is not a log file at all".utf8), "t.cairn")
        XCTAssertThrowsError(try LogReader(path: text)) { XCTAssertEqual(($0 as? LogError)?.kind, .notALog) }
        let short = try put(Array("GPX".utf8), "s.cairn")
        XCTAssertThrowsError(try LogReader(path: short)) { XCTAssertEqual(($0 as? LogError)?.kind, .notALog) }
    }

    func testBadHeaderCRC() throws {
        for i in [10, 12, 16, 20, 24, 28, 31] {
            var b = try bytes(try write([.note("x")], number: UInt32(i)))
            b[i] ^= 0x10
            let p = try put(b, "h.cairn")
            XCTAssertThrowsError(try LogReader(path: p)) {
                let e = $0 as? LogError
                XCTAssertEqual(e?.kind, .damagedHeader, "byte \(i)")
                XCTAssertTrue(e?.message.contains("damaged header") ?? false)
            }
        }
    }

    func testNewerVersion() throws {
        var b = try bytes(try write([.note("x")]))
        b[8] = 3
        // With and without a matching CRC: magic + version are enough to say "newer".
        let p1 = try put(b, "v1.cairn")
        b.replaceSubrange(28..<32, with: Self.le32(Self.bitwiseCRC32C(Array(b[0..<28]))))
        let p2 = try put(b, "v2.cairn")
        for p in [p1, p2] {
            XCTAssertThrowsError(try LogReader(path: p)) {
                let e = $0 as? LogError
                XCTAssertEqual(e?.kind, .newerVersion)
                XCTAssertEqual(e?.message, "written by a newer cairn (format 3)")
            }
        }
    }

    func testTruncatedAndZeroHeaders() throws {
        for b in [
            [], Array("CAIRN".utf8), Array("CAIRNLOG".utf8) + [1, 0, 32], [UInt8](repeating: 0, count: 32),
            [UInt8](repeating: 0, count: 4096)
        ] {
            let p = try put(b, "t.cairn")
            XCTAssertThrowsError(try LogReader(path: p), "\(b.count) bytes") {
                XCTAssertEqual(($0 as? LogError)?.kind, .truncatedHeader)
            }
        }
    }

    func testHeaderOnlyFileIsCleanAndEmpty() throws {
        let w = try LogWriter(directory: dir, number: 3, header: FileHeader(tripId: 99, part: 2, salt: 0xFFFF_FFFF))
        XCTAssertEqual(w.bytesWritten, 32)
        let b = try bytes(w.path)
        XCTAssertEqual(b.count, 32)
        XCTAssertEqual(Array(b[0..<8]), Array("CAIRNLOG".utf8))
        XCTAssertEqual(Array(b[8..<12]), [2, 0, 32, 0])
        XCTAssertEqual(Array(b[12..<16]), [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(Array(b[16..<24]), [99, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(Array(b[24..<28]), [2, 0, 0, 0])
        XCTAssertEqual(Array(b[28..<32]), Self.le32(Self.bitwiseCRC32C(Array(b[0..<28]))))
        let r = try LogReader(path: w.path)
        XCTAssertEqual(r.header.tripId, 99)
        XCTAssertEqual(r.header.part, 2)
        XCTAssertEqual(r.header.version, 2)
        let report = try r.scan()
        XCTAssertEqual(report.records, 0)
        XCTAssertTrue(report.isClean)
    }

    func testLongerHeaderFromAFutureWriterIsSkipped() throws {
        // header length 40: 8 extension bytes a v1 reader skips.
        let salt: UInt32 = 21
        var h = Array(try bytes(try write([], salt: salt))[0..<28])
        h[10] = 40
        h += Self.le32(Self.bitwiseCRC32C(h)) + [1, 2, 3, 4, 5, 6, 7, 8]
        h += Self.handFrame(salt: salt, type: 5, payload: Self.varint(1) + [66])
        let p = try put(h, "long.cairn")
        XCTAssertEqual(try LogReader(path: p).dataOffset, 40)
        XCTAssertEqual(try records(p), [.note("B")])
    }

    func testOpeningMissingFileOrDirectory() throws {
        XCTAssertThrowsError(try LogReader(path: dir + "/nope.cairn")) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.errno, ENOENT)
            XCTAssertTrue(e?.description.hasPrefix(dir + "/nope.cairn: ") ?? false)
        }
        XCTAssertThrowsError(try LogReader(path: dir)) { XCTAssertEqual(($0 as? LogError)?.kind, .notALog) }
    }

    func quantisedRecord(_ r: LogRecord) -> LogRecord {
        if case .points(let p) = r { return .points(p.map(quantised)) }
        return r
    }
}

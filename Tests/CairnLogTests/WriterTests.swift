import CairnCore
import CairnSystem
import Foundation
import XCTest

@testable import CairnLog

/// Scripted system calls for fault injection.
final class FakeIO: @unchecked Sendable {
    let lock = NSLock()
    var writes = 0
    var syncs = 0
    /// Return this errno from the n-th fdatasync (1-based).
    var failSyncAt: Int? = nil
    var failWriteAt: Int? = nil
    var failWriteErrno: Int32 = ENOSPC
    /// Write at most this many bytes per call, and return EINTR on every other call.
    var shortWrites = false
    /// Fail every write of zeros only (preallocation) with this errno.
    var failZeroWrites: Int32? = nil
    /// Hand the writer a second descriptor for direct writes when it asks (a plain one on the
    /// same file: what is checked is the calls the writer makes on it).
    var direct = false
    var directFd: Int32 = -1
    var directWrites = 0
    /// Return `failDirectErrno` from the n-th direct write (1-based) on.
    var failDirectAt: Int? = nil
    var failDirectErrno: Int32 = EINVAL
    /// Every call, in order: ("w", offset, count, all zeros), ("d", …) on the direct
    /// descriptor, ("s", …), ("t", size, …).
    var calls: [(call: String, offset: Int, count: Int, zeros: Bool)] = []

    var io: FileIO {
        FileIO(
            write: { fd, buf, offset throws(Errno) in
                self.lock.lock()
                defer { self.lock.unlock() }
                self.writes += 1
                let zeros = !buf.contains { $0 != 0 }
                if fd == self.directFd {
                    self.directWrites += 1
                    self.calls.append(("d", offset, buf.count, zeros))
                    if let n = self.failDirectAt, self.directWrites >= n { throw Errno(rawValue: self.failDirectErrno) }
                    return try FileIO.pwrite(fd, buf, offset)
                }
                self.calls.append(("w", offset, buf.count, zeros))
                if zeros, let e = self.failZeroWrites { throw Errno(rawValue: e) }
                if let n = self.failWriteAt, self.writes >= n { throw Errno(rawValue: self.failWriteErrno) }
                if self.shortWrites {
                    if self.writes % 2 == 0 { throw .interrupted }
                    return try FileIO.pwrite(fd, UnsafeRawBufferPointer(rebasing: buf.prefix(3)), offset)
                }
                return try FileIO.pwrite(fd, buf, offset)
            },
            fdatasync: { fd throws(Errno) in
                self.lock.lock()
                defer { self.lock.unlock() }
                self.syncs += 1
                self.calls.append(("s", 0, 0, false))
                if let n = self.failSyncAt, self.syncs == n { throw .ioError }
                try FileIO.system.fdatasync(fd)
            },
            truncate: { fd, size throws(Errno) in
                self.lock.lock()
                defer { self.lock.unlock() }
                self.calls.append(("t", size, 0, false))
                try FileIO.system.truncate(fd, size)
            },
            openDirect: { path throws(Errno) in
                self.lock.lock()
                defer { self.lock.unlock() }
                guard self.direct else { throw .invalidArgument }
                self.directFd = -1
                self.directFd = try POSIX.open(path, O_WRONLY | O_CLOEXEC)
                return self.directFd
            })
    }
}

final class WriterTests: LogTestCase {
    let header = FileHeader(tripId: 5, part: 0, salt: 0xABCD)

    func fix(_ i: Int) -> Fix { Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 1 + Double(i) * 1e-4, lon: 2, mode: 3) }

    func testSyncReturnsHighestDurableSeq() throws {
        let fake = FakeIO()
        let w = try LogWriter(directory: dir, number: 1, header: header, io: fake.io)
        XCTAssertEqual(fake.syncs, 1)  // the header
        XCTAssertEqual(w.lastSyncedSeq, 0)
        XCTAssertEqual(try w.sync(), 0)  // nothing to sync: no fdatasync
        XCTAssertEqual(fake.syncs, 1)
        try w.append(.tripStart(activity: "ride", software: "t"))  // seq 1
        try w.append(point: fix(0))
        try w.append(point: fix(1))
        XCTAssertEqual(w.unacknowledged.count, 2)
        let before = w.bytesWritten
        let pending = w.pendingBytes
        XCTAssertEqual(try w.sync(), 2)  // points batch framed as seq 2
        XCTAssertEqual(w.bytesWritten - before, pending)
        XCTAssertEqual(w.pendingBytes, 0)
        XCTAssertEqual(w.lastSyncedSeq, 2)
        XCTAssertEqual(w.unacknowledged, [])
        XCTAssertEqual(fake.syncs, 2)
        try w.append(.note("x"))
        try w.append(point: fix(2))
        try w.append(.segmentStart(.pause, timeMs: 5))
        XCTAssertEqual(w.unacknowledged, [.note("x"), .points([fix(2)]), .segmentStart(.pause, timeMs: 5)])
        XCTAssertEqual(try w.sync(), 5)
        XCTAssertEqual(try w.sync(), 5)
        XCTAssertEqual(fake.syncs, 3)
        XCTAssertEqual(w.bytesWritten, try bytes(w.path).count)
        XCTAssertEqual(try entries(w.path).map(\.seq), [1, 2, 3, 4, 5])
        w.close()
        XCTAssertThrowsError(try w.append(.note("late")))
    }

    func size(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : -1
    }

    func testPreallocatedWriterSyncsInPlaceAndTrimsAtClose() throws {
        let fake = FakeIO()
        let chunk = 65_536
        let w = try LogWriter(directory: dir, number: 1, header: header, preallocation: chunk, io: fake.io)
        // The header, then zeros to a page boundary plus one chunk, made durable by one sync.
        XCTAssertEqual(w.bytesWritten, 32)
        XCTAssertEqual(size(w.path), 4096 + chunk)
        XCTAssertEqual(w.fileSize, 4096 + chunk)
        XCTAssertEqual(fake.calls.first?.call, "w")
        XCTAssertEqual(fake.calls.last?.call, "s")
        XCTAssertEqual(fake.calls.filter { $0.call == "w" && $0.zeros }.reduce(0) { $0 + $1.count }, 4096 + chunk - 32)
        var report = try LogReader(path: w.path).scan()
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.unusedTailBytes, 4096 + chunk - 32)

        // Syncs inside the chunk: one write where the data ends, one fdatasync, the size unchanged.
        for i in 0..<50 {
            try w.append(point: fix(i))
            try w.append(.note("n\(i)"))
            let end = w.bytesWritten
            fake.calls = []
            try w.sync()
            XCTAssertEqual(fake.calls.count, 2, "sync \(i): \(fake.calls)")
            XCTAssertEqual(fake.calls[0].call, "w")
            XCTAssertEqual(fake.calls[0].offset, end)
            XCTAssertEqual(fake.calls[1].call, "s")
            XCTAssertEqual(size(w.path), 4096 + chunk)
        }
        report = try LogReader(path: w.path).scan()
        XCTAssertTrue(report.isClean)
        XCTAssertEqual(report.records, 100)
        XCTAssertEqual(report.unusedTailBytes, 4096 + chunk - w.bytesWritten)

        // Data reaching the end of the zeros: the file grows by another chunk in the same sync.
        let big = String(repeating: "x", count: 40_000)
        fake.calls = []
        try w.append(.note(big))
        try w.append(.note(big))  // crosses 64 KiB pending: written out (with the new zeros) unsynced
        try w.sync()
        let grown = (w.bytesWritten + 4095) / 4096 * 4096 + chunk
        XCTAssertEqual(size(w.path), grown)
        XCTAssertEqual(fake.calls.last?.call, "s")
        XCTAssertEqual(fake.calls.filter { $0.call == "s" }.count, 1)
        let firstZeros = try XCTUnwrap(fake.calls.firstIndex { $0.zeros })
        XCTAssertFalse(fake.calls[..<firstZeros].contains { $0.call == "s" })
        // The zeros start where the data (which ran past the old zeros) ends.
        let dataBefore = fake.calls[..<firstZeros].filter { $0.call == "w" }.map { $0.offset + $0.count }.max()
        XCTAssertEqual(fake.calls[firstZeros].offset, dataBefore)
        XCTAssertGreaterThan(fake.calls[firstZeros].offset, 4096 + chunk)
        XCTAssertEqual(try LogReader(path: w.path).scan().unusedTailBytes, grown - w.bytesWritten)

        // Close trims the zeros and makes the size durable.
        try w.append(.tripEnd(TripEnd(reason: .shutdown, points: 50, distanceM: 1, movingTimeMs: 1, firstTimeMs: 0, lastTimeMs: 1)))
        try w.sync()
        let end = w.bytesWritten
        fake.calls = []
        w.close()
        XCTAssertEqual(fake.calls.map(\.call), ["t", "s"])
        XCTAssertEqual(fake.calls[0].offset, end)
        XCTAssertEqual(size(w.path), end)
        report = try LogReader(path: w.path).scan()
        XCTAssertTrue(report.isClean)
        XCTAssertTrue(report.hasTripEnd)
        XCTAssertEqual(report.unusedTailBytes, 0)
        XCTAssertEqual(report.records, 103)
    }

    // MARK: Direct writes

    /// Writes the same records as `run` in `testDirectWritesAreWholeSectorsAndGiveTheSameFile`.
    func writeRide(_ number: UInt32, _ fake: FakeIO) throws -> LogWriter {
        let w = try LogWriter(directory: dir, number: number, header: header, preallocation: 65_536, io: fake.io)
        let big = String(repeating: "y", count: 40_000)
        for i in 0..<300 {
            try w.append(point: fix(i))
            if i % 7 == 3 { try w.append(.note(String(repeating: "n", count: i))) }
            if i == 150 {  // two notes past 64 KiB pending and past the zeros: written in pieces
                try w.append(.note(big))
                try w.append(.note(big))
            }
            if i % 5 == 4 { try w.sync() }
        }
        try w.sync()
        return w
    }

    func testDirectWritesAreWholeSectorsAndGiveTheSameFile() throws {
        let fake = FakeIO()
        fake.direct = true
        let wd = try writeRide(1, fake)
        XCTAssertTrue(wd.writesDirect)
        wd.close()
        let wb = try writeRide(2, FakeIO())
        XCTAssertFalse(wb.writesDirect)
        wb.close()
        XCTAssertEqual(try bytes(wd.path), try bytes(wb.path))
        XCTAssertTrue(try LogReader(path: wd.path).scan().isClean)
        let direct = fake.calls.filter { $0.call == "d" }
        XCTAssertGreaterThan(direct.count, 60)
        for c in direct {
            XCTAssertEqual(c.offset % 512, 0, "\(c)")
            XCTAssertEqual(c.count % 512, 0, "\(c)")
            XCTAssertLessThanOrEqual(c.count, LogWriter.directStageBytes)
        }
        // After the header, nothing but zeros goes through the page cache.
        let buffered = fake.calls.filter { $0.call == "w" }
        XCTAssertEqual(buffered.first?.offset, 0)
        XCTAssertTrue(buffered.dropFirst().allSatisfy(\.zeros))
        XCTAssertGreaterThan(buffered.count, 20)  // the file grew past its first 64 KiB of zeros
    }

    func testDirectSyncOfOnePointWritesTheSectorItEndsIn() throws {
        let fake = FakeIO()
        fake.direct = true
        let w = try LogWriter(directory: dir, number: 1, header: header, preallocation: 65_536, io: fake.io)
        var twoSectors = 0
        for i in 0..<300 {
            try w.append(point: fix(i))
            let before = w.bytesWritten
            fake.calls = []
            XCTAssertEqual(try w.sync(), UInt64(i + 1))
            // One write from the sector where the data ended to the end of the sector the new
            // record ends in, then one fdatasync; nothing else.
            XCTAssertEqual(fake.calls.map(\.call), ["d", "s"], "sync \(i)")
            XCTAssertEqual(fake.calls.first?.offset, before / 512 * 512)
            XCTAssertEqual(fake.calls.first?.count, (w.bytesWritten + 511) / 512 * 512 - before / 512 * 512)
            if fake.calls.first?.count == 1024 { twoSectors += 1 }
        }
        XCTAssertGreaterThan(twoSectors, 0)  // records that cross a sector boundary were among them
        XCTAssertEqual(size(w.path), 4096 + 65_536)
        w.close()
        XCTAssertEqual(size(w.path), w.bytesWritten)
        XCTAssertEqual(try LogReader(path: w.path).scan().points, 300)
    }

    func testPaddedDirectSyncsNeverRewriteAnAcknowledgedSector() throws {
        let fake = FakeIO()
        fake.direct = true
        let w = try LogWriter(
            directory: dir, number: 1, header: header, preallocation: 65_536, padDirect: true,
            io: fake.io)
        XCTAssertTrue(w.writesDirect)
        XCTAssertEqual(w.padding, 512)
        XCTAssertEqual(w.bytesWritten, 512)  // the header, padded
        for i in 0..<100 {
            try w.append(point: fix(i))
            let before = w.bytesWritten
            fake.calls = []
            try w.sync()
            // Each sync starts a fresh sector and fills it: nothing acknowledged is written again.
            XCTAssertEqual(fake.calls.map(\.call), ["d", "s"], "sync \(i)")
            XCTAssertEqual(fake.calls.first?.offset, before)
            XCTAssertEqual(fake.calls.first?.count, 512)
            XCTAssertEqual(w.bytesWritten, before + 512)
        }
        w.close()
        let scan = try LogReader(path: w.path).scan()
        XCTAssertTrue(scan.isClean)
        XCTAssertEqual(scan.points, 100)
        // Where the file system refuses O_DIRECT, padDirect pads nothing.
        let buffered = try LogWriter(
            directory: dir, number: 2, header: header, preallocation: 65_536, padDirect: true,
            io: FakeIO().io)
        XCTAssertFalse(buffered.writesDirect)
        XCTAssertEqual(buffered.padding, 0)
        buffered.close()
    }

    func testDirectWriteRefusedGoesOnThroughThePageCache() throws {
        // EINVAL: the device's sectors are larger than 512 bytes, and nothing was written.
        let fake = FakeIO()
        fake.direct = true
        fake.failDirectAt = 40
        let w = try writeRide(1, fake)
        XCTAssertFalse(w.writesDirect)
        XCTAssertFalse(w.failed)
        XCTAssertEqual(fake.calls.filter { $0.call == "d" }.count, 40)
        w.close()
        let ref = try writeRide(2, FakeIO())
        ref.close()
        XCTAssertEqual(try bytes(w.path), try bytes(ref.path))
    }

    func testDirectWriteFailureFailsTheWriter() throws {
        let fake = FakeIO()
        fake.direct = true
        fake.failDirectErrno = EIO
        let w = try LogWriter(directory: dir, number: 1, header: header, preallocation: 65_536, io: fake.io)
        try w.append(point: fix(0))
        XCTAssertEqual(try w.sync(), 1)
        fake.failDirectAt = fake.directWrites + 1
        try w.append(point: fix(1))
        XCTAssertThrowsError(try w.sync()) { XCTAssertTrue(($0 as? LogError)?.message.contains("write failed") ?? false) }
        XCTAssertTrue(w.failed)
        XCTAssertEqual(w.unacknowledged, [.points([fix(1)])])
        let syncs = fake.syncs
        w.close()
        XCTAssertEqual(fake.syncs, syncs)  // never synced again
        XCTAssertEqual(try LogReader(path: w.path).scan().points, 1)
    }

    func testSystemWriterWritesDirectWhereTheFileSystemTakesIt() throws {
        let w = try LogWriter(directory: dir, number: 1, header: header, preallocation: 65_536)
        for i in 0..<100 {
            try w.append(point: fix(i))
            if i % 5 == 4 { try w.sync() }
        }
        let fs = SyncPadding.forDirectory(dir).fileSystem  // the recorder's own look-up
        print("FIGURE system_writer_direct=\(w.writesDirect) file_system=\(fs)")
        // The build machines' /tmp: ext4 takes O_DIRECT in 512-byte sectors.
        if ["ext4", "xfs", "btrfs", "f2fs"].contains(fs) { XCTAssertTrue(w.writesDirect, fs) }
        w.close()
        XCTAssertEqual(size(w.path), w.bytesWritten)
        let scan = try LogReader(path: w.path).scan()
        XCTAssertTrue(scan.isClean)
        XCTAssertEqual(scan.points, 100)
    }

    func testFailedZeroWriteOnlyStopsPreallocating() throws {
        // A full card refuses the zeros: the writer appends instead, and loses nothing.
        let fake = FakeIO()
        fake.failZeroWrites = ENOSPC
        let w = try LogWriter(directory: dir, number: 1, header: header, preallocation: 65_536, io: fake.io)
        XCTAssertFalse(w.failed)
        XCTAssertEqual(size(w.path), 32)
        for i in 0..<10 {
            try w.append(point: fix(i))
            XCTAssertEqual(try w.sync(), UInt64(i + 1))
            XCTAssertEqual(size(w.path), w.bytesWritten)
        }
        XCTAssertEqual(fake.calls.filter(\.zeros).count, 1)  // tried once, then gave up
        fake.calls = []
        w.close()
        XCTAssertEqual(fake.calls.count, 0)  // nothing to trim
        XCTAssertEqual(try LogReader(path: w.path).scan().points, 10)
    }

    func testFailedWriterKeepsItsZerosAtClose() throws {
        let fake = FakeIO()
        let w = try LogWriter(directory: dir, number: 1, header: header, preallocation: 65_536, io: fake.io)
        try w.append(.note("a"))
        XCTAssertEqual(try w.sync(), 1)
        try w.append(.note("b"))
        fake.failSyncAt = fake.syncs + 1
        XCTAssertThrowsError(try w.sync())
        fake.calls = []
        w.close()
        XCTAssertEqual(fake.calls.count, 0)  // an abandoned descriptor is never written or synced again
        let report = try LogReader(path: w.path).scan()
        XCTAssertEqual(report.records, 2)
        XCTAssertTrue(report.isClean)
    }

    func testFailedFdatasyncIsNeverRetried() throws {
        let fake = FakeIO()
        fake.failSyncAt = 3  // header, first data sync OK, second fails
        let w = try LogWriter(directory: dir, number: 1, header: header, io: fake.io)
        try w.append(.note("a"))
        XCTAssertEqual(try w.sync(), 1)
        try w.append(point: fix(0))
        try w.append(.note("b"))
        try w.append(point: fix(1))
        XCTAssertThrowsError(try w.sync()) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.errno, EIO)
            XCTAssertTrue(e?.message.contains("fdatasync") ?? false)
        }
        XCTAssertTrue(w.failed)
        XCTAssertEqual(w.lastSyncedSeq, 1)
        XCTAssertEqual(w.unacknowledged, [.points([fix(0)]), .note("b"), .points([fix(1)])])
        XCTAssertEqual(fake.syncs, 3)
        XCTAssertThrowsError(try w.sync()) { XCTAssertEqual(($0 as? LogError)?.kind, .writerFailed) }
        XCTAssertThrowsError(try w.append(.note("c"))) { XCTAssertEqual(($0 as? LogError)?.kind, .writerFailed) }
        XCTAssertThrowsError(try w.append(point: fix(2)))
        XCTAssertEqual(fake.syncs, 3, "fdatasync must never be retried on a failed descriptor")
        XCTAssertEqual(w.unacknowledged.count, 3)

        // The caller rewrites them into a new file of the same trip.
        let w2 = try LogWriter(
            directory: dir, number: 2,
            header: FileHeader(tripId: 5, part: 1, salt: LogDirectory.randomSalt()))
        for r in w.unacknowledged { try w2.append(r) }
        XCTAssertEqual(try w2.sync(), 3)
        XCTAssertEqual(try records(w2.path), [.points([fix(0)]), .note("b"), .points([fix(1)])])
    }

    func testWriteFailureFailsTheWriter() throws {
        let fake = FakeIO()
        let w = try LogWriter(directory: dir, number: 1, header: header, io: fake.io)
        try w.append(.note("a"))
        fake.failWriteAt = fake.writes + 1
        XCTAssertThrowsError(try w.sync()) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.errno, ENOSPC)
            XCTAssertTrue(e?.description.hasPrefix(w.path + ": write failed") ?? false, "\($0)")
        }
        XCTAssertTrue(w.failed)
        XCTAssertEqual(fake.syncs, 1)
        XCTAssertEqual(w.unacknowledged, [.note("a")])
    }

    func testSpillFailureInAppendSurfacesAtNextCall() throws {
        let fake = FakeIO()
        let w = try LogWriter(directory: dir, number: 1, header: header, io: fake.io)
        fake.failWriteAt = fake.writes + 1
        let big = String(repeating: "x", count: 40_000)
        try w.append(.note(big))
        try w.append(.note(big))  // crosses 64 KiB: the spill write fails, but this record was accepted
        XCTAssertTrue(w.failed)
        XCTAssertEqual(w.unacknowledged, [.note(big), .note(big)])
        XCTAssertThrowsError(try w.append(.note("c"))) { XCTAssertEqual(($0 as? LogError)?.errno, ENOSPC) }
        XCTAssertThrowsError(try w.sync()) { XCTAssertEqual(($0 as? LogError)?.kind, .writerFailed) }
        XCTAssertEqual(w.unacknowledged.count, 2)
    }

    func testShortWritesAndEINTRAreHandled() throws {
        let fake = FakeIO()
        fake.shortWrites = true
        let w = try LogWriter(directory: dir, number: 1, header: header, io: fake.io)
        for r in Self.sampleRecords() { try w.append(r) }
        XCTAssertEqual(try w.sync(), 10)
        XCTAssertFalse(w.failed)
        XCTAssertEqual(try LogReader(path: w.path).scan().records, 10)
        XCTAssertTrue(try LogReader(path: w.path).scan().isClean)
        XCTAssertGreaterThan(fake.writes, 100)
    }

    func testLargeBacklogIsWrittenWithoutSyncing() throws {
        let fake = FakeIO()
        let w = try LogWriter(directory: dir, number: 1, header: header, io: fake.io)
        let writesBefore = fake.writes
        for i in 0..<20_000 { try w.append(point: Fix(timeMs: 1_700_000_000_000 + Int64(i), lat: Double(i % 90), lon: 0, mode: 3)) }
        XCTAssertGreaterThan(fake.writes, writesBefore)  // spilled
        XCTAssertLessThan(w.pendingBytes, LogWriter.spillBytes + FrameFormat.maxFrame)
        // The unacknowledged backlog is bounded: append synced by itself at the limit.
        XCTAssertGreaterThan(w.lastSyncedSeq, 0)
        XCTAssertLessThanOrEqual(
            w.unacknowledged.reduce(0) { n, r in
                if case .points(let p) = r { return n + p.count }
                return n + 1
            }, LogWriter.maxUnacknowledged)
        try w.sync()
        XCTAssertEqual(try LogReader(path: w.path).scan().points, 20_000)
        // One huge `.points` record is written out batch by batch, not buffered whole.
        let w2 = try LogWriter(directory: dir, number: 2, header: header, io: fake.io)
        try w2.append(.points((0..<5000).map { Fix(timeMs: 1_700_000_000_000 + Int64($0), lat: Double($0 % 90), lon: 0, mode: 3) }))
        XCTAssertLessThan(w2.pendingBytes, LogWriter.spillBytes + FrameFormat.maxFrame)
        try w2.sync()
        XCTAssertEqual(try LogReader(path: w2.path).scan().points, 5000)
    }

    func testRecordTooLargeIsRejectedAndWriterStaysUsable() throws {
        let w = try LogWriter(directory: dir, number: 1, header: header)
        try w.append(point: fix(0))
        XCTAssertThrowsError(try w.append(.note(String(repeating: "y", count: 70_000)))) {
            XCTAssertEqual(($0 as? LogError)?.kind, .invalidArgument)
        }
        XCTAssertThrowsError(try w.append(.unknown(type: 0, payload: [])))
        XCTAssertFalse(w.failed)
        try w.append(.note(String(repeating: "z", count: 65_530)))  // fits: 65535 − seq(1) ≥ 65530
        XCTAssertEqual(try w.sync(), 2)
        XCTAssertEqual(try records(w.path), [.points([fix(0)]), .note(String(repeating: "z", count: 65_530))])
    }

    func testMissingDirectoryGivesLogErrorNamingThePath() throws {
        let missing = dir + "/no/such/dir"
        XCTAssertThrowsError(try LogWriter(directory: missing, number: 1, header: header)) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.path, missing + "/00000001.cairn")
            XCTAssertEqual(e?.errno, ENOENT)
            XCTAssertTrue(e?.description.hasPrefix(missing + "/00000001.cairn: cannot create log file: ") ?? false)
        }
    }

    func testReadOnlyDirectoryGivesLogErrorNamingThePath() throws {
        let ro: String
        if getuid() == 0 {
            // Root ignores permission bits; sysfs refuses new files even for root.
            guard access("/sys", F_OK) == 0 else { throw XCTSkip("no unwritable directory for root") }
            ro = "/sys"
        } else {
            ro = dir + "/ro"
            try FileManager.default.createDirectory(
                atPath: ro, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o555])
        }
        XCTAssertThrowsError(try LogWriter(directory: ro, number: 1, header: header)) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.path, ro + "/00000001.cairn")
            XCTAssertNotNil(e?.errno)
            XCTAssertTrue("\($0)".hasPrefix(ro + "/00000001.cairn: cannot create log file"), "\($0)")
        }
    }

    func testExclusiveCreateRefusesExistingFile() throws {
        let w = try LogWriter(directory: dir, number: 42, header: header)
        try w.append(.note("keep me"))
        try w.sync()
        w.close()
        let before = try bytes(w.path)
        XCTAssertThrowsError(try LogWriter(directory: dir, number: 42, header: header)) {
            let e = $0 as? LogError
            XCTAssertEqual(e?.errno, EEXIST)
            XCTAssertEqual(e?.path, dir + "/00000042.cairn")
        }
        XCTAssertEqual(try bytes(w.path), before)
    }

    func testFileNamesAndListing() throws {
        XCTAssertEqual(LogDirectory.fileName(number: 42), "00000042.cairn")
        XCTAssertEqual(LogDirectory.fileName(number: 0), "00000000.cairn")
        XCTAssertEqual(LogDirectory.fileName(number: 99_999_999), "99999999.cairn")
        XCTAssertEqual(LogDirectory.number(fromName: "00000042.cairn"), 42)
        for bad in ["0000042.cairn", "000000042.cairn", "0000004a.cairn", "00000042.cairn.tmp", "00000042.gpx", "+0000042.cairn"] {
            XCTAssertNil(LogDirectory.number(fromName: bad), bad)
        }
        XCTAssertEqual(try LogDirectory.logFiles(in: dir).count, 0)
        XCTAssertEqual(try LogDirectory.nextNumber(in: dir), 1)
        for n: UInt32 in [10, 2, 7] { _ = try LogWriter(directory: dir, number: n, header: header) }
        try put([1, 2, 3], "notes.txt")
        try put([1, 2, 3], "123.cairn")
        let files = try LogDirectory.logFiles(in: dir)
        XCTAssertEqual(files.map(\.number), [2, 7, 10])
        XCTAssertEqual(files.map(\.path), [2, 7, 10].map { dir + "/" + LogDirectory.fileName(number: $0) })
        XCTAssertEqual(try LogDirectory.nextNumber(in: dir), 11)
        XCTAssertThrowsError(try LogDirectory.logFiles(in: dir + "/missing")) {
            XCTAssertEqual(($0 as? LogError)?.path, dir + "/missing")
        }
        XCTAssertThrowsError(try LogWriter(directory: dir, number: 100_000_000, header: header))
    }

    /// A folder of delivered copies ("00000042-4a875be0.cairn", the log's salt in the name) reads
    /// as logs when asked (`copies`), never in a recorder's directory.
    func testCopyNamesAreLogsOnlyWhenAsked() throws {
        XCTAssertEqual(LogDirectory.copyNumber(fromName: "00000042-4a875be0.cairn"), 42)
        for bad in ["00000042.cairn", "00000042-4A875BE0.cairn", "00000042-4a875be.cairn", "0000004x-4a875be0.cairn", "00000042_4a875be0.cairn"] {
            XCTAssertNil(LogDirectory.copyNumber(fromName: bad), bad)
        }
        try put([1], "00000003-0000abcd.cairn")
        try put([1], "00000002.cairn")
        XCTAssertEqual(try LogDirectory.logFiles(in: dir).map(\.number), [2])
        XCTAssertEqual(try LogDirectory.logFiles(in: dir, copies: true).map(\.number), [2, 3])
        XCTAssertEqual(try LogDirectory.nextNumber(in: dir), 3)
    }

    func testRandomSaltsDiffer() {
        let salts = Set((0..<64).map { _ in LogDirectory.randomSalt() })
        XCTAssertGreaterThan(salts.count, 60)
    }

    func testWriterForcesTheCurrentVersion() throws {
        var h = header
        h.version = 9
        let w = try LogWriter(directory: dir, number: 1, header: h)
        XCTAssertEqual(w.header.version, 2)
        XCTAssertEqual(try LogReader(path: w.path).header, FileHeader(tripId: 5, part: 0, salt: 0xABCD))
    }
}

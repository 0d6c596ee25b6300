import CairnCore
import CairnSystem
import Foundation
import XCTest

@testable import CairnLog

/// I/O faults under the recorder's file layer (TripLog), through the writer's system-call seam:
/// EIO from fdatasync, ENOSPC, short writes, failing creates. The same figures as protocol D2
/// (libfiu), measured in process: ACK without durability = 0, any write or fdatasync on a
/// descriptor after its fdatasync failed = 0, and every acknowledged record is in its file.
final class TripLogFaultTests: LogTestCase {
    /// A scripted or random faulty disk over the real files.
    final class FaultIO: @unchecked Sendable {
        var g = SplitMix64(seed: 1)
        var pSyncFail = 0.0, pWriteFail = 0.0, pShort = 0.0, pCreateFail = 0.0
        var full = false
        /// Fail this many writes from now on (then succeed).
        var failWrites = 0
        var failedFds = Set<Int32>()
        var pathOf: [Int32: String] = [:]
        /// Per path: did its last fdatasync succeed, with nothing written since?
        var durable: [String: Bool] = [:]
        var ioAfterFailure = 0, injected = 0, syncs = 0
        /// A file system that reports 0 links for every file (some FUSE ones).
        var noLinks = false

        var io: FileIO {
            var w = FileIO(
                write: { fd, buf, offset throws(Errno) in
                    if self.failedFds.contains(fd) { self.ioAfterFailure += 1 }
                    if self.full { throw .noSpace }
                    if self.failWrites > 0 { self.failWrites -= 1; self.injected += 1; throw .ioError }
                    if Double.random(in: 0..<1, using: &self.g) < self.pWriteFail { self.injected += 1; throw .ioError }
                    var n = buf.count
                    if n > 1, Double.random(in: 0..<1, using: &self.g) < self.pShort { self.injected += 1; n = Int.random(in: 1..<n, using: &self.g) }
                    let r = try FileIO.pwrite(fd, UnsafeRawBufferPointer(rebasing: buf[..<n]), offset)
                    if r > 0, let p = self.pathOf[fd] { self.durable[p] = false }
                    return r
                },
                fdatasync: { fd throws(Errno) in
                    if self.failedFds.contains(fd) { self.ioAfterFailure += 1 }
                    self.syncs += 1
                    if Double.random(in: 0..<1, using: &self.g) < self.pSyncFail {
                        self.injected += 1
                        self.failedFds.insert(fd)
                        throw .ioError
                    }
                    try FileIO.system.fdatasync(fd)
                    if let p = self.pathOf[fd] { self.durable[p] = true }
                })
            if noLinks { w.linkCount = { _ in 0 } }
            w.open = { path, flags, mode throws(Errno) in
                if self.full { throw .noSpace }
                if Double.random(in: 0..<1, using: &self.g) < self.pCreateFail { self.injected += 1; throw .ioError }
                let fd = try POSIX.open(path, flags, mode)
                // A new file may get the number of a closed, failed descriptor.
                self.failedFds.remove(fd)
                self.pathOf[fd] = path
                self.durable[path] = false
                return fd
            }
            return w
        }
    }

    struct Run {
        var acks: [(String, UInt64)] = []
        var ackWithoutDurability = 0
        var said: [String] = []
        /// What closeTrip said never reached the card.
        var lost = 0
    }

    /// A ride through TripLog: `points` fixes, one every 200 ms, sync every second.
    func ride(
        _ fio: FaultIO, points: Int, dir: String, raw: Bool = false, during: ((Int) -> Void)? = nil,
        beforeClose: (() -> Void)? = nil
    ) throws -> Run {
        var run = Run()
        var said: [String] = []
        let log = try TripLog(
            directory: dir, activity: "ride", software: "test", syncIntervalMs: 1000,
            io: fio.io, say: { said.append($0) })
        log.onSync = { path, seq in
            run.acks.append((path, seq))
            if fio.durable[path] != true { run.ackWithoutDurability += 1 }
        }
        var mono: Int64 = 0
        log.apply(.openTrip(resume: false), monoMs: mono)
        log.apply(.startSegment(.start, timeMs: 1_700_000_000_000), monoMs: mono)
        for i in 0..<points {
            during?(i)
            mono += 200
            let f = Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 47 + Double(i) * 1e-5, lon: 8, mode: 3)
            log.apply(.keep(f), monoMs: mono)
            if raw {
                // What the recorder hands out with raw fixes on: the fix and its verdict.
                log.apply(
                    .raw(
                        RawFix(
                            fix: f, arrivalMs: f.timeMs + 300, verdict: .kept, events: i == 0 ? .runStart : [],
                            settings: RawSettings(clockIsFix: false, closeAfterMs: 1_800_000))), monoMs: mono)
            }
            log.tick(monoMs: mono)
        }
        beforeClose?()
        run.lost = log.closeTrip(
            TripEnd(reason: .shutdown, points: UInt64(points), distanceM: 0, movingTimeMs: 0, firstTimeMs: nil, lastTimeMs: nil),
            drops: DropCounts(), monoMs: mono + 200)
        run.said = said
        return run
    }

    /// Point times across every file of the directory (a trip's files merged as a reader does).
    func pointTimes(_ dir: String) throws -> (times: Set<Int64>, damaged: Int, files: Int) {
        var times = Set<Int64>()
        var damaged = 0
        let files = try LogDirectory.logFiles(in: dir)
        for f in files {
            let r = try LogReader(path: f.path)
            try r.forEach { e in
                if case .points(let ps) = e.record { for p in ps { times.insert(p.timeMs) } }
                return true
            }
            damaged += try r.scan().damaged.count
        }
        return (times, damaged, files.count)
    }

    /// Raw fix times across every file of the directory.
    func rawTimes(_ dir: String) throws -> Set<Int64> {
        var times = Set<Int64>()
        for f in try LogDirectory.logFiles(in: dir) {
            try LogReader(path: f.path).forEach { e in
                if case .rawFixes(let b) = e.record { for r in b.fixes { times.insert(r.fix.timeMs) } }
                return true
            }
        }
        return times
    }

    /// Raw fixes (type 8) recover like points: after failed fdatasyncs, short writes and failed
    /// writes, every raw fix is in one file or another, as every point is.
    func testRawFixesSurviveFaultsLikePoints() throws {
        for seed: UInt64 in 1...6 {
            let d = dir + "/raw-\(seed)"
            let fio = FaultIO()
            fio.g = SplitMix64(seed: seed)
            let run = try ride(fio, points: 120, dir: d, raw: true) { i in
                fio.pSyncFail = (30..<40).contains(i) ? 0.3 : 0
                fio.pShort = (60..<70).contains(i) ? 0.3 : 0
                if i == 90 { fio.failWrites = 2 }
            }
            XCTAssertEqual(fio.ioAfterFailure, 0)
            XCTAssertEqual(run.ackWithoutDurability, 0)
            XCTAssertEqual(try checkAcks(run), 0)
            let points = try pointTimes(d).times
            XCTAssertEqual(points.count, 120, "seed \(seed): every point")
            XCTAssertEqual(try rawTimes(d), points, "seed \(seed): every raw fix, as every point")
            XCTAssertGreaterThan(fio.injected, 0, "seed \(seed): faults were injected")
        }
    }

    func checkAcks(_ run: Run) throws -> Int {
        var violations = 0
        var last: [String: UInt64] = [:]
        for (p, s) in run.acks { last[p] = max(last[p] ?? 0, s) }
        for (p, s) in last {
            let seqs = Set(try entries(p).map(\.seq))
            if !(1...s).allSatisfy({ seqs.contains($0) }) { violations += 1 }
        }
        return violations
    }

    /// The log directory deleted mid-ride (`rm -r`): the open file lives on unlinked, and
    /// syncing into it is no acknowledgement. The writer sees the name gone at its next sync,
    /// the directory is made again, and every point from then on (the unsynced ones before
    /// too) is in a new file of the same trip.
    func testLogDirectoryRemovedMidRideIsMadeAgainAndLosesNothingAfter() throws {
        let fio = FaultIO()
        let run = try ride(fio, points: 60, dir: dir) { i in
            if i == 32 { try? FileManager.default.removeItem(atPath: self.dir) }
        }
        XCTAssertTrue(run.said.contains { $0.contains("removed while being written") && $0.contains("ENOENT") }, "\(run.said)")
        XCTAssertTrue(run.said.contains { $0.contains("created it again") }, "\(run.said)")
        XCTAssertEqual(run.lost, 0)
        let files = try LogDirectory.logFiles(in: dir)
        XCTAssertEqual(files.count, 1, "the removed file is gone; the new one holds the rest")
        let got = try pointTimes(dir)
        let t0: Int64 = 1_700_000_000_000
        for i in 32..<60 { XCTAssertTrue(got.times.contains(t0 + Int64(i) * 1000), "point \(i) lost") }
        XCTAssertEqual(got.damaged, 0)
        XCTAssertEqual(try LogReader(path: files[0].path).header.part, 1)
        // No sync of the removed file counts as an acknowledgement once its name is gone: a sync
        // every 5 points, so at most 7 for the 32 points before the removal (not 12 for 60).
        let removedPath = (dir as NSString).appendingPathComponent("00000001.cairn")
        let removedAcks = run.acks.filter { $0.0 == removedPath }.count
        XCTAssertGreaterThan(removedAcks, 0)
        XCTAssertLessThanOrEqual(removedAcks, 7)
    }

    /// A file system that reports no links is no removal: one file, every point, nothing said.
    func testAFileSystemWithoutLinkCountsIsNotARemoval() throws {
        let fio = FaultIO()
        fio.noLinks = true
        let run = try ride(fio, points: 60, dir: dir)
        XCTAssertFalse(run.said.contains { $0.contains("removed") }, "\(run.said)")
        XCTAssertEqual(try LogDirectory.logFiles(in: dir).count, 1)
        XCTAssertEqual(try pointTimes(dir).times.count, 60)
    }

    func testEIOFromFdatasyncContinuesInANewFileOfTheSameTrip() throws {
        let fio = FaultIO()
        var failAt: Int? = nil
        let run = try ride(fio, points: 60, dir: dir) { i in
            // Fail the sync that follows point 30, once.
            if i == 30 { failAt = fio.syncs + 1; fio.pSyncFail = 1 }
            if let f = failAt, fio.syncs >= f { fio.pSyncFail = 0 }
        }
        XCTAssertEqual(fio.ioAfterFailure, 0, "never touch a descriptor after its fdatasync failed")
        XCTAssertEqual(run.ackWithoutDurability, 0)
        XCTAssertEqual(try checkAcks(run), 0)
        let got = try pointTimes(dir)
        XCTAssertEqual(got.times.count, 60, "every point is in one file or the other")
        XCTAssertEqual(got.damaged, 0)
        let files = try LogDirectory.logFiles(in: dir)
        XCTAssertEqual(files.count, 2)
        let h = try files.map { try LogReader(path: $0.path).header }
        XCTAssertEqual(h.map(\.tripId), [h[0].tripId, h[0].tripId])
        XCTAssertEqual(h.map(\.part), [0, 1])
        XCTAssertTrue(run.said.contains { $0.contains("EIO") && $0.contains("new file") }, "\(run.said)")
        let second = try records(files[1].path)
        XCTAssertTrue(
            second.contains {
                if case .note(let t) = $0 { return t.contains("EIO") }; return false
            })
    }

    func testDirectWriteRefusedMidFileIsToldOnceAndLosesNothing() throws {
        // A card whose writes past the page cache start failing with EINVAL after five.
        final class Direct: @unchecked Sendable { var fd: Int32 = -1; var writes = 0 }
        let direct = Direct()
        var io = FileIO.system
        io.openDirect = { path throws(Errno) in
            direct.fd = -1
            direct.fd = try POSIX.open(path, O_WRONLY | O_CLOEXEC)
            return direct.fd
        }
        let plain = FileIO.system.write
        io.write = { fd, buf, offset throws(Errno) in
            if fd == direct.fd {
                direct.writes += 1
                if direct.writes > 5 { throw .invalidArgument }
            }
            return try plain(fd, buf, offset)
        }
        var said: [String] = []
        let log = try TripLog(
            directory: dir, activity: "ride", software: "test", syncIntervalMs: 1000, padDirect: true,
            io: io, say: { said.append($0) })
        var mono: Int64 = 0
        log.apply(.openTrip(resume: false), monoMs: mono)
        log.apply(.startSegment(.start, timeMs: 1_700_000_000_000), monoMs: mono)
        for i in 0..<40 {
            mono += 200
            log.apply(.keep(Fix(timeMs: 1_700_000_000_000 + Int64(i) * 1000, lat: 47 + Double(i) * 1e-5, lon: 8, mode: 3)), monoMs: mono)
            log.tick(monoMs: mono)
        }
        log.closeTrip(
            TripEnd(reason: .shutdown, points: 40, distanceM: 0, movingTimeMs: 0, firstTimeMs: nil, lastTimeMs: nil),
            drops: DropCounts(), monoMs: mono + 200)
        XCTAssertEqual(direct.writes, 6)  // five taken, the sixth refused, none after it
        XCTAssertTrue(said.first?.contains("sectors past the page cache") ?? false, "\(said)")
        XCTAssertEqual(said.filter { $0.contains("writing through the page cache from here") }.count, 1, "\(said)")
        let got = try pointTimes(dir)
        XCTAssertEqual(got.times.count, 40)
        XCTAssertEqual(got.damaged, 0)
        XCTAssertEqual(got.files, 1)
    }

    /// A file that takes the next name after the recorder scanned the directory (a copied or
    /// leftover file) is never overwritten, and the new trip does not claim its trip and part:
    /// the trip takes the next free number, at once.
    func testExistingFileNameIsSkippedAndTheTripTakesTheNextFreeNumber() throws {
        var said: [String] = []
        let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 1000, say: { said.append($0) })
        // Appears after the scan: trip 1, part 0, like the file the new trip would have written.
        let other = try LogWriter(directory: dir, number: 1, header: FileHeader(tripId: 1, part: 0, salt: 7))
        try other.append(.tripStart(activity: "walk", software: "other"))
        try other.append(point: Fix(timeMs: 1_748_764_805_000, lat: 46, lon: 7, mode: 3))
        _ = try other.sync()
        other.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/00000001.cairn"))
        var mono: Int64 = 0
        log.apply(.openTrip(resume: false), monoMs: mono)
        log.apply(.startSegment(.start, timeMs: 1_748_764_800_000), monoMs: mono)
        for i in 0..<20 {
            mono += 200
            log.apply(.keep(Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47 + Double(i) * 1e-5, lon: 8, mode: 3)), monoMs: mono)
            log.tick(monoMs: mono)
        }
        log.closeTrip(
            TripEnd(reason: .shutdown, points: 20, distanceM: 0, movingTimeMs: 0, firstTimeMs: nil, lastTimeMs: nil),
            drops: DropCounts(), monoMs: mono + 200)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/00000001.cairn")), before, "the existing file is untouched")
        let files = try LogDirectory.logFiles(in: dir)
        XCTAssertEqual(files.map(\.number), [1, 2])
        let h = try LogReader(path: files[1].path).header
        XCTAssertEqual(h.tripId, 2, "the new trip takes the number of its own first file")
        XCTAssertEqual(h.part, 0)
        let points = try records(files[1].path).reduce(0) { n, r in
            if case .points(let p) = r { return n + p.count }; return n
        }
        XCTAssertEqual(points, 20, "nothing waited for a retry")
        XCTAssertTrue(said.contains { $0.contains("00000001.cairn exists already") && $0.contains("00000002.cairn") }, "\(said)")
        XCTAssertFalse(said.contains { $0.contains("will retry") }, "\(said)")
    }

    /// One recorder per directory: a second lock on it is refused, naming the holder's PID; once
    /// the holder is gone (its descriptor closed, as the kernel does when a process dies), the
    /// file left behind does not block the next one. Readers do not take it for a log.
    func testDirectoryLockIsExclusiveNamesItsHolderAndIsNotALog() throws {
        var first: DirectoryLock? = try DirectoryLock(directory: dir)
        XCTAssertThrowsError(try DirectoryLock(directory: dir)) { e in
            guard case DirectoryLock.Failure.held(let d, let holder) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(d, dir)
            XCTAssertEqual(holder, String(getpid()))
            XCTAssertTrue("\(e)".contains("PID \(getpid())") && "\(e)".contains(dir), "\(e)")
        }
        XCTAssertNotNil(first)
        first = nil
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/" + DirectoryLock.fileName))
        XCTAssertNoThrow(try DirectoryLock(directory: dir))
        XCTAssertEqual(try LogDirectory.logFiles(in: dir).count, 0)
        // A crafted holder text is not echoed.
        try "evil\u{1b}[31m\n".write(toFile: dir + "/" + DirectoryLock.fileName, atomically: false, encoding: .utf8)
        let held = try DirectoryLock(directory: dir)
        XCTAssertEqual(try String(contentsOfFile: held.path, encoding: .utf8), "\(getpid())\n")
    }

    func testFullCardWaitsInMemoryCreatesNoJunkAndResumes() throws {
        let fio = FaultIO()
        let run = try ride(fio, points: 100, dir: dir) { i in
            if i == 20 { fio.full = true }
            if i == 70 { fio.full = false }
        }
        XCTAssertEqual(run.ackWithoutDurability, 0)
        XCTAssertEqual(try checkAcks(run), 0)
        let got = try pointTimes(dir)
        XCTAssertEqual(got.times.count, 100, "points wait in memory while the card is full")
        XCTAssertEqual(got.damaged, 0)
        XCTAssertEqual(got.files, 2, "no empty file per retry while the card was full")
        XCTAssertTrue(run.said.contains { $0.contains("ENOSPC") }, "\(run.said)")
        XCTAssertTrue(run.said.contains { $0.contains("writing again") }, "\(run.said)")
        XCTAssertLessThanOrEqual(run.said.filter { $0.contains("will retry") }.count, 1, "one message per outage: \(run.said)")
    }

    /// A card full for long: the ring of 4,096 waiting records overflows. The dropping is said
    /// once, with its count when the card takes records again; the trip's summary on the card
    /// counts the points there, a note says how many were dropped, and closeTrip returns it.
    func testCardFullForLongSaysDroppingOnceAndTheSummaryCountsWhatIsOnTheCard() throws {
        let fio = FaultIO()
        let run = try ride(fio, points: 6000, dir: dir) { i in
            if i == 100 { fio.full = true }
            if i == 5500 { fio.full = false }
        }
        let got = try pointTimes(dir)
        XCTAssertEqual(run.lost, 6000 - got.times.count, "the count is what is missing from the card")
        XCTAssertGreaterThan(run.lost, 1000)
        XCTAssertEqual(run.said.filter { $0.contains("dropping the oldest") }.count, 1, "once per episode: \(run.said.prefix(5))")
        XCTAssertEqual(run.said.filter { $0.contains("were dropped") && $0.contains("(\(run.lost) points)") }.count, 1, "\(run.said)")
        var ends: [TripEnd] = []
        var notes: [String] = []
        for f in try LogDirectory.logFiles(in: dir) {
            for r in try records(f.path) {
                if case .tripEnd(let e) = r { ends.append(e) }
                if case .note(let t) = r { notes.append(t) }
            }
        }
        XCTAssertEqual(ends.map(\.points), [UInt64(got.times.count)], "the summary counts the points on the card")
        XCTAssertTrue(notes.contains("\(run.lost) of the trip's 6000 points were dropped for lack of room on the card"), "\(notes)")
    }

    func testCardStillFullAtStopCountsTheWaitingPointsAsLost() throws {
        let fio = FaultIO()
        let run = try ride(fio, points: 5000, dir: dir) { i in if i == 50 { fio.full = true } }
        let got = try pointTimes(dir)
        XCTAssertEqual(run.lost, 5000 - got.times.count)
        XCTAssertEqual(run.said.filter { $0.contains("dropping the oldest") }.count, 1)
        XCTAssertTrue(run.said.contains { $0.contains("records (") && $0.contains("could not be written before stopping") }, "\(run.said)")
        XCTAssertTrue(run.said.contains { $0.contains("were dropped") && $0.contains("until stopping") }, "\(run.said)")
    }

    /// Regression: a write error in the sync at stop lost the records it held (there was no later
    /// sync to retry in: 5 points in 200 rides at p 0.01). Now the stop tries a new file at once.
    func testWriteErrorAtStopIsRetriedInANewFile() throws {
        let fio = FaultIO()
        let run = try ride(fio, points: 23, dir: dir, beforeClose: { fio.failWrites = 1 })
        XCTAssertEqual(fio.injected, 1)
        XCTAssertEqual(try checkAcks(run), 0)
        let got = try pointTimes(dir)
        XCTAssertEqual(got.times.count, 23, "the points pending at stop are written to a new file")
        let files = try LogDirectory.logFiles(in: dir)
        XCTAssertEqual(files.count, 2)
        guard files.count == 2 else { return }
        XCTAssertTrue(
            try records(files[1].path).contains {
                if case .tripEnd = $0 { return true }; return false
            })
        XCTAssertFalse(run.said.contains { $0.contains("could not be written") }, "\(run.said)")
    }

    func testFullCardAtStopSaysWhatWasLost() throws {
        let fio = FaultIO()
        let run = try ride(fio, points: 30, dir: dir) { i in if i == 10 { fio.full = true } }
        XCTAssertTrue(run.said.contains { $0.contains("could not be written before stopping") }, "\(run.said)")
        XCTAssertEqual(try checkAcks(run), 0)
    }

    /// slow F8: with no trip ever open (gpsd's fixes had no time), the notes made meanwhile
    /// were said at stop to be lost to "the card is full or failing" on a card that was fine.
    func testNotesWithNoTripOpenAreNotBlamedOnTheCard() throws {
        var said: [String] = []
        let log = try TripLog(directory: dir, activity: "ride", software: "test", syncIntervalMs: 1000, say: { said.append($0) })
        log.append(.note("gpsd connection lost: gpsd closed the connection"), monoMs: 10)
        log.append(.note("gpsd connection lost: gpsd closed the connection"), monoMs: 20)
        log.shutdown(monoMs: 30)
        XCTAssertFalse(said.contains { $0.contains("card is full or failing") }, "\(said)")
        XCTAssertTrue(said.contains("log: 2 records from while no trip was open not written (a file is made only for a trip)"), "\(said)")
        XCTAssertEqual(try LogDirectory.logFiles(in: dir).count, 0, "no file without a trip")
    }

    /// Protocol D2, in process: random faults at libfiu's rates, 200 rides each (100 for creates).
    func testRandomFaultInjection() throws {
        let full = CrashCampaignTests.full
        let configs: [(String, Int, (FaultIO) -> Void)] = [
            ("fdatasync_eio_p0.02", full ? 200 : 20, { $0.pSyncFail = 0.02 }),
            ("write_short_p0.05", full ? 200 : 20, { $0.pShort = 0.05 }),
            ("write_eio_p0.01", full ? 200 : 20, { $0.pWriteFail = 0.01 }),
            ("create_eio_p0.1", full ? 100 : 10, { $0.pCreateFail = 0.1 })
        ]
        for (name, runs, setup) in configs {
            var injected = 0, acks = 0, noDurability = 0, afterFailure = 0, ackLost = 0, pointsLost = 0, damaged = 0
            for k in 0..<runs {
                let d = dir + "/\(name)-\(k)"
                mkdir(d, 0o755)
                let fio = FaultIO()
                fio.g = SplitMix64(seed: UInt64(k) &* 7919 &+ UInt64(name.utf8.count))
                setup(fio)
                let run = try ride(fio, points: 120, dir: d)
                injected += fio.injected
                acks += run.acks.count
                noDurability += run.ackWithoutDurability
                afterFailure += fio.ioAfterFailure
                ackLost += try checkAcks(run)
                let got = try pointTimes(d)
                pointsLost += 120 - got.times.count
                damaged += got.damaged
            }
            print(
                "FIGURE D2 faults=\(name) runs=\(runs) injected=\(injected) acks=\(acks) ack_without_durability=\(noDurability) "
                    + "io_after_failed_fdatasync=\(afterFailure) acked_records_lost=\(ackLost) points_lost=\(pointsLost) damaged_ranges=\(damaged)")
            XCTAssertEqual(noDurability, 0, name)
            XCTAssertEqual(afterFailure, 0, name)
            XCTAssertEqual(ackLost, 0, name)
            XCTAssertEqual(pointsLost, 0, name)
        }
    }
}

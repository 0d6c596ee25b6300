import XCTest
import CairnCore
import CairnLog
import CairnDevice
@testable import CairnRecorder

/// The record loop on a fake gpsd and a fake clock: batching, the held epoch's flush, the
/// barometer's pairing, the live status, the watchdog's cadence and the reconnect back-off.
final class RecordLoopTests: XCTestCase {
    /// One run of the loop and its fakes.
    final class Rig {
        let clock = FakeClock()
        let gpsd: FakeGpsd
        let log: FakeLog
        let barometer: LoopBarometer
        let notifier: FakeNotifier
        let status: FakeStatusFile?
        var said: [String] = []
        var afterTripClosed = 0
        let readEverySeconds: Double
        /// The status LED, when the test gives one.
        var light: LoopLight?
        /// The rider's button, when the test gives one.
        var button: LoopButton?

        init(
            readEverySeconds: Double, syncSeconds: Double = 5, barometerEveryMs: Int64? = nil,
            notify: Bool = false, watchdogIntervalMs: Int64? = nil, status: Bool = false
        ) {
            gpsd = FakeGpsd(clock: clock)
            log = FakeLog(syncIntervalMs: Int64(syncSeconds * 1000))
            barometer = barometerEveryMs.map { FakeBarometer(everyMs: $0) } ?? NoBarometer()
            notifier = FakeNotifier(clock: clock, enabled: notify, watchdogIntervalMs: watchdogIntervalMs)
            self.status = status ? FakeStatusFile() : nil
            self.readEverySeconds = readEverySeconds
        }

        /// Runs until gpsd's stop signal (`gpsd.stopAt`), then the stop sequence.
        func run(zone: TimeZoneFile? = nil) {
            var settings = RecordLoop.Settings(readEverySeconds: readEverySeconds, pauseAfterMs: ActivityProfile.ride.pauseAfterMs)
            settings.verbose = true
            settings.zone = zone
            let recorder = TripRecorder(filter: FixRules(profile: .ride))
            let loop = RecordLoop(
                recorder: recorder, log: log, source: gpsd, barometer: barometer, notify: notifier,
                statusFile: status, clock: clock, settings: settings,
                stopRequested: { [clock, gpsd] in clock.mono >= gpsd.stopAt },
                afterTripClosed: { [unowned self] in self.afterTripClosed += 1 },
                say: { [unowned self] in self.said.append($0) }, distanceText: { "\(Int($0)) m" })
            loop.light = light
            loop.button = button
            loop.run()
        }

        /// The fix times of the points kept, in the order the log got them.
        var keptTimes: [Int64] { log.kept.map(\.fix.timeMs) }
    }

    /// A ride north at 8 m/s, one epoch a second from `startMs` (monotonic), each epoch's
    /// `perEpoch` reports arriving `latencyMs` after its GPS time (the wall clock's). The doppler
    /// wobbles by a few cm/s, as a receiver's does: one equal to the chords, fix after fix, is
    /// gpsd's own from positions (`Cadence`), and opens a trip only on minutes of way.
    static func ride(seconds: Int, startMs: Int64 = 1000, perEpoch: Int = 1, latencyMs: Int64 = 300) -> [FakeGpsd.Arrival] {
        var out: [FakeGpsd.Arrival] = []
        for i in 0..<seconds {
            let t = startMs + Int64(i) * 1000
            let f = Fix(
                timeMs: t + FakeClock.wallOffset, lat: 48 + Double(i) * 8 / 111_195, lon: 11, mode: 3,
                altHAE: 147, altMSL: 100, eph: 5, epv: 8, speed: 8 + 0.03 * sin(Double(i) * 1.7), track: 0)
            for k in 0..<perEpoch { out.append(.init(mono: t + latencyMs + Int64(k) * 20, report: .fix(f))) }
        }
        return out
    }

    // MARK: batching

    /// Read every 5 s, the reports wait in the socket and are taken in one wake-up on the 5 s
    /// grid; the points, the duplicates and the trip are exactly those of reading each report
    /// as it comes, with one sync per batch.
    func testBatchesAreTakenOnTheGridAndRecordWhatReadingLiveRecords() {
        let ride = Self.ride(seconds: 60, perEpoch: 3)
        let live = Rig(readEverySeconds: 0)
        live.gpsd.arrivals = ride
        live.gpsd.stopAt = 90_000
        live.run()
        let batched = Rig(readEverySeconds: 5)
        batched.gpsd.arrivals = ride
        batched.gpsd.stopAt = 90_000
        batched.run()

        XCTAssertGreaterThan(live.keptTimes.count, 50)
        XCTAssertEqual(batched.keptTimes, live.keptTimes, "batched reading lost, added or reordered points")
        XCTAssertEqual(batched.log.closed?.end.points, live.log.closed?.end.points)
        XCTAssertEqual(batched.log.closed?.drops, live.log.closed?.drops)
        XCTAssertEqual(batched.log.closed?.drops[.duplicate], 120, "three reports an epoch: two duplicates each")
        // Live: one recv per report. Batched: one per batch, each at a multiple of 5 s.
        XCTAssertEqual(live.gpsd.recvs.count, 180)
        let takes = batched.gpsd.recvs.filter { $0.mono < 90_000 }
        XCTAssertEqual(takes.count, 13, "\(takes)")
        XCTAssertTrue(takes.allSatisfy { $0.mono % 5000 == 0 }, "batches off the 5 s grid: \(takes)")
        XCTAssertEqual(takes.map(\.count).reduce(0, +), 180)
        // --sync 5 syncs with each batch that brought something to write (none early, none twice).
        let syncs = batched.log.syncs.filter { $0 < 90_000 }
        XCTAssertTrue(syncs.allSatisfy { $0 % 5000 == 0 }, "\(syncs)")
        XCTAssertEqual(Set(syncs).count, syncs.count)
        XCTAssertTrue(
            batched.said.contains("trip closed: \(live.log.closed?.end.points ?? 0) points, \(Int(live.log.closed?.end.distanceM ?? 0)) m"),
            "\(batched.said)")
    }

    /// More than 16 KiB queued wakes the loop before the batch is due, and the grid stays: no
    /// report waits in the socket longer than --read-every.
    func testSixteenKiBQueuedWakesTheLoopEarly() {
        // Thirty reports an epoch (6 KB a second): 16 KiB queue in under 3 s.
        let rig = Rig(readEverySeconds: 5)
        let ride = Self.ride(seconds: 100, perEpoch: 30, latencyMs: 100)
        rig.gpsd.arrivals = ride
        rig.gpsd.stopAt = 110_000
        rig.run()
        let waits = zip(ride, rig.gpsd.takenAt).map { $1 - $0.mono }
        XCTAssertEqual(rig.gpsd.takenAt.count, 3000, "every report taken")
        XCTAssertLessThanOrEqual(waits.max() ?? 99_999, 5000, "a report waited longer than --read-every")
        let early = rig.gpsd.recvs.filter { $0.mono % 5000 != 0 }
        XCTAssertFalse(early.isEmpty, "16 KiB queued wakes the loop")
        XCTAssertTrue(rig.gpsd.recvs.filter { $0.mono % 5000 == 0 }.count >= 19, "the batches on the grid go on")
    }

    /// A burst of 2,500 reports (a replay, a receiver's backlog) is taken in one wake-up: 16 KiB
    /// a recv, the housekeeping between each thousand.
    func testABurstIsDrainedInOneWakeUp() {
        let rig = Rig(readEverySeconds: 5)
        var burst = Self.ride(seconds: 25, perEpoch: 100, latencyMs: 0)
        for i in burst.indices { burst[i].mono = 7000 }
        rig.gpsd.arrivals = burst
        rig.gpsd.stopAt = 20_000
        rig.run()
        XCTAssertEqual(rig.gpsd.takenAt.count, 2500)
        XCTAssertEqual(Set(rig.gpsd.takenAt), [7000], "all of it, in the wake-up it caused")
        XCTAssertEqual(rig.gpsd.recvs.map(\.count).max(), Int(GpsdSource.batchBytes) / FakeGpsd.reportBytes)
        XCTAssertGreaterThan(rig.keptTimes.count, 20)
    }

    /// SIGTERM while a batch still waits in the socket: the stop takes it, and the trip closes
    /// with every point reading live would have kept.
    func testStopTakesTheBatchStillInTheSocket() {
        let ride = Self.ride(seconds: 40)
        let live = Rig(readEverySeconds: 0)
        live.gpsd.arrivals = ride
        live.gpsd.stopAt = 42_500
        live.run()
        let batched = Rig(readEverySeconds: 5)
        batched.gpsd.arrivals = ride
        batched.gpsd.stopAt = 42_500  // the batch due at 45 s holds the last 2 s of the ride
        batched.run()
        XCTAssertEqual(batched.gpsd.recvs.last?.mono, 42_500, "the stop reads the queued batch")
        XCTAssertEqual(batched.keptTimes, live.keptTimes)
        XCTAssertEqual(
            batched.keptTimes.last, ride.last.flatMap { if case .fix(let f) = $0.report { return f.timeMs } else { return nil } },
            "the ride's last fix is in the trip")
        XCTAssertEqual(batched.log.closed?.end.points, live.log.closed?.end.points)
        XCTAssertNotNil(batched.log.closed)
        XCTAssertEqual(batched.notifier.sent.count, 0, "notify is off")
    }

    // MARK: the held epoch

    /// gpsd sends several reports per epoch; the epoch is held until the next one begins, or
    /// released after 1.2 s without a report: at the loop's first wake-up after that, never
    /// before it.
    func testHeldEpochIsReleasedAfterAQuietSpell() {
        let rig = Rig(readEverySeconds: 0, syncSeconds: 5)
        let ride = Self.ride(seconds: 20, perEpoch: 3)
        rig.gpsd.arrivals = ride
        rig.gpsd.stopAt = 40_000
        rig.run()
        let lastReport = ride.last!.mono
        let kept = rig.log.kept
        XCTAssertGreaterThan(kept.count, 15)
        // While reports come, a point is written when the next epoch arrives.
        for k in kept where k.mono <= lastReport {
            XCTAssertEqual((k.mono - 1000) % 1000, 300, "written at an epoch's first report: \(k.mono)")
        }
        // After the last report: nothing for 1.2 s, then the flush at the next wake-up, long
        // before the stop (the rules may keep the very last fix back until then).
        XCTAssertFalse(kept.contains { $0.mono > lastReport && $0.mono <= lastReport + 1200 }, "\(kept.map(\.mono))")
        XCTAssertTrue(
            kept.contains { $0.mono > lastReport + 1200 && $0.mono <= lastReport + 1201 + 5000 },
            "the flush releases the held epoch: \(kept.map(\.mono)) after \(lastReport)")
        XCTAssertEqual(kept.last?.fix.timeMs, 20_000 + FakeClock.wallOffset, "the last epoch is in the trip")

        // Batched, only a batch that finds the socket empty releases it: not the one that took
        // the last reports, and not the wake-up that drained it.
        let batched = Rig(readEverySeconds: 5)
        batched.gpsd.arrivals = ride
        batched.gpsd.stopAt = 40_000
        batched.run()
        let lastBatch = batched.gpsd.recvs.last!.mono
        let released = batched.log.kept.filter { $0.mono > lastBatch }
        XCTAssertEqual(batched.keptTimes, rig.keptTimes)
        XCTAssertFalse(released.isEmpty)
        XCTAssertTrue(
            released.first.map { $0.mono % 5000 == 0 && $0.mono < 40_000 } ?? false,
            "released by a batch, before the stop: \(released.map(\.mono)) after \(lastBatch)")
        XCTAssertEqual(rig.log.closed?.end.points, UInt64(kept.count))
    }

    // MARK: the barometer

    /// Read every 5 s with the batches: a reading at each batch's wake-up, before its reports
    /// are taken, and each fix of the batch paired with the pressure of the moment it arrived
    /// (within a second, once a batch has shown the offset between GPS time and arrival; the
    /// first batch's fixes are paired with its read), between the previous batch's read and
    /// this one's, in order.
    func testBarometerPairsEachFixOfABatchWithItsArrival() {
        let rig = Rig(readEverySeconds: 5, barometerEveryMs: 5000)
        let ride = Self.ride(seconds: 60, latencyMs: 300)
        rig.gpsd.arrivals = ride
        rig.gpsd.stopAt = 70_000
        rig.run()
        let reads = (rig.barometer as! FakeBarometer).reads
        let batches = rig.gpsd.recvs.map(\.mono)
        for b in batches where b < 70_000 { XCTAssertTrue(reads.contains(b), "no reading at the batch of \(b): \(reads)") }
        XCTAssertTrue(zip(reads, reads.dropFirst()).allSatisfy { $1 - $0 >= 3750 }, "readings closer than the sampler allows: \(reads)")
        let arrivedAt = Dictionary(
            ride.map { a -> (Int64, Int64) in
                guard case .fix(let f) = a.report else { fatalError() }
                return (f.timeMs, a.mono)
            }, uniquingKeysWith: min)
        var previous: Int64 = .min
        XCTAssertGreaterThan(rig.log.kept.count, 50)
        for k in rig.log.kept {
            guard let p = k.fix.pressurePa.map({ Int64($0) }) else { XCTFail("no pressure at \(k.fix.timeMs)"); continue }
            let arrived = arrivedAt[k.fix.timeMs]!
            if arrived > batches[0] { XCTAssertLessThanOrEqual(abs(p - arrived), 1000, "fix arrived at \(arrived) paired with \(p)") }
            XCTAssertGreaterThanOrEqual(p, previous, "pairings out of order")
            let batch = batches.first { $0 >= arrived }!
            XCTAssertLessThanOrEqual(p, batch, "paired after the batch was read")
            XCTAssertGreaterThanOrEqual(p, batch - 5000, "paired before the previous batch")
            XCTAssertEqual(k.fix.temperatureC, 21.5)
            previous = p
        }
    }

    /// Reading each report as it comes, a fix gets the pressure of its own arrival: read with
    /// it when due, else the reading taken at most a quarter period before.
    func testBarometerPairsALiveFixWithItsArrival() {
        let rig = Rig(readEverySeconds: 0, syncSeconds: 1, barometerEveryMs: 1000)
        let ride = Self.ride(seconds: 30, latencyMs: 250)
        rig.gpsd.arrivals = ride
        rig.gpsd.stopAt = 40_000
        rig.run()
        XCTAssertGreaterThan(rig.log.kept.count, 25)
        var exact = 0
        for k in rig.log.kept {
            let arrived = Double(k.fix.timeMs - FakeClock.wallOffset + 250)
            guard let p = k.fix.pressurePa else { XCTFail("no pressure at \(arrived)"); continue }
            XCTAssertLessThanOrEqual(p, arrived)
            XCTAssertGreaterThanOrEqual(p, arrived - 250, "the pressure of its arrival")
            if p == arrived { exact += 1 }
        }
        XCTAssertGreaterThanOrEqual(exact, rig.log.kept.count - 1, "read with the report that woke the loop")
        let reads = (rig.barometer as! FakeBarometer).reads
        XCTAssertTrue(zip(reads, reads.dropFirst()).allSatisfy { $1 - $0 <= 1250 }, "the barometer wakes the loop at a quarter period late: \(reads)")
    }

    // MARK: the live status

    /// Reading live, the status is written at most once a second and at least that often;
    /// batched, with each batch; the last write says stopped, forced through the cap.
    func testStatusOnceASecondLiveAndWithEachBatch() {
        let live = Rig(readEverySeconds: 0, syncSeconds: 1, status: true)
        live.gpsd.arrivals = Self.ride(seconds: 30)
        live.gpsd.stopAt = 35_000
        live.run()
        let w = live.status!.written
        let gaps = zip(w.dropLast(), w.dropFirst().dropLast()).map { $1.mono - $0.mono }
        XCTAssertTrue(gaps.allSatisfy { $0 >= 1000 && $0 <= 1300 }, "\(gaps)")
        XCTAssertEqual(w.last?.status.state, "stopped")
        XCTAssertEqual(w.map(\.status.seq), Array(1...w.count), "writes are numbered from 1")
        let riding = w.filter { $0.status.state == "recording" }
        XCTAssertGreaterThan(riding.count, 20)
        XCTAssertTrue(riding.allSatisfy { $0.status.gpsdConnected && $0.status.fixMode == 3 && abs(($0.status.speedMps ?? 0) - 8) <= 0.03 })
        XCTAssertTrue(riding.allSatisfy { $0.status.tripFile == "/logs/00000001.cairn" && $0.status.refreshS == 1 })
        XCTAssertEqual(riding.last?.status.updatedMs, riding.last.map { $0.mono + FakeClock.wallOffset })

        let batched = Rig(readEverySeconds: 5, status: true)
        batched.gpsd.arrivals = Self.ride(seconds: 30)
        batched.gpsd.stopAt = 35_000
        batched.run()
        let b = batched.status!.written.dropLast()
        XCTAssertTrue(b.allSatisfy { $0.mono % 5000 == 0 }, "\(b.map(\.mono))")
        XCTAssertEqual(b.count, 7, "one write per batch: \(b.map(\.mono))")
        XCTAssertEqual(batched.status!.written.last?.status.state, "stopped")
        XCTAssertEqual(b.last?.status.refreshS, 5)
    }

    /// A status file that stops being writable mid-ride is said as the outage begins (not only
    /// at every 60th write), then once a minute; a file that was never written likewise.
    func testStatusFailureIsSaidAsItBeginsThenOnceAMinute() {
        let rig = Rig(readEverySeconds: 0, syncSeconds: 1, status: true)
        rig.gpsd.arrivals = Self.ride(seconds: 200)
        rig.gpsd.stopAt = 200_000
        rig.status!.failing = 10_000..<150_000
        rig.run()
        let said = rig.said.filter { $0.hasPrefix("status: ") }
        XCTAssertEqual(said.count, 3, "the outage's start and once a minute during its 140 s: \(said)")
        let never = Rig(readEverySeconds: 0, syncSeconds: 1, status: true)
        never.gpsd.arrivals = Self.ride(seconds: 30)
        never.gpsd.stopAt = 30_000
        never.status!.failing = 0..<Int64.max
        never.run()
        XCTAssertEqual(never.said.filter { $0.hasPrefix("status: ") }.count, 1, "\(never.said)")
    }

    // MARK: systemd

    /// READY=1 at once while gpsd is down, WATCHDOG=1 at its interval through the back-off
    /// sleeps (at most one 100 ms step late) and while gpsd is silent (on time), STATUS=
    /// lines, STOPPING=1 at the stop.
    func testWatchdogCadenceWhileGpsdIsDownAndWhileItIsSilent() {
        let rig = Rig(readEverySeconds: 5, notify: true, watchdogIntervalMs: 200)
        rig.gpsd.down = [0..<3000]
        rig.gpsd.stopAt = 8000
        rig.run()
        let sent = rig.notifier.sent
        XCTAssertEqual(sent.first?.message, "WATCHDOG=1")
        let ready = sent.filter { $0.message.hasPrefix("READY=1") }
        XCTAssertEqual(ready.map(\.message), ["READY=1\nSTATUS=waiting for gpsd at 127.0.0.1:2947"])
        XCTAssertEqual(ready.first?.mono, 0)
        let pings = sent.filter { $0.message == "WATCHDOG=1" }.map(\.mono)
        let connected = rig.gpsd.opens.last!
        XCTAssertEqual(connected, 3750)
        let whileDown = pings.filter { $0 <= connected }, whileUp = pings.filter { $0 > connected }
        XCTAssertTrue(zip(whileDown, whileDown.dropFirst()).allSatisfy { $1 - $0 >= 200 && $1 - $0 <= 300 }, "\(whileDown)")
        XCTAssertTrue(zip(whileUp, whileUp.dropFirst()).allSatisfy { $1 - $0 == 200 }, "\(whileUp)")
        XCTAssertGreaterThanOrEqual(pings.count, 8000 / 300)
        XCTAssertGreaterThanOrEqual(pings.last ?? 0, 8000 - 200, "pinged up to the stop")
        XCTAssertTrue(sent.contains { $0.message == "STATUS=waiting (gpsd down)" }, "\(sent.map(\.message))")
        XCTAssertTrue(sent.contains { $0.message == "STATUS=waiting" }, "\(sent.map(\.message))")
        XCTAssertEqual(sent.last?.message, "STOPPING=1\nSTATUS=stopping: closing the trip and syncing")
        XCTAssertFalse(sent.contains { $0.message.hasPrefix("READY=1") && $0.mono > 0 }, "READY=1 once")
    }

    /// READY=1 says gpsd is reached when it is there at start-up; without systemd nothing is sent.
    func testReadyOnceConnected() {
        let rig = Rig(readEverySeconds: 5, notify: true)
        rig.gpsd.arrivals = Self.ride(seconds: 20)
        rig.gpsd.stopAt = 30_000
        rig.run()
        XCTAssertEqual(
            rig.notifier.sent.filter { $0.message.hasPrefix("READY=1") }.map(\.message),
            ["READY=1\nSTATUS=connected to gpsd at 127.0.0.1:2947"])
        XCTAssertTrue(
            rig.notifier.sent.contains { $0.message.hasPrefix("STATUS=recording: ") && $0.message.hasSuffix(" points") },
            "\(rig.notifier.sent.map(\.message))")
        XCTAssertFalse(rig.notifier.sent.contains { $0.message == "WATCHDOG=1" }, "no watchdog asked for")
    }

    // MARK: reconnecting

    /// gpsd absent: connects are tried at 250 ms, then twice as long each time up to 8 s,
    /// reported once; a connection resets the back-off; a lost connection is said, noted in
    /// the log, and retried at once, from 250 ms again.
    func testReconnectBackOffAndOneMessagePerOutage() {
        let rig = Rig(readEverySeconds: 5)
        rig.gpsd.down = [0..<20_000, 30_000..<34_000]
        rig.gpsd.closeAt = [30_000]
        rig.gpsd.stopAt = 45_000
        rig.run()
        XCTAssertEqual(
            rig.gpsd.opens,
            [
                0, 250, 750, 1750, 3750, 7750, 15_750, 23_750,
                30_000, 30_250, 30_750, 31_750, 33_750, 37_750
            ])
        XCTAssertEqual(
            rig.said.filter { $0.hasPrefix("cannot connect") },
            ["cannot connect to gpsd at 127.0.0.1:2947: Connection refused; retrying"], "the outage is said once")
        XCTAssertEqual(rig.said.filter { $0.hasPrefix("connected to gpsd") }.count, 2)
        XCTAssertEqual(
            rig.said.filter { $0.hasPrefix("gpsd connection lost") },
            ["gpsd connection lost (gpsd closed the connection); reconnecting"])
        XCTAssertEqual(rig.log.notes, ["gpsd connection lost: gpsd closed the connection"])
        XCTAssertEqual(rig.said.last, "stopped; no trip was open")
        XCTAssertTrue(rig.log.shutDown)
    }

    /// slow F8: a receiver with GGA and GSA only gives no date, and gpsd reports its fixes
    /// without a time: nothing was recorded and nothing said why. The cause and the cure are
    /// said once while recording, and again at the stop.
    func testFixesWithoutATimeSayTheCauseOnceAndAtTheStop() {
        let rig = Rig(readEverySeconds: 0)
        rig.gpsd.arrivals = (0..<100).map { FakeGpsd.Arrival(mono: 1300 + Int64($0) * 1000, report: .noTime) }
        rig.gpsd.stopAt = 110_000
        rig.run()
        let cause = rig.said.filter { $0.hasPrefix("gpsd: 30 fixes in a row without a time or date over 29 s") }
        XCTAssertEqual(cause.count, 1, "said once: \(rig.said)")
        XCTAssertTrue(cause.first?.contains("enable RMC or ZDA") ?? false, "\(cause)")
        XCTAssertTrue(rig.said.last?.hasPrefix("stopped; no trip was open: 100 fixes had no time or date") ?? false, "\(rig.said)")
        XCTAssertTrue(rig.log.kept.isEmpty)
    }

    /// attack F9: a standing receiver whose RMC has dates, gpsd's first two reports without
    /// one: "the receiver sends no date ... enable RMC or ZDA" was said at the stop. Said only
    /// once the receiver has shown over a real span that it sends none; a date withdraws it.
    func testAFewUntimedFixesBeforeDatedOnesSayNoCure() {
        let rig = Rig(readEverySeconds: 0)
        let untimed = (0..<2).map { FakeGpsd.Arrival(mono: 1300 + Int64($0) * 1000, report: .noTime) }
        // Standing still with a date: no trip opens.
        let still = (2..<60).map { i -> FakeGpsd.Arrival in
            let f = Fix(timeMs: 1000 + Int64(i) * 1000 + FakeClock.wallOffset, lat: 48, lon: 11, mode: 3, eph: 5, speed: 0, track: 0)
            return FakeGpsd.Arrival(mono: 1300 + Int64(i) * 1000, report: .fix(f))
        }
        rig.gpsd.arrivals = untimed + still
        rig.gpsd.stopAt = 70_000
        rig.run()
        XCTAssertFalse(rig.said.contains { $0.contains("enable RMC or ZDA") }, "\(rig.said)")
        XCTAssertEqual(rig.said.last, "stopped; no trip was open")
    }

    /// Thirty untimed fixes at 10 Hz are 3 s of a cold start, not a receiver without a date: the
    /// cause is said once the span is a real one too (5 s), and a date arriving after it
    /// withdraws it, at once and at the stop.
    func testTheCauseWaitsForARealSpanAndADateWithdrawsIt() {
        let rig = Rig(readEverySeconds: 0)
        let untimed = (0..<300).map { FakeGpsd.Arrival(mono: 1300 + Int64($0) * 100, report: .noTime) }
        let dated = (31..<60).map { i -> FakeGpsd.Arrival in
            let f = Fix(timeMs: 1000 + Int64(i) * 1000 + FakeClock.wallOffset, lat: 48, lon: 11, mode: 3, eph: 5, speed: 0, track: 0)
            return FakeGpsd.Arrival(mono: 1300 + Int64(i) * 1000, report: .fix(f))
        }
        rig.gpsd.arrivals = untimed + dated
        rig.gpsd.stopAt = 70_000
        rig.run()
        let cause = rig.said.filter { $0.contains("enable RMC or ZDA") }
        XCTAssertEqual(cause.count, 1, "\(rig.said)")
        XCTAssertTrue(cause.first?.hasPrefix("gpsd: 51 fixes in a row without a time or date over 5 s") ?? false, "\(cause)")
        XCTAssertTrue(rig.said.contains { $0.hasPrefix("gpsd: fixes have their time and date now") }, "\(rig.said)")
        XCTAssertEqual(rig.said.last, "stopped; no trip was open")
    }

    /// A ride across a gpsd restart: one trip, the points on both sides of it.
    func testARideAcrossALostConnectionIsOneTrip() {
        let rig = Rig(readEverySeconds: 0, syncSeconds: 1)
        rig.gpsd.arrivals = Self.ride(seconds: 60)
        rig.gpsd.closeAt = [20_500]
        rig.gpsd.down = [20_500..<22_000]
        rig.gpsd.stopAt = 70_000
        rig.run()
        XCTAssertEqual(rig.gpsd.opens, [0, 20_500, 20_750, 21_250, 22_250])
        XCTAssertEqual(rig.afterTripClosed, 0, "the trip stays open")
        let times = rig.keptTimes.map { $0 - FakeClock.wallOffset }
        XCTAssertTrue(times.contains { $0 < 20_000 } && times.contains { $0 > 23_000 }, "\(times)")
        XCTAssertFalse(times.contains { $0 > 20_000 && $0 < 22_000 }, "reports while no client is connected are lost: \(times)")
        XCTAssertEqual(rig.log.closed?.end.points, UInt64(rig.keptTimes.count))
    }

    /// attack-r22: the recorder said nothing when it closed a trip mid-run (home's stand, a
    /// standstill, no fix for the close-after time); only `info --why` told why. It is said,
    /// with its reason.
    func testACloseMidRunIsSaidWithItsReason() {
        let rig = Rig(readEverySeconds: 0, syncSeconds: 1)
        rig.gpsd.arrivals = Self.ride(seconds: 60)
        rig.gpsd.stopAt = 60_000 + 31 * 60_000
        rig.run()
        let closes = rig.said.filter { $0.hasPrefix("trip closed: ") }
        XCTAssertEqual(closes.count, 1, "\(rig.said)")
        XCTAssertTrue(closes.first?.hasSuffix(" m: a standstill or no fix longer than the close limit") ?? false, "\(closes)")
        XCTAssertEqual(rig.said.last, "stopped; no trip was open")
    }

    // MARK: start-up

    /// The previous run's unclosed trip is offered for resuming; each trip records the zone's
    /// offset at its first fix's time; --verbose says each sync.
    func testResumeCandidateZoneAndVerboseSyncs() {
        let rig = Rig(readEverySeconds: 0, syncSeconds: 1)
        let ride = Self.ride(seconds: 20)
        guard case .fix(let first) = ride[0].report else { return XCTFail() }
        rig.log.resumePoint = first
        rig.gpsd.arrivals = Array(ride.dropFirst())
        rig.gpsd.stopAt = 30_000
        rig.run(zone: .fixed(7200))
        XCTAssertEqual(rig.log.tripOpens, [true], "the trip resumes the previous run's")
        XCTAssertEqual(rig.log.tripOffsets, [7200])
        XCTAssertTrue(rig.said.contains { $0.hasPrefix("synced /logs/00000001.cairn seq ") }, "\(rig.said)")
        XCTAssertGreaterThan(rig.log.kept.count, 10)
    }
}

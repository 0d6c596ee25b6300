import CairnCore
import CairnLog
import CairnDevice

/// `cairn record` once its options are read: gpsd's reports through the trip recorder into the
/// log until a stop is requested, with the barometer's pressure paired to each fix, the live
/// status, systemd's readiness, watchdog and status line, and reconnecting with back-off while
/// gpsd is away. Then the stop: what gpsd has queued is taken, the trip closed and synced.
/// Every edge is given (LoopEdges.swift), so that the tests run it on a fake gpsd and clock.
public final class RecordLoop {
    public struct Settings {
        /// `--read-every`: take gpsd's queued reports this often; 0 reads each as it comes.
        public var readEverySeconds: Double
        /// Standing this long is a pause (the status's `paused`).
        public var pauseAfterMs: Int64
        /// Say each sync with the highest durable sequence number.
        public var verbose = false
        /// Each trip records this zone's UTC offset at its start.
        public var zone: TimeZoneFile?
        /// The wheel's circumference (`wheel`): a wheel sensor's revolutions are distance at it.
        public var wheelCircumferenceM = WheelSpeed.defaultCircumferenceM
        /// When a spinning wheel with no fix is a trip of its own (a trainer), pauses and closes.
        public var wheelTrip = WheelTrip.Config()
        /// The kernel's boot id (/proc/sys/kernel/random/boot_id), nil when unknown: a wheel trip
        /// left unfinished goes on only in the same boot (`WheelTripResume`).
        public var bootId: String?

        public init(readEverySeconds: Double, pauseAfterMs: Int64) {
            self.readEverySeconds = readEverySeconds
            self.pauseAfterMs = pauseAfterMs
        }
    }

    private var recorder: TripRecorder<FixRules>
    private let log: RecordLog
    private let source: ReportSource
    private let barometer: LoopBarometer
    private let notify: ServiceNotifier
    private let statusFile: StatusOutput?
    private let clock: LoopClock
    private let settings: Settings
    private let stopRequested: () -> Bool
    private let afterTripClosed: () -> Void
    private let say: (String) -> Void
    private let distanceText: (Double) -> String
    /// The status LED, if any (`record --led`).
    public var light: LoopLight?
    /// The Bluetooth LE sensors, if any (`sensor` lines): polled at each wake-up, their
    /// notifications recorded with the open trip.
    public var sensors: LoopSensors?
    private var sensorIntake = SensorIntake()
    private var sensorNotes = NoteBudget()
    /// The trainer's trip (issue 40): the first wheel source's readings decide it.
    private var wheelTrip: WheelTrip
    private var wheelSource = WheelSource()
    private var wheelSpeed: WheelSpeed?
    /// The rider's button, if any (`record --button`): read at the wake-ups the loop makes anyway.
    public var button: LoopButton?

    /// `afterTripClosed`: retention's turn. `say`: a message for the operator (stderr).
    /// `distanceText`: a distance as the messages and systemd's status line show it.
    public init(
        recorder: TripRecorder<FixRules>, log: RecordLog, source: ReportSource, barometer: LoopBarometer,
        notify: ServiceNotifier, statusFile: StatusOutput?, clock: LoopClock, settings: Settings,
        stopRequested: @escaping () -> Bool, afterTripClosed: @escaping () -> Void,
        say: @escaping (String) -> Void, distanceText: @escaping (Double) -> String
    ) {
        self.recorder = recorder
        self.log = log
        self.source = source
        self.barometer = barometer
        self.notify = notify
        self.statusFile = statusFile
        self.clock = clock
        self.settings = settings
        self.stopRequested = stopRequested
        self.afterTripClosed = afterTripClosed
        self.say = say
        self.distanceText = distanceText
        wheelTrip = WheelTrip(config: settings.wheelTrip)
        batch = BatchReading(everyMs: Int64(settings.readEverySeconds * 1000))
        lastReportMono = clock.monotonicMs()
        live.baro = barometer.state
        live.refreshS = settings.readEverySeconds > 0 ? Int(settings.readEverySeconds.rounded(.up)) : 1
        self.recorder.resumeCandidate = log.resumePoint
        log.onSync = { [unowned self] path, seq in
            self.lastSyncMono = self.clock.monotonicMs()
            if self.settings.verbose { self.say("synced \(path) seq \(seq)") }
        }
        // Each trip records its zone's offset at its start: at the newest fix's time (GPS time;
        // the board's clock may be unset), else the clock's.
        log.utcOffsetAtTripStart = { [unowned self] in
            self.settings.zone.map { $0.offset(atUnixMs: self.receiver.lastFix?.timeMs ?? self.clock.wallClockMs()) }
        }
    }

    deinit {
        log.onSync = nil
        log.utcOffsetAtTripStart = nil
    }

    // Connection.
    private var reconnect = ReconnectBackoff()
    private var notifiedReady = false
    private var tripClosed = false
    /// Fixes gpsd sent without a time, counted to say why no trip opens.
    private var untimed = UntimedFixes()

    // Live state for the status file and systemd's STATUS= line.
    private var live = LiveStatus()
    private var lastReportMono: Int64
    private var lastSyncMono: Int64?
    private var receiver = ReceiverView()
    private var lastLiveMono: Int64 = .min
    private var statusFailing = false

    // Batched reading (see `run`).
    private var batch: BatchReading

    /// Records until `stopRequested`, then closes the trip and syncs.
    public func run() {
        // Batched reading: gpsd's reports wait in the socket and are taken every `--read-every`
        // (or once `GpsdSource.batchBytes` are queued), then synced at once: one wake-up per
        // batch instead of one per report, and no longer a loss window, since a report waits
        // either in the socket or unsynced in memory, never both. A barometer is read as a
        // batch wakes the loop, before its first report is taken; each fix of the batch is
        // paired with the pressure of the moment it arrived, between that reading and the one
        // before (`ArrivalClock`, `PressureHistory`). Should the barometer want a reading in
        // between (--read-every over 5 s), it leaves the queued reports alone.
        batch.start(atMono: clock.monotonicMs())
        while !stopRequested() {
            let mono = clock.monotonicMs()
            if !batch.draining {
                // Awake anyway: sync now if it is due before the next wake-up rather than wake
                // again for it (300 ms when reading live). Batches come on a fixed grid, so
                // syncing when due before the next one (less 100 ms for wake-up jitter) keeps a
                // report's worst age at `--sync` when it is a multiple of `--read-every`, and
                // under `--sync` + 100 ms otherwise.
                log.tick(monoMs: mono, earlyMs: batch.on ? batch.everyMs - min(100, batch.everyMs / 2) : 300)
                recorder.tick(wallClockMs: recorder.config.clockIsFix ? fixClock(mono, mono) : clock.wallClockMs(), emit: apply)
                if let a = wheelTrip.tick(atMs: mono) { wheel(a, mono) }
                if tripClosed { tripClosed = false; afterTripClosed() }
                housekeeping(mono, capMono: batch.on ? batch.gridMono : mono)
                batch.on = batch.everyMs > 0
                source.wakeAtBytes = batch.on ? GpsdSource.batchBytes : 1
            }
            if !source.isOpen {
                if let err = source.open() {
                    if !reconnect.reportedDown { say("\(err); retrying"); reconnect.reportedDown = true }
                    // Started: the service is up even while gpsd is not (it comes and goes).
                    ready("waiting for gpsd at \(source.address)")
                    clock.sleep(ms: reconnect.nextDelayMs()) {
                        housekeeping(clock.monotonicMs())
                        return stopRequested()
                    }
                    continue
                }
                say("connected to gpsd at \(source.address)")
                ready("connected to gpsd at \(source.address)")
                reconnect.connected()
                lastReportMono = mono
            }
            read(mono)
        }
        stop()
    }

    /// One wait for gpsd: a report, a batch's next report, the end of a batch, or nothing.
    private func read(_ mono: Int64) {
        // Sleep until the next thing is due: every wake-up costs battery, and gpsd's reports
        // wake the loop anyway. The held epoch is flushed 1.2 s after the last report; the
        // barometer rides on the batches (or on the reports when reading live) and wakes
        // the loop only when none came; the status file and systemd's status line are
        // refreshed once a second when they are on; otherwise 5 s at most (the standstill
        // that closes a trip is counted in minutes).
        // When batching, the status is refreshed with each batch.
        var waitMs: Int64 = (!batch.on && (statusFile != nil || notify.isEnabled)) ? 1000 : 5000
        waitMs = min(waitMs, log.msUntilSyncDue(monoMs: mono))
        waitMs = min(waitMs, barometer.msUntilDue(monoMs: mono))
        if let s = sensors { waitMs = min(waitMs, s.msUntilDue(monoMs: mono)) }
        waitMs = min(waitMs, notify.msUntilWatchdog(monoMs: mono))
        if batch.on {
            waitMs = min(waitMs, max(0, batch.nextMono - mono))
        } else if mono - lastReportMono <= 1200 {
            waitMs = min(waitMs, lastReportMono + 1201 - mono)
        }
        // A batch is taken whole (up to 1,000 reports, then the housekeeping runs between).
        // A wake-up before the batch is due (the barometer's) leaves the reports queued.
        let batchDue = batch.on && (batch.draining || batch.nextMono - mono <= waitMs)
        if batch.draining { waitMs = 0 }
        switch source.read(timeoutUs: Int32(max(batch.draining ? 0 : 1, waitMs)) * 1000, takeQueued: batchDue) {
        case .idle:
            batch.foundEmpty(lastReportMono: lastReportMono)
            if batch.on { batch.advance(nowMono: clock.monotonicMs()) }
            // No report for a while: the held epoch is complete. (Batched: only a batch that
            // found the socket empty says so; a wake-up in between did not look.)
            if (!batch.on || batchDue) && mono - lastReportMono > 1200 {
                recorder.flush(wallClockMs: clock.wallClockMs(), emit: apply)
            }
        case .message(let report):
            lastReportMono = clock.monotonicMs()
            // The wake-up that took a batch (or, reading live, a report) reads the barometer
            // first when it is due, so that the fixes lie before a reading, not after one.
            if !batch.inBatch { barometer.poll(monoMs: lastReportMono, wallClockMs: clock.wallClockMs()) }
            batch.took()
            if let r = report { take(r) }
        case .closed(let why):
            batch.closed()
            say("gpsd connection lost (\(why)); reconnecting")
            source.close()
            recorder.connectionLost(wallClockMs: clock.wallClockMs(), emit: apply)
            log.append(.note("gpsd connection lost: \(why)"), monoMs: mono)
            reconnect.reportedDown = true
        }
    }

    /// Stop: take what gpsd has queued (a batch waits in the socket), release the held epoch,
    /// close the trip with its summary, sync.
    private func stop() {
        notify.stopping(status: "stopping: closing the trip and syncing")
        source.wakeAtBytes = 1
        for _ in 0..<100_000 {
            guard case .message(let report) = source.read(timeoutUs: 0, takeQueued: false) else { break }
            lastReportMono = clock.monotonicMs()
            if let r = report { take(r) }
        }
        source.close()
        let mono = clock.monotonicMs()
        pollSensors(mono)
        recorder.finish(wallClockMs: clock.wallClockMs(), emit: apply)
        if wheelTrip.isOpen {
            closeWheelTrip(.shutdown, wheelTrip.totals, mono)
        } else if recorder.tripOpen {
            let s = recorder.stats
            let lost = log.closeTrip(
                TripEnd(
                    reason: .shutdown, points: UInt64(s.points), distanceM: s.distanceM,
                    movingTimeMs: s.movingTimeMs, firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs),
                drops: recorder.drops, monoMs: mono)
            say(
                "trip closed: \(s.points) points" + (lost > 0 ? ", \(lost) of them dropped for lack of room on the card" : "")
                    + ", \(distanceText(s.distanceM))")
        } else {
            log.shutdown(monoMs: mono)
            say("stopped; no trip was open" + (untimed.stopText.map { ": " + $0 } ?? ""))
        }
        housekeeping(clock.monotonicMs(), final: true)
        sensors?.close()
    }

    private func apply(_ action: RecorderAction) {
        log.apply(action, monoMs: clock.monotonicMs())
        // A fix kept into the wheel's trip: the ride went outdoors, the fix rules own it now.
        if case .keep = action, wheelTrip.isOpen { wheelTrip.handOver() }
        if case .closeTrip(let t) = action {
            tripClosed = true
            light?.tripClosed()
            // A close mid-run is said with its reason, as `info --why` gives it (attack-r22:
            // the journal said nothing when home or a standstill closed a trip).
            say(
                "trip closed: \(t.stats.points) points, \(distanceText(t.stats.distanceM)): "
                    + (t.atHome
                        ? "home (standing there longer than home's stand)"
                        : "a standstill or no fix longer than the close limit"))
        }
    }

    /// One report into the recorder; a fix takes the barometer's pressure of its arrival.
    private func take(_ report: Report) {
        var r = report
        switch r {
        case .fix(var f):
            // The barometer's pressure rides with the fix into the log: the pressure of the
            // moment the report arrived, which in a batch is earlier than its reading.
            let arrivedMono = batch.on ? batch.arrivalMono(fixTimeMs: f.timeMs, readMonoMs: lastReportMono) : lastReportMono
            f.pressurePa = barometer.pressurePa(monoMs: arrivedMono)
            log.fixArrived(timeMs: f.timeMs, arrivalMonoMs: arrivedMono)
            if f.pressurePa != nil { f.temperatureC = barometer.temperatureC(monoMs: arrivedMono) }
            r = .fix(f)
            // Its age in the status counts from its arrival, not from the batch's read.
            receiver.saw(f, arrivedMono: arrivedMono)
            if let text = untimed.timed() { say(text) }
        case .noFix: receiver.sawNoFix()
        case .noTime: if let text = untimed.saw(monoMs: lastReportMono) { say(text) }
        }
        recorder.report(r, wallClockMs: clock.wallClockMs(), emit: apply)
    }

    /// What the sensors sent since the last wake-up: recorded with the open trip (`TripLog`
    /// keeps the last seconds before one opens), counted and said when it misbehaves.
    private func pollSensors(_ mono: Int64) {
        guard let sensors else { return }
        let clockMinusMono = clock.wallClockMs() &- mono
        for event in sensors.poll(monoMs: mono) {
            switch event {
            case .notification(let n):
                if sensorIntake.take(n) == .record {
                    log.add(sensor: n, clockMinusMonoMs: clockMinusMono, monoMs: mono)
                    wheelReading(n, mono)
                } else {
                    log.sensorsLeftOut(1)
                }
            case .said(let text): sensorSaid(text, mono)
            }
        }
        for text in sensorIntake.texts(monoMs: mono) { sensorSaid(text, mono) }
    }

    /// A recorded notification with wheel revolutions (CSC, or a power meter's wheel data) from
    /// the wheel source that counts (`WheelSource`: the first, until it goes silent): its speed
    /// for `WheelTrip`.
    private func wheelReading(_ n: SensorNotification, _ mono: Int64) {
        let format: RevolutionFormat
        let data: RevolutionData?
        switch try? SensorReading(decoding: n) {
        case .speedCadence(let c)?: (format, data) = (.cscWheel, c.wheel)
        case .power(let p)?: (format, data) = (.powerWheel, p.wheel)
        default: return
        }
        guard let data else { return }
        let source = n.address << 16 | UInt64(n.characteristic)
        switch wheelSource.reading(source, atMs: n.arrivalMonoMs) {
        case .ignore: return
        case .takeOver: wheelSpeed = WheelSpeed(circumferenceM: settings.wheelCircumferenceM, format: format)
        case .count: break
        }
        guard var speed = wheelSpeed else { return }
        let step = speed.add(data, arrivalMs: n.arrivalMonoMs)
        wheelSpeed = speed
        // Still: no trip open, and no fix of the last 10 s moving faster than walking.
        let moving =
            receiver.lastFixMono.map { mono - $0 <= 10_000 } == true && (receiver.lastFix?.speed ?? 0) >= WheelTrip.boardMovingMps
        if let a = wheelTrip.wheel(step, atMs: n.arrivalMonoMs, boardStill: !recorder.tripOpen && !moving) { wheel(a, mono) }
    }

    /// What the wheel's trip asked: open (no fix), a new segment after a pause, or closed.
    private func wheel(_ action: WheelTrip.Action, _ mono: Int64) {
        switch action {
        case .open:
            let decision = log.resumableWheelTrip.map {
                WheelTripResume.decide($0, bootId: settings.bootId, monoMs: mono, closeAfterMs: settings.wheelTrip.closeAfterMs)
            }
            if case .resume(let gap)? = decision {
                recorder.openByWheel(resume: true, emit: apply)
                let text = "trip resumed by the wheel after a restart: it stood \((gap + 500) / 1000) s, same boot"
                log.append(.note(text), monoMs: mono)
                say(text)
            } else {
                recorder.openByWheel(emit: apply)
                log.append(.note("trip opened by the wheel: no fix, distance from the wheel"), monoMs: mono)
                say("trip opened by the wheel (no fix): distance from the wheel sensor")
                if let why = decision.flatMap(Self.newTripText) { say(why) }
            }
            if let id = settings.bootId { log.append(.note(TripLog.bootNote(id)), monoMs: mono) }
        case .resumed(let at):
            log.append(.segmentStart(.pause, timeMs: fixClock(at, mono)), monoMs: mono)
        case .close(let totals):
            closeWheelTrip(.standstill, totals, mono)
        }
    }

    /// Why a previous run's unfinished wheel trip was not resumed, for the operator.
    static func newTripText(_ d: WheelTripResume.Decision) -> String? {
        switch d {
        case .resume: return nil
        case .otherBoot:
            return "the previous run's wheel trip was left unfinished on another boot (a power cut?): "
                + "nothing proves how long the board was off, so this is a new trip"
        case .tooLong(let gap):
            return "the previous run's wheel trip was left unfinished \(gap / 1000) s ago, at or past close-after: a new trip"
        }
    }

    /// Ends the wheel's trip: its figures from the wheel, its times on the fixes' clock.
    private func closeWheelTrip(_ reason: TripEndReason, _ t: WheelTrip.Totals, _ mono: Int64) {
        _ = log.closeTrip(
            TripEnd(
                reason: reason, points: UInt64(recorder.stats.points), distanceM: t.distanceM, movingTimeMs: t.movingMs,
                firstTimeMs: t.firstMs.map { fixClock($0, mono) }, lastTimeMs: t.lastMs.map { fixClock($0, mono) }),
            drops: recorder.drops, monoMs: mono)
        recorder.tripClosed()
        wheelTrip.closed()
        tripClosed = true
        light?.tripClosed()
        say("trip closed: no fix, \(distanceText(t.distanceM)) from the wheel")
    }

    /// A monotonic time on the fixes' clock: the newest fix's time plus the time since it
    /// arrived; without a fix, the system clock's.
    private func fixClock(_ m: Int64, _ mono: Int64) -> Int64 {
        if let f = receiver.lastFix, let arrived = receiver.lastFixMono { return f.timeMs + (m - arrived) }
        return clock.wallClockMs() - (mono - m)
    }

    /// To the journal always; into the open trip's notes within `NoteBudget`.
    private func sensorSaid(_ text: String, _ mono: Int64) {
        say(text)
        guard recorder.tripOpen, let note = sensorNotes.note(text, monoMs: mono) else { return }
        log.append(.note(note), monoMs: mono)
    }

    /// What the rider's button asked: a lap marked in the open trip, or the trip ended now (a
    /// mark, then the trip's end, as a stop writes it; delivery follows as for any closed trip).
    /// A mark's time is the press's on the fixes' clock: the newest fix's time plus the time
    /// since it arrived. A stuck or chattering button is said and noted, and ignored.
    private func rider(_ action: ButtonPresses.Action, _ mono: Int64) {
        func fixClock(_ m: Int64) -> Int64 {
            if let f = receiver.lastFix, let arrived = receiver.lastFixMono { return f.timeMs + (m - arrived) }
            return clock.wallClockMs() - (mono - m)
        }
        switch action {
        case .lap(let at):
            guard recorder.tripOpen else { return say("button: a lap with no trip open; nothing marked") }
            log.append(.riderMark(RiderMark(kind: .lap, timeMs: fixClock(at))), monoMs: mono)
            say("button: lap marked")
        case .endTrip(let at):
            guard recorder.tripOpen else { return say("button: the trip's end asked with no trip open") }
            log.append(.riderMark(RiderMark(kind: .end, timeMs: fixClock(at))), monoMs: mono)
            recorder.finish(wallClockMs: clock.wallClockMs(), emit: apply)
            if wheelTrip.isOpen { return closeWheelTrip(.rider, wheelTrip.totals, mono) }
            guard recorder.tripOpen else { return }
            let s = recorder.stats
            _ = log.closeTrip(
                TripEnd(
                    reason: .rider, points: UInt64(s.points), distanceM: s.distanceM,
                    movingTimeMs: s.movingTimeMs, firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs),
                drops: recorder.drops, monoMs: mono)
            recorder.tripClosed()
            tripClosed = true
            light?.tripClosed()
            say("button: trip ended by the rider: \(s.points) points, \(distanceText(s.distanceM))")
        case .stuck:
            live.button = "stuck"
            say("button: held down for 15 s: stuck? Ignored until released for 10 s")
            log.append(.note("button stuck"), monoMs: mono)
        case .chattering:
            live.button = "chattering"
            say("button: pressed again and again without rest: chattering? Ignored until it rests 10 s")
            log.append(.note("button chattering"), monoMs: mono)
        case .recovered:
            live.button = "ok"
            say("button: rested; presses count again")
        }
    }

    private func ready(_ why: String) {
        guard !notifiedReady else { return }
        notifiedReady = true
        notify.ready(status: why)
    }

    /// The watchdog, the barometer, the status file and systemd's status line. `capMono`: the
    /// time the once-a-second cap counts from. When batching, the batch's time on the grid:
    /// batches a second apart then always refresh the status, however long each took to drain.
    private func housekeeping(_ mono: Int64, capMono: Int64? = nil, final: Bool = false) {
        let capMono = capMono ?? mono
        notify.watchdogIfDue(monoMs: mono)
        if let b = button, !final {
            if live.button == nil { live.button = "ok" }
            for a in b.actions(monoMs: mono) { rider(a, mono) }
            // A device not there is no button that works (attack-r20b: it read `ok`).
            if b.isMissing { live.button = "missing" } else if live.button == "missing" { live.button = "ok" }
        }
        barometer.poll(monoMs: mono, wallClockMs: clock.wallClockMs())
        live.baro = barometer.state
        if !final { pollSensors(mono) }
        let standing = recorder.tripOpen && recorder.filter.isStanding
        receiver.standing(standing, mono: mono)
        // Once a second at most (the status file's cap), and only when someone reads it.
        guard final || ((statusFile != nil || notify.isEnabled || light != nil) && (lastLiveMono == .min || capMono - lastLiveMono >= 1000)) else {
            return
        }
        lastLiveMono = capMono
        receiver.fill(&live, mono: mono, tripOpen: recorder.tripOpen, standing: standing, pauseAfterMs: settings.pauseAfterMs)
        if final { live.state = "stopped" }
        live.gpsdConnected = source.isOpen
        live.tripOpen = recorder.tripOpen
        live.stats = recorder.stats
        live.drops = recorder.drops
        live.tripFile = log.currentPath
        if wheelTrip.isOpen {
            // A trainer's trip (no fix, the wheel's distance): its figures and state the wheel's,
            // as systemd's status line says (the status file said `gap` and 0 m).
            let t = wheelTrip.totals
            var wheel = TripStats()
            wheel.addWheel(extraM: t.distanceM, movingMs: t.movingMs)
            // The wheel still for 5 s (its sensor sends about once a second) is a stand.
            let stillMs = t.lastMs.map { mono - $0 } ?? 0
            let state = stillMs >= settings.pauseAfterMs ? "paused" : stillMs >= 5000 ? "standing" : "recording"
            (live.tripOpen, live.stats, live.state) = (true, wheel, state)
        }
        live.syncedSeq = log.lastSyncedSeq
        live.syncAgeS = lastSyncMono.map { Double(mono - $0) / 1000 }
        live.updatedMs = clock.wallClockMs()
        // From the first try of gpsd on (before it, "gpsd gone" would be a lie).
        if notifiedReady || final { light?.update(live, monoMs: mono, wallClockMs: live.updatedMs, stopped: final) }
        if let f = statusFile {
            live.seq += 1
            let before = f.writes
            if let err = f.write(live, monoMs: capMono, force: final) {
                // Said as an outage begins, then once a minute while it lasts.
                if !statusFailing || live.seq % 60 == 1 { say("status: \(err)") }
                statusFailing = true
            } else if f.writes > before {
                statusFailing = false
            }
        }
        let summary =
            live.state
            + (wheelTrip.isOpen
                ? ": \(distanceText(wheelTrip.totals.distanceM)) from the wheel, no fix"
                : recorder.tripOpen ? ": \(distanceText(recorder.stats.distanceM)), \(recorder.stats.points) points" : "")
            + (source.isOpen ? "" : " (gpsd down)")
        if notifiedReady && !final { notify.status(summary) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnLog
import CairnDevice

enum RecordCommand: Command {
    static let name = "record"
    static let overview = "Record trips from gpsd into crash-safe log files until SIGTERM or SIGINT."
    static let usage = "cairn record [--gpsd <host[:port]>] [--dir <dir>] [--baro <auto|none|path>] [--sysfs-root <dir>] [--activity <activity>] [--close-after <minutes>] [--clock <system|fix>] [--sync <seconds>] [--read-every <seconds>] [--status <file>] [--keep-days <days>] [--max-mb <mb>] [--timezone <auto|zone|±HH:MM>] [--raw <on|off>] [--config <file>] [--check]"
    static let options = [
        OptionSpec(name: "--gpsd", valueName: "HOST[:PORT]", help: "gpsd's numeric address; localhost means 127.0.0.1. (default: 127.0.0.1:2947)"),
        OptionSpec(name: "--dir", valueName: "DIR", help: "Directory for the log files; created if missing. (default: /var/lib/cairn)"),
        OptionSpec(name: "--baro", valueName: "AUTO|NONE|PATH", help: "Barometer for climb: auto (the first IIO pressure sensor), none, or an IIO device directory (the one holding in_pressure_input). (default: auto)"),
        OptionSpec(name: "--sysfs-root", valueName: "DIR", help: "Where sysfs is mounted, for --baro auto (tests use a fake tree). (default: /sys)"),
        OptionSpec(name: "--activity", valueName: "ACTIVITY", help: "ride, run, walk or drive: sets the jump limit, distance filter and stop speeds. (default: ride)"),
        OptionSpec(name: "--clock", valueName: "SYSTEM|FIX", help: "Judge fix age by the system clock or by the newest fix time (no RTC, replays). (default: system)"),
        OptionSpec(name: "--close-after", valueName: "MINUTES", help: "Standing still this long closes the trip (a bike left parked); shorter stops are pauses inside it. (default: 30)"),
        OptionSpec(name: "--sync", valueName: "SECONDS", help: "Worst-case loss window on power loss: sync at least this often, 1 to 60. (default: 5)"),
        OptionSpec(name: "--read-every", valueName: "SECONDS", help: "Take the reports gpsd has queued this often, 0 to the --sync interval; 0 reads each one as it comes (a live display). Every wake-up costs the board power. (default: the --sync interval, or the largest part of it up to 5 s that divides it: 60 -> 5)"),
        OptionSpec(name: "--status", valueName: "FILE", help: "Write the live status here at most once a second (each time gpsd's reports are read), replaced atomically (read it with 'cairn status FILE'). (default: none)"),
        OptionSpec(name: "--keep-days", valueName: "DAYS", help: "Retention: at start-up and after each trip, delete exported trips that ended more than this many days ago. (default: keep all)"),
        OptionSpec(name: "--max-mb", valueName: "MB", help: "Retention: delete the oldest exported trips while the logs take more than this. Never deletes a trip that was not exported. (default: no limit)"),
        OptionSpec(name: "--timezone", valueName: "AUTO|ZONE|±HH:MM", help: "The zone whose UTC offset each trip records at its start (FIT's local time): auto (/etc/localtime), a zone name (Europe/Zurich, from /usr/share/zoneinfo), a TZif file, or a fixed offset like +02:00. (default: auto)"),
        OptionSpec(name: "--raw", valueName: "ON|OFF", help: "Also log every fix gpsd delivered with the rules' verdict on it, so 'cairn info --why' can explain a trip and 'cairn convert --refilter' can run the rules again (about 30 bytes a fix; a 5 s sync padded to a 512-byte sector still fits one); off writes the logs of earlier versions. (default: on)"),
        OptionSpec(name: "--config", valueName: "FILE", help: "Read options from this file (key = value, keys are these option names without '--'); the command line wins."),
        OptionSpec(name: "--verbose", valueName: nil, help: "Also report each sync with the highest durable sequence number."),
        OptionSpec(name: "--check", valueName: nil, help: "Check the options and the config file, print the settings in effect, and exit."),
    ]

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        var a = parsed
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        // Command line > config file > defaults. A bad value from the file names its line.
        var origin: [String: String] = [:]
        if let path = a.value("--config") {
            if path.isEmpty { throw UsageError("The value '' is invalid for '--config <file>'") }
            origin = try ConfigFile.load(path, options: options).merge(into: &a)
        }
        func invalid(_ option: String, _ message: String) -> UsageError {
            if let o = origin[option] { return UsageError("\(o): \(message)") }
            return UsageError(message)
        }
        let (host, port): (String, String)
        do { (host, port) = try parseGpsdAddress(a.value("--gpsd") ?? "127.0.0.1:2947") } catch { throw invalid("--gpsd", error.message) }
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        if dir.isEmpty { throw invalid("--dir", "The value '' is invalid for '--dir <dir>'") }
        let activity = a.value("--activity") ?? "ride"
        guard var profile = ActivityProfile.named(activity) else {
            throw invalid("--activity", "The value '\(activity)' is invalid for '--activity <activity>': use ride, run, walk or drive")
        }
        let closeText = a.value("--close-after") ?? "30"
        guard let closeMinutes = StrictNumber.whole(closeText), closeMinutes >= 5, closeMinutes <= 24 * 60 else {
            throw invalid("--close-after", "The value '\(closeText)' is invalid for '--close-after <minutes>': use whole minutes from 5 to 1440")
        }
        profile.closeAfterMs = Int64(closeMinutes) * 60_000
        let clock = a.value("--clock") ?? "system"
        guard clock == "system" || clock == "fix" else {
            throw invalid("--clock", "The value '\(clock)' is invalid for '--clock <system|fix>'")
        }
        let raw = a.value("--raw") ?? "on"
        guard raw == "on" || raw == "off" else { throw invalid("--raw", "The value '\(raw)' is invalid for '--raw <on|off>'") }
        let syncText = a.value("--sync") ?? "5"
        guard let syncSeconds = StrictNumber.decimal(syncText), syncSeconds >= 1, syncSeconds <= 60 else {
            throw invalid("--sync", "The value '\(syncText)' is invalid for '--sync <seconds>': use a plain decimal number of seconds from 1 to 60")
        }
        // Default: the sync interval, or the largest part of it up to 5 s that divides it, so
        // that the syncs fall on batches (60 -> 5, 8 -> 4, 7 -> 3.5).
        let readText = a.value("--read-every") ?? {
            let syncMs = Int64(syncSeconds * 1000), parts = (syncMs + 4999) / 5000
            let ms = syncMs / parts
            return ms % 1000 == 0 ? String(ms / 1000) : String(Double(ms) / 1000)
        }()
        guard let readEverySeconds = StrictNumber.decimal(readText), readEverySeconds == 0 || (readEverySeconds >= 1 && readEverySeconds <= syncSeconds) else {
            throw invalid("--read-every", "The value '\(readText)' is invalid for '--read-every <seconds>': use 0, or a plain decimal number of seconds from 1 to the --sync interval (\(syncText))")
        }
        let baro = a.value("--baro") ?? "auto"
        let sysfsRoot = a.value("--sysfs-root") ?? "/sys"
        if sysfsRoot.isEmpty { throw invalid("--sysfs-root", "The value '' is invalid for '--sysfs-root <dir>'") }
        let baroSource: BarometerSampler.Source
        switch baro {
        case "none": baroSource = .none
        case "auto": baroSource = .auto(sysfsRoot: sysfsRoot)
        default:
            if baro.isEmpty { throw invalid("--baro", "The value '' is invalid for '--baro <auto|none|path>'") }
            baroSource = .path(baro)
        }
        let (zone, zoneText) = try timeZone(a.value("--timezone") ?? "auto") { invalid("--timezone", $0) }
        let statusPath = a.value("--status")
        if statusPath == "" { throw invalid("--status", "The value '' is invalid for '--status <file>'") }
        let retention = try Retention.from(keepDays: a.value("--keep-days"), maxMb: a.value("--max-mb")) { o, m in invalid(o, m) }
        let verbose = a.has("--verbose")
        if a.has("--check") {
            // What `record` would say at start-up, as a warning: it records without them.
            var warnings: [String] = []
            if case .path(let p) = baroSource, let f = BarometerSampler.probe(path: p) {
                warnings.append("warning: --baro" + (origin["--baro"].map { " (\($0))" } ?? "") + ": \(f); record would go on without it (climb from GPS heights) and take it when it appears")
            }
            func from(_ o: String) -> String { origin[o].map { "  (\($0))" } ?? (a.values[o] != nil || a.flags.contains(o) ? "  (command line)" : "  (default)") }
            printOut([
                "gpsd = \(GpsdSource.address(host: host, port: port))" + from("--gpsd"), "dir = \(dir)" + from("--dir"), "activity = \(activity)" + from("--activity"),
                "close-after = \(closeMinutes)" + from("--close-after"),
                "clock = \(clock)" + from("--clock"), "raw = \(raw)" + from("--raw"), "sync = \(syncText)" + from("--sync"),
                "read-every = \(readText)" + from("--read-every"), "baro = \(baro)" + from("--baro"),
                "sysfs-root = \(sysfsRoot)" + from("--sysfs-root"),
                "status = \(statusPath ?? "-")" + from("--status"),
                "keep-days = \(a.value("--keep-days") ?? "-")" + from("--keep-days"), "max-mb = \(a.value("--max-mb") ?? "-")" + from("--max-mb"),
                "verbose = \(verbose ? "yes" : "no")" + from("--verbose"),
                "timezone = \(a.value("--timezone") ?? "auto") (\(zoneText))" + from("--timezone"),
            ].joined(separator: "\n"))
            for w in warnings { printErr("cairn record: \(w)") }
            return ExitCode.ok
        }

        // From here a stop request is kept for the loop, and a hang-up is ignored.
        StopSignals.install()
        var config = TripRecorder<FixRules>.Config()
        config.clockIsFix = (clock == "fix")
        config.closeWithoutFixMs = profile.closeAfterMs
        config.keepsRaw = raw == "on"
        var recorder = TripRecorder(filter: FixRules(profile: profile), config: config)
        let log: TripLog
        // One recorder per directory: a second one would write files claiming the same trips.
        // Held until exit; the kernel drops it if this process dies.
        let lock: DirectoryLock?
        do {
            try TripLog.prepare(dir)
            lock = try DirectoryLock(directory: dir)
        } catch let e as DirectoryLock.Failure {
            switch e {
            case .held: throw Failure("\(e)", status: ExitCode.directoryLocked)
            case .system(_, _, let code) where code == ENOSPC || code == EDQUOT:
                // A card with no room for one more file: record anyway (the trip waits in
                // memory for space), without the one-recorder check.
                printErr("cairn: \(e); recording without the check for a second recorder")
                lock = nil
            default: throw Failure("\(e)")
            }
        } catch {
            throw Failure("\(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        let (padding, fileSystem) = SyncPadding.forDirectory(dir)
        do {
            log = try TripLog(directory: dir, activity: activity, software: "cairn \(cairnVersion)",
                              syncIntervalMs: Int64(syncSeconds * 1000),
                              // On FAT each sync ends on a 512-byte boundary, so an append never
                              // shares a sector with acknowledged bytes: on a card without
                              // power-safe overwrite the power-loss model lost acknowledged records
                              // in 10 % of cuts without this, none with it. Through the page cache
                              // ext4 rewrites whole 4 KiB blocks anyway (see SyncPadding); written
                              // direct, in 512-byte sectors, padding protects there too, and costs
                              // no more sectors on the card, only a bigger file. (tmpfs takes
                              // O_DIRECT too, but has no card to protect.)
                              padding: padding, padDirect: fileSystem != "tmpfs",
                              say: { printErr("cairn: \($0)") })
        } catch {
            throw Failure("\(error)")
        }
        var lastSyncMono: Int64?
        log.onSync = { path, seq in
            lastSyncMono = SystemClock.monotonicMs()
            if verbose { printErr("cairn: synced \(path) seq \(seq)") }
        }
        recorder.resumeCandidate = log.resumable?.last

        // The barometer is read with each batch (at most 5 s apart), or once a second when the
        // reports are read as they come: never a wake-up of its own at the default settings.
        let barometer = BarometerSampler(source: baroSource,
                                         sampleEveryMs: readEverySeconds > 0 ? min(5000, Int64(readEverySeconds * 1000)) : 1000) {
            printErr("cairn: \($0)")
        }
        barometer.openNamedDevice(monoMs: SystemClock.monotonicMs())

        let notify = SystemdNotify()
        let statusFile = statusPath.map { StatusFile(path: $0) }
        printErr("cairn: recording to \(dir) (\(fileSystem)) from gpsd at \(GpsdSource.address(host: host, port: port)) (sync every \(syncText) s"
                 + (readEverySeconds > 0 ? ", reports read every \(readText) s" : ", reports read as they come")
                 + (padding > 0 ? ", padded to \(padding) bytes)" : ")")
                 + (statusPath.map { "; status in \($0)" } ?? "")
                 + (notify.isEnabled ? "; notifying systemd" + (notify.watchdogIntervalMs.map { ", watchdog every \($0) ms" } ?? "") : ""))
        func prune() {
            guard retention.isActive else { return }
            _ = retention.apply(directory: dir, nowMs: SystemClock.realtimeMs()) { printErr("cairn: \($0)") }
        }
        prune()

        let source = GpsdSource(host: host, port: port)
        var backoffMs: Int64 = 250
        var lastReportMono = SystemClock.monotonicMs()
        var reportedDown = false
        var tripClosed = false
        let apply: (RecorderAction) -> Void = { action in
            log.apply(action, monoMs: SystemClock.monotonicMs())
            if case .closeTrip = action { tripClosed = true }
        }

        // Live state for the status file and systemd's STATUS= line.
        var live = LiveStatus()
        live.baro = barometer.state
        live.refreshS = readEverySeconds > 0 ? Int(readEverySeconds.rounded(.up)) : 1
        var lastFix: Fix?
        // Each trip records its zone's offset at its start: at the newest fix's time (GPS time;
        // the board's clock may be unset), else the clock's.
        log.utcOffsetAtTripStart = { zone.map { $0.offset(atUnixMs: lastFix?.timeMs ?? SystemClock.realtimeMs()) } }
        var lastMode = 0
        var lastFixMono: Int64?
        var lastLiveMono: Int64 = .min
        var lastUsableMono: Int64?
        var standingSinceMono: Int64?
        var notifiedReady = false
        /// `capMono`: the time the once-a-second cap counts from. When batching, the batch's
        /// time on the grid: batches a second apart then always refresh the status, however
        /// long each took to drain.
        func housekeeping(_ mono: Int64, capMono: Int64? = nil, final: Bool = false) {
            let capMono = capMono ?? mono
            notify.watchdogIfDue(monoMs: mono)
            barometer.poll(monoMs: mono, wallMs: SystemClock.realtimeMs())
            live.baro = barometer.state
            let standing = recorder.tripOpen && recorder.filter.isStanding
            if standing { if standingSinceMono == nil { standingSinceMono = mono } } else { standingSinceMono = nil }
            // Once a second at most (the status file's cap), and only when someone reads it.
            guard final || ((statusFile != nil || notify.isEnabled) && (lastLiveMono == .min || capMono - lastLiveMono >= 1000)) else { return }
            lastLiveMono = capMono
            live.state = final ? "stopped" : LiveStatus.state(
                tripOpen: recorder.tripOpen, standing: standing, standingForMs: standingSinceMono.map { mono - $0 } ?? 0,
                pauseAfterMs: profile.pauseAfterMs, sinceUsableFixMs: lastUsableMono.map { mono - $0 }, gapMs: 10_000)
            live.gpsdConnected = source.isOpen
            live.fixMode = lastMode
            live.accuracyM = lastMode >= 2 ? lastFix.flatMap { Accuracy.horizontal68($0) } : nil
            live.fixAgeS = lastFixMono.map { Double(mono - $0) / 1000 }
            let fresh = lastFixMono.map { mono - $0 < LiveStatus.speedStaleMs } ?? false
            live.speedMps = (fresh && !standing) ? lastFix?.speed : nil
            live.tripOpen = recorder.tripOpen
            live.stats = recorder.stats
            live.drops = recorder.drops
            live.tripFile = log.currentPath
            live.syncedSeq = log.lastSyncedSeq
            live.syncAgeS = lastSyncMono.map { Double(mono - $0) / 1000 }
            live.updatedMs = SystemClock.realtimeMs()
            if let f = statusFile {
                live.seq += 1
                if let err = f.write(live.render(), monoMs: capMono, force: final), f.writes == 0 || live.seq % 60 == 1 {
                    printErr("cairn: status: \(err)")
                }
            }
            let summary = live.state + (recorder.tripOpen ? ": \(formatDistance(recorder.stats.distanceM)), \(recorder.stats.points) points" : "")
                + (source.isOpen ? "" : " (gpsd down)")
            if notifiedReady && !final { notify.status(summary) }
        }
        var batching = false           // reports taken in batches (below)
        var arrival = ArrivalClock()   // when each report of a batch arrived
        func take(_ report: Report) {
            var r = report
            switch r {
            case .fix(var f):
                // The barometer's pressure rides with the fix into the log: the pressure of the
                // moment the report arrived, which in a batch is earlier than its reading.
                let arrivedMono = batching ? arrival.arrival(fixTimeMs: f.timeMs, readMonoMs: lastReportMono) : lastReportMono
                f.pressurePa = barometer.pressurePa(monoMs: arrivedMono)
                if f.pressurePa != nil { f.temperatureC = barometer.temperatureC(monoMs: arrivedMono) }
                r = .fix(f)
                lastFix = f
                lastMode = f.mode
                // Its age in the status counts from its arrival, not from the batch's read.
                lastFixMono = arrivedMono
                if (Accuracy.horizontal68(f) ?? 0) <= 50 { lastUsableMono = arrivedMono }
            case .noFix: lastMode = 0
            case .noTime: break
            }
            recorder.report(r, systemNowMs: SystemClock.realtimeMs(), emit: apply)
        }
        func ready(_ why: String) {
            guard !notifiedReady else { return }
            notifiedReady = true
            notify.ready(status: why)
        }

        // Batched reading: gpsd's reports wait in the socket and are taken every `readEveryMs`
        // (or once `GpsdSource.batchBytes` are queued), then synced at once: one wake-up per
        // batch instead of one per report, and no longer a loss window, since a report waits
        // either in the socket or unsynced in memory, never both. A barometer is read as a
        // batch wakes the loop, before its first report is taken; each fix of the batch is
        // paired with the pressure of the moment it arrived, between that reading and the one
        // before (`ArrivalClock`, `PressureHistory`). Should the barometer want a reading in
        // between (--read-every over 5 s), it leaves the queued reports alone.
        let readEveryMs = Int64(readEverySeconds * 1000)
        var inBatch = false
        var draining = false
        var drained = 0
        var nextBatchMono = SystemClock.monotonicMs()
        var batchGridMono = nextBatchMono   // the grid time of the last batch taken
        while !StopSignals.requested {
            let mono = SystemClock.monotonicMs()
            if !draining {
                // Awake anyway: sync now if it is due before the next wake-up rather than wake
                // again for it (300 ms when reading live). Batches come on a fixed grid, so
                // syncing when due before the next one (less 100 ms for wake-up jitter) keeps a
                // report's worst age at `--sync` when it is a multiple of `--read-every`, and
                // under `--sync` + 100 ms otherwise.
                log.tick(monoMs: mono, earlyMs: batching ? readEveryMs - min(100, readEveryMs / 2) : 300)
                recorder.tick(systemNowMs: SystemClock.realtimeMs(), emit: apply)
                if tripClosed { tripClosed = false; prune() }
                housekeeping(mono, capMono: batching ? batchGridMono : mono)
                batching = readEveryMs > 0
                source.wakeAtBytes = batching ? GpsdSource.batchBytes : 1
            }
            if !source.isOpen {
                if let err = source.open() {
                    if !reportedDown { printErr("cairn: \(err); retrying"); reportedDown = true }
                    // Started: the service is up even while gpsd is not (it comes and goes).
                    ready("waiting for gpsd at \(GpsdSource.address(host: host, port: port))")
                    SystemClock.sleep(ms: backoffMs) {
                        housekeeping(SystemClock.monotonicMs())
                        return StopSignals.requested
                    }
                    backoffMs = min(backoffMs * 2, 8000)
                    continue
                }
                printErr("cairn: connected to gpsd at \(GpsdSource.address(host: host, port: port))")
                ready("connected to gpsd at \(GpsdSource.address(host: host, port: port))")
                reportedDown = false
                backoffMs = 250
                lastReportMono = mono
            }
            // Sleep until the next thing is due: every wake-up costs battery, and gpsd's reports
            // wake the loop anyway. The held epoch is flushed 1.2 s after the last report; the
            // barometer rides on the batches (or on the reports when reading live) and wakes
            // the loop only when none came; the status file and systemd's status line are
            // refreshed once a second when they are on; otherwise 5 s at most (the standstill
            // that closes a trip is counted in minutes).
            // When batching, the status is refreshed with each batch.
            var waitMs: Int64 = (!batching && (statusFile != nil || notify.isEnabled)) ? 1000 : 5000
            waitMs = min(waitMs, log.msUntilSyncDue(monoMs: mono))
            waitMs = min(waitMs, barometer.msUntilDue(monoMs: mono))
            waitMs = min(waitMs, notify.msUntilWatchdog(monoMs: mono))
            if batching {
                waitMs = min(waitMs, max(0, nextBatchMono - mono))
            } else if mono - lastReportMono <= 1200 {
                waitMs = min(waitMs, lastReportMono + 1201 - mono)
            }
            // A batch is taken whole (up to 1,000 reports, then the housekeeping runs between).
            // A wake-up before the batch is due (the barometer's) leaves the reports queued.
            let batchDue = batching && (draining || nextBatchMono - mono <= waitMs)
            if draining { waitMs = 0 }
            switch source.read(timeoutUs: Int32(max(draining ? 0 : 1, waitMs)) * 1000, takeQueued: batchDue) {
            case .idle:
                if inBatch {
                    inBatch = false
                    arrival.endBatch(monoMs: lastReportMono)
                }
                if batching {
                    draining = false
                    drained = 0
                    // The next batch on the grid (a batch taken early, at 16 KiB, keeps it).
                    let now = SystemClock.monotonicMs()
                    if nextBatchMono <= now { nextBatchMono += ((now - nextBatchMono) / readEveryMs + 1) * readEveryMs }
                    batchGridMono = nextBatchMono - readEveryMs
                }
                // No report for a while: the held epoch is complete. (Batched: only a batch that
                // found the socket empty says so; a wake-up in between did not look.)
                if (!batching || batchDue) && mono - lastReportMono > 1200 {
                    recorder.flush(systemNowMs: SystemClock.realtimeMs(), emit: apply)
                }
            case .message(let report):
                lastReportMono = SystemClock.monotonicMs()
                // The wake-up that took a batch (or, reading live, a report) reads the barometer
                // first when it is due, so that the fixes lie before a reading, not after one.
                if !inBatch { barometer.poll(monoMs: lastReportMono, wallMs: SystemClock.realtimeMs()) }
                if batching {
                    inBatch = true
                    drained += 1
                    draining = drained < 1000
                    if !draining { drained = 0 }
                }
                if let r = report { take(r) }
            case .closed(let why):
                draining = false
                drained = 0
                printErr("cairn: gpsd connection lost (\(why)); reconnecting")
                source.close()
                recorder.connectionLost(systemNowMs: SystemClock.realtimeMs(), emit: apply)
                log.append(.note("gpsd connection lost: \(why)"), monoMs: mono)
                reportedDown = true
            }
        }

        // Stop: take what gpsd has queued (a batch waits in the socket), release the held epoch,
        // close the trip with its summary, sync, exit 0.
        notify.stopping(status: "stopping: closing the trip and syncing")
        source.wakeAtBytes = 1
        for _ in 0..<100_000 {
            guard case .message(let report) = source.read(timeoutUs: 0) else { break }
            lastReportMono = SystemClock.monotonicMs()
            if let r = report { take(r) }
        }
        source.close()
        let mono = SystemClock.monotonicMs()
        recorder.finish(systemNowMs: SystemClock.realtimeMs(), emit: apply)
        if recorder.tripOpen {
            let s = recorder.stats
            let lost = log.closeTrip(TripEnd(reason: .shutdown, points: UInt64(s.points), distanceM: s.distanceM,
                                             movingTimeMs: s.movingTimeMs, firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs),
                                     drops: recorder.drops, monoMs: mono)
            printErr("cairn: trip closed: \(s.points) points" + (lost > 0 ? ", \(lost) of them dropped for lack of room on the card" : "")
                     + ", \(formatDistance(s.distanceM))")
        } else {
            log.shutdown(monoMs: mono)
            printErr("cairn: stopped; no trip was open")
        }
        housekeeping(SystemClock.monotonicMs(), final: true)
        return ExitCode.ok
    }

    /// `HOST[:PORT]` with a numeric host (static binaries have no name service): IPv4 with an
    /// optional port, IPv6 bare (no port: `::1`) or in brackets with an optional port
    /// (`[::1]:2947`), or `localhost` (taken as 127.0.0.1).
    /// The zone `--timezone` names, and how `--check` describes it. `auto` reads /etc/localtime:
    /// missing, it means UTC (as for the C library); unreadable or not a zone file, trips record
    /// no offset and this says so once (nothing else changes: the recording goes on).
    static func timeZone(_ text: String, invalid: (String) -> UsageError) throws(UsageError) -> (TimeZoneFile?, String) {
        func now(_ z: TimeZoneFile) -> String { "UTC" + UTCOffset.format(z.offset(atUnixMs: SystemClock.realtimeMs())) + " now" }
        if text == "auto" {
            let path = "/etc/localtime"
            if access(path, F_OK) != 0 && errno == ENOENT { return (.fixed(0), "no \(path): UTC") }
            do {
                let z = try TimeZoneFile.load(path)
                return (z, "\(path): " + now(z))
            } catch {
                printErr("cairn: timezone: \(error); trips record no UTC offset (convert --utc-offset sets FIT's local time)")
                return (nil, "\(error): none recorded")
            }
        }
        if let s = UTCOffset.parse(text) { return (.fixed(s), "fixed UTC" + UTCOffset.format(s)) }
        let path: String
        if text.hasPrefix("/") {
            path = text
        } else {
            // A zone name: letters, digits, '_', '-', '+' and '/' (no '.', so never '..').
            guard !text.isEmpty, text.utf8.allSatisfy({ c in
                (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 95 || c == 45 || c == 43 || c == 47
            }) else {
                throw invalid("The value '\(text)' is invalid for '--timezone <auto|zone|±HH:MM>': use auto, a zone name like Europe/Zurich, a TZif file or an offset like +02:00")
            }
            path = "/usr/share/zoneinfo/" + text
        }
        do {
            let z = try TimeZoneFile.load(path)
            return (z, "\(path): " + now(z))
        } catch {
            throw invalid("The value '\(text)' is invalid for '--timezone <auto|zone|±HH:MM>': \(error)")
        }
    }

    static func parseGpsdAddress(_ s: String) throws(UsageError) -> (String, String) {
        func invalid(_ why: String) -> UsageError { UsageError("The value '\(s)' is invalid for '--gpsd <host[:port]>': \(why)") }
        var host = s
        var port = "2947"
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { throw invalid("no ']' after the IPv6 address") }
            host = String(s[s.index(after: s.startIndex)..<close])
            let rest = s[s.index(after: close)...]
            if rest.hasPrefix(":") { port = String(rest.dropFirst()) } else if !rest.isEmpty {
                throw invalid("use [IPv6]:PORT")
            }
            var buf = [UInt8](repeating: 0, count: 16)
            guard inet_pton(AF_INET6, host, &buf) == 1 else { throw invalid("'\(host)' in brackets is not an IPv6 address") }
        } else if let colon = s.lastIndex(of: ":"), s.firstIndex(of: ":") == colon {
            host = String(s[..<colon])
            port = String(s[s.index(after: colon)...])
        }
        // Several colons without brackets: an IPv6 address, and no port (`::1:2947` is an address).
        if host == "localhost" { host = "127.0.0.1" }
        guard let p = StrictNumber.whole(port), p > 0, p < 65536 else {
            throw invalid("port must be 1-65535")
        }
        var buf = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET, host, &buf) == 1 || inet_pton(AF_INET6, host, &buf) == 1 else {
            throw invalid("use a numeric address (this static binary does no DNS look-ups); an IPv6 address with a port goes in brackets: [::1]:2947")
        }
        return (host, String(p))
    }
}


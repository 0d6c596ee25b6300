#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnExport
import CairnSystem
import CairnLog
import CairnDevice
import CairnRecorder

enum RecordCommand: Command {
    static let name = "record"
    static let overview = "Record trips from gpsd into crash-safe log files until SIGTERM or SIGINT."

    /// `record --check`'s `[deliver]` part: what `cairn deliver` takes from the same file (the
    /// service's timer runs it with this file), each with its line or "(default)"; the remote
    /// is not reached (`cairn deliver --check` does that).
    static func deliverCheckLines(_ file: ConfigFile?, zones: Int) throws -> [String] {
        var d = ParsedArguments()
        let origin = file?.merge(into: &d, section: "deliver") ?? [:]
        // What `cairn deliver` would refuse of it, refused here too (named by its line).
        func invalid(_ option: String, _ message: String) -> UsageError {
            origin[option].map { UsageError(inFile: "\($0): " + message) } ?? UsageError(message)
        }
        if let r = d.value("--remote") { try DeliverOptions.checkRemote(r, invalid: invalid) }
        if let f = d.value("--format") {
            do throws(UsageError) { _ = try SharedOptions.formats(f) } catch { throw invalid("--format", error.message) }
        }
        var lines = ["[deliver]"]
        for o in DeliverCommand.sectionOptions {
            let key = String(o.name.dropFirst(2))
            if let v = d.value(o.name) {
                lines.append("\(key) = \(v)  (\(origin[o.name] ?? "command line"))")
            } else if o.name == "--logs" {
                lines.append("logs = " + (zones > 0 ? "no (privacy zones)" : "yes") + "  (default)")
            } else {
                lines.append("\(key) = \(documentedDefault(o.help) ?? (o.name == "--remote" ? "none (no delivery)" : "-"))  (default)")
            }
        }
        return lines
    }

    /// "gpx,fit,csv" from a help text ending "(default: gpx,fit,csv)".
    static func documentedDefault(_ help: String) -> String? {
        let marker = Array("(default: ".utf8), u = Array(help.utf8)
        guard u.last == UInt8(ascii: ")"), u.count > marker.count,
            let at = (0...(u.count - marker.count)).reversed().first(where: { u[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        return String(decoding: u[(at + marker.count)..<(u.count - 1)], as: UTF8.self)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        var a = parsed
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        // Command line > config file > defaults. A bad value from the file names its line.
        var origin: [String: String] = [:]
        var zones: [PrivacyZone] = []
        var configFile: ConfigFile?
        if let path = a.value("--config") {
            if path.isEmpty { throw UsageError("The value '' is invalid for '--config <file>'") }
            let file = try ConfigFile.load(path, options: options)
            configFile = file
            origin = file.merge(into: &a)
            zones = try file.privacyZones()  // the exports cut them; record takes the first as home
        }
        _ = try FuelSettings.from(a, origin: origin)  // read by info and list; checked when the service starts
        func invalid(_ option: String, _ message: String) -> UsageError {
            if let o = origin[option] { return UsageError(inFile: "\(o): \(message)") }
            return UsageError(message)
        }
        let (host, port): (String, String)
        do { (host, port) = try parseGpsdAddress(a.value("--gpsd") ?? "127.0.0.1:2947") } catch { throw invalid("--gpsd", error.message) }
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        if dir.isEmpty { throw invalid("--dir", "The value '' is invalid for '--dir <dir>'") }
        let activity = a.value("--activity") ?? "ride"
        var profile: ActivityProfile
        do { profile = try SharedOptions.activity(activity) } catch { throw invalid("--activity", error.message) }
        do { profile.closeAfterMs = try SharedOptions.closeAfterMs(a.value("--close-after") ?? "30") } catch {
            throw invalid("--close-after", error.message)
        }
        let closeMinutes = profile.closeAfterMs / 60_000
        let standText = a.value("--home-stand") ?? "2"
        guard let standMinutes = StrictNumber.whole(standText), (1...60).contains(standMinutes) else {
            throw invalid("--home-stand", "The value '\(standText)' is invalid for '--home-stand <minutes>': use a whole number from 1 to 60")
        }
        let homeText = a.value("--home")
        if let h = homeText, h != "none" {
            switch PrivacyZone.parse(h) {
            case .success(let z): profile.home = HomePlace(lat: z.lat, lon: z.lon, radiusM: z.radiusM)
            case .failure(let why): throw invalid("--home", "The value '\(h)' is invalid for '--home <lat,lon,radius_m|none>': \(why)")
            }
        } else if homeText == nil, let z = zones.first {
            profile.home = HomePlace(lat: z.lat, lon: z.lon, radiusM: z.radiusM)
        }
        profile.home?.standMs = Int64(standMinutes) * 60_000
        let ledText = a.value("--led") ?? "none"
        if ledText != "none", let why = LedClassDevice.nameProblem(ledText) {
            throw invalid("--led", "The value '\(ledText)' is invalid for '--led <name|none>': \(why)")
        }
        let ledName = ledText == "none" ? nil : ledText
        let buttonText = a.value("--button") ?? "none"
        if buttonText != "none", !buttonText.hasPrefix("/") {
            throw invalid("--button", "The value '\(buttonText)' is invalid for '--button <path|none>': an absolute path (/dev/input/cairn-button)")
        }
        let buttonKeyText = a.value("--button-key") ?? "148"
        guard let buttonKey = StrictNumber.whole(buttonKeyText), (1...0x2ff).contains(buttonKey) else {
            throw invalid("--button-key", "The value '\(buttonKeyText)' is invalid for '--button-key <code>': a key code from 1 to 767 (KEY_MAX)")
        }
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
        let readText =
            a.value("--read-every")
            ?? {
                let syncMs = Int64(syncSeconds * 1000), parts = (syncMs + 4999) / 5000
                let ms = syncMs / parts
                return ms % 1000 == 0 ? String(ms / 1000) : String(Double(ms) / 1000)
            }()
        guard let readEverySeconds = StrictNumber.decimal(readText),
            readEverySeconds == 0 || (readEverySeconds >= 1 && readEverySeconds <= syncSeconds)
        else {
            throw invalid(
                "--read-every",
                "The value '\(readText)' is invalid for '--read-every <seconds>': use 0, or a plain decimal number of seconds from 1 to the --sync interval (\(syncText))"
            )
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
        let sensors = try sensorList(a.all("--sensor")) { invalid("--sensor", $0) }
        let wheelText = a.value("--wheel") ?? "2.105"
        let wheelM: Double
        do { wheelM = try wheelCircumference(wheelText) } catch { throw invalid("--wheel", error.message) }
        let (zone, zoneText) = try timeZone(a.value("--timezone") ?? "auto") { invalid("--timezone", $0) }
        let statusPath = a.value("--status")
        if statusPath == "" { throw invalid("--status", "The value '' is invalid for '--status <file>'") }
        var retention = try Retention.from(keepDays: a.value("--keep-days"), maxMb: a.value("--max-mb")) { o, m in invalid(o, m) }
        let verbose = a.has("--verbose")
        var board: String?
        if let b = a.value("--board") {
            do { board = try SharedOptions.board(b) } catch { throw invalid("--board", error.message) }
        }
        // The LED, looked for now: a name that is not there is said with the line that names it.
        var led: LedClassDevice?
        var ledProblem: String?
        var ledLacksTimer = false
        func findLed(_ n: String) {
            do throws(LedClassDevice.Failure) {
                led = try LedClassDevice(name: n, sysfsRoot: sysfsRoot)
                ledProblem = nil
            } catch {
                ledProblem = (origin["--led"].map { "\($0): " } ?? "") + "--led '\(n)': \(error)"
                ledLacksTimer = error.noTimer
            }
        }
        if let n = ledName { findLed(n) }
        if a.has("--led-grant") {
            // Root, before the recorder (the unit's ExecStartPre=+): the LED's two delay files to
            // the log directory's owner, the user the recorder runs as. Never stops the start.
            guard let n = ledName else { return ExitCode.ok }
            if ledLacksTimer {
                // Debian's kernels build the timer trigger as a module (a Pi's has it built in).
                _ = try? Subprocess.run(["modprobe", "-q", "ledtrig-timer"], deadline: 10)
                findLed(n)
            }
            guard let d = led else { throw Failure(ledProblem ?? "--led '\(n)': not found") }
            let owner: stat
            do throws(Errno) { owner = try POSIX.status(dir) } catch { throw Failure("\(dir): \(error)") }
            do throws(LedClassDevice.Failure) { try d.grant(uid: owner.st_uid, gid: owner.st_gid) } catch { throw Failure("--led '\(n)': \(error)") }
            printErr("cairn: led \(n): timer trigger set; delay_on and delay_off handed to uid \(owner.st_uid)")
            return ExitCode.ok
        }
        if a.has("--check") {
            // What `record` would say at start-up, as a warning: it records without them.
            var warnings: [String] = []
            if let p = ledProblem {
                // A missing LED is a mistake to fix before the ride (the service itself records
                // without it and takes it when it appears); a timer trigger not loaded yet is the
                // unit's root step's to load.
                guard ledLacksTimer else { throw origin["--led"] != nil ? UsageError(inFile: p) : UsageError(p) }
                warnings.append("warning: \(p); the unit's root step (record --led-grant) loads it")
            }
            if case .path(let p) = baroSource, let f = BarometerSampler.probe(path: p) {
                warnings.append(
                    "warning: --baro" + (origin["--baro"].map { " (\($0))" } ?? "")
                        + ": \(f); record would go on without it (climb from GPS heights) and take it when it appears")
            }
            func from(_ o: String) -> String {
                origin[o].map { "  (\($0))" } ?? (a.values[o] != nil || a.flags.contains(o) ? "  (command line)" : "  (default)")
            }
            // Arrays of Strings in parts, then joined: Swift 6.0.3 (the aarch64 build) gives up
            // type-checking them as one expression.
            let settingLines: [String] = [
                "gpsd = \(GpsdSource.address(host: host, port: port))" + from("--gpsd"), "dir = \(dir)" + from("--dir"),
                "activity = \(activity)" + from("--activity"),
                "close-after = \(closeMinutes)" + from("--close-after"),
                // Home is where a short stand closes the trip; its place is not printed (the
                // check's output may be pasted anywhere): only that there is one.
                "home = \(profile.home == nil ? "none" : "set")"
                    + (homeText == nil && profile.home != nil ? "  (the first privacy zone)" : from("--home")),
                "home-stand = \(standMinutes)" + from("--home-stand")
            ]
            let deviceLines: [String] = [
                "led = \(ledText)" + from("--led"),
                "button = \(buttonText)" + from("--button"), "button-key = \(buttonKey)" + from("--button-key"),
                "clock = \(clock)" + from("--clock"), "raw = \(raw)" + from("--raw"), "sync = \(syncText)" + from("--sync"),
                "read-every = \(readText)" + from("--read-every"), "baro = \(baro)" + from("--baro"),
                "sysfs-root = \(sysfsRoot)" + from("--sysfs-root")
            ]
            let fileLines: [String] = [
                "status = \(statusPath ?? "-")" + from("--status"),
                "keep-days = \(a.value("--keep-days") ?? "-")" + from("--keep-days"), "max-mb = \(a.value("--max-mb") ?? "-")" + from("--max-mb"),
                "verbose = \(verbose ? "yes" : "no")" + from("--verbose"),
                "timezone = \(a.value("--timezone") ?? "auto") (\(zoneText))" + from("--timezone"),
                "board = \(board ?? "-")" + from("--board")
            ]
            let sensorLines: [String] =
                sensors.map { "sensor = \($0)" + from("--sensor") } + ["wheel = \(wheelText) m" + from("--wheel")]
            // The zones' places are not printed either: how many, and which lines.
            let zoneLines: [String] = [
                "privacy-zone = " + (zones.isEmpty ? "none" : "\(zones.count) zone\(zones.count == 1 ? "" : "s") (places not printed)")
                    + (configFile.map { f in f.lines(of: "privacy-zone").map { "  (\(f.path):\($0))" } ?? "  (default)" } ?? "  (default)")
            ]
            let fuelLines: [String] = ["--fuel_l_per_100km", "--fuel_price"].compactMap { o in
                a.value(o).map { "\(o.dropFirst(2)) = \($0)" + from(o) }
            }
            let deliverLines = try Self.deliverCheckLines(configFile, zones: zones.count)
            printOut((settingLines + deviceLines + fileLines + sensorLines + zoneLines + fuelLines + deliverLines).joined(separator: "\n"))
            for w in warnings { printErr("cairn record: \(w)") }
            return ExitCode.ok
        }

        // From here a stop request is kept for the loop, and a hang-up is ignored.
        StopSignals.install()
        var config = TripRecorder<FixRules>.Config()
        config.clockIsFix = (clock == "fix")
        config.closeWithoutFixMs = profile.closeAfterMs
        config.home = profile.home
        config.keepsRaw = raw == "on"
        let recorder = TripRecorder(filter: FixRules(profile: profile), config: config)
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
            log = try TripLog(
                directory: dir, activity: activity, software: "cairn \(cairnVersion)",
                syncIntervalMs: Int64(syncSeconds * 1000),
                // On FAT each sync ends on a 512-byte boundary, so an append never
                // shares a sector with acknowledged bytes: on a card without
                // power-safe overwrite the power-loss model loses acknowledged
                // records without this (Tests/crash/RESULTS.md). Through the page cache
                // ext4 rewrites whole 4 KiB blocks anyway (see SyncPadding); written
                // direct, in 512-byte sectors, padding protects there too, and costs
                // no more sectors on the card, only a bigger file. (tmpfs takes
                // O_DIRECT too, but has no card to protect.)
                padding: padding, padDirect: fileSystem != "tmpfs",
                say: { printErr("cairn: \($0)") })
        } catch {
            throw Failure("\(error)")
        }
        log.board = board
        log.wheelCircumferenceMm = UInt32((wheelM * 1000).rounded())
        // The board's privacy key: only the recorder makes it, here in its own log directory, so
        // every command that cuts zones (export, deliver, render, a laptop's convert of copied
        // logs) cuts with this one key (a second key is a second cut of the same place). Made
        // when a zone is configured (the recorder starts again at boot, or with a restart, after
        // one is added): a board without zones spends no page of its card on it.
        if !zones.isEmpty {
            ExportStageOptions.ensureKey(directory: dir) { printErr("cairn: \($0)") }
            // Retention keeps a trip delivered cut by other zones (a key it cannot read: every
            // such trip) until a delivery cuts it again.
            retention.zones = PrivacyZones(zones, key: try? ExportStageOptions.load(POSIX.join(dir, ExportStageOptions.keyFileName)))
        }

        // The barometer is read with each batch (at most 5 s apart), or once a second when the
        // reports are read as they come: never a wake-up of its own at the default settings.
        let barometer = BarometerSampler(
            source: baroSource,
            sampleEveryMs: readEverySeconds > 0 ? min(5000, Int64(readEverySeconds * 1000)) : 1000
        ) {
            printErr("cairn: \($0)")
        }
        barometer.openNamedDevice(monoMs: SystemClock.monotonicMs())

        let notify = SystemdNotify()
        let statusFile = statusPath.map { LiveStatusFile(path: $0) }
        printErr(
            "cairn: recording to \(dir) (\(fileSystem)) from gpsd at \(GpsdSource.address(host: host, port: port)) (sync every \(syncText) s"
                + (readEverySeconds > 0 ? ", reports read every \(readText) s" : ", reports read as they come")
                + (padding > 0 ? ", padded to \(padding) bytes)" : ")")
                + (statusPath.map { "; status in \($0)" } ?? "")
                + (notify.isEnabled ? "; notifying systemd" + (notify.watchdogIntervalMs.map { ", watchdog every \($0) ms" } ?? "") : ""))
        // A trip closed: `trip-closed` in the log directory tells cairn-deliver.path to deliver
        // it at once (a ride that ended at home, before the power goes); then retention's turn.
        // A trigger, not a record: written without a sync (a power cut loses nothing of a ride,
        // and the timer delivers it later).
        func tripClosed() {
            let stamp = Array((TextFormat.isoTime(ms: SystemClock.wallClockMs()) + "\n").utf8)
            do {
                let fd = try POSIX.open(POSIX.join(dir, "trip-closed"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                defer { _ = POSIX.close(fd) }
                try POSIX.writeAll(fd, stamp)
            } catch { printErr("cairn: \(dir)/trip-closed: \(error)") }
            prune()
        }
        func prune() {
            guard retention.isActive else { return }
            // The remote's listing within the watchdog's 30 s: a remote out of reach keeps the trips.
            _ = retention.apply(directory: dir, wallClockMs: SystemClock.wallClockMs(), remoteTimeout: 5, remoteDeadline: 20) {
                printErr("cairn: \($0)")
            }
        }
        prune()

        var settings = RecordLoop.Settings(readEverySeconds: readEverySeconds, pauseAfterMs: profile.pauseAfterMs)
        settings.verbose = verbose
        settings.zone = zone
        settings.wheelCircumferenceM = wheelM
        // A trainer's trip pauses and closes as the activity's rides do (`--close-after`).
        settings.wheelTrip.pauseAfterMs = profile.pauseAfterMs
        settings.wheelTrip.closeAfterMs = profile.closeAfterMs
        settings.bootId = SystemClock.bootId()
        let source = GpsdSource(host: host, port: port)
        source.stopFd = StopSignals.wakeFd
        let loop = RecordLoop(
            recorder: recorder, log: log, source: source, barometer: barometer,
            notify: notify, statusFile: statusFile, clock: SystemLoopClock(), settings: settings,
            stopRequested: { StopSignals.requested }, afterTripClosed: tripClosed,
            say: { printErr("cairn: \($0)") }, distanceText: formatDistance)
        if let n = ledName {
            if let p = ledProblem { printErr("cairn: \(p); recording without it, and looking for it again at each change of state") }
            loop.light = StatusLight(name: n, sysfsRoot: sysfsRoot, directory: dir, device: led) { printErr("cairn: \($0)") }
        }
        if buttonText != "none" {
            loop.button = RiderButton(path: buttonText, keyCode: buttonKey) { printErr("cairn: \($0)") }
        }
        if !sensors.isEmpty { loop.sensors = BluetoothSensors(sensors: sensors) }
        loop.run()
        return ExitCode.ok
    }
}

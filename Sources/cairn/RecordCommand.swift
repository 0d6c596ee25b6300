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
    static let usage = "cairn record [--gpsd <host[:port]>] [--dir <dir>] [--baro <auto|none|path>] [--activity <activity>] [--clock <system|fix>] [--sync <seconds>]"
    static let options = [
        OptionSpec(name: "--gpsd", valueName: "HOST[:PORT]", help: "gpsd's numeric address; localhost means 127.0.0.1. (default: 127.0.0.1:2947)"),
        OptionSpec(name: "--dir", valueName: "DIR", help: "Directory for the log files; created if missing. (default: /var/lib/cairn)"),
        OptionSpec(name: "--baro", valueName: "AUTO|NONE|PATH", help: "Barometer: auto, none, or an IIO device directory. (default: auto)"),
        OptionSpec(name: "--activity", valueName: "ACTIVITY", help: "ride, run, walk or drive: sets the jump limit, distance filter and stop speeds. (default: ride)"),
        OptionSpec(name: "--clock", valueName: "SYSTEM|FIX", help: "Judge fix age by the system clock or by the newest fix time (no RTC, replays). (default: system)"),
        OptionSpec(name: "--sync", valueName: "SECONDS", help: "Worst-case loss window on power loss: sync at least this often, 1 to 60. (default: 5)"),
        OptionSpec(name: "--verbose", valueName: nil, help: "Also report each sync with the highest durable sequence number."),
    ]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        let (host, port) = try parseGpsdAddress(a.value("--gpsd") ?? "127.0.0.1:2947")
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        if dir.isEmpty { throw UsageError("The value '' is invalid for '--dir <dir>'") }
        let activity = a.value("--activity") ?? "ride"
        guard let profile = ActivityProfile.named(activity) else {
            throw UsageError("The value '\(activity)' is invalid for '--activity <activity>': use ride, run, walk or drive")
        }
        let clock = a.value("--clock") ?? "system"
        guard clock == "system" || clock == "fix" else {
            throw UsageError("The value '\(clock)' is invalid for '--clock <system|fix>'")
        }
        let syncText = a.value("--sync") ?? "5"
        guard let syncSeconds = Double(syncText), syncSeconds >= 1, syncSeconds <= 60 else {
            throw UsageError("The value '\(syncText)' is invalid for '--sync <seconds>': use a number from 1 to 60")
        }
        let baro = a.value("--baro") ?? "auto"
        switch baro {
        case "none", "auto": break
        default:
            // Barometer support is its own piece of work; until then say so rather than pretend.
            throw Failure("--baro \(baro): reading a barometer is not supported yet; use --baro none or auto")
        }
        let verbose = a.has("--verbose")

        var config = TripRecorder<FixRules>.Config()
        config.clockIsFix = (clock == "fix")
        var recorder = TripRecorder(filter: FixRules(profile: profile), config: config)
        let log: TripLog
        do {
            log = try TripLog(directory: dir, activity: activity, software: "cairn \(cairnVersion)",
                              syncIntervalMs: Int64(syncSeconds * 1000), say: { printErr("cairn: \($0)") })
        } catch {
            throw Failure("\(error)")
        }
        if verbose { log.onSync = { path, seq in printErr("cairn: synced \(path) seq \(seq)") } }
        recorder.resumeCandidate = log.resumable?.last

        StopSignals.install()
        printErr("cairn: recording to \(dir) from gpsd at \(host):\(port) (sync every \(syncText) s)")
        let source = GpsdSource(host: host, port: port)
        var backoffMs: Int64 = 250
        var lastReportMono = SystemClock.monotonicMs()
        var reportedDown = false
        let apply: (RecorderAction) -> Void = { log.apply($0, monoMs: SystemClock.monotonicMs()) }

        while !StopSignals.requested {
            let mono = SystemClock.monotonicMs()
            log.tick(monoMs: mono)
            recorder.tick(systemNowMs: SystemClock.realtimeMs(), emit: apply)
            if !source.isOpen {
                if let err = source.open() {
                    if !reportedDown { printErr("cairn: \(err); retrying"); reportedDown = true }
                    SystemClock.sleep(ms: backoffMs) { StopSignals.requested }
                    backoffMs = min(backoffMs * 2, 8000)
                    continue
                }
                printErr("cairn: connected to gpsd at \(host):\(port)")
                reportedDown = false
                backoffMs = 250
                lastReportMono = mono
            }
            switch source.read(timeoutUs: 250_000) {
            case .idle:
                // No report for a while: the held epoch is complete.
                if mono - lastReportMono > 1200 {
                    recorder.flush(systemNowMs: SystemClock.realtimeMs(), emit: apply)
                }
            case .message(let report):
                lastReportMono = SystemClock.monotonicMs()
                if let r = report { recorder.report(r, systemNowMs: SystemClock.realtimeMs(), emit: apply) }
            case .closed(let why):
                printErr("cairn: gpsd connection lost (\(why)); reconnecting")
                source.close()
                recorder.connectionLost(systemNowMs: SystemClock.realtimeMs(), emit: apply)
                log.append(.note("gpsd connection lost: \(why)"), monoMs: mono)
                reportedDown = true
            }
        }

        // Stop: release the held epoch, close the trip with its summary, sync, exit 0.
        source.close()
        let mono = SystemClock.monotonicMs()
        recorder.finish(systemNowMs: SystemClock.realtimeMs(), emit: apply)
        if recorder.tripOpen {
            let s = recorder.stats
            log.closeTrip(TripEnd(reason: .shutdown, points: UInt64(s.points), distanceM: s.distanceM,
                                  movingTimeMs: s.movingTimeMs, firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs),
                          drops: recorder.drops, monoMs: mono)
            printErr("cairn: trip closed: \(s.points) points, \(formatDistance(s.distanceM))")
        } else {
            log.shutdown(monoMs: mono)
            printErr("cairn: stopped; no trip was open")
        }
        return ExitCode.ok
    }

    /// `HOST[:PORT]` with a numeric host (static binaries have no name service): IPv4,
    /// `[IPv6]`, or `localhost` (taken as 127.0.0.1).
    static func parseGpsdAddress(_ s: String) throws(UsageError) -> (String, String) {
        var host = s
        var port = "2947"
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { throw UsageError("The value '\(s)' is invalid for '--gpsd <host[:port]>'") }
            host = String(s[s.index(after: s.startIndex)..<close])
            let rest = s[s.index(after: close)...]
            if rest.hasPrefix(":") { port = String(rest.dropFirst()) } else if !rest.isEmpty {
                throw UsageError("The value '\(s)' is invalid for '--gpsd <host[:port]>'")
            }
        } else if let colon = s.lastIndex(of: ":"), s.firstIndex(of: ":") == colon {
            host = String(s[..<colon])
            port = String(s[s.index(after: colon)...])
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard let p = Int(port), p > 0, p < 65536 else {
            throw UsageError("The value '\(s)' is invalid for '--gpsd <host[:port]>': port must be 1-65535")
        }
        var buf = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET, host, &buf) == 1 || inet_pton(AF_INET6, host, &buf) == 1 else {
            throw UsageError("The value '\(s)' is invalid for '--gpsd <host[:port]>': use a numeric address (this static binary does no DNS look-ups)")
        }
        return (host, String(p))
    }
}


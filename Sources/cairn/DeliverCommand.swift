#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// `cairn deliver`: sends every finished trip that has not been delivered (its log files and its
/// conversions, privacy zones applied) to a remote through rclone. Layout under the remote:
///
/// (`<board>`: this board's id, the config's `board` or `--board`; `unnamed` without one, or
/// `unnamed-<tag>` with privacy zones: `boardFolder`)
///
///     REMOTE/<board>/logs/NNNNNNNN.cairn      the log files, byte for byte (unless --logs no)
///     REMOTE/<board>/<format>/<name>          one conversion per trip and format
///     REMOTE/<board>/index.html, index.tsv, pictures/   the page of the trips delivered there
///
/// Exactly once, in a few calls (DeliveryRun): the run's files are staged as they lie under the
/// board's folder, sent whole to a shipping folder beside it (`.cairn-tmp-<board>-<random>`), read
/// back whole (MD5), moved into place and read back again; the trips' receipts (LOGDIR/delivered,
/// ExportState's format, the conversions sent by size) are written and synced only then. A run
/// killed anywhere leaves a shipping folder (named in LOGDIR/delivery, removed by the next run),
/// never a partial file under a final name. A trip whose files changed since its receipt (a new
/// part) is delivered again, under the same names. Each run lists the board's folder once: a
/// receipted copy missing or cut there is sent again (issue 38).
///
/// It yields to the recorder: it starts only when no trip is being recorded, and stops before
/// its batch moves into place when one starts (exit 75; the timer runs it again later). Failures of the remote end
/// the run (75); a trip that cannot be converted is said and the others go (1). A failure is
/// said once per outage (then only in LOGDIR/delivery, which `cairn status` shows) unless
/// standard error is a terminal.
enum DeliverCommand: Command {
    static let name = "deliver"
    static let overview = "Send finished trips (log files and conversions) to a remote through rclone, each exactly once."
    static let usage =
        "cairn deliver [--remote <remote:path>] [--dir <dir>] [--format <formats|none>] [--logs <yes|no>] [--page <yes|no>] [<option>]..."

    /// What the `[deliver]` section of the config file may set.
    static let sectionOptions = [
        OptionSpec(
            name: "--remote", valueName: "REMOTE:PATH",
            help:
                "An rclone remote and folder (nas:rides, s3:bucket/rides); each board writes in its own folder there."
        ),
        OptionSpec(
            name: "--format", valueName: "FORMATS",
            help: "Conversions to send with the logs: any of gpx, fit, geojson, kml, csv, comma-separated, or none. (default: gpx,fit,csv)"),
        OptionSpec(
            name: "--logs", valueName: "YES|NO",
            help:
                "Send the log files (every point, the zones' too). (default: yes; no with privacy zones)"
        ),
        OptionSpec(name: "--rclone", valueName: "PROGRAM", help: "The rclone program. (default: rclone, from PATH)"),
        OptionSpec(name: "--rclone-config", valueName: "FILE", help: "rclone's config file, with the remote. (default: rclone's own)"),
        OptionSpec(
            name: "--retries", valueName: "N", help: "Tries per call, 1 to 10, 2, 8, 32 s... apart. (default: 3)"),
        OptionSpec(
            name: "--timeout", valueName: "SECONDS",
            help: "Seconds without progress before a transfer gives up. (default: 30)"),
        OptionSpec(name: "--laps", valueName: "LAPS", help: "Laps, as for export. (default: marks where the trip has presses, else pause)"),
        OptionSpec(
            name: "--page", valueName: "YES|NO",
            help:
                "Keep REMOTE/<board>/index.html, a page of the trips delivered there. (default: yes)"
        )
    ]

    static let options =
        [
            OptionSpec(name: "--dir", valueName: "DIR", help: "The recorder's log directory. (default: /var/lib/cairn)"),
            OptionSpec(
                name: "--check", valueName: nil,
                help: "Reach the remote and say what would go (trips, files, the board's folder); send and write nothing."),
            OptionSpec(
                name: "--json", valueName: nil,
                help: "When the run ends, print one JSON object on standard output: the result, the counts, the reason, the exit status.")
        ]
        + sectionOptions.filter { $0.name != "--laps" } + ExportStageOptions.options + [SharedOptions.boardOption]

    static let temporaryPrefix = ".cairn-tmp-"
    static let stagingName = ".deliver"

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let o = try DeliverOptions(parsed)
        guard pathExists(o.dir) else { throw Failure("\(o.dir): no such directory") }
        let board = boardFolder(o)
        try refuseNesting(remote: o.remote, board: board, logs: o.dir, from: o.from("--remote"))
        ignoreFileSizeLimitSignal()

        var rclone = Rclone(program: o.rcloneProgram, configFile: o.rcloneConfig, timeoutSeconds: o.timeout)
        rclone.scratch = POSIX.join(o.dir, stagingName)
        // The zones this run cuts with, said before the remote is reached: a run cut at its
        // first call still tells retention which delivered cuts are owed again (a board that
        // never delivered has none owed).
        let zonesWanted = o.stageOptions.zones.isEmpty ? "" : o.stageOptions.zones.fingerprint
        if !o.check, var s = DeliveryStatus.read(directory: o.dir), s.zonesWanted != zonesWanted {
            s.zonesWanted = zonesWanted
            do { try s.write(directory: o.dir) } catch { printErr("cairn: \(error)") }
        }
        // One rclone process for the run (`RcloneDaemon`), stopped at its end.
        let daemon = RcloneDaemon(rclone)
        defer { daemon.stop() }
        try checkRemote(o.remote, rclone: rclone, remotes: daemon.remotes)

        if o.check {
            let check = DeliveryRun(
                dir: o.dir, remote: o.remote, board: board, transport: daemon, retries: 1, formats: o.formats, copyLogs: o.copyLogs,
                stageOptions: o.stageOptions, quietFailures: false, page: o.page)
            return check.check(json: o.json)
        }

        let lock: DirectoryLock
        do throws(DirectoryLock.Failure) {
            lock = try DirectoryLock(directory: o.dir, fileName: lockFileName)
        } catch {
            if case .held(_, let holder) = error {
                printErr("cairn: \(o.dir): another delivery is running" + (holder.map { " (PID \($0))" } ?? "") + "; this one stops")
                return ExitCode.tryLater
            }
            throw Failure(error.description)
        }
        defer { withExtendedLifetime(lock) {} }

        var run = DeliveryRun(
            dir: o.dir, remote: o.remote, board: board, transport: daemon, retries: o.retries, formats: o.formats, copyLogs: o.copyLogs,
            stageOptions: o.stageOptions, quietFailures: !POSIX.isTerminal(2), page: o.page,
            // Kept for retention, which runs from any working directory: a path given relative is
            // kept absolute (a bare program name stays one, looked up in PATH).
            rcloneProgram: rclone.program.contains("/") ? ExportCommand.absolute(rclone.program) : rclone.program,
            rcloneConfig: rclone.configFile.map(ExportCommand.absolute) ?? "")
        let code = run.go()
        if o.json {
            var report = run.report ?? DeliveryStatus(result: .failed).json
            report.add("exit_status", Int(code))
            printOut(report.text)
        }
        return code
    }

    /// The board's folder for these options (`boardFolder(id:zonesKey:deliveredBefore:)`), by
    /// the receipts and the last run's status in the log directory.
    static func boardFolder(_ o: DeliverOptions) -> String {
        let receipts = ExportState(directory: o.dir, fileName: ExportState.deliveredFileName)
        let (dir, remote) = (o.dir, o.remote)
        return boardFolder(
            id: o.stageOptions.board, zonesKey: o.stageOptions.zones.isEmpty ? nil : o.stageOptions.zones.key?.bytes,
            deliveredBefore: { folder in
                // (A status of before the folder was kept in it: that cairn wrote to `unnamed`.)
                DeliveryStatus.read(directory: dir).map { $0.remote == remote && ($0.boardFolder.isEmpty ? unnamedBoard : $0.boardFolder) == folder }
                    == true
                    || receipts.entries.contains { ExportState.folder(ofDestination: $0.destination) == join(remote, folder) }
            })
    }

    static let lockFileName = ".cairn-deliver.lock"

    /// The local folder a remote names (a path, or rclone's ":local:" backend); nil for a
    /// remote of rclone's config.
    static func localFolder(_ remote: String) -> String? {
        if remote.hasPrefix(":local:") { return String(remote.dropFirst(7)) }
        guard let colon = remote.firstIndex(of: ":") else { return remote }
        if let slash = remote.firstIndex(of: "/"), slash < colon { return remote }
        return nil
    }

    /// The remote folder of a board without an id.
    static let unnamedBoard = "unnamed"

    /// The remote folder of a board: its id (`board` in the config, `--board`), else `unnamed`
    /// or, with privacy zones, `unnamed-` and a keyed hash of the board's privacy key (unless it
    /// delivered to `unnamed/` before, by its receipts or its last run's status: its page there is
    /// reconciled when a zone changes). Boards
    /// without an id share `unnamed/`, where two trips under one name (the same ride recorded on
    /// two boards) replace each other's conversions, and a board whose logs stay home cannot
    /// tell its trips there from another's.
    static func boardFolder(id: String?, zonesKey: [UInt8]?, deliveredBefore: (String) -> Bool) -> String {
        if let id { return id }
        guard let k = zonesKey, !deliveredBefore(unnamedBoard) else { return unnamedBoard }
        var h = SipHash24(key: k)
        h.add("cairn board folder 1")
        let hex = String(h.finalize() >> 32, radix: 16)
        return unnamedBoard + "-" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Refuses a local remote whose board folder (the one written: `board`, the config's or
    /// `--board`, else `unnamed`) is the log directory, inside it or holds it: copies on the
    /// same card are no copies off the board, yet their receipts would let prune delete the
    /// trips, and they would fill the card outside retention's count.
    static func refuseNesting(remote: String, board: String, logs: String, from: String) throws {
        guard let folder = localFolder(remote) else { return }
        let target = ExportCommand.canonical(join(folder.isEmpty ? "." : folder, board))
        let l = ExportCommand.canonical(logs)
        let inside = target == l || target.hasPrefix(l == "/" ? "/" : l + "/") || l.hasPrefix(target == "/" ? "/" : target + "/")
        if inside {
            throw Failure(
                from + "--remote \(terminalSafe(remote)): its folder \(target) and the log directory \(logs) are one inside the other;"
                    + " deliver off the board's card", status: ExitCode.config)
        }
    }

    /// A remote rclone does not know is a config error, said before anything is read.
    /// `environment`: rclone also takes a remote defined only there (RCLONE_CONFIG_NAME_TYPE),
    /// which its rc server's listremotes leaves out; the on-card checks read it the same way.
    static func checkRemote(
        _ remote: String, rclone: Rclone, remotes: () throws(RemoteFailure) -> [String],
        environment: (String) -> String? = POSIX.environment
    ) throws {
        // "name:path"; a path with a '/' before any ':' is a local folder; ":backend,...:" is a
        // connection string that rclone parses itself.
        guard let colon = remote.firstIndex(of: ":"), !remote.hasPrefix(":") else { return }
        if let slash = remote.firstIndex(of: "/"), slash < colon { return }
        let name = String(remote[..<colon])
        let known: [String]
        do { known = try remotes() } catch {
            // A killed or silent rclone says nothing about the setup: try later, not "fix the config".
            throw Failure("--rclone \(rclone.program): \(error.detail)", status: error.interrupted ? ExitCode.tryLater : ExitCode.config)
        }
        if !known.contains(name) && Rclone.section(name, config: [:], environment: environment) == nil {
            let config = rclone.configFile.map { " (config: \($0))" } ?? ""
            throw Failure(
                "--remote \(terminalSafe(remote)): rclone has no remote '\(terminalSafe(name))'\(config)"
                    + (known.isEmpty ? "; it has none: set one up with 'rclone config'" : "; it has: " + known.joined(separator: ", ")),
                status: ExitCode.config)
        }
    }

    static func wholeOption(_ a: ParsedArguments, _ name: String, _ range: ClosedRange<Int>, default d: Int, from: String = "") throws -> Int {
        guard let text = a.value(name) else { return d }
        guard let v = StrictNumber.whole(text), range.contains(v) else {
            let message = from + "The value '\(text)' is invalid for '\(name)': use a whole number from \(range.lowerBound) to \(range.upperBound)"
            throw from.isEmpty ? UsageError(message) : UsageError(inFile: message)
        }
        return v
    }

    /// The remote folder `name` under `base` ("nas:" + "x" is "nas:x", "nas:rides" + "x" is "nas:rides/x").
    static func join(_ base: String, _ name: String) -> String {
        base.hasSuffix(":") || base.hasSuffix("/") ? base + name : base + "/" + name
    }
}

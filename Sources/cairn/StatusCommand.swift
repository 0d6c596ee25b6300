#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnExport
import CairnDevice
import CairnRecorder

/// What `record --status FILE` writes each time gpsd's reports are read (`--read-every`), at
/// most once a second: `key=value` lines (no quoting; values never hold a newline), so `watch cat`, a shell (`. FILE` after a sed) or a display
/// process can read it. `-` means "no value" (no fix, standing, no height yet).
///
///   state         waiting | recording | standing | paused | gap | stopped
///   gpsd          connected | down
///   fix           none | 2d | 3d            (the newest report, kept or not)
///   accuracy_m    horizontal uncertainty of the newest fix, 68 % (gpsd's eph mapped; see Accuracy)
///   fix_age_s     seconds since the newest fix arrived
///   speed_kmh     receiver speed; `-` while standing or when the newest fix is 8 s old or more
///   trip_file     the log file being written, `-` when none
///   distance_m, moving_time_s, ascent_m, descent_m, points, segments   the open trip (0 / - when none)
///   dropped       rule:count,... for the open trip (`-` when none were dropped)
///   baro          none | searching | none-found | ok | failing   (--baro none; not open yet, a named one
///                 looked for every 5 s; auto found none, looks every 30 s; read; not answering, retried every 5 s)
///   button        ok | stuck | chattering | missing   (only with `button =`: a stuck or chattering
///                 button is ignored until it rests 10 s; a missing one is looked for every 10 s)
///   synced_seq    highest sequence number made durable in trip_file
///   sync_age_s    seconds since the last sync, `-` before the first one
///   updated       system time of this write (ISO 8601 UTC; wrong on a board before time sync)
///   seq           this write's number, from 1 at start-up (a reader sees progress without clocks)
///   refresh_s     how often the recorder rewrites the file (its --read-every; 1 reading live)
///   pid           the recorder's process id (the last line: a reader sees the file is whole)
extension LiveStatus {
    func render() -> String {
        func num(_ v: Double?, _ d: Int) -> String { v.flatMap { TextFormat.fixed($0, d) } ?? "-" }
        let drops = self.drops.nonzero.map { "\(DropReason(rawValue: $0.rule)?.name ?? "rule_\($0.rule)"):\($0.count)" }
        var fields: [(String, String)] = [
            ("state", state),
            ("gpsd", gpsdConnected ? "connected" : "down"),
            ("fix", fixMode >= 3 ? "3d" : fixMode == 2 ? "2d" : "none"),
            ("accuracy_m", num(accuracyM, 1)),
            ("fix_age_s", num(fixAgeS, 0)),
            ("speed_kmh", num(speedMps.map { $0 * 3.6 }, 1)),
            ("trip_file", tripFile ?? "-"),
            ("distance_m", tripOpen ? num(stats.distanceM, 0) : "0"),
            ("moving_time_s", tripOpen ? String(TextFormat.wholeSeconds(ms: stats.movingTimeMs)) : "0"),
            ("ascent_m", tripOpen ? num(stats.ascentM, 0) : "-"),
            ("descent_m", tripOpen ? num(stats.descentM, 0) : "-"),
            ("points", String(tripOpen ? stats.points : 0)),
            ("segments", String(tripOpen ? stats.segments : 0)),
            ("dropped", drops.isEmpty ? "-" : drops.joined(separator: ",")),
            ("baro", baro),
            ("synced_seq", String(syncedSeq)),
            ("sync_age_s", num(syncAgeS, 0)),
            ("updated", TextFormat.isoTime(ms: updatedMs - updatedMs % 1000)),
            ("seq", String(seq)),
            ("refresh_s", String(refreshS)),
            ("pid", String(POSIX.processID))
        ]
        // Only with a button: a recorder without one writes the file as before.
        if let b = button, let at = fields.firstIndex(where: { $0.0 == "baro" }) { fields.insert(("button", b), at: at + 1) }
        return "# cairn live status (cairn status FILE)\n" + fields.map { "\($0.0)=\($0.1)" }.joined(separator: "\n") + "\n"
    }

    /// Parses what `render` wrote; unknown keys are kept (a newer recorder may add fields).
    static func parse(_ text: String) -> [(String, String)] {
        var out: [(String, String)] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            out.append((String(line[..<eq]), String(line[line.index(after: eq)...])))
        }
        return out
    }
}

/// The status file `record --status FILE` keeps: `LiveStatus` as text, written atomically at
/// most once a second (`StatusFile`).
final class LiveStatusFile: StatusOutput {
    private let file: StatusFile
    init(path: String) { file = StatusFile(path: path) }
    var writes: Int { file.writes }
    func write(_ status: LiveStatus, monoMs: Int64, force: Bool) -> String? {
        file.write(status.render(), monoMs: monoMs, force: force)
    }
}

enum StatusCommand: Command {
    static let name = "status"
    static let overview =
        "Show what a running recorder is doing, from the file it writes with 'record --status'. Exit status: 0 the recorder is running and the file is fresh; 2 the recorder has stopped, or the file is stale (not rewritten for over twice its refresh interval plus 5 s, or its recorder's process is gone); 1 the file cannot be read or is not a status file (a FIFO, a directory, another file)."
    static let usage = "cairn status [<file>] [--raw | --json] [--dir <dir>]"
    static let arguments = [("<file>", "The status file. (default: /run/cairn/status)")]
    static let options = [
        OptionSpec(
            name: "--raw", valueName: nil, help: "Print the file as it is (key=value lines), and the last delivery as delivery=... lines."),
        OptionSpec(name: "--json", valueName: nil, help: "Print one JSON object: the file's fields, stale, and the last delivery."),
        OptionSpec(
            name: "--dir", valueName: "DIR",
            help: "The recorder's log directory, whose 'delivery' file says how the last 'cairn deliver' went. (default: /var/lib/cairn)")
    ]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        if a.positionals.count > 1 { throw UsageError("Unexpected argument '\(a.positionals[1])'") }
        let path = a.positionals.first ?? "/run/cairn/status"
        if a.has("--raw") && a.has("--json") { throw UsageError("Give '--raw' or '--json', not both") }
        let delivery = DeliveryStatus.read(directory: a.value("--dir") ?? "/var/lib/cairn")
        let text: String, mtime: Int64
        do { (text, mtime) = try readStatusFile(path) } catch {
            // No recorder to ask: the last delivery is still said (a wrong password keeps failing
            // whether the recorder runs or not), and the exit status is the failure's.
            if let d = delivery {
                if a.has("--json") {
                    printOut(json([], stale: true, delivery: d, exit: ExitCode.failure))
                } else if a.has("--raw") {
                    printOut("delivery=\(terminalSafe(d.result.rawValue))\ndelivery_summary=\(terminalSafe(d.summary))")
                } else {
                    printOut("delivery:   " + terminalSafe(d.summary))
                }
            }
            throw error
        }
        // Whatever the file holds, no control character reaches the terminal (an escape
        // sequence could rewrite the screen): each is shown as U+FFFD, lines kept.
        if a.has("--raw") {
            var raw = text.split(separator: "\n", omittingEmptySubsequences: false).map { terminalSafe(String($0)) }.joined(separator: "\n")
            if let d = delivery {
                if !raw.hasSuffix("\n") { raw += "\n" }
                raw += "delivery=\(terminalSafe(d.result.rawValue))\ndelivery_summary=\(terminalSafe(d.summary))\n"
            }
            printOut(raw.hasSuffix("\n") ? String(raw.dropLast()) : raw)
            return ExitCode.ok
        }
        let fields = LiveStatus.parse(text)
        var v: [String: String] = [:]
        for (k, x) in fields { v[k] = terminalSafe(x) }
        guard let state = v["state"] else { throw Failure("\(path): not a cairn status file (no 'state' line)") }
        func g(_ k: String) -> String { v[k] ?? "-" }
        // Stale: not rewritten for twice its interval and 5 s more, or its process is gone.
        var age = ""
        let secs = SystemClock.wallClockMs() / 1000 - mtime
        let staleAfter = 2 * Int64(StrictNumber.whole(g("refresh_s")) ?? 60) + 5
        // Any number the file holds may be out of range: converted without a trap (a PID over
        // Int32's range is no process).
        let pid = StrictNumber.whole(g("pid")).flatMap { pid_t(exactly: $0) }
        let pidGone = pid.map { $0 > 0 && POSIX.processIsGone($0) } ?? false
        if state != "stopped" {
            if pidGone {
                age = "  (stale: its recorder, PID \(g("pid")), is not running)"
            } else if secs > staleAfter {
                age = "  (stale: not updated for \(secs) s; is the recorder running?)"
            }
        }
        let described: String
        switch state {
        case "waiting": described = "waiting for a good fix while moving (no trip open)"
        case "recording": described = "recording"
        case "standing": described = "standing (trip open, nothing written)"
        case "paused": described = "paused (standing over 2 min; a new segment starts when moving)"
        case "gap": described = "gap (trip open, no usable fix for 10 s or more)"
        case "stopped": described = "stopped"
        default: described = state
        }
        let distance = StrictNumber.decimal(g("distance_m")).map(formatDistance) ?? g("distance_m")
        // At most 15 digits: times 1000 stays within Int64.
        let moving = StrictNumber.whole(g("moving_time_s")).map { formatDuration(ms: Int64($0) * 1000) } ?? g("moving_time_s")
        var lines = [
            "state:      \(described)\(age)",
            "gpsd:       \(g("gpsd")); fix \(g("fix"))" + (g("accuracy_m") == "-" ? "" : ", ±\(g("accuracy_m")) m")
                + (g("fix_age_s") == "-" ? "" : ", \(g("fix_age_s")) s old"),
            "speed:      " + (g("speed_kmh") == "-" ? "-" : "\(g("speed_kmh")) km/h"),
            "trip:       \(distance), \(moving) moving, \(g("points")) points in \(g("segments")) segment(s)",
            "climb:      " + (g("ascent_m") == "-" ? "- (no trusted height yet)" : "+\(g("ascent_m")) m / -\(g("descent_m")) m"),
            "dropped:    " + (g("dropped") == "-" ? "none" : g("dropped").replacingAll(",", ", ").replacingAll(":", " ")),
            "barometer:  \(g("baro"))",
            "log:        \(g("trip_file")), synced seq \(g("synced_seq"))" + (g("sync_age_s") == "-" ? "" : ", \(g("sync_age_s")) s ago"),
            "updated:    \(g("updated")) (write \(g("seq")), pid \(g("pid")))"
        ]
        if v["button"] != nil, let at = lines.firstIndex(where: { $0.hasPrefix("barometer:") }) {
            lines.insert("button:     " + buttonText(g("button")), at: at + 1)
        }
        if state == "stopped" { lines[0] = "state:      stopped (the recorder has exited)" }
        if let d = delivery { lines.append("delivery:   " + terminalSafe(d.summary)) }
        let exit = state == "stopped" || !age.isEmpty ? ExitCode.statusStale : ExitCode.ok
        if a.has("--json") {
            printOut(json(fields, stale: !age.isEmpty, delivery: delivery, exit: exit))
            return exit
        }
        printOut(lines.joined(separator: "\n"))
        return exit
    }

    /// The `button` field said for a rider.
    static func buttonText(_ v: String) -> String {
        switch v {
        case "stuck": return "stuck (held down 15 s; presses ignored until released for 10 s)"
        case "chattering": return "chattering (pressed again and again; presses ignored until it rests 10 s)"
        case "missing": return "missing (its device is not there; looked for every 10 s)"
        default: return v  // already made terminal-safe with the other fields
        }
    }

    /// `status --json`: the file's fields (numbers as numbers, `-` as null, `dropped` as an
    /// object of counts), whether it is stale, the last delivery (null when none) and the exit
    /// status. Fields a newer recorder adds come through as strings.
    static func json(_ fields: [(String, String)], stale: Bool, delivery: DeliveryStatus?, exit: Int32) -> String {
        let numbers: Set<String> = [
            "accuracy_m", "fix_age_s", "speed_kmh", "distance_m", "moving_time_s", "ascent_m", "descent_m", "points", "segments",
            "synced_seq", "sync_age_s", "seq", "refresh_s", "pid"
        ]
        var o = JSONObject()
        for (k, v) in fields where !k.isEmpty {
            if k == "dropped" {
                var d = JSONObject()
                for pair in v.split(separator: ",") where v != "-" {
                    let p = pair.split(separator: ":")
                    if p.count == 2, let n = StrictNumber.whole(String(p[1])) { d.add(String(p[0]), n) }
                }
                o.add(k, json: d.text)
            } else if numbers.contains(k) {
                o.add(k, number: v)
            } else {
                o.add(k, v == "-" ? nil : v)
            }
        }
        o.add("stale", stale)
        o.add("delivery", json: delivery?.json.text ?? "null")
        o.add("exit_status", Int(exit))
        return o.text
    }

    /// The status file's text and modification time. Opened without blocking and refused unless
    /// it is a regular file: a FIFO or a device named by mistake must not hang the command.
    static func readStatusFile(_ path: String) throws -> (String, Int64) {
        func fail(_ why: String) -> Failure { Failure("\(path): cannot read: \(why) (is 'cairn record --status \(path)' running?)") }
        let fd: Int32
        do { fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } catch { throw fail("\(error)") }
        defer { POSIX.close(fd) }
        let st: stat
        do { st = try POSIX.status(fd) } catch { throw fail("\(error)") }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw Failure("\(path): not a regular file: a status file is what 'cairn record --status FILE' writes")
        }
        let bytes: [UInt8]
        do { bytes = try POSIX.readToEnd(fd, limit: 65535, chunk: 4096) } catch { throw fail("\(error)") }
        return (String(decoding: bytes, as: UTF8.self), Int64(st.st_mtim.tv_sec))
    }
}

extension String {
    func replacingAll(_ a: Character, _ b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }
}

/// Reads a small text file (status, config, export state) whole; nil with errno set on failure.
func readSmallFile(_ path: String, limit: Int = 1 << 20) -> String? {
    guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
    defer { POSIX.close(fd) }
    guard let bytes = try? POSIX.readToEnd(fd, limit: limit - 1) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

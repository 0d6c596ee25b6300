#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnExport
import CairnDevice
import CairnSystem

/// `cairn sensors --watch ADDRESS`: connects to Bluetooth LE sensors as the recorder does and
/// prints each notification decoded, for setting a sensor up (and the board's rig).
struct SensorsCommand: Command {
    static let name = "sensors"
    static let overview =
        "Watch Bluetooth LE sensors (heart rate, speed and cadence, power): connect as the recorder does and print what they send."
    static let usage = "cairn sensors --watch ADDRESS [--watch ADDRESS ...] [--for SECONDS]"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "--watch", valueName: "ADDRESS",
            help: "A sensor's address, AA:BB:CC:DD:EE:FF, then ' public' or ' random' (without: both in turn). Repeatable.",
            repeatable: true),
        OptionSpec(name: "--for", valueName: "SECONDS", help: "Stop after this long (default: until interrupted).")
    ]

    static func run(_ args: ParsedArguments) throws -> Int32 {
        var sensors: [SensorAddress] = []
        for w in args.all("--watch") {
            guard let s = SensorAddress(parsing: w) else {
                throw UsageError("--watch: '\(w)' is not AA:BB:CC:DD:EE:FF [public|random]")
            }
            sensors.append(s)
        }
        guard !sensors.isEmpty else {
            throw UsageError("name a sensor to watch with --watch ADDRESS (listing what advertises nearby is not in this build yet)")
        }
        var endMs = Int64.max
        if let f = args.value("--for") {
            guard let s = Int64(f), s > 0, s < 1_000_000 else { throw UsageError("--for: '\(f)' is not a number of seconds") }
            endMs = SystemClock.monotonicMs() + s * 1000
        }
        StopSignals.install()
        let transport = BluetoothSensors(sensors: sensors)
        defer { transport.close() }
        let startMs = SystemClock.monotonicMs()
        let pfds = UnsafeMutablePointer<pollfd>.allocate(capacity: sensors.count + 1)
        defer { pfds.deallocate() }
        var counts: [UInt16: Int] = [:]
        while !StopSignals.requested {
            let now = SystemClock.monotonicMs()
            if now >= endMs { break }
            for e in transport.poll(monoMs: now) {
                switch e {
                case .said(let text): printOut(text)
                case .notification(let n):
                    counts[n.characteristic, default: 0] += 1
                    printOut(describe(n, sinceMs: startMs))
                }
            }
            let fds = transport.descriptors
            for (i, fd) in fds.enumerated() { pfds[i] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0) }
            pfds[fds.count] = pollfd(fd: StopSignals.wakeFd, events: Int16(POLLIN), revents: 0)
            let wait = min(transport.msUntilDue(monoMs: now), endMs - now, 60_000)
            _ = try? POSIX.poll(pfds, count: fds.count + 1, timeoutMs: Int32(max(0, wait)))
        }
        let summary = counts.keys.sorted().map { "\(counts[$0]!) \(SensorLink.characteristicName($0))" }
        printOut(
            "watched \((SystemClock.monotonicMs() - startMs) / 1000) s: "
                + (summary.isEmpty ? "no notifications" : summary.joined(separator: ", ")) + "; \(transport.oddities) odd PDUs")
        return try checkedStdout(ExitCode.ok)
    }

    /// One line: seconds since the start, the sensor, the decoded value (or why it is not one).
    static func describe(_ n: SensorNotification, sinceMs: Int64) -> String {
        let t = TextFormat.fixed(Double(n.arrivalMonoMs - sinceMs) / 1000, 3) ?? "-"
        let head = "\(t) \(SensorAddress.text(n.address)) \(SensorLink.characteristicName(n.characteristic)):"
        do {
            switch n.characteristic {
            case 0x2A37:
                let m = try HeartRateMeasurement(decoding: n.value)
                let rr = m.rrIntervalsMs.map { TextFormat.fixed($0, 0) ?? "-" }
                return head + " \(m.beatsPerMinute) bpm" + (rr.isEmpty ? "" : " rr " + rr.joined(separator: ",") + " ms")
            case 0x2A5B:
                let m = try CSCMeasurement(decoding: n.value)
                return head + revolutions("wheel", m.wheel) + revolutions("crank", m.crank)
            case 0x2A63:
                let m = try CyclingPowerMeasurement(decoding: n.value)
                return head + " \(m.powerWatts) W" + revolutions("wheel", m.wheel) + revolutions("crank", m.crank)
            case 0x2A19:
                return head + " \(try BatteryLevel(decoding: n.value).percent) %"
            default:
                return head + " \(n.value.count) bytes"
            }
        } catch {
            return head + " undecodable (\(error)): " + n.value.map { String($0, radix: 16) }.joined(separator: " ")
        }
    }

    static func revolutions(_ what: String, _ r: RevolutionData?) -> String {
        r.map { " \(what) \($0.revolutions) revs at \($0.eventTime)/1024 s" } ?? ""
    }
}

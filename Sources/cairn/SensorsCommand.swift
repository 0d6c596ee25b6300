#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnExport
import CairnDevice
import CairnSystem

/// `cairn sensors`: lists the Bluetooth LE devices advertising nearby (the management socket;
/// root or CAP_NET_ADMIN), or with `--watch ADDRESS` connects to sensors as the recorder does and
/// prints each notification decoded: for setting a sensor up (and the board's rig).
struct SensorsCommand: Command {
    static let name = "sensors"
    static let overview =
        "List the Bluetooth LE sensors advertising nearby (as root), or watch sensors: connect as the recorder does and print what they send."
    static let usage = "cairn sensors [--for SECONDS] | cairn sensors --watch ADDRESS [--watch ADDRESS ...] [--for SECONDS]"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "--watch", valueName: "ADDRESS",
            help: "A sensor's address, AA:BB:CC:DD:EE:FF, then ' public' or ' random' (without: both in turn). Repeatable.",
            repeatable: true),
        OptionSpec(
            name: "--for", valueName: "SECONDS", help: "Stop after this long (default: 10 s listing, until interrupted watching).")
    ]

    static func run(_ args: ParsedArguments) throws -> Int32 {
        var sensors: [SensorAddress] = []
        for w in args.all("--watch") {
            guard let s = SensorAddress(parsing: w) else {
                throw UsageError("--watch: '\(w)' is not AA:BB:CC:DD:EE:FF [public|random]")
            }
            sensors.append(s)
        }
        var endMs = Int64.max
        if let f = args.value("--for") {
            guard let s = Int64(f), s > 0, s < 1_000_000 else { throw UsageError("--for: '\(f)' is not a number of seconds") }
            endMs = SystemClock.monotonicMs() + s * 1000
        }
        StopSignals.install()
        if sensors.isEmpty {
            return try scan(untilMs: endMs == .max ? SystemClock.monotonicMs() + 10_000 : endMs)
        }
        let transport = BluetoothSensors(sensors: sensors, retryLateMs: 0)
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
            let connecting = transport.connectingDescriptors
            for (i, fd) in fds.enumerated() {
                pfds[i] = pollfd(fd: fd, events: Int16(connecting.contains(fd) ? POLLOUT : POLLIN), revents: 0)
            }
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

    /// Start Discovery on the first adapter, the devices heard until `untilMs`, one line each.
    static func scan(untilMs: Int64) throws -> Int32 {
        let fd: Int32
        do throws(Errno) { fd = try POSIX.managementSocket() } catch {
            throw Failure("cannot open the Bluetooth management socket: \(BluetoothSensors.reason(error))")
        }
        defer { _ = POSIX.close(fd) }
        // A refused command also fails its send (the kernel answers 0 bytes sent): the answer,
        // queued on the socket, says why; only without one is the send's error the reason.
        var sendError: Errno?
        do throws(Errno) { try POSIX.sendPacket(fd, ManagementScan.command(start: true, index: 0)) } catch { sendError = error }
        var answered = false
        var found: [UInt64: ManagementScan.Device] = [:]
        var order: [UInt64] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
        defer { buffer.deallocate() }
        var pfds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: StopSignals.wakeFd, events: Int16(POLLIN), revents: 0)]
        while !StopSignals.requested {
            let now = SystemClock.monotonicMs()
            if now >= untilMs { break }
            _ = try? POSIX.poll(&pfds, count: 2, timeoutMs: Int32(min(1000, untilMs - now)))
            while let got = try? POSIX.receivePacket(fd, into: buffer) {
                switch ManagementScan.event(Array(buffer[0..<got.count])) {
                case .answered(let op, let status) where op == 0x0023:
                    if status != 0 { throw Failure(scanRefusal(status)) }
                    answered = true
                case .found(let d):
                    if let old = found[d.address] {
                        found[d.address] = ManagementScan.Device(
                            address: d.address, type: d.type, rssi: d.rssi, name: d.name ?? old.name,
                            services: old.services + d.services.filter { !old.services.contains($0) })
                    } else {
                        found[d.address] = d
                        order.append(d.address)
                    }
                default: break
                }
            }
        }
        if let e = sendError, !answered { throw Failure("cannot ask the Bluetooth adapter to scan: \(e)") }
        _ = try? POSIX.sendPacket(fd, ManagementScan.command(start: false, index: 0))
        printOut("ADDRESS            TYPE    RSSI  NAME                  SERVICES")
        for a in order {
            let d = found[a]!
            let type = d.type == 1 ? "public" : d.type == 2 ? "random" : "?"
            let name = d.name ?? "-"
            printOut(
                SensorAddress.text(a) + "  " + type.padding(8) + String(d.rssi).padding(6) + name.padding(22)
                    + ManagementScan.servicesText(d.services))
        }
        printOut("\(order.count) devices; a sensor line: sensor = ADDRESS TYPE (Hardware/bluetooth.md)")
        return try checkedStdout(ExitCode.ok)
    }

    static func scanRefusal(_ status: UInt8) -> String {
        switch status {
        case 0x14: return "scanning needs CAP_NET_ADMIN: run it as root (sudo cairn sensors); watching (--watch) needs nothing"
        case 0x11: return "no Bluetooth adapter (hci0) is there"
        case 0x0F: return "the Bluetooth adapter is off: bluetoothd powers it, or sudo btmgmt power on"
        case 0x0A: return "the Bluetooth adapter is busy scanning for another program: try again in a moment"
        default: return "the Bluetooth adapter refused to scan (management status 0x\(String(status, radix: 16)))"
        }
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

extension String {
    /// Left-aligned in `width` columns (at least one space after).
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(1, width - count)) }
}

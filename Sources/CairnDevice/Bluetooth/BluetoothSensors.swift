#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnSystem

/// The sensors' transport: one ATT socket per sensor (`SensorLink` decides, this carries it out),
/// read without blocking at the record loop's wake-ups. The record loop's `LoopSensors`.
public final class BluetoothSensors {
    private var links: [SensorLink]
    private var fds: [Int32]
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
    /// Packets taken from one socket per `poll` at most: a flood waits for the next wake-up
    /// instead of holding the loop.
    static let packetsPerPoll = 64

    /// How late a reconnection may be (`SensorLink.msUntilDue`): the record loop wakes at least
    /// every 5 s, so a retry waits for one of its wake-ups; `cairn sensors --watch`, 0.
    private let retryLateMs: Int64

    public init(sensors: [SensorAddress], retryLateMs: Int64 = 5000) {
        self.retryLateMs = retryLateMs
        var seen: [SensorAddress] = []
        for s in sensors where !seen.contains(where: { $0.address == s.address }) { seen.append(s) }
        links = seen.map { SensorLink(sensor: $0) }
        fds = Array(repeating: -1, count: links.count)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// One word for the live status: none, searching, ok, failing.
    public var state: String {
        if links.isEmpty { return "none" }
        if links.allSatisfy(\.isReady) { return "ok" }
        return links.contains(where: \.isDown) ? "failing" : "searching"
    }

    /// PDUs that made no sense, over all sensors.
    public var oddities: Int { links.reduce(0) { $0 + $1.oddities } }

    /// The sockets of sensors connected or connecting.
    public var descriptors: [Int32] { fds.filter { $0 >= 0 } }

    /// The sockets still connecting: writable when the kernel's connect ends, for a wait that
    /// watches them (`cairn sensors`); the record loop looks at them on its own wake-ups.
    public var connectingDescriptors: [Int32] { links.indices.filter { links[$0].isConnecting && fds[$0] >= 0 }.map { fds[$0] } }

    /// Links that ended at one wake-up, from which on the adapter is taken to have gone down
    /// even when no error said so (`AdapterDown.fromLinksEnded`).
    private var endedThisPoll = 0
    private var adapterDownThisPoll = false

    /// Takes what arrived, without blocking; connects what is due.
    public func poll(monoMs: Int64) -> [SensorEvent] {
        var events: [SensorEvent] = []
        let realNowNs = Self.realtimeNs()
        (endedThisPoll, adapterDownThisPoll) = (0, false)
        for i in links.indices {
            if links[i].isConnecting, fds[i] >= 0, let outcome = POSIX.connectOutcome(fds[i]) {
                switch outcome {
                case .success: run(links[i].connected(monoMs: monoMs), i, monoMs, &events)
                case .failure(let e): fail(i, e, monoMs, &events)
                }
            }
            if links[i].isAttached { read(i, monoMs, realNowNs, &events) }
            run(links[i].due(monoMs: monoMs), i, monoMs, &events)
        }
        if adapterDownThisPoll || AdapterDown.fromLinksEnded(endedThisPoll) {
            // Every link that dropped with it tries again soon, whatever its own error said.
            for i in links.indices { links[i].adapterWentDown(monoMs: monoMs) }
        }
        return events
    }

    /// A link's failure on `e`: the adapter's or the sensor's, as `AdapterDown` reads the error.
    private func fail(_ i: Int, _ e: Errno, _ monoMs: Int64, _ events: inout [SensorEvent]) {
        run(failing(i, e, monoMs), i, monoMs, &events)
    }

    private func failing(_ i: Int, _ e: Errno, _ monoMs: Int64) -> [SensorLink.Action] {
        let cause: SensorLink.Cause = AdapterDown.isAdapters(e.rawValue) ? .adapter : .sensor
        if cause == .adapter { adapterDownThisPoll = true }
        if links[i].isAttached { endedThisPoll += 1 }
        return links[i].failed(Self.reason(e), monoMs: monoMs, cause: cause)
    }

    /// Milliseconds until a connection or a read is due without input.
    public func msUntilDue(monoMs: Int64) -> Int64 {
        links.map { $0.msUntilDue(monoMs: monoMs, retryLateMs: retryLateMs) }.min() ?? .max
    }

    public func close() {
        for i in fds.indices where fds[i] >= 0 {
            _ = POSIX.close(fds[i])
            fds[i] = -1
        }
    }

    private func read(_ i: Int, _ monoMs: Int64, _ realNowNs: Int64, _ events: inout [SensorEvent]) {
        for _ in 0..<Self.packetsPerPoll {
            guard links[i].isAttached, fds[i] >= 0 else { return }
            let got: (count: Int, kernelRealNs: Int64?)
            do throws(Errno) { got = try POSIX.receivePacket(fds[i], into: buffer) } catch {
                if error == .wouldBlock || error.rawValue == EAGAIN { return }
                fail(i, error, monoMs, &events)
                return
            }
            if got.count == 0 {
                endedThisPoll += 1
                run(links[i].failed("the link ended", monoMs: monoMs), i, monoMs, &events)
                return
            }
            let arrival = Self.arrivalMonoMs(kernelRealNs: got.kernelRealNs, realNowNs: realNowNs, monoMs: monoMs)
            let pdu = Array(buffer[0..<got.count])
            run(links[i].received(pdu, arrivalMs: arrival, monoMs: monoMs), i, monoMs, &events)
        }
    }

    /// The kernel's receive time on the loop's monotonic clock: now less how long ago it was on
    /// the real-time clock; the read time when there is none or the clock stepped.
    static func arrivalMonoMs(kernelRealNs: Int64?, realNowNs: Int64, monoMs: Int64) -> Int64 {
        guard let k = kernelRealNs else { return monoMs }
        let agoMs = (realNowNs - k) / 1_000_000
        return agoMs >= 0 && agoMs < 60_000 ? monoMs - agoMs : monoMs
    }

    private func run(_ actions: [SensorLink.Action], _ i: Int, _ monoMs: Int64, _ events: inout [SensorEvent]) {
        var queue = actions[...]
        while let a = queue.popFirst() {
            switch a {
            case .event(let e): events.append(e)
            case .close:
                if fds[i] >= 0 { _ = POSIX.close(fds[i]) }
                fds[i] = -1
            case .send(let bytes):
                guard fds[i] >= 0 else { continue }
                do throws(Errno) { try POSIX.sendPacket(fds[i], bytes) } catch {
                    queue = failing(i, error, monoMs)[...]
                }
            case .connect(let type):
                do throws(Errno) {
                    let fd = try POSIX.attSocket()
                    fds[i] = fd
                    if try POSIX.attConnect(fd, address: links[i].sensor.address, addressType: type) {
                        queue = links[i].connected(monoMs: monoMs)[...] + queue
                    }
                } catch {
                    queue = failing(i, error, monoMs)[...]
                }
            }
        }
    }

    public static func reason(_ e: Errno) -> String {
        switch e.rawValue {
        case EAFNOSUPPORT: return "this kernel has no Bluetooth (EAFNOSUPPORT)"
        case EHOSTUNREACH: return "no Bluetooth adapter is up (EHOSTUNREACH)"
        case EPERM, EACCES: return "not allowed to use Bluetooth (\(e))"
        default: return e.description
        }
    }

    static func realtimeNs() -> Int64 {
        let t = POSIX.time(CLOCK_REALTIME)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}

import CairnCore

/// One sensor's connection, pure: when to connect (and with which address type), the GATT
/// client while connected, the back-off after a loss, the ATT and connect timeouts, the battery
/// read now and then, and what a rider is told (one message when it connects, one per outage,
/// rate-limited by `LinkLines`). A loss is the sensor's (out of range, switched off, flapping:
/// the wait doubles) or the adapter's (powered off, bluetoothd restarted: tried again within
/// `firstBackoffMs` until the adapter is back). `BluetoothSensors` carries out its actions.
public struct SensorLink: Sendable {
    public enum Action: Equatable, Sendable {
        case connect(addressType: UInt8)
        case send([UInt8])
        case close
        case event(SensorEvent)
    }

    /// Whose doing a loss is: the sensor's, or the adapter's (it went down, taking every link).
    public enum Cause: Sendable {
        case sensor
        case adapter
    }

    enum State: Sendable {
        case waiting(dueMs: Int64)
        case connecting(sinceMs: Int64)
        case attached(GATTClient, askedMs: Int64)
    }

    /// The first wait after a loss; doubled per failed try up to `longestBackoffMs`.
    static let firstBackoffMs: Int64 = 1000
    static let longestBackoffMs: Int64 = 16_000
    /// A connect the kernel has not ended by then is ended by cairn (the kernel's own limit is
    /// 40 s of passive scanning for the address).
    static let connectTimeoutMs: Int64 = 60_000
    /// ATT's transaction timeout (Core Vol 3 Part F 3.3.3): a request unanswered this long ends
    /// the connection.
    static let requestTimeoutMs: Int64 = 30_000
    /// A connection whose discovery and subscriptions are not over by then is ended and tried
    /// again: whatever the sensor sends, it cannot hold a link that gives nothing.
    static let readyBoundMs: Int64 = 60_000
    /// A link that stays up this long is steady: the back-off starts again from the first wait
    /// after it. One that drops sooner keeps doubling the wait.
    static let steadyMs: Int64 = 60_000
    /// The battery level is read again this often.
    static let batteryEveryMs: Int64 = 600_000

    public let sensor: SensorAddress
    private(set) var state = State.waiting(dueMs: 0)
    private var backoffMs = firstBackoffMs
    private var attempts = 0
    /// The current outage has been said.
    private var outageSaid = false
    private var everReady = false
    private var attachedSinceMs: Int64 = 0
    /// When the current connection became ready; nil while it is not.
    private var readySinceMs: Int64?
    /// The address type of the try under way, and of the last that connected (tried first).
    private var tryingType: UInt8 = SensorAddress.randomType
    private var workedType: UInt8?
    /// The current outage is the adapter's: its return is said whatever the rate limit.
    private var adapterOutage = false
    private var lines = LinkLines()
    private var nextBatteryMs: Int64 = .max
    /// PDUs that made no sense (garbage, unknown handles), over the link's life.
    public private(set) var oddities = 0
    private var odditySaid = false

    public init(sensor: SensorAddress) { self.sensor = sensor }

    public var name: String { SensorAddress.text(sensor.address) }

    public var isConnecting: Bool { if case .connecting = state { return true } else { return false } }
    public var isAttached: Bool { if case .attached = state { return true } else { return false } }
    public var isReady: Bool { if case .attached(let g, _) = state { return g.isReady } else { return false } }
    /// An outage has been said and is not over.
    public var isDown: Bool { outageSaid }

    /// The address type of the next try: the configured one, else the one that connected last,
    /// else random (most sensors) and public in turn. (A try with the wrong type waits out the
    /// kernel's 40 s, which after an adapter reset kept a sensor away for over a minute.)
    var nextType: UInt8 {
        sensor.type ?? workedType ?? (attempts % 2 == 0 ? SensorAddress.randomType : SensorAddress.publicType)
    }

    /// What is due at `monoMs` without input.
    public mutating func due(monoMs: Int64) -> [Action] {
        switch state {
        case .waiting(let d) where monoMs >= d:
            let t = nextType
            tryingType = t
            attempts += 1
            state = .connecting(sinceMs: monoMs)
            return [.connect(addressType: t)]
        case .connecting(let since) where monoMs - since >= Self.connectTimeoutMs:
            return failed("no connection in \(Self.connectTimeoutMs / 1000) s", monoMs: monoMs)
        case .attached(let g, let asked) where g.outstanding != nil && monoMs - asked >= Self.requestTimeoutMs:
            return failed("no answer in \(Self.requestTimeoutMs / 1000) s", monoMs: monoMs)
        case .attached(let g, _) where !g.isReady && monoMs - attachedSinceMs >= Self.readyBoundMs:
            return failed("not ready in \(Self.readyBoundMs / 1000) s", monoMs: monoMs)
        case _ where lines.msUntilDue(monoMs: monoMs) == 0:
            guard let line = lines.due(monoMs: monoMs) else { return [] }
            return [.event(.said("sensor \(name) \(line)"))]
        case .attached(var g, let asked) where g.isReady && monoMs >= nextBatteryMs:
            nextBatteryMs = monoMs + Self.batteryEveryMs
            let out = g.readBattery()
            state = .attached(g, askedMs: out.isEmpty ? asked : monoMs)
            return out.compactMap { act($0, arrivalMs: monoMs) }
        default:
            return []
        }
    }

    /// The kernel connected the socket.
    public mutating func connected(monoMs: Int64) -> [Action] {
        var g = GATTClient()
        let out = g.start()
        state = .attached(g, askedMs: monoMs)
        attachedSinceMs = monoMs
        readySinceMs = nil
        if sensor.type == nil { workedType = tryingType }
        odditySaid = false
        return out.flatMap { handle($0, arrivalMs: monoMs, monoMs: monoMs) }
    }

    /// The connection failed or ended: close, wait, try again. Said once per outage. The
    /// sensor's loss doubles the wait (from the first again after a steady link); the adapter's
    /// waits the first wait each time (while it is down a try fails at once, EHOSTUNREACH, and
    /// costs a socket on one of the loop's wake-ups), and is said whatever the rate limit.
    public mutating func failed(_ reason: String, monoMs: Int64, cause: Cause = .sensor) -> [Action] {
        var out: [Action] = [.close]
        if let since = readySinceMs, monoMs - since >= Self.steadyMs { backoffMs = Self.firstBackoffMs }
        readySinceMs = nil
        if cause == .adapter {
            backoffMs = Self.firstBackoffMs
            if !adapterOutage && outageSaid {
                // Down already (the sensor's doing), now the adapter too: its return is said.
                adapterOutage = true
            }
        }
        if !outageSaid {
            outageSaid = true
            adapterOutage = cause == .adapter
            let what = everReady ? "lost" : "not connected"
            let then = cause == .adapter ? "the adapter went down; trying again as soon as it is back" : "trying again until it answers"
            if let line = lines.change(up: false, "\(what): \(reason); \(then)", monoMs: monoMs, exempt: cause == .adapter) {
                out.append(.event(.said("sensor \(name) \(line)")))
            }
        }
        state = .waiting(dueMs: monoMs + backoffMs)
        if cause == .sensor { backoffMs = min(backoffMs * 2, Self.longestBackoffMs) }
        nextBatteryMs = .max
        return out
    }

    /// The adapter went down (another link's loss said so): a link waiting after a loss of its
    /// own is not unsteady for it, and tries again within `firstBackoffMs`.
    public mutating func adapterWentDown(monoMs: Int64) {
        guard case .waiting(let d) = state else { return }
        backoffMs = Self.firstBackoffMs
        if outageSaid { adapterOutage = true }
        state = .waiting(dueMs: min(d, monoMs + Self.firstBackoffMs))
    }

    /// One packet from the sensor, which the kernel received at `arrivalMs`.
    public mutating func received(_ pdu: [UInt8], arrivalMs: Int64, monoMs: Int64) -> [Action] {
        guard case .attached(var g, let asked) = state else { return [] }
        let out = g.receive(pdu)
        let askedNow = out.contains { if case .send(let q) = $0 { return q.expectsResponse } else { return false } }
        state = .attached(g, askedMs: askedNow ? monoMs : asked)
        return out.flatMap { handle($0, arrivalMs: arrivalMs, monoMs: monoMs) }
    }

    /// Milliseconds until `due` has something to do. `retryLateMs`: how late a retry after a
    /// back-off may be, for a caller that wakes at least that often anyway (the record loop):
    /// the retry then rides on one of those wake-ups instead of costing its own.
    public func msUntilDue(monoMs: Int64, retryLateMs: Int64 = 0) -> Int64 {
        switch state {
        case .waiting(let d):
            return max(0, min(d + (attempts > 0 ? retryLateMs : 0) - monoMs, lines.msUntilDue(monoMs: monoMs)))
        // The kernel's connect ends by itself; its outcome is looked at on the loop's own
        // wake-ups, which cost nothing more (a 1 s check here tripled them for an absent sensor).
        case .connecting(let since): return max(0, since + Self.connectTimeoutMs - monoMs)
        case .attached(let g, let asked):
            var d = Int64.max
            if g.outstanding != nil { d = asked + Self.requestTimeoutMs - monoMs }
            if !g.isReady {
                d = min(d, attachedSinceMs + Self.readyBoundMs - monoMs)
            } else if g.outstanding == nil, nextBatteryMs != .max {
                d = min(d, nextBatteryMs - monoMs)
            }
            return max(0, min(d, lines.msUntilDue(monoMs: monoMs)))
        }
    }

    private mutating func handle(_ o: GATTClient.Output, arrivalMs: Int64, monoMs: Int64) -> [Action] {
        switch o {
        case .subscribed(let uuids):
            // The back-off starts again only once the link has stayed up (`failed`).
            readySinceMs = monoMs
            everReady = true
            nextBatteryMs = monoMs + Self.batteryEveryMs
            let exempt = adapterOutage
            (outageSaid, adapterOutage) = (false, false)
            let names = uuids.map(Self.characteristicName).joined(separator: ", ")
            guard let line = lines.change(up: true, "connected: \(names.isEmpty ? "battery only" : names)", monoMs: monoMs, exempt: exempt)
            else { return [] }
            return [.event(.said("sensor \(name) \(line)"))]
        case .failed(let why):
            // A device that is not a sensor of ours: tried again only at the longest wait.
            backoffMs = Self.longestBackoffMs
            return failed(why, monoMs: monoMs)
        case .oddity(let why):
            oddities += 1
            if odditySaid { return [] }
            odditySaid = true
            return [.event(.said("sensor \(name) sent \(why) (said once per connection)"))]
        default:
            return act(o, arrivalMs: arrivalMs).map { [$0] } ?? []
        }
    }

    private func act(_ o: GATTClient.Output, arrivalMs: Int64) -> Action? {
        switch o {
        case .send(let q): return .send(q.bytes)
        case .value(let c, let bytes):
            return .event(
                .notification(
                    SensorNotification(address: sensor.address, characteristic: c, arrivalMonoMs: arrivalMs, value: bytes)))
        default: return nil
        }
    }

    /// The characteristic's name in a rider's words.
    public static func characteristicName(_ uuid: UInt16) -> String {
        switch uuid {
        case 0x2A37: return "heart rate"
        case 0x2A5B: return "speed and cadence"
        case 0x2A63: return "power"
        case 0x2A19: return "battery"
        default: return "0x" + hex(uuid)
        }
    }
}

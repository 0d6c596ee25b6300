import CairnCore
import CairnLog
import CairnDevice
@testable import CairnRecorder

// The record loop's edges, faked: a clock that moves only while the loop waits, a gpsd whose
// reports arrive at set moments, and a log, barometer, notifier and status file that record
// what the loop asked of them and when.

/// Moves only when the loop waits (in gpsd's read, or the back-off sleep).
final class FakeClock: LoopClock {
    var mono: Int64 = 0
    /// The wall clock: `mono` + this.
    static let wallOffset: Int64 = 1_780_000_000_000
    func monotonicMs() -> Int64 { mono }
    func wallClockMs() -> Int64 { mono + Self.wallOffset }
    func sleep(ms: Int64, until stop: () -> Bool) {
        var left = ms
        while left > 0 && !stop() {
            let step = min(left, 100)
            mono += step
            left -= step
        }
    }
}

/// gpsd on a socket: reports arrive at their moments and queue until the loop reads them; a
/// read wakes once `wakeAtBytes` are queued (each report counts `reportBytes`), at the end of
/// the connection, at a stop signal (EINTR), or at its timeout; one recv takes at most
/// `GpsdSource.batchBytes`. While gpsd is down (`down`), a connect fails; reports that arrive
/// while no client is connected are lost, as gpsd does.
final class FakeGpsd: ReportSource {
    struct Arrival {
        var mono: Int64
        var report: Report?
    }
    static let reportBytes = 200
    let clock: FakeClock
    var arrivals: [Arrival] = []
    var down: [Range<Int64>] = []
    /// gpsd closes the connection at these moments.
    var closeAt: [Int64] = []
    /// A stop signal arrives then: the wait in progress ends (EINTR).
    var stopAt: Int64 = .max

    private var next = 0
    private var received: [Report?] = []
    private var signalled = false
    private(set) var isOpen = false
    let address = "127.0.0.1:2947"
    var wakeAtBytes: Int32 = 1
    /// When each connect was tried.
    private(set) var opens: [Int64] = []
    /// When each recv took reports from the socket, and how many.
    private(set) var recvs: [(mono: Int64, count: Int)] = []
    /// When each report was taken from the socket, in the order of `arrivals` (those lost while
    /// no client was connected left out).
    private(set) var takenAt: [Int64] = []

    init(clock: FakeClock) { self.clock = clock }

    func open() -> String? {
        opens.append(clock.mono)
        if down.contains(where: { $0.contains(clock.mono) }) {
            return "cannot connect to gpsd at \(address): Connection refused"
        }
        isOpen = true
        while next < arrivals.count && arrivals[next].mono < clock.mono { next += 1 }
        return nil
    }

    func close() {
        isOpen = false
        received.removeAll()
    }

    private var queued: Int {
        var n = 0
        while next + n < arrivals.count && arrivals[next + n].mono <= clock.mono { n += 1 }
        return n
    }

    private func recv() -> Bool {
        let n = min(queued, Int(GpsdSource.batchBytes) / Self.reportBytes)
        guard n > 0 else { return false }
        received = arrivals[next..<(next + n)].map(\.report)
        takenAt += Array(repeating: clock.mono, count: n)
        next += n
        recvs.append((clock.mono, n))
        return true
    }

    /// Each wait the loop asked for: when, and for how long (its wake-ups).
    private(set) var waits: [(mono: Int64, timeoutUs: Int32)] = []

    func read(timeoutUs: Int32, takeQueued: Bool) -> GpsdSource.ReadResult {
        waits.append((clock.mono, timeoutUs))
        guard isOpen else { return .closed("not connected") }
        if !received.isEmpty { return .message(report: received.removeFirst()) }
        let deadline = clock.mono + Int64(max(0, timeoutUs / 1000))
        // The moment the wait ends, and why.
        let wakeCount = max(1, (Int(wakeAtBytes) + Self.reportBytes - 1) / Self.reportBytes)
        var wake = deadline
        var why = "timeout"
        if next + wakeCount - 1 < arrivals.count {
            let t = max(clock.mono, arrivals[next + wakeCount - 1].mono)
            if t <= wake { wake = t; why = "data" }
        }
        if let c = closeAt.first, c <= wake {
            wake = max(clock.mono, c)
            why = "closed"
        }
        if !signalled && stopAt <= wake {
            wake = max(clock.mono, stopAt)
            why = "signal"
        }
        clock.mono = wake
        switch why {
        case "signal":
            signalled = true
            return .idle
        case "closed":
            if recv() { return .message(report: received.removeFirst()) }
            closeAt.removeFirst()
            return .closed("gpsd closed the connection")
        case "data":
            _ = recv()
            return .message(report: received.removeFirst())
        default:
            guard takeQueued, recv() else { return .idle }
            return .message(report: received.removeFirst())
        }
    }
}

/// Pressure that names the moment it is asked for (Pa = milliseconds of the monotonic clock),
/// so a fix's pressure says which moment it was paired with; as `PressureHistory` has it, only
/// between the readings taken (outside them, the nearest reading's). Read on the sampler's
/// terms: at a wake-up from a quarter period early, waking the loop itself a quarter period late.
final class FakeBarometer: LoopBarometer {
    let everyMs: Int64
    private(set) var reads: [Int64] = []
    var state: String { "ok" }
    init(everyMs: Int64) { self.everyMs = everyMs }
    func poll(monoMs: Int64, wallClockMs: Int64) {
        guard reads.last.map({ monoMs - $0 >= everyMs - everyMs / 4 }) ?? true else { return }
        reads.append(monoMs)
    }
    func msUntilDue(monoMs: Int64) -> Int64 {
        reads.last.map { max(0, $0 + everyMs + everyMs / 4 - monoMs) } ?? 0
    }
    func pressurePa(monoMs: Int64) -> Double? {
        guard let first = reads.first, let last = reads.last else { return nil }
        return Double(min(max(monoMs, first), last))
    }
    func temperatureC(monoMs: Int64) -> Double? { reads.isEmpty ? nil : 21.5 }
}

/// No barometer (`--baro none`).
final class NoBarometer: LoopBarometer {
    var state: String { "none" }
    func poll(monoMs: Int64, wallClockMs: Int64) {}
    func msUntilDue(monoMs: Int64) -> Int64 { .max }
    func pressurePa(monoMs: Int64) -> Double? { nil }
    func temperatureC(monoMs: Int64) -> Double? { nil }
}

/// systemd's notify socket, with `SystemdNotify`'s watchdog cadence; or off.
final class FakeNotifier: ServiceNotifier {
    let clock: FakeClock
    let isEnabled: Bool
    let watchdogIntervalMs: Int64?
    private var lastWatchdogMs: Int64 = .min
    private var lastStatus = ""
    private(set) var sent: [(mono: Int64, message: String)] = []

    init(clock: FakeClock, enabled: Bool, watchdogIntervalMs: Int64? = nil) {
        self.clock = clock
        isEnabled = enabled
        self.watchdogIntervalMs = watchdogIntervalMs
    }

    private func send(_ m: String) { if isEnabled { sent.append((clock.mono, m)) } }
    func ready(status: String?) { send("READY=1" + (status.map { "\nSTATUS=" + $0 } ?? "")) }
    func stopping(status: String?) { send("STOPPING=1" + (status.map { "\nSTATUS=" + $0 } ?? "")) }
    func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        send("STATUS=" + text)
    }
    func msUntilWatchdog(monoMs: Int64) -> Int64 {
        guard let every = watchdogIntervalMs else { return .max }
        return lastWatchdogMs == .min ? 0 : max(0, lastWatchdogMs + every - monoMs)
    }
    func watchdogIfDue(monoMs: Int64) {
        guard let every = watchdogIntervalMs else { return }
        if lastWatchdogMs == .min || monoMs - lastWatchdogMs >= every {
            lastWatchdogMs = monoMs
            send("WATCHDOG=1")
        }
    }
}

/// The trip log, with `TripLog`'s sync cadence: what was applied and synced, and when.
final class FakeLog: RecordLog {
    let syncIntervalMs: Int64
    private(set) var currentPath: String?
    private(set) var lastSyncedSeq: UInt64 = 0
    var resumePoint: Fix?
    var resumableWheelTrip: WheelTripResume.Unfinished?
    var onSync: ((String, UInt64) -> Void)?
    var utcOffsetAtTripStart: (() -> Int?)?
    private var lastSyncMono: Int64 = 0
    private var unsynced = 0
    private(set) var kept: [(mono: Int64, fix: Fix)] = []
    /// Raw fixes handed to the log (`record --raw on`).
    private(set) var raws = 0
    private(set) var notes: [String] = []
    private(set) var syncs: [Int64] = []
    private(set) var tripOffsets: [Int?] = []
    /// Each trip opened: whether it resumes the previous run's.
    private(set) var tripOpens: [Bool] = []
    private(set) var closed: (end: TripEnd, drops: DropCounts)?
    /// Every trip closed, in order (`closed` is the last).
    private(set) var closes: [TripEnd] = []
    /// The rider's marks (record type 10).
    private(set) var marks: [RiderMark] = []
    private(set) var shutDown = false
    /// Sensor notifications handed to the log, with the trip open or not; those left out.
    private(set) var sensors: [(n: SensorNotification, tripOpen: Bool)] = []
    private(set) var sensorsLeftOut = 0
    private(set) var fixArrivals: [(timeMs: Int64, arrivalMonoMs: Int64)] = []

    init(syncIntervalMs: Int64) { self.syncIntervalMs = syncIntervalMs }

    func apply(_ action: RecorderAction, monoMs: Int64) {
        switch action {
        case .openTrip(let resume):
            tripOpens.append(resume)
            currentPath = "/logs/00000001.cairn"
            tripOffsets.append(utcOffsetAtTripStart?())
            lastSyncMono = monoMs
        case .keep(let f): kept.append((monoMs, f))
        case .raw: raws += 1
        case .startSegment, .closeTrip: break
        }
        unsynced += 1
    }
    func add(sensor: SensorNotification, clockMinusMonoMs: Int64, monoMs: Int64) {
        sensors.append((sensor, currentPath != nil && closed == nil))
    }
    func sensorsLeftOut(_ count: Int) { sensorsLeftOut += count }
    func fixArrived(timeMs: Int64, arrivalMonoMs: Int64) { fixArrivals.append((timeMs, arrivalMonoMs)) }
    func append(_ record: LogRecord, monoMs: Int64) {
        if case .note(let text) = record { notes.append(text) }
        if case .riderMark(let m) = record { marks.append(m) }
        unsynced += 1
    }
    func tick(monoMs: Int64, earlyMs: Int64) {
        if monoMs + earlyMs - lastSyncMono >= syncIntervalMs { sync(monoMs) }
    }
    func msUntilSyncDue(monoMs: Int64) -> Int64 {
        unsynced > 0 ? max(0, lastSyncMono + syncIntervalMs - monoMs) : .max
    }
    private func sync(_ monoMs: Int64) {
        lastSyncMono = monoMs
        guard unsynced > 0, let path = currentPath else { return }
        lastSyncedSeq += UInt64(unsynced)
        unsynced = 0
        syncs.append(monoMs)
        onSync?(path, lastSyncedSeq)
    }
    func closeTrip(_ end: TripEnd, drops: DropCounts, monoMs: Int64) -> Int {
        closed = (end, drops)
        closes.append(end)
        unsynced += 1
        sync(monoMs)
        return 0
    }
    func shutdown(monoMs: Int64) {
        sync(monoMs)
        shutDown = true
    }
}

/// The status file: each write the rate cap let through.
final class FakeStatusFile: StatusOutput {
    private(set) var written: [(mono: Int64, status: LiveStatus)] = []
    private var lastWriteMs: Int64 = .min
    var writes: Int { written.count }
    /// Writes fail during these moments (the status directory gone, say).
    var failing: Range<Int64>?
    func write(_ status: LiveStatus, monoMs: Int64, force: Bool) -> String? {
        guard force || lastWriteMs == .min || monoMs - lastWriteMs >= 1000 else { return nil }
        lastWriteMs = monoMs
        if failing?.contains(monoMs) == true { return "/run/cairn/status.tmp: cannot create: No such file or directory (ENOENT)" }
        written.append((monoMs, status))
        return nil
    }
}

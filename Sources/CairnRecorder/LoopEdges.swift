import CairnCore
import CairnLog
import CairnDevice

// What the record loop is given: each edge as the few calls it makes, so that the tests drive
// the loop with a fake gpsd and a fake clock (SystemEdges.swift: the real ones).

/// Where the reports come from: gpsd (`GpsdSource`).
public protocol ReportSource: AnyObject {
    var isOpen: Bool { get }
    /// `host:port`, for messages.
    var address: String { get }
    /// Batched reading: `read` wakes only once this many bytes are queued (1: each report).
    var wakeAtBytes: Int32 { get set }
    /// Connects; an error text on failure.
    func open() -> String?
    func close()
    /// Waits up to `timeoutUs` and returns one message; `takeQueued`: at the end of the wait,
    /// take what is queued even if it is less than `wakeAtBytes`.
    func read(timeoutUs: Int32, takeQueued: Bool) -> GpsdSource.ReadResult
}

/// The two clocks and the back-off sleep.
public protocol LoopClock {
    /// Drives the sync cadence, the batches, the back-off and every age the loop counts.
    func monotonicMs() -> Int64
    /// Judges fix age and stamps the status (it may be unset on a board without an RTC).
    func wallClockMs() -> Int64
    /// Sleeps up to `ms`, in steps of at most 100 ms, waking early when `stop()` says so.
    func sleep(ms: Int64, until stop: () -> Bool)
}

/// The barometer (`BarometerSampler`): read when due, and the pressure of a moment.
public protocol LoopBarometer: AnyObject {
    /// One word for the live status: none, searching, ok, failing.
    var state: String { get }
    /// Called at every wake-up; reads the sensor when it is due.
    func poll(monoMs: Int64, wallClockMs: Int64)
    func msUntilDue(monoMs: Int64) -> Int64
    func pressurePa(monoMs: Int64) -> Double?
    func temperatureC(monoMs: Int64) -> Double?
}

/// The Bluetooth LE sensors (heart rate, speed and cadence, power): polled at each wake-up like
/// the barometer, never blocking; the kernel queues notifications between wake-ups.
public protocol LoopSensors: AnyObject {
    /// One word for the live status: none, searching, ok, failing.
    var state: String { get }
    /// The sockets the loop's wait may watch (one per sensor connected or connecting).
    var descriptors: [Int32] { get }
    /// Called at every wake-up: takes what arrived without blocking, (re)connects what is due.
    func poll(monoMs: Int64) -> [SensorEvent]
    /// Milliseconds until a reconnection or a read is due without input.
    func msUntilDue(monoMs: Int64) -> Int64
    func close()
}

/// The service manager (`SystemdNotify`): readiness, the watchdog, a status line.
public protocol ServiceNotifier: AnyObject {
    var isEnabled: Bool { get }
    var watchdogIntervalMs: Int64? { get }
    func ready(status: String?)
    func stopping(status: String?)
    /// Sent only when the text changed.
    func status(_ text: String)
    func msUntilWatchdog(monoMs: Int64) -> Int64
    func watchdogIfDue(monoMs: Int64)
}

/// The trip log (`TripLog`).
public protocol RecordLog: AnyObject {
    var currentPath: String? { get }
    var lastSyncedSeq: UInt64 { get }
    /// The last point of an unclosed trip a previous run left, to resume.
    var resumePoint: Fix? { get }
    /// An unclosed wheel trip (no point) a previous run left: its boot and last turn, to judge.
    var resumableWheelTrip: WheelTripResume.Unfinished? { get }
    var onSync: ((String, UInt64) -> Void)? { get set }
    var utcOffsetAtTripStart: (() -> Int?)? { get set }
    func apply(_ action: RecorderAction, monoMs: Int64)
    func append(_ record: LogRecord, monoMs: Int64)
    func tick(monoMs: Int64, earlyMs: Int64)
    func msUntilSyncDue(monoMs: Int64) -> Int64
    /// Closes the open trip and syncs; returns the points dropped for lack of room.
    func closeTrip(_ end: TripEnd, drops: DropCounts, monoMs: Int64) -> Int
    /// No trip open: sync what is waiting and close the file.
    func shutdown(monoMs: Int64)
    /// A sensor notification, recorded with the open trip at the next sync (`TripLog`).
    func add(sensor: SensorNotification, clockMinusMonoMs: Int64, monoMs: Int64)
    /// Notifications the loop did not pass on (a flood, a value too long), counted in the log.
    func sensorsLeftOut(_ count: Int)
    /// A fix's GPS time and its arrival on the monotonic clock: the sensors' time line.
    func fixArrived(timeMs: Int64, arrivalMonoMs: Int64)
}

/// The live status file (`record --status`): rate-capped by the writer.
public protocol StatusOutput: AnyObject {
    /// Writes made so far.
    var writes: Int { get }
    /// Writes `status` unless the rate cap says not yet (`force`: the final state). Returns an
    /// error text when the write failed.
    func write(_ status: LiveStatus, monoMs: Int64, force: Bool) -> String?
}

/// The status LED (`StatusLight`): told of each closed trip, and updated with each refresh of
/// the live status (never a wake-up of its own).
public protocol LoopLight: AnyObject {
    func tripClosed()
    func update(_ live: LiveStatus, monoMs: Int64, wallClockMs: Int64, stopped: Bool)
}

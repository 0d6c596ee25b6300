import CairnCore
import CairnLog
import CairnDevice

// The real edges the record loop runs on (LoopEdges.swift).

extension GpsdSource: ReportSource {}

extension BarometerSampler: LoopBarometer {}

extension SystemdNotify: ServiceNotifier {}

extension TripLog: RecordLog {
    public var resumePoint: Fix? { resumable?.last }
    public var resumableWheelTrip: WheelTripResume.Unfinished? { resumableWheel?.unfinished }
}

/// The system's clocks, and a sleep that a stop request cuts short.
public struct SystemLoopClock: LoopClock {
    public init() {}
    public func monotonicMs() -> Int64 { SystemClock.monotonicMs() }
    public func wallClockMs() -> Int64 { SystemClock.wallClockMs() }
    public func sleep(ms: Int64, until stop: () -> Bool) { SystemClock.sleep(ms: ms, until: stop) }
}

import CairnCore

/// The sensors' notifications on their way to the log: gathered and framed as one record at
/// each sync (or when 256 are pending), so they share the points' loss window (LOG_FORMAT.md
/// section 7d). Memory is bounded: at most `pendingCap` wait unsynced (the oldest go, counted),
/// and before a trip opens only those of the last `beforeTripMs` wait for it. Apart from
/// `TripLog` so that the file handling there does not mix with the batching here.
struct SensorSpool {
    /// At three sensors' 4 Hz, 80 s; a card that takes nothing for longer loses the oldest.
    static let pendingCap = 1024
    /// What a trip's first record keeps of the time before it opened: the start of the ride.
    static let beforeTripMs: Int64 = 10_000

    private var pending = RingBuffer<SensorNotification>(capacity: pendingCap)
    /// Left out since the last record: the next record counts them.
    private var leftOut: UInt64 = 0
    /// GPS time minus the monotonic clock: the largest over the fixes since the last record.
    private var gpsOffsetSinceRecord: Int64?
    private var gpsOffset: Int64?
    private var clockOffset: Int64?
    /// The wheel's circumference, written into each record (`SensorBatch.wheelCircumferenceMm`).
    var wheelCircumferenceMm: UInt32?

    var hasPending: Bool { !pending.isEmpty }

    /// A fix with GPS time `timeMs` arrived at `arrivalMonoMs`.
    mutating func fixArrived(timeMs: Int64, arrivalMonoMs: Int64) {
        let o = timeMs &- arrivalMonoMs
        gpsOffsetSinceRecord = max(gpsOffsetSinceRecord ?? o, o)
    }

    /// Notifications the caller did not pass on (a flood, a value too long): counted in the next record.
    mutating func leftOut(_ n: Int) { leftOut &+= UInt64(max(0, n)) }

    /// Takes one notification; a batch that fills is framed at once into `frame` (open trip only).
    mutating func add(
        _ n: SensorNotification, clockMinusMonoMs: Int64, tripOpen: Bool, frame: (LogRecord) -> Void
    ) {
        clockOffset = clockMinusMonoMs
        if !tripOpen {
            // Parked: only the last few seconds wait for a trip; the rest is never written.
            while let first = pending.first, n.arrivalMonoMs &- first.arrivalMonoMs > Self.beforeTripMs {
                pending.popFirst()
                leftOut &+= 1
            }
        }
        if pending.isFull { leftOut &+= 1 }
        pending.append(n)
        if tripOpen && pending.count >= SensorBatchLimits.batch { flush(tripOpen: true, frame: frame) }
    }

    /// Frames what is pending as one record, into the open trip only.
    mutating func flush(tripOpen: Bool, frame: (LogRecord) -> Void) {
        guard tripOpen else { return }
        if let o = gpsOffsetSinceRecord { gpsOffset = o }
        gpsOffsetSinceRecord = nil
        while !pending.isEmpty {
            var batch: [SensorNotification] = []
            batch.reserveCapacity(min(pending.count, SensorBatchLimits.batch))
            while batch.count < SensorBatchLimits.batch, let n = pending.popFirst() { batch.append(n) }
            frame(
                .sensors(
                    SensorBatch(
                        notifications: batch, gpsMinusMonoMs: gpsOffset, clockMinusMonoMs: clockOffset, leftOutBefore: leftOut,
                        wheelCircumferenceMm: wheelCircumferenceMm)))
            leftOut = 0
        }
    }
}

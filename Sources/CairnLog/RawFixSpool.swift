import CairnCore

/// The raw fixes (`RecorderAction.raw`) on their way to the log: the open trip's are gathered
/// and framed as one record at each sync, so they share the points' loss window; before a trip
/// opens they wait for it in a ring, the oldest left out (counted) when the wait is longer
/// than the ring. Apart from `TripLog` so that the file handling there does not mix with the
/// batching here. The fixes come at the log's resolution, as `TripRecorder` hands them out
/// (`RawBatchEncoder.add`).
struct RawFixSpool {
    let activity: String
    private let encoder: RawBatchEncoder
    private var beforeTrip = RingBuffer<RawFix>(capacity: 256)
    /// Fixes left out since the last record (invalid, or pushed out of the ring): the next
    /// record counts them.
    private var leftOut: UInt64 = 0
    /// The last record's bytes, reused once the writer let go of them (at the sync after it):
    /// no allocation per record. While still held (unsynced), a new buffer is taken.
    private var payload: [UInt8] = []

    init(activity: String) {
        self.activity = activity
        encoder = RawBatchEncoder(activity: activity)
    }

    /// Whether fixes wait to be framed once a trip is open.
    var hasPending: Bool { encoder.count > 0 || !beforeTrip.isEmpty }

    /// Takes one fix; a batch that fills is framed at once into `frame`.
    mutating func add(_ r: RawFix, tripOpen: Bool, frame: (LogRecord) -> Void) {
        guard PointsEncoder.isValid(r.fix) else {
            leftOut += 1
            return
        }
        guard tripOpen else {
            if beforeTrip.isFull { leftOut += 1 }
            beforeTrip.append(r)
            return
        }
        if !beforeTrip.isEmpty { takeBeforeTrip(frame) }
        append(r, frame)
    }

    /// Frames the gathered fixes as one record, into the open trip only: before a trip opens
    /// they wait for it.
    mutating func flush(tripOpen: Bool, frame: (LogRecord) -> Void) {
        guard tripOpen else { return }
        if !beforeTrip.isEmpty { takeBeforeTrip(frame) }
        guard encoder.count > 0 || leftOut > 0 else { return }
        payload.replaceSubrange(payload.indices, with: encoder.finish(leftOutBefore: leftOut))
        leftOut = 0
        frame(.rawFixes(RawBatch(encoded: payload, activity: activity)))
    }

    private mutating func append(_ r: RawFix, _ frame: (LogRecord) -> Void) {
        encoder.add(r)
        if encoder.count >= RawBatchLimits.batch { flush(tripOpen: true, frame: frame) }
    }

    /// The fixes that waited for this trip to open are its first.
    private mutating func takeBeforeTrip(_ frame: (LogRecord) -> Void) {
        while let r = beforeTrip.popFirst() { append(r, frame) }
    }
}

import CairnCore

/// Gathers points into batches and keeps the acknowledgement bookkeeping: every record framed
/// since the last sync, so that after a failure they can go into a new file. Points are
/// bit-packed only when their batch is framed, so the pending ones stay plain fixes.
struct RecordBatcher {
    /// Points per automatically framed batch.
    static let pointsBatchCapacity = 256

    /// Points waiting for their batch to be framed.
    private(set) var pendingPoints: [Fix] = []
    /// Records framed since the last sync, in order.
    private var framed: [LogRecord] = []
    /// Points + records accepted since the last sync: the writer syncs when it grows too large.
    private(set) var weight = 0
    private var points = CompactPointsEncoder()

    init() {
        pendingPoints.reserveCapacity(Self.pointsBatchCapacity)
    }

    /// Queues a point; true when its batch is now full and should be framed.
    mutating func add(point: Fix) -> Bool {
        pendingPoints.append(point)
        return pendingPoints.count >= Self.pointsBatchCapacity
    }

    /// Frames the pending points as one batch, if there are any.
    mutating func framePendingPoints(into frames: inout FrameEncoder) {
        guard !pendingPoints.isEmpty else { return }
        let ok = frames.frame(type: FrameFormat.RecordType.compactPoints) { points.encode(pendingPoints[...], into: &$0) }
        precondition(ok, "a points batch always fits in a frame")
        framed.append(.points(pendingPoints))
        pendingPoints.removeAll(keepingCapacity: true)
    }

    /// Frames `chunk` (at most `pointsBatchCapacity` points) as one batch.
    mutating func frame(points chunk: ArraySlice<Fix>, into frames: inout FrameEncoder) {
        let ok = frames.frame(type: FrameFormat.RecordType.compactPoints) { points.encode(chunk, into: &$0) }
        precondition(ok, "a points batch always fits in a frame")
        framed.append(.points(Array(chunk)))
    }

    /// Notes a record the caller framed.
    mutating func didFrame(_ record: LogRecord) {
        framed.append(record)
    }

    /// Counts accepted points and records towards the next sync.
    mutating func accepted(weight w: Int) {
        weight += w
    }

    /// Everything framed is durable now: forget it.
    mutating func acknowledge() {
        framed.removeAll(keepingCapacity: true)
        weight = 0
    }

    /// Records (points batches included) accepted since the last sync, in order.
    var unacknowledged: [LogRecord] {
        pendingPoints.isEmpty ? framed : framed + [.points(pendingPoints)]
    }

    /// The exact body size of the pending points batch (encoded here to measure it), or nil
    /// when no point is pending.
    var pendingPointsBodyCount: Int? {
        guard !pendingPoints.isEmpty else { return nil }
        var body: [UInt8] = []
        var e = CompactPointsEncoder()
        e.encode(pendingPoints[...], into: &body)
        return body.count
    }
}

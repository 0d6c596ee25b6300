import CairnCore

/// Records no file could take yet (the card full or failing), oldest first, in a bounded ring:
/// memory stays bounded however long the card refuses, and when the ring is full the oldest
/// record goes for each new one, said once per episode and counted, so that a note and the
/// trip's summary can say what never reached the card. Apart from `TripLog` so that its file
/// handling does not mix with this bookkeeping.
struct WaitingRecords {
    private(set) var ring: RingBuffer<LogRecord>
    /// The episode of dropping under way: the records and points dropped so far.
    private(set) var dropping: (records: Int, points: Int)?

    init(capacity: Int = 4096) { ring = RingBuffer(capacity: capacity) }

    var isEmpty: Bool { ring.isEmpty }
    var count: Int { ring.count }
    var first: LogRecord? { ring.first }
    /// Records dropped since the ring was last emptied.
    var overwritten: UInt64 { ring.overwritten }

    /// Keeps `r`; a full ring drops its oldest record for it. Returns the points dropped.
    mutating func keep(_ r: LogRecord, say: (String) -> Void) -> Int {
        var dropped = 0
        if ring.isFull, let oldest = ring.first {
            if dropping == nil {
                dropping = (0, 0)
                say(
                    "log: \(ring.capacity) records waiting for the card; dropping the oldest from now on (counted, and said when the card takes records again)"
                )
            }
            dropped = Self.pointCount(oldest)
            dropping!.records += 1
            dropping!.points += dropped
        }
        ring.append(r)
        return dropped
    }

    /// The end of an episode of dropping: how many were lost, said once.
    mutating func endDropping(why: String, say: (String) -> Void) {
        guard let d = dropping else { return }
        dropping = nil
        say("log: \(d.records) records (\(d.points) points) were dropped, the oldest first, while the card could not take them (until \(why))")
    }

    @discardableResult
    mutating func popFirst() -> LogRecord? { ring.popFirst() }

    /// Empties the ring, and its count of records dropped.
    mutating func reset() { ring = RingBuffer(capacity: ring.capacity) }

    /// Puts `records` ahead of those waiting (a failed file's unacknowledged records).
    mutating func putFirst(_ records: [LogRecord]) {
        var moved = RingBuffer<LogRecord>(capacity: ring.capacity)
        for r in records { moved.append(r) }
        while let r = ring.popFirst() { moved.append(r) }
        ring = moved
    }

    static func pointCount(_ r: LogRecord) -> Int {
        if case .points(let ps) = r { return ps.count }
        return 0
    }
}

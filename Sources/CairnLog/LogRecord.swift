import CairnCore

/// Why a trip ended.
public enum TripEndReason: UInt8, Sendable, Equatable {
    case shutdown = 0  // SIGTERM/SIGINT
    case standstill = 1  // parked long enough to close the trip
    case fault = 2  // the file was abandoned after an I/O error; the trip continues in the next file
    case rider = 3  // a long press of the rider's button (a rider-mark record of kind end precedes it)
    case home = 4  // standing at home for home's stand (issue 41); older readers read it as other
    case other = 255
}

/// The trip summary the recorder writes when it closes a trip. Readers recompute statistics
/// from the points; this is a cross-check and a fast path.
public struct TripEnd: Equatable, Sendable {
    public var reason: TripEndReason
    public var points: UInt64
    public var distanceM: Double
    public var movingTimeMs: Int64
    public var firstTimeMs: Int64?
    public var lastTimeMs: Int64?
    public init(
        reason: TripEndReason, points: UInt64, distanceM: Double, movingTimeMs: Int64,
        firstTimeMs: Int64?, lastTimeMs: Int64?
    ) {
        self.reason = reason
        self.points = points
        self.distanceM = distanceM
        self.movingTimeMs = movingTimeMs
        self.firstTimeMs = firstTimeMs
        self.lastTimeMs = lastTimeMs
    }
}

/// One logical record in a log file. Every record also carries a sequence number (see `LogEntry`).
public enum LogRecord: Equatable, Sendable {
    /// The trip begins in this file. `activity` is the `--activity` profile name.
    /// `utcOffsetS`: the recorder's zone's offset from UTC at the trip's start, seconds east
    /// (nil: not known; older writers never stored it). `board`: the id of the board that
    /// recorded it (`BoardId`; nil: none set, or a log from before the field).
    case tripStart(activity: String, software: String, utcOffsetS: Int? = nil, board: String? = nil)
    /// A new segment begins with the next point.
    case segmentStart(SegmentReason, timeMs: Int64?)
    /// Kept fixes, oldest first, as one self-contained compressed batch.
    case points([Fix])
    /// Cumulative counts of fixes dropped per rule in this trip so far: (rule id, count).
    case dropped([DropCount])
    /// A human-readable event for the journal ("gpsd lost", "write failed: ENOSPC", ...).
    case note(String)
    /// The trip ends here.
    case tripEnd(TripEnd)
    /// Every fix the rules were offered, with their verdict, oldest first (LOG_FORMAT.md, type 8).
    case rawFixes(RawBatch)
    /// Sensor notifications as they came, with their arrival times (LOG_FORMAT.md, type 9).
    case sensors(SensorBatch)
    /// The rider's button: a lap or the trip's end marked by hand (LOG_FORMAT.md, type 10).
    case riderMark(RiderMark)
    /// A record type this version does not know (written by a newer cairn): kept, skipped by readers.
    case unknown(type: UInt8, payload: [UInt8])
}

/// A batch of raw fixes (`RawFix`), as one record.
public struct RawBatch: Equatable, Sendable {
    /// The `--activity` profile the rules judged them by.
    public var activity: String
    public var fixes: [RawFix]
    /// Fixes offered before these (since the previous batch) that are not in the log: the oldest
    /// of a long wait before a trip started (kept in a ring of fixed size), or fixes whose time
    /// or position the format cannot hold (which rule 2 drops as `invalid` at once).
    public var leftOutBefore: UInt64
    /// The record's payload, when the writer built it fix by fix (`fixes` is then empty).
    var encoded: [UInt8]?
    public init(activity: String, fixes: [RawFix], leftOutBefore: UInt64 = 0) {
        self.activity = activity
        self.fixes = fixes
        self.leftOutBefore = leftOutBefore
    }
    init(encoded: [UInt8], activity: String) {
        self.activity = activity
        fixes = []
        leftOutBefore = 0
        self.encoded = encoded
    }
}

public struct DropCount: Equatable, Sendable {
    public var rule: UInt8
    public var count: UInt64
    public init(rule: UInt8, count: UInt64) {
        self.rule = rule
        self.count = count
    }
}

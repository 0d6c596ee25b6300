import CairnCore

/// A batch of sensor notifications as one log record (LOG_FORMAT.md, type 9): the raw bytes as
/// the sensors sent them, each with its sensor, characteristic and arrival on the recorder's
/// monotonic clock, and the clock offsets that place those arrivals on the fixes' time line.
public struct SensorBatch: Equatable, Sendable {
    /// Oldest first, in the order they arrived.
    public var notifications: [SensorNotification]
    /// GPS time minus the monotonic clock (ms) as the fixes arriving around these notifications
    /// showed it: a notification's GPS time is `arrivalMonoMs + gpsMinusMonoMs`. Nil when no fix
    /// had arrived yet in the recorder's run.
    public var gpsMinusMonoMs: Int64?
    /// The system clock minus the monotonic clock (ms) when the batch was framed: the fallback
    /// time line where no fix told GPS time (a board without a clock still has 1970 here).
    public var clockMinusMonoMs: Int64?
    /// Notifications received since the previous batch that are not in the log: a flood over the
    /// rate cap, a value too long to keep, the memory cap, a wait before the trip opened.
    public var leftOutBefore: UInt64
    /// The wheel's circumference (mm) the recorder was told (`wheel`, issue 40): a wheel
    /// sensor's revolutions are distance at it. Nil in records from before it, or without one.
    public var wheelCircumferenceMm: UInt32?

    public init(
        notifications: [SensorNotification], gpsMinusMonoMs: Int64?, clockMinusMonoMs: Int64?, leftOutBefore: UInt64 = 0,
        wheelCircumferenceMm: UInt32? = nil
    ) {
        self.wheelCircumferenceMm = wheelCircumferenceMm
        self.notifications = notifications
        self.gpsMinusMonoMs = gpsMinusMonoMs
        self.clockMinusMonoMs = clockMinusMonoMs
        self.leftOutBefore = leftOutBefore
    }

    /// A notification's time on the fixes' time line (GPS ms since 1970), else on the system
    /// clock's; nil when the batch carries neither offset.
    public func timeMs(of n: SensorNotification) -> Int64? {
        guard let offset = gpsMinusMonoMs ?? clockMinusMonoMs else { return nil }
        return n.arrivalMonoMs &+ offset
    }

    /// The circumference a reader uses: the record's, else the default (700x25C).
    public var wheelCircumferenceM: Double {
        wheelCircumferenceMm.map { Double($0) / 1000 } ?? WheelSpeed.defaultCircumferenceM
    }
}

/// The limits of a sensors record: what the writer frames and what a reader accepts.
public enum SensorBatchLimits {
    /// Notifications per record the writer frames; a reader refuses more than `readerMax`.
    public static let batch = 256
    public static let readerMax = 4096
    /// A value longer than this is no measurement of the four characteristics (a heart rate with
    /// every RR interval a 247-byte MTU holds is 246 bytes): the recorder counts it, keeps none.
    public static let maxValueBytes = 255
}

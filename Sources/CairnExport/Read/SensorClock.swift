import CairnCore
import CairnLog

/// The time line a log file's sensor records are dated on where a record has no fix's offset
/// (LOG_FORMAT.md 7d: before the run's first fix a record carries only the system clock's, which
/// is 1970 or the last shutdown's time on a board without a clock, attack-r22 cases 10 and 11).
/// Every arrival in one file is on one monotonic clock (one recorder run), so the first fix's
/// offset dates the arrivals before it too; without a fix, the last system clock offset in the
/// file does (a clock set by NTP during the ride dates its start as well).
enum SensorClock {
    /// The offset (ms, added to an arrival) for the file's records without a GPS offset; nil
    /// when the file holds no sensors record with an offset. Reads up to the first record with a
    /// GPS offset (the common case: sensors that connected after the first fix stop it there).
    static func reference(_ path: String) throws -> Int64? {
        var gps: Int64?
        var clock: Int64?
        try LogReader(path: path).forEach { e in
            guard case .sensors(let b) = e.record else { return true }
            if let g = b.gpsMinusMonoMs {
                gps = g
                return false
            }
            if let c = b.clockMinusMonoMs { clock = c }
            return true
        }
        return gps ?? clock
    }
}

extension SensorBatch {
    /// A notification's time: on its record's GPS offset, else on the file's reference
    /// (`SensorClock.reference`), else on its record's clock offset.
    func timeMs(of n: SensorNotification, reference: Int64?) -> Int64? {
        guard let offset = gpsMinusMonoMs ?? reference ?? clockMinusMonoMs else { return nil }
        return n.arrivalMonoMs &+ offset
    }
}

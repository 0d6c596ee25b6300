import CairnCore
import CairnLog

/// The time line a log file's sensor records are dated on where a record has no fix's offset
/// (LOG_FORMAT.md 7d: before the run's first fix a record carries only the system clock's, which
/// is 1970 or the last shutdown's time on a board without a clock, attack-r22 cases 10 and 11).
/// Every arrival in one file is on one monotonic clock (one recorder run), so the first fix's
/// offset dates the arrivals before it too; without a fix, the last system clock offset in the
/// file does (a clock set by NTP during the ride dates its start as well).
enum SensorClock {
    /// The offset (ms, added to an arrival) for each file's records without a GPS offset: the
    /// file's first GPS offset, else its last system clock offset; nil when the file holds no
    /// sensors record with an offset. Reads up to the first record with a GPS offset (the common
    /// case: sensors that connected after the first fix stop it there).
    ///
    /// The references of a trip's files, in order. The files of one boot (the same boot note,
    /// LOG_FORMAT.md 7d: a trainer ride resumed after a restart of the recorder) are one
    /// monotonic clock, so they share one reference: the first GPS offset among them, else their
    /// last system clock offset (a clock set by NTP before the restart dates the part before it).
    static func references(_ paths: [String]) throws -> [Int64?] {
        var own: [(gps: Int64?, clock: Int64?, boot: String?)] = []
        for path in paths {
            var gps: Int64?
            var clock: Int64?
            var boot: String?
            try LogReader(path: path).forEach { e in
                switch e.record {
                case .note(let text) where text.hasPrefix(TripLog.bootNotePrefix):
                    boot = String(text.dropFirst(TripLog.bootNotePrefix.count))
                case .sensors(let b):
                    if let g = b.gpsMinusMonoMs {
                        gps = g
                        return false
                    }
                    if let c = b.clockMinusMonoMs { clock = c }
                default: break
                }
                return true
            }
            own.append((gps, clock, boot))
        }
        return own.map { file in
            guard let boot = file.boot else { return file.gps ?? file.clock }
            let same = own.filter { $0.boot == boot }
            return same.lazy.compactMap(\.gps).first ?? same.last { $0.clock != nil }?.clock
        }
    }
}

extension SensorBatch {
    /// A notification's time: on its record's GPS offset, else on the file's reference
    /// (`SensorClock.references`), else on its record's clock offset.
    func timeMs(of n: SensorNotification, reference: Int64?) -> Int64? {
        guard let offset = gpsMinusMonoMs ?? reference ?? clockMinusMonoMs else { return nil }
        return n.arrivalMonoMs &+ offset
    }
}

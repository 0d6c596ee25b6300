import CairnLog

/// The rider's marks of one trip (record type 10: the button, issue 41), as the exports use them:
/// the laps' press times in time order, and the end press. A first streamed pass over the trip's
/// files; memory is bounded by `maxPresses` times.
public struct TripMarks: Sendable, Equatable {
    /// The most short presses read (800 kB of times). The cap on laps is `LapSplitter.maxLaps`
    /// (the last lap holds the rest); this one only bounds memory against a crafted log, far
    /// above a ride's presses (a button chattering 10 times a second for 2 hours is 72,000, and
    /// the button's rule says and ignores a chattering one): presses past it are left out.
    public static let maxPresses = 100_000

    /// The short presses' times (ms since 1970 on the fixes' clock), sorted, at most
    /// `maxPresses`; none at or after the end press (the trip ended there: a short press after
    /// it makes no lap).
    public var lapTimesMs: [Int64] = []
    /// The long press that ended the trip, if the rider ended it so (nil too when that press has
    /// no usable time: `endedByRider` still says it).
    public var endMs: Int64?
    /// Presses without a usable time (`RiderMark.hasUsableTime`: made before the clock was set):
    /// kept in the log and said by `info`, but placed nowhere, so they make no lap.
    public var untimed = 0
    /// A long press ended the trip, with or without a usable time.
    public var endedByRider = false

    public init(lapTimesMs: [Int64] = [], endMs: Int64? = nil, untimed: Int = 0, endedByRider: Bool? = nil) {
        self.lapTimesMs = lapTimesMs
        self.endMs = endMs
        self.untimed = untimed
        self.endedByRider = endedByRider ?? (endMs != nil)
    }

    public static let none = TripMarks()

    /// Reads the trip's marks (marks of a kind this version does not know are left out).
    public static func read(_ trip: TripRef) throws -> TripMarks {
        var m = TripMarks()
        var sorted = true
        for f in trip.files {
            try LogReader(path: f.path).forEach { entry in
                guard case .riderMark(let mark) = entry.record else { return true }
                if mark.kind == .end { m.endedByRider = true }
                guard mark.hasUsableTime else {
                    if mark.kind != .other { m.untimed += 1 }
                    return true
                }
                switch mark.kind {
                case .lap:
                    guard m.lapTimesMs.count < maxPresses else { return true }
                    if let last = m.lapTimesMs.last, mark.timeMs < last { sorted = false }
                    m.lapTimesMs.append(mark.timeMs)
                case .end: m.endMs = mark.timeMs
                case .other: break
                }
                return true
            }
        }
        // The recorder writes them in press order; a clock stepped back must not unsort them.
        if !sorted { m.lapTimesMs.sort() }
        if let end = m.endMs, let after = m.lapTimesMs.firstIndex(where: { $0 >= end }) { m.lapTimesMs.removeSubrange(after...) }
        return m
    }
}

/// The rider's button pressed (LOG_FORMAT.md, type 10; issue 41, item 3): a lap marked, or the
/// trip ended by hand. `timeMs` is the press's time on the fixes' clock (GPS time, ms since
/// 1970), so the exports put it among the trip's points. A press made before the clock was set
/// (before the first fix of a run, on a board without a real-time clock) may carry a time no fix
/// could have (0, 1970): kept as a press without a usable time (`hasUsableTime`), never damage.
public struct RiderMark: Equatable, Sendable {
    public enum Kind: UInt8, Sendable, Equatable {
        /// A short press: a lap from here.
        case lap = 0
        /// A long press: the trip ends here (its trip-end record follows).
        case end = 1
        /// A kind this version does not know (a newer writer's).
        case other = 255
    }

    public var kind: Kind
    public var timeMs: Int64

    /// Whether `timeMs` could be a fix's (`PointBounds`): only such a press is placed among the
    /// points (a lap, a time told); one without is counted and said, and places nothing.
    public var hasUsableTime: Bool { timeMs >= PointBounds.earliestMs && timeMs < PointBounds.latestMs }

    public init(kind: Kind, timeMs: Int64) {
        self.kind = kind
        self.timeMs = timeMs
    }
}

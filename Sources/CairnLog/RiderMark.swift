/// The rider's button pressed (LOG_FORMAT.md, type 10; issue 41, item 3): a lap marked, or the
/// trip ended by hand. `timeMs` is the press's time on the fixes' clock (GPS time, ms since
/// 1970), so the exports put it among the trip's points.
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

    public init(kind: Kind, timeMs: Int64) {
        self.kind = kind
        self.timeMs = timeMs
    }
}

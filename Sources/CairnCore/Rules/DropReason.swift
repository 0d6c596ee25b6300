/// Why a report did not become a track point. Stored in the log by raw value (stable: never
/// renumber, only add), counted per trip and shown by `cairn info`.
public enum DropReason: UInt8, CaseIterable, Sendable {
    /// gpsd reported no fix (mode < 2) or no position.
    case noFix = 1
    /// The report carried no time; a point without a time is never recorded.
    case noTime = 2
    /// Values out of range or not finite (lat 91, NaN, a time before 2000).
    case invalid = 3
    /// Horizontal uncertainty worse than the limit.
    case rough = 4
    /// Time not after the last kept point (receiver date bugs, repeated epochs).
    case timeNotAfter = 5
    /// Another report for an epoch already recorded (gpsd sends several per epoch).
    case duplicate = 6
    /// Older than the age limit when it arrived (a stale or replayed position).
    case stale = 7
    /// No satellite height (rule 3 of earlier versions, which dropped such fixes; still read).
    case noHeight = 8
    /// Waiting for a first fix good enough to start a trip (rule 1).
    case firstFix = 9
    /// Farther from the last kept point than the activity's speed allows (rule 4).
    case jump = 10
    /// Out to the side and straight back, faster than the measured speed allows (rule 5).
    case spike = 11
    /// Standing still: no new point (rule 6).
    case standing = 12
    /// No measured speed, and not farther from the last point than its own uncertainty (rule 7).
    case noSpeedNear = 13
    /// Closer to the last kept point than the distance filter, and not a corner (rule 8).
    case tooClose = 14
    /// After an outage, a position not yet moving as the doppler says (rule 13).
    case converging = 15
    /// A fix time far off the time line that its successors did not confirm (rule 12).
    case timeJump = 16

    /// The fix was measured as well as any kept one and left out only to thin the track (close
    /// to the last point, standing, near without a speed): what the smoother may still learn from.
    public var onlyThins: Bool { self == .tooClose || self == .standing || self == .noSpeedNear }

    public var name: String {
        switch self {
        case .noFix: return "no_fix"
        case .noTime: return "no_time"
        case .invalid: return "invalid"
        case .rough: return "rough"
        case .timeNotAfter: return "time_not_after"
        case .duplicate: return "duplicate"
        case .stale: return "stale"
        case .noHeight: return "no_height"
        case .firstFix: return "first_fix"
        case .jump: return "jump"
        case .spike: return "spike"
        case .standing: return "standing"
        case .noSpeedNear: return "no_speed_near"
        case .tooClose: return "too_close"
        case .converging: return "converging"
        case .timeJump: return "time_jump"
        }
    }
}

/// Per-reason counters, indexed by raw value; fixed size.
public struct DropCounts: Equatable, Sendable {
    public private(set) var counts = [UInt64](repeating: 0, count: 256)
    public init() {}
    public mutating func add(_ r: DropReason, _ n: UInt64 = 1) { counts[Int(r.rawValue)] += n }
    public mutating func set(rule: UInt8, count: UInt64) { counts[Int(rule)] = count }
    public subscript(_ r: DropReason) -> UInt64 { counts[Int(r.rawValue)] }
    public subscript(rule rule: UInt8) -> UInt64 { counts[Int(rule)] }
    public var total: UInt64 { counts.reduce(0, +) }
    /// (rule, count) for every nonzero counter, in rule order.
    public var nonzero: [(rule: UInt8, count: UInt64)] {
        counts.enumerated().compactMap { $0.element > 0 ? (UInt8($0.offset), $0.element) : nil }
    }
}

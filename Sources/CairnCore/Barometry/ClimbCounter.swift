/// Total ascent and descent from a height series with hysteresis: a climb counts once the height
/// has risen `threshold` metres above the lowest point since the last turn (and likewise down),
/// so noise smaller than the threshold never accumulates and nothing is quantised into stairs.
public struct ClimbCounter: Sendable {
    /// May change as the noise of the series is learnt (GPS heights).
    public var threshold: Double
    public private(set) var ascent: Double = 0
    public private(set) var descent: Double = 0
    /// False until the first height has been seen: ascent is unknown (a dash), not zero.
    public private(set) var hasHeight = false
    private var anchor = 0.0  // height at the last confirmed turn
    private var direction = 0  // +1 climbing, -1 descending, 0 unknown
    private var extreme = 0.0  // highest (climbing) or lowest (descending) since the anchor

    public init(threshold: Double) { self.threshold = threshold }

    public mutating func add(height h: Double) {
        guard h.isFinite else { return }
        if !hasHeight {
            hasHeight = true
            anchor = h
            extreme = h
            return
        }
        switch direction {
        case 1:
            if h > extreme {
                ascent += h - extreme
                extreme = h
            } else if extreme - h >= threshold {
                direction = -1
                descent += extreme - h
                extreme = h
            }
        case -1:
            if h < extreme {
                descent += extreme - h
                extreme = h
            } else if h - extreme >= threshold {
                direction = 1
                ascent += h - extreme
                extreme = h
            }
        default:
            if h - anchor >= threshold {
                direction = 1
                ascent += h - anchor
                extreme = h
            } else if anchor - h >= threshold {
                direction = -1
                descent += anchor - h
                extreme = h
            }
        }
    }
}

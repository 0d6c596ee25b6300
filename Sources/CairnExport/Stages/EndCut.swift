import CairnCore

/// The rider's end press as every output cuts it (issue 41): the exports, the page's picture,
/// `render` and the cells all end at the last point at or before the long press, as a device
/// stops recording at its stop button; the points after it are left out (the log keeps them).
/// A press before the first point (a clock behind the fixes) places nothing: no trip is cut
/// away whole. One rule, so that no output draws past where another ends.
public struct EndCut: Sendable {
    /// The press (`TripMarks.endMs`); nil without one, or once a first point lay after it.
    public private(set) var endMs: Int64?
    /// Points after the press, left out.
    public private(set) var after = 0

    /// The trip's wheel (`WheelTrack`), when it may have ridden before the first point (a
    /// trainer's indoor part, which FIT and CSV write as records before it): a press in that
    /// part is placed, and every point after it cut (attack-r22 case 18: `info` said so, the
    /// exports kept the ride outdoors).
    private var wheel: WheelTrack?
    private var sawPoint = false
    /// The press lies in the wheel's ride before the first point (known from the first point on).
    public private(set) var inLead = false

    public init(endMs: Int64?, wheel: WheelTrack? = nil) {
        self.endMs = endMs
        self.wheel = endMs == nil ? nil : wheel
    }

    /// Whether `f` is cut. `placed`: a point came before it (written, or left out by a privacy
    /// zone), or the wheel's ride before the first point holds the press: only then does a
    /// press before `f` end the trip.
    public mutating func cuts(_ f: Fix, placed: Bool) -> Bool {
        if !sawPoint {
            sawPoint = true
            if let end = endMs, end < f.timeMs, let lead = wheel?.lead(before: f.timeMs), lead.firstMs <= end { inLead = true }
            wheel = nil
        }
        guard let end = endMs, f.timeMs > end else { return false }
        guard placed || inLead else {
            endMs = nil
            return false
        }
        after += 1
        return true
    }
}

import CairnCore

/// The rider's end press as every output cuts it (issue 41): the exports, the page's picture,
/// `render` and the cells all end at the last point at or before the long press, as a device
/// stops recording at its stop button; the points after it are left out (the log keeps them).
/// A press before the first point (a clock behind the fixes) places nothing: no trip is cut
/// away whole. One rule, so that no output draws past where another ends.
public struct EndCut: Sendable, Equatable {
    /// The press (`TripMarks.endMs`); nil without one, or once a first point lay after it.
    public private(set) var endMs: Int64?
    /// Points after the press, left out.
    public private(set) var after = 0

    public init(endMs: Int64?) { self.endMs = endMs }

    /// Whether `f` is cut. `placed`: a point came before it (written, or left out by a privacy
    /// zone): only then does a press before `f` end the trip.
    public mutating func cuts(_ f: Fix, placed: Bool) -> Bool {
        guard let end = endMs, f.timeMs > end else { return false }
        guard placed else {
            endMs = nil
            return false
        }
        after += 1
        return true
    }
}

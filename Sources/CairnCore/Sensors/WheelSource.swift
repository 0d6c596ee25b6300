/// Which wheel source's revolutions count (issue 40): a speed sensor's wheel and a power meter's
/// wheel data measure the same wheel, so one source counts at a time, never both. The first seen
/// counts; when it has been silent for `silentAfterMs` (its battery died, it dropped out) the
/// next source that sends takes over from its own next reading, so the metres the first had
/// counted are not counted again. A pure plan on sources and times: the recorder's `WheelTrip`
/// and the exports' `WheelTrack` follow the same one.
public struct WheelSource: Sendable, Equatable {
    /// Longer than any gap between a live sensor's notifications (about 1 s; a CSC sensor
    /// standing still sends every 2-4 s), shorter than any pause worth riding through.
    public static let silentAfterMs: Int64 = 10_000

    /// What to do with a reading.
    public enum Verdict: Equatable, Sendable {
        /// Another source counts: leave it out.
        case ignore
        /// The counting source: count it.
        case count
        /// This source takes over now: start its counter afresh (this reading counts no metres).
        case takeOver
    }

    public private(set) var current: UInt64?
    private var lastMs: Int64?
    /// How often a later source took over.
    public private(set) var takeOvers = 0

    public init() {}

    /// A reading of `source` at `atMs` (the readings of all sources in time order).
    public mutating func reading(_ source: UInt64, atMs: Int64) -> Verdict {
        guard let c = current else {
            (current, lastMs) = (source, atMs)
            return .takeOver
        }
        if source == c {
            lastMs = atMs
            return .count
        }
        guard let last = lastMs, atMs - last > Self.silentAfterMs else { return .ignore }
        (current, lastMs) = (source, atMs)
        takeOvers += 1
        return .takeOver
    }
}

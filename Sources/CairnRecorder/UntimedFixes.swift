/// Positions gpsd sent without a time (slow F8): a receiver that sends GGA and GSA but no RMC
/// or ZDA gives no date, and gpsd then reports fixes with no `time`. A point without a time is
/// never recorded (`Report.noTime`), not even on the system clock with `clock = system`: the
/// fixes come in batches (`BatchReading`), so when each was taken is unknown, and the rules judge
/// speeds and gaps on the fixes' own times. What the rider must hear is the cause and the cure,
/// once, rather than a trip that never opens and nothing said.
public struct UntimedFixes: Sendable {
    /// Untimed positions in a row before it is said: a receiver can send a few before its date
    /// at a cold start.
    public static let sayAfter = 30
    public private(set) var total = 0
    private var inRow = 0
    private var said = false

    public init() {}

    /// The text to say for the cause, once a run, when `sayAfter` came in a row; else nil.
    public mutating func saw() -> String? {
        total += 1
        inRow += 1
        guard !said, inRow >= Self.sayAfter else { return nil }
        said = true
        return "gpsd: \(inRow) fixes in a row without a time or date: " + Self.cure
    }

    /// A fix with a time came: the row is broken.
    public mutating func timed() { inRow = 0 }

    /// For the stop's line, when no trip opened: why (nil when no untimed fix came).
    public var stopText: String? {
        total == 0 ? nil : "\(total) fix\(total == 1 ? "" : "es") had no time or date: " + Self.cure
    }

    static let cure =
        "none is recorded (a point needs its time). The receiver sends no date (no RMC or ZDA sentence, e.g. GGA and GSA only): enable RMC or ZDA on it (Hardware/README.md)"
}

/// Positions gpsd sent without a time (slow F8): a receiver that sends GGA and GSA but no RMC
/// or ZDA gives no date, and gpsd then reports fixes with no `time`. A point without a time is
/// never recorded (`Report.noTime`), not even on the system clock with `clock = system`: the
/// fixes come in batches (`BatchReading`), so when each was taken is unknown, and the rules judge
/// speeds and gaps on the fixes' own times. What the rider must hear is the cause and the cure,
/// once, rather than a trip that never opens and nothing said.
///
/// The cure is said only when the receiver has shown it sends no date: `sayAfter` untimed fixes
/// in a row over `sayAfterMs` (gpsd's first reports after a cold start lack a date from a
/// receiver whose RMC has one: attack F9, said at the stop of a standing receiver's run). A
/// fix with a time after it withdraws it.
public struct UntimedFixes: Sendable {
    /// Untimed positions in a row before it is said: a receiver can send a few before its date
    /// at a cold start.
    public static let sayAfter = 30
    /// And the span they cover (monotonic): 30 fixes at 10 Hz are 3 s of a cold start. (Not
    /// longer: RecordEndToEndTests replays 90 s of a GGA-only receiver in 9 s.)
    public static let sayAfterMs: Int64 = 5_000
    public private(set) var total = 0
    private var inRow = 0
    private var rowStartMonoMs: Int64 = 0
    /// The cure was said and no fix with a time has come since.
    private var standing = false
    private var said = false

    public init() {}

    /// The text to say for the cause, once a run, when `sayAfter` came in a row over
    /// `sayAfterMs` (`monoMs`: when this one was read); else nil.
    public mutating func saw(monoMs: Int64) -> String? {
        total += 1
        if inRow == 0 { rowStartMonoMs = monoMs }
        inRow += 1
        let spanMs = monoMs &- rowStartMonoMs
        guard !said, inRow >= Self.sayAfter, spanMs >= Self.sayAfterMs else { return nil }
        said = true
        standing = true
        return "gpsd: \(inRow) fixes in a row without a time or date over \(spanMs / 1000) s: " + Self.cure
    }

    /// A fix with a time came: the row is broken, and a cure said is withdrawn (the text to say
    /// then, once).
    public mutating func timed() -> String? {
        inRow = 0
        guard standing else { return nil }
        standing = false
        return "gpsd: fixes have their time and date now: the receiver does send them (the note above about RMC or ZDA is withdrawn)"
    }

    /// For the stop's line, when no trip opened: why (nil unless the cure stands).
    public var stopText: String? {
        standing ? "\(total) fix\(total == 1 ? "" : "es") had no time or date: " + Self.cure : nil
    }

    static let cure =
        "none is recorded (a point needs its time). The receiver sends no date (no RMC or ZDA sentence, e.g. GGA and GSA only): enable RMC or ZDA on it (Hardware/README.md)"
}

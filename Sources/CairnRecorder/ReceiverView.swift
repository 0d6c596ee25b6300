import CairnCore

/// What the record loop last saw of the receiver, for the live status and systemd's status
/// line: the newest fix and when it arrived, the last usable one (≤ 50 m), and since when the
/// open trip stands. Apart from `RecordLoop` so that the loop's scheduling does not mix with
/// what the status shows.
struct ReceiverView {
    /// The newest fix (its time also places a new trip's zone offset).
    private(set) var lastFix: Fix?
    private var lastMode = 0
    /// When the newest fix arrived (the loop's monotonic ms): the rider's marks are timed from it.
    private(set) var lastFixMono: Int64?
    private var lastUsableMono: Int64?
    private var standingSinceMono: Int64?

    /// A fix that arrived at `arrivedMono` (in a batch, earlier than its read).
    mutating func saw(_ f: Fix, arrivedMono: Int64) {
        lastFix = f
        lastMode = f.mode
        lastFixMono = arrivedMono
        if (Accuracy.horizontal68(f) ?? 0) <= 50 { lastUsableMono = arrivedMono }
    }

    /// A report without a fix.
    mutating func sawNoFix() { lastMode = 0 }

    /// Whether the open trip stands now; the time it has stood counts from the first `true`.
    mutating func standing(_ standing: Bool, mono: Int64) {
        if standing { if standingSinceMono == nil { standingSinceMono = mono } } else { standingSinceMono = nil }
    }

    /// The receiver's part of the status at `mono`: the state, the fix's mode, accuracy and
    /// age, and the speed (a dash while standing, or once the fix is stale).
    func fill(_ live: inout LiveStatus, mono: Int64, tripOpen: Bool, standing: Bool, pauseAfterMs: Int64) {
        live.state = LiveStatus.state(
            tripOpen: tripOpen, standing: standing, standingForMs: standingSinceMono.map { mono - $0 } ?? 0,
            pauseAfterMs: pauseAfterMs, sinceUsableFixMs: lastUsableMono.map { mono - $0 }, gapMs: 10_000)
        live.fixMode = lastMode
        live.accuracyM = lastMode >= 2 ? lastFix.flatMap { Accuracy.horizontal68($0) } : nil
        live.fixAgeS = lastFixMono.map { Double(mono - $0) / 1000 }
        let fresh = lastFixMono.map { mono - $0 < LiveStatus.speedStaleMs } ?? false
        live.speedMps = (fresh && !standing) ? lastFix?.speed : nil
    }
}

/// The thresholds of the rules that do not depend on the activity (`ActivityProfile` holds those
/// that do). Horizontal and vertical figures are 68 % ones (see `Accuracy`). Each rule is written
/// in the doc comment of the state named beside its figures.
public struct RuleLimits: Sendable, Equatable {
    /// Rule 1 (`TripStart`): a trip starts only at a fix within this…
    public var firstFixM = 20.0
    /// …or, after `firstFixPatienceMs` of trying, within this.
    public var firstFixPatientM = 50.0
    public var firstFixPatienceMs: Int64 = 30_000
    /// Rule 2 (`ClockAge`): older than this when it arrives, or worse than `maxAccuracyM`:
    /// dropped.
    public var maxAgeMs: Int64 = 60_000
    public var maxAccuracyM = 50.0
    /// Not used: the rules judge position and height apart (rule 3), and a height is trusted
    /// by `Accuracy.heightIsTrusted` (8 m). Kept so code that sets it still builds.
    public var maxVerticalM = 40.0
    /// Rule 4 (`SpikeHold`): after this many impossible jumps in a row, the reference was the
    /// bad one.
    public var jumpsBeforeReset = 5
    /// Rule 1: a start is confirmed only by a successor at most this much later (or two
    /// intervals and a half second, `Cadence`).
    public var confirmWithinMs: Int64 = 5_000
    /// Rule 9 (`FixRules.bridgeGap`): a silence longer than this (or three intervals) between
    /// usable fixes is a gap; it keeps the line unless it was a pause or too fast.
    public var gapMs: Int64 = 10_000
    /// Rule 8 (`DistanceFilter`): the distance filter is at least this many times the fix's
    /// uncertainty…
    public var distanceFilterUncertainties = 6.5
    /// …and at most this far (metres).
    public var maxDistanceFilterM = 100.0
    /// Rule 8: a turn of the measured course this large since the last kept point is a corner…
    public var cornerDegrees = 20.0
    /// …when both are moving at least this fast (slower, the receiver's course is noise).
    public var courseSpeedMps = 1.5
    /// The uncertainty assumed for a fix whose receiver gives none.
    public var unknownAccuracyM = 10.0
    /// The earliest plausible fix time: 2000-01-01 (receivers without a date say 1980).
    public var earliestValidMs: Int64 = FixBounds.earliestMs
    /// The first implausible fix time: 2100-01-01, which the log cannot hold either (a fix it
    /// cannot hold must not touch the rules' state, or a re-run over the stored fixes differs).
    public var latestValidMs: Int64 = FixBounds.latestMs
    /// Rule 12 (`TimeLine`): a fix time this far ahead of where the arrival clock puts it, or this far behind
    /// the newest, is held until this many successors agree with it (else it is dropped).
    public var timeJumpMs: Int64 = 3_600_000
    public var timeBackMs: Int64 = 60_000
    public var timeJumpConfirmations = 2
    /// Rule 2 (`ClockAge`): this many fixes in a row, equally late, mean the clocks disagree (not old fixes).
    public var staleBeforeClockIsOff = 5
    /// Rule 13 (`Convergence`): after an outage this long, fixes are taken once their displacement over
    /// `convergeWindowMs` agrees with the doppler's, or after `convergeGiveUpMs` in any case.
    public var convergeAfterMs: Int64 = 30_000
    public var convergeWindowMs: Int64 = 8_000
    public var convergeGiveUpMs: Int64 = 90_000
    /// Rule 6 (`MovementWindow`): movement is judged by the displacement over this window (or
    /// three intervals) against the doppler's path over it.
    public var displacementWindowMs: Int64 = 20_000
    public init() {}
}

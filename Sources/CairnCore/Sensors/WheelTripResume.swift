/// Whether a wheel trip a previous run left unfinished (a crash, a power cut: no trip end) goes
/// on when the wheel opens a trip again (issue 40), as a GPS trip resumes on its fixes' time. A
/// pure plan: the evidence is the boards' boot and the monotonic clock, never the wall clock.
///
/// A wheel trip has no fix, so no GPS time says how long the board was off. The monotonic clock
/// says it only within one boot (the same kernel boot id): a restart of the recorder. A power
/// cut is a new boot; its monotonic clock starts again, and its wall clock proves nothing either
/// (never set: 1970 again; fake-hwclock: the last save, earlier than the truth, which makes a
/// long gap look short). So across boots nothing proves the gap short: a new trip, and nothing
/// recorded is lost (both trips keep their readings).
public enum WheelTripResume {
    /// A previous run's unfinished wheel trip: its boot and its wheel's last turn (monotonic).
    public struct Unfinished: Equatable, Sendable {
        public var bootId: String?
        public var lastTurnMonoMs: Int64
        public init(bootId: String?, lastTurnMonoMs: Int64) {
            self.bootId = bootId
            self.lastTurnMonoMs = lastTurnMonoMs
        }
    }

    public enum Decision: Equatable, Sendable {
        /// The same boot, the wheel turning again `gapMs` after its last turn, within close-after.
        case resume(gapMs: Int64)
        /// Another boot, or a boot not known: nothing proves the gap short.
        case otherBoot
        /// The same boot, but the wheel stood `gapMs`: at or past close-after, the trip was over.
        case tooLong(gapMs: Int64)
    }

    /// `bootId` and `monoMs`: this run's boot and the moment the wheel opens a trip again.
    public static func decide(_ u: Unfinished, bootId: String?, monoMs: Int64, closeAfterMs: Int64) -> Decision {
        guard let was = u.bootId, let now = bootId, was == now, monoMs >= u.lastTurnMonoMs else { return .otherBoot }
        let gap = monoMs - u.lastTurnMonoMs
        return gap < closeAfterMs ? .resume(gapMs: gap) : .tooLong(gapMs: gap)
    }
}

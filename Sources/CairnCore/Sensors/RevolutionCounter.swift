/// Revolutions and their rate from a sensor's cumulative counter and event clock, reading by
/// reading: the arithmetic `CrankCadence` and `WheelSpeed` share.
///
/// Each reading carries the cumulative revolutions and the event time of the last one; both roll
/// over (`RevolutionFormat`). Between two readings the new revolutions are the counter's
/// difference and the rate is that over the event clock's difference. What the counter decides:
/// - no new revolution: the last rate holds until `stopAfterMs` has passed since the last new
///   revolution arrived, then the rate is 0 (coasting, or a crank standing still);
/// - the first revolutions after a stop (no faster than one in `stopAfterMs`), after the first
///   reading, or half the event clock's wrap or more after the last new revolution (32 s at
///   1/1024 s, 16 s at 1/2048 s: the clock's difference can no longer be told from one a wrap
///   longer): their revolutions count, their rate is not known yet;
/// - more revolutions than `maxPerSecond` allows in the time since the last new revolution (plus
///   2 s): the counter went back (a sensor reset, a battery change) or is garbage; nothing counts,
///   and counting starts again from this reading;
/// - a rate over `maxPerSecond` between two close readings: not counted, the last rate holds;
/// - revolutions with an unchanged event time, or an event time that moved without a revolution:
///   the sensor contradicts itself; said, the revolutions count, no rate from them.
/// Arrival times are the receiver's monotonic clock in milliseconds.
public struct RevolutionCounter: Sendable {
    /// What a reading was, for counting and saying what a sensor does.
    public enum Event: Equatable, Sendable {
        /// The first reading: counting starts.
        case first
        /// New revolutions, and a rate from them.
        case revolutions
        /// No new revolution; the last rate holds.
        case noRevolution
        /// No new revolution for `stopAfterMs`: the rate is 0.
        case stopped
        /// New revolutions with no rate yet: the first after the first reading or a stop.
        case started
        /// New revolutions half the event clock's wrap or more after the last: no rate yet.
        case afterGap
        /// The counter went back or jumped beyond `maxPerSecond`: counting starts again.
        case counterWentBack
        /// A rate over `maxPerSecond` between close readings: not counted.
        case implausibleRate
        /// Revolutions with the event time unchanged, or the event time moved without one.
        case contradictoryTime
        /// Arrived before the reading counting is based on (a clock that is not monotonic).
        case outOfOrder
    }

    /// One reading's outcome.
    public struct Step: Equatable, Sendable {
        /// Revolutions this reading adds (for distance).
        public var revolutions: UInt32
        /// Revolutions a second now; nil until two revolutions in a row tell.
        public var perSecond: Double?
        public var event: Event
    }

    public let format: RevolutionFormat
    /// After this long without a new revolution the rate is 0.
    public let stopAfterMs: Int64
    /// Revolutions a second beyond what the thing counted can turn.
    public let maxPerSecond: Double

    /// The reading counting is based on: the last with new revolutions (or the first).
    private var base: RevolutionData?
    private var baseArrivalMs: Int64 = 0
    /// Whether `base`'s event time can start a rate: its revolution was seen arriving, after a
    /// close reading, not carried over from before the first reading or a gap.
    private var baseIsLive = false
    private var rate: Double?

    public init(format: RevolutionFormat, stopAfterMs: Int64, maxPerSecond: Double) {
        self.format = format
        self.stopAfterMs = stopAfterMs
        self.maxPerSecond = maxPerSecond
    }

    public mutating func add(_ reading: RevolutionData, arrivalMs: Int64) -> Step {
        guard let base else { return restart(reading, arrivalMs, live: false, .first, rate: nil) }
        let sinceBaseMs = arrivalMs - baseArrivalMs
        guard sinceBaseMs >= 0 else { return restart(reading, arrivalMs, live: false, .outOfOrder, rate: nil) }
        let newRevolutions = format.revolutions(from: base.revolutions, to: reading.revolutions)
        let ticks = Int(reading.eventTime &- base.eventTime)

        if newRevolutions == 0 {
            if sinceBaseMs >= stopAfterMs {
                rate = 0
                return Step(revolutions: 0, perSecond: 0, event: .stopped)
            }
            return Step(revolutions: 0, perSecond: rate, event: ticks == 0 ? .noRevolution : .contradictoryTime)
        }
        let allowed = maxPerSecond * (Double(sinceBaseMs) / 1000 + 2)
        guard Double(newRevolutions) <= allowed else {
            return restart(reading, arrivalMs, live: false, .counterWentBack, rate: nil)
        }
        if sinceBaseMs >= format.clockWrapMs / 2 {
            return restart(reading, arrivalMs, live: true, .afterGap, rate: nil, counting: newRevolutions)
        }
        if !baseIsLive {
            return restart(reading, arrivalMs, live: true, .started, rate: nil, counting: newRevolutions)
        }
        if ticks == 0 {
            return restart(reading, arrivalMs, live: false, .contradictoryTime, rate: rate, counting: newRevolutions)
        }
        let seconds = Double(ticks) / Double(format.ticksPerSecond)
        // A revolution every `stopAfterMs` or slower is a start after a stop, not a rate.
        if seconds * 1000 >= Double(stopAfterMs) * Double(newRevolutions) {
            return restart(reading, arrivalMs, live: true, .started, rate: nil, counting: newRevolutions)
        }
        let perSecond = Double(newRevolutions) / seconds
        guard perSecond <= maxPerSecond else {
            return restart(reading, arrivalMs, live: true, .implausibleRate, rate: rate)
        }
        return restart(reading, arrivalMs, live: true, .revolutions, rate: perSecond, counting: newRevolutions)
    }

    /// Bases counting on `reading` and says so.
    private mutating func restart(
        _ reading: RevolutionData, _ arrivalMs: Int64, live: Bool, _ event: Event, rate: Double?,
        counting revolutions: UInt32 = 0
    ) -> Step {
        base = reading
        baseArrivalMs = arrivalMs
        baseIsLive = live
        self.rate = rate
        return Step(revolutions: revolutions, perSecond: rate, event: event)
    }
}

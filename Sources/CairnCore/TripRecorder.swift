/// What gpsd told us in one TPV report, reduced to what the recorder needs.
public enum Report: Sendable {
    /// A report with a fix (mode ≥ 2), a time and a position.
    case fix(Fix)
    /// A report without a fix (mode < 2) or without a position.
    case noFix
    /// A report with a position but no time: never recorded (a point without a time is a lie).
    case noTime
}

/// What the recorder must do to the log, in order.
public enum RecorderAction: Equatable, Sendable {
    /// A trip begins. `resume` is true when it continues the open trip of a previous run.
    case openTrip(resume: Bool)
    /// A new segment begins with the next point.
    case startSegment(SegmentReason, timeMs: Int64)
    /// Append this point.
    case keep(Fix)
}

/// The recorder's pure state machine: reports in, log actions out. No I/O and no clock of its
/// own, so every decision can be replayed in a test. Data flows one way:
/// report → `EpochCollapser` → `FixFilter` → segment/trip bookkeeping → actions.
public struct TripRecorder<Filter: FixFilter> {
    public struct Config: Sendable {
        /// A fix this long after the last kept one starts a new segment (a tunnel, a dropout).
        public var gapLimitMs: Int64 = 10_000
        /// Judge fix age against the newest fix time instead of the system clock (boards with
        /// no RTC before time sync; replays faster than real time).
        public var clockIsFix = false
        /// A previous run's open trip continues if its last point is at most this old.
        public var resumeWindowMs: Int64 = 20 * 60_000
        public init() {}
    }

    public let config: Config
    public private(set) var filter: Filter
    public private(set) var stats = TripStats()
    public private(set) var drops = DropCounts()
    public private(set) var lastKept: Fix?
    public private(set) var tripOpen = false
    /// The newest fix time seen in any report, for `--clock fix`.
    public private(set) var newestFixMs: Int64?
    private var collapser = EpochCollapser()
    private var pendingReason: SegmentReason? = .start
    /// The last point of a previous run's unclosed trip, if any (set by the caller at start-up).
    public var resumeCandidate: Fix?

    public init(filter: Filter, config: Config = Config()) {
        self.filter = filter
        self.config = config
    }

    /// Feed one report. Actions are delivered through `emit`, oldest first.
    public mutating func report(_ r: Report, systemNowMs: Int64, emit: (RecorderAction) -> Void) {
        switch r {
        case .noFix: drops.add(.noFix)
        case .noTime: drops.add(.noTime)
        case .fix(let f):
            let before = collapser.collapsed
            // The released epoch is judged by the clock as it stood when it was complete, not by
            // the report that released it (after a dropout that one is minutes newer).
            if let done = collapser.offer(f) { consider(done, systemNowMs: systemNowMs, emit: emit) }
            if collapser.collapsed != before { drops.add(.duplicate) }
            if f.timeMs > (newestFixMs ?? Int64.min) { newestFixMs = f.timeMs }
        }
    }

    /// Release the epoch held for collapsing (call after a quiet spell, on disconnect, at stop).
    public mutating func flush(systemNowMs: Int64, emit: (RecorderAction) -> Void) {
        if let f = collapser.flush() { consider(f, systemNowMs: systemNowMs, emit: emit) }
    }

    /// gpsd went away: what was pending is flushed; the next kept point starts a new segment.
    public mutating func connectionLost(systemNowMs: Int64, emit: (RecorderAction) -> Void) {
        flush(systemNowMs: systemNowMs, emit: emit)
        if tripOpen, pendingReason == nil { pendingReason = .reconnect }
    }

    /// The trip was closed by the caller (shutdown): the next kept point opens a new trip.
    public mutating func tripClosed() {
        tripOpen = false
        lastKept = nil
        pendingReason = .start
        stats = TripStats()
        drops = DropCounts()
        filter.reset()
    }

    private mutating func consider(_ fix: Fix, systemNowMs: Int64, emit: (RecorderAction) -> Void) {
        let now = config.clockIsFix ? max(newestFixMs ?? fix.timeMs, fix.timeMs) : systemNowMs
        if let reason = filter.judge(fix, lastKept: lastKept, nowMs: now) {
            drops.add(reason)
            return
        }
        if !tripOpen {
            var resume = false
            if let c = resumeCandidate, fix.timeMs > c.timeMs, fix.timeMs - c.timeMs <= config.resumeWindowMs {
                resume = true
            }
            resumeCandidate = nil
            tripOpen = true
            emit(.openTrip(resume: resume))
            pendingReason = resume ? .resume : .start
        } else if let last = lastKept, fix.timeMs - last.timeMs > config.gapLimitMs, pendingReason == nil {
            pendingReason = .gap
        }
        if let reason = pendingReason {
            filter.reset()
            stats.startSegment(reason)
            emit(.startSegment(reason, timeMs: fix.timeMs))
            pendingReason = nil
        }
        stats.add(fix)
        lastKept = fix
        emit(.keep(fix))
    }
}

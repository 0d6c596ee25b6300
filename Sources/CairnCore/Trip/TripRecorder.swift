/// What gpsd told us in one TPV report, reduced to what the recorder needs.
public enum Report: Sendable {
    /// A report with a fix (mode ≥ 2), a time and a position.
    case fix(Fix)
    /// A report without a fix (mode < 2) or without a position.
    case noFix
    /// A report with a position but no time: never recorded (a point without a time is a lie).
    case noTime
}

/// A trip the recorder closed itself (a standstill, or no fix for too long): its figures, for the log.
public struct TripTotals: Sendable {
    public var stats: TripStats
    public var drops: DropCounts
    /// Home's stand closed it (`Config.home`), not the close-after time: the log says so.
    public var atHome = false
}

/// What the recorder must do to the log, in order.
public enum RecorderAction: Sendable {
    /// A trip begins. `resume` is true when it continues the open trip of a previous run.
    case openTrip(resume: Bool)
    /// A new segment begins with the next point.
    case startSegment(SegmentReason, timeMs: Int64)
    /// Append this point.
    case keep(Fix)
    /// The trip ends (a long standstill): write its summary and close it. Boxed: its figures
    /// are several times the size of a fix, and every action (one or more per fix) would be
    /// copied at their size.
    indirect case closeTrip(TripTotals)
    /// A fix the rules were offered, with their verdict (`Config.keepsRaw`); in offer order,
    /// each once decided. Those before a trip opens belong to the next trip.
    case raw(RawFix)
}

/// The recorder's pure state machine: reports in, log actions out. No I/O and no clock of its
/// own, so every decision can be replayed in a test. Data flows one way:
/// report → `EpochCollapser` → `FixFilter` (the rules) → trip and segment bookkeeping → actions.
public struct TripRecorder<Filter: FixFilter> {
    public struct Config: Sendable {
        /// Judge fix age against the newest fix time instead of the system clock (boards with
        /// no RTC before time sync; replays faster than real time).
        public var clockIsFix = false
        /// A previous run's open trip continues if its last point is at most this old.
        public var resumeWindowMs: Int64 = 20 * 60_000
        /// An open trip with no usable fix at all for this long is closed (the board was left
        /// on indoors). Fix-driven standstills are closed by the rules.
        public var closeWithoutFixMs: Int64 = 30 * 60_000
        /// Home (issue 41): a trip whose newest fix came slowly inside it, then no fix at all (the
        /// bike wheeled indoors, the sky lost at the door), closes after home's stand, as standing
        /// there with a fix would; riding through home into a dropout does not.
        public var home: HomePlace?
        /// At or under this speed a fix at home may be the rider arriving (wheeling the bike in).
        public static var arrivingSpeedMps: Double { 3.0 }
        /// Under this measured speed a fix at home after home's stand closed the trip is the
        /// rider still standing at the door, not setting off (`closedAtHome`).
        public static var standingAtDoorMps: Double { 0.5 }
        /// Hand out every offered fix with its verdict (`RecorderAction.raw`). The rules then
        /// judge each fix at the log's resolution (`Fix.atLogResolution`), as a replay will.
        public var keepsRaw = false
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
    /// When (on the recorder's clock) the last fix arrived.
    public private(set) var lastFixClockMs: Int64?
    /// The newest fix was inside home, arriving (`Config.home`).
    private var lastFixArrivingHome = false
    /// The newest fix offered to the rules: where a stand they end stood (home or not).
    private var lastOffered: Fix?
    /// Home's stand closed the last trip and no trip has opened since: the next one starts at
    /// the first fix that moves, not at one the rider stood still on at the door (attack-r21
    /// U3: the next trip began 62 s before the rider left, a minute of standing in its time).
    private var closedAtHome = false {
        didSet {
            standingRuns.removeAll()
            standingRun = nil
        }
    }
    /// Meanwhile, the runs of offered fixes that stood at home (a measured speed under
    /// `Config.standingAtDoorMps` inside it), as times: the rules may keep such a fix as the next
    /// trip's start after its speed was judged derived and dropped, so it is told by its time.
    private var standingRuns = RingBuffer<ClosedRange<Int64>>(capacity: 8)
    private var standingRun: ClosedRange<Int64>?
    private var collapser = EpochCollapser()
    private var pendingReason: SegmentReason?
    private var outputs: [RuleOutput] = []
    /// The last point of a previous run's unclosed trip, if any (set by the caller at start-up).
    public var resumeCandidate: Fix?
    /// The offered fixes waiting for their verdicts (`Config.keepsRaw`).
    private var rawQueue = RawQueue()
    /// What happened to the rules since the last offered fix.
    private var rawEvents: RawEvents = [.runStart]

    /// The longest step of the fixes' clock that closes a trip (`consider`): beyond it, a receiver's glitch.
    public static var maxFixClockStepMs: Int64 { 24 * 3_600_000 }
    /// With `Config.clockIsFix`: a fix that came the close limit or more after the one offered
    /// before it (its time), and whether that limit was home's stand. Acted on when the rules
    /// keep a fix at or after it (`handle`); one stamped ahead, followed by fixes back before it
    /// (rule 12 drops it), closes nothing.
    private var gapClose: (timeMs: Int64, atHome: Bool)?

    public init(filter: Filter, config: Config = Config()) {
        self.filter = filter
        self.config = config
    }

    /// Feed one report. Actions are delivered through `emit`, oldest first.
    public mutating func report(_ r: Report, wallClockMs: Int64, emit: (RecorderAction) -> Void) {
        switch r {
        case .noFix: drops.add(.noFix)
        case .noTime: drops.add(.noTime)
        case .fix(let f):
            let before = collapser.collapsed
            // The released epoch is judged by the clock as it stood when it was complete, not by
            // the report that released it (after a dropout that one is minutes newer).
            if let done = collapser.offer(f) { consider(done, wallClockMs: wallClockMs, emit: emit) }
            if collapser.collapsed != before { drops.add(.duplicate) }
            if f.timeMs > (newestFixMs ?? Int64.min) { newestFixMs = f.timeMs }
            lastFixClockMs = config.clockIsFix ? newestFixMs : wallClockMs
            lastFixArrivingHome = config.home.map { $0.holds(f) && (f.speed ?? 0) <= Config.arrivingSpeedMps } ?? false
        }
    }

    /// Release the epoch held for collapsing (call after a quiet spell). The rules may still
    /// hold a fix back to judge it by its successor.
    public mutating func flush(wallClockMs: Int64, emit: (RecorderAction) -> Void) {
        if let f = collapser.flush() { consider(f, wallClockMs: wallClockMs, emit: emit) }
    }

    /// gpsd went away: everything held is released. The line goes on when it comes back, unless
    /// the rules judge a pause or a jump (a restart of gpsd is a dropout like any other).
    public mutating func connectionLost(wallClockMs: Int64, emit: (RecorderAction) -> Void) {
        finish(wallClockMs: wallClockMs, emit: emit)
    }

    /// Release everything held (before shutdown).
    public mutating func finish(wallClockMs: Int64, emit: (RecorderAction) -> Void) {
        flush(wallClockMs: wallClockMs, emit: emit)
        runFilter(emit: emit) { f, out in f.flush(emit: out) }
        rawEvents.insert(.rulesFlushed)
    }

    /// Called about once a second: closes an open trip that has had no fix at all for too long
    /// (home's stand when its newest fix was arriving there). With `Config.clockIsFix`,
    /// `wallClockMs` is on the fixes' clock (the newest fix's time plus the time since it
    /// arrived, as the record loop counts it on the monotonic clock): the system clock of a board
    /// without network time cannot say how long the fix has been gone.
    public mutating func tick(wallClockMs: Int64, emit: (RecorderAction) -> Void) {
        let limit = lastFixArrivingHome ? min(config.home?.standMs ?? config.closeWithoutFixMs, config.closeWithoutFixMs) : config.closeWithoutFixMs
        // A trip the wheel opened (`openByWheel`) has no point yet: the wheel closes it, not the
        // fixes. Asked last: only when a close is due (it costs a copy of the point, each tick).
        guard tripOpen, let last = lastFixClockMs, wallClockMs - last >= limit, lastKept != nil else { return }
        finish(wallClockMs: wallClockMs, emit: emit)
        close(atHome: lastFixArrivingHome && limit < config.closeWithoutFixMs, emit: emit)
        filter.tripClosed()
        rawEvents.insert(.closedWithoutFix)
    }

    /// Judges a stored raw fix again, as it was judged when recorded: what happened to the rules
    /// before it is done again first (`RawFix.events`), then it is offered as it arrived. A raw
    /// fix that starts a run (`RawEvents.runStart`) needs a new recorder (as `TripReplay` does).
    public mutating func replay(_ r: RawFix, emit: (RecorderAction) -> Void) {
        if r.events.contains(.closedWithoutFix) {
            finish(wallClockMs: r.arrivalMs, emit: emit)
            close(emit: emit)
            filter.tripClosed()
        } else if r.events.contains(.rulesFlushed) {
            finish(wallClockMs: r.arrivalMs, emit: emit)
        }
        if r.fix.timeMs > (newestFixMs ?? Int64.min) { newestFixMs = r.fix.timeMs }
        lastFixClockMs = config.clockIsFix ? newestFixMs : r.arrivalMs
        consider(r.fix, wallClockMs: r.arrivalMs, emit: emit)
    }

    /// A trip opens with no point (issue 40: the wheel turns where GPS has none, `WheelTrip`): a
    /// fix kept later goes into it, starting its first segment.
    /// `resume`: it goes on with a previous run's unfinished wheel trip (`WheelTripResume`).
    public mutating func openByWheel(resume: Bool = false, emit: (RecorderAction) -> Void) {
        guard !tripOpen else { return }
        resumeCandidate = nil
        tripOpen = true
        pendingReason = .start
        emit(.openTrip(resume: resume))
    }

    /// The trip was closed by the caller (shutdown): the next kept point opens a new trip.
    public mutating func tripClosed() {
        resetTrip()
        closedAtHome = false
        filter.tripClosed()
    }

    private mutating func resetTrip() {
        tripOpen = false
        lastKept = nil
        pendingReason = nil
        stats = TripStats()
        drops = DropCounts()
    }

    private mutating func close(atHome: Bool = false, emit: (RecorderAction) -> Void) {
        guard tripOpen else { return }
        emit(.closeTrip(TripTotals(stats: stats, drops: drops, atHome: atHome)))
        resetTrip()
        closedAtHome = atHome
    }

    private mutating func consider(_ fix: Fix, wallClockMs: Int64, emit: (RecorderAction) -> Void) {
        // With `--clock fix` the fix is its own "now": a fix is never judged by the newest fix time,
        // which one fix stamped years ahead would poison. Order and jumps are the rules' (rule 12),
        // on the system clock's pace (it advances with real time even where it started in 1970).
        let now = config.clockIsFix ? fix.timeMs : wallClockMs
        let fix = config.keepsRaw ? fix.atLogResolution : fix
        // With `--clock fix` the fixes are the clock: one that comes the close limit or more
        // after the last offered closes the trip before it is kept, as the ticks would have once
        // that time had passed (a replay faster than real time sees none pass: attack-r22 cases
        // 05 and 04e); a replay of the raw fixes judges it alike.
        // A fix back before it again: the step was one fix stamped ahead, no time that passed.
        if let g = gapClose, fix.timeMs < g.timeMs { gapClose = nil }
        if config.clockIsFix, tripOpen, let prev = lastOffered, case let step = fix.timeMs - prev.timeMs, step > 0 {
            let arriving = config.home.map { $0.holds(prev) && (prev.speed ?? 0) <= Config.arrivingSpeedMps } ?? false
            let limit = arriving ? min(config.home?.standMs ?? config.closeWithoutFixMs, config.closeWithoutFixMs) : config.closeWithoutFixMs
            if step >= limit && step <= Self.maxFixClockStepMs { gapClose = (fix.timeMs, arriving && limit < config.closeWithoutFixMs) }
        }
        lastOffered = fix
        if closedAtHome && !tripOpen { noteStanding(fix) }
        if config.keepsRaw {
            let settings = RawSettings(clockIsFix: config.clockIsFix, closeAfterMs: config.closeWithoutFixMs)
            rawQueue.append(RawFix(fix: fix, arrivalMs: wallClockMs, verdict: .undecided, events: rawEvents, settings: settings)) {
                emit(.raw($0))
            }
            rawEvents = []
        }
        runFilter(emit: emit) { f, out in f.offer(fix, nowMs: now, arrivalMs: wallClockMs, emit: out) }
    }

    /// An offered fix after home's stand closed the trip: whether it stood at home (`standingRuns`).
    private mutating func noteStanding(_ f: Fix) {
        if config.home?.holds(f) == true, let v = f.speed, v < Config.standingAtDoorMps {
            standingRun = standingRun.map { $0.lowerBound...max($0.upperBound, f.timeMs) } ?? f.timeMs...f.timeMs
        } else if let r = standingRun {
            standingRuns.append(r)
            standingRun = nil
        }
    }

    private func stoodAtHome(_ t: Int64) -> Bool {
        if standingRun?.contains(t) == true { return true }
        for i in 0..<standingRuns.count where standingRuns[i].contains(t) { return true }
        return false
    }

    /// Runs the filter, then acts on what it said (the filter cannot call back into the
    /// recorder while it is being mutated). The buffer is reused: no allocation per fix.
    private mutating func runFilter(emit: (RecorderAction) -> Void, _ body: (inout Filter, (RuleOutput) -> Void) -> Void) {
        var buffer = outputs
        outputs = []
        buffer.removeAll(keepingCapacity: true)
        body(&filter) { buffer.append($0) }
        for o in buffer { handle(o, emit: emit) }
        outputs = buffer
    }

    private mutating func handle(_ out: RuleOutput, emit: (RecorderAction) -> Void) {
        switch out {
        case .drop(let reason, let fix):
            drops.add(reason)
            if reason == .tooClose, tripOpen { stats.addOfferedHeight(fix) }
            if config.keepsRaw {
                if rawQueue.decide(fix, .dropped(reason)) { rawQueue.drain { emit(.raw($0)) } }
            }
        case .segment(let reason):
            if tripOpen { pendingReason = reason }
        case .closeTrip:
            // The rules close a stand at home's stand when its newest fix is inside home
            // (`HomePlace.closeLimitMs`): shorter than the close-after time, it was home's.
            let home = config.home.map { h in h.standMs < config.closeWithoutFixMs && lastOffered.map(h.holds) == true } ?? false
            close(atHome: home, emit: emit)
        case .keep(let fix):
            if let g = gapClose, g.timeMs <= fix.timeMs {
                gapClose = nil
                // The first kept at or after it (the rules may take the step's fix for a jump
                // and keep from the next that confirms it).
                if tripOpen && lastKept != nil {
                    close(atHome: g.atHome, emit: emit)
                    filter.tripClosed()
                }
            }
            if !tripOpen && closedAtHome && stoodAtHome(fix.timeMs) {
                // Still standing at home after its stand closed the trip: no new trip yet.
                drops.add(.standing)
                if config.keepsRaw {
                    if rawQueue.decide(fix, .dropped(.standing)) { rawQueue.drain { emit(.raw($0)) } }
                }
                return
            }
            if !tripOpen {
                closedAtHome = false
                var resume = false
                if let c = resumeCandidate, fix.timeMs > c.timeMs, fix.timeMs - c.timeMs <= config.resumeWindowMs {
                    resume = true
                }
                resumeCandidate = nil
                tripOpen = true
                emit(.openTrip(resume: resume))
                pendingReason = resume ? .resume : .start
            }
            if let reason = pendingReason {
                stats.startSegment(reason)
                emit(.startSegment(reason, timeMs: fix.timeMs))
                pendingReason = nil
            }
            stats.add(fix)
            stats.addOfferedHeight(fix)
            lastKept = fix
            emit(.keep(fix))
            if config.keepsRaw {
                if rawQueue.decide(fix, .kept) { rawQueue.drain { emit(.raw($0)) } }
            }
        }
    }
}

/// A ride the wheel measures where GPS has none (issue 40: a trainer, the bike standing still):
/// when a spinning wheel opens a trip of its own, when the trip pauses and when it closes. A pure
/// plan on wheel speeds and the recorder's monotonic clock; the record loop acts on it.
///
/// - Opens after the wheel has turned above `spinMps` (faster than walking) for `spinForMs`
///   without a break (a reading below the pace, or none for `maxQuietMs`), while no trip is open
///   and the board does not move (no fix, or a fix standing): a parked bike whose wheel does not
///   turn opens nothing, a bike carried with its wheel spun by hand for a few seconds opens
///   nothing, and a ride outdoors is opened by the fixes, as ever.
/// - Pauses like a ride: the wheel standing longer than `pauseAfterMs` starts a new segment when it
///   turns again (`Action.resumed`).
/// - Closes like a ride left standing: the wheel standing for `closeAfterMs` (`--close-after`).
/// - A fix kept into the trip hands it to the fix rules (`handOver`): the ride went outdoors.
public struct WheelTrip: Sendable {
    public struct Config: Sendable, Equatable {
        /// 2.5 m/s (9 km/h): above walking pace (1.4 m/s) and a bike pushed along.
        public var spinMps = 2.5
        /// 30 s: longer than a wheel spun by hand or a bike carried turns.
        public var spinForMs: Int64 = 30_000
        /// A spin whose readings stop for longer than this is broken (the sensor went quiet).
        public var maxQuietMs: Int64 = 5_000
        /// Standing longer than this is a pause, as the fix rules' standstill (2 min).
        public var pauseAfterMs: Int64 = 120_000
        /// Standing this long closes the trip (`record --close-after`).
        public var closeAfterMs: Int64 = 30 * 60_000
        public init() {}
    }

    /// What the wheel trip tells the loop to do.
    public enum Action: Equatable, Sendable {
        /// A trip opens now (no fix; its distance is the wheel's).
        case open
        /// The wheel turns again after a pause: a new segment from `atMs`.
        case resumed(atMs: Int64)
        /// The wheel has stood `closeAfterMs`: the trip ends with these figures.
        case close(Totals)
    }

    /// The wheel's figures for the trip end record: monotonic times.
    public struct Totals: Equatable, Sendable {
        public var distanceM = 0.0
        public var movingMs: Int64 = 0
        public var firstMs: Int64?
        /// The last reading at which the wheel turned.
        public var lastMs: Int64?
    }

    enum State: Equatable {
        case idle
        /// Above the pace since `sinceMs`, the last reading at `lastMs`.
        case spinning(sinceMs: Int64, lastMs: Int64)
        /// A trip of the wheel's is open.
        case open
    }

    /// A fix this fast says the board moves (it is no trainer): faster than walking.
    public static let boardMovingMps = 2.0

    public let config: Config
    private(set) var state = State.idle
    public private(set) var totals = Totals()
    private var lastReadingMs: Int64?
    private var lastTurnMs: Int64?
    private var paused = false

    public init(config: Config = Config()) { self.config = config }

    /// Whether a trip of the wheel's is open.
    public var isOpen: Bool { state == .open }

    /// One wheel reading (`WheelSpeed.Step`) at `atMs`. `boardStill`: no trip is open and no fix
    /// says the board moves (a fix standing, or none).
    public mutating func wheel(_ step: WheelSpeed.Step, atMs: Int64, boardStill: Bool) -> Action? {
        defer { lastReadingMs = atMs }
        switch state {
        case .open:
            return rolling(step, atMs)
        case .idle, .spinning:
            guard boardStill, spinning(step) else {
                state = .idle
                return nil
            }
            if case .spinning(let since, let last) = state, atMs - last <= config.maxQuietMs, atMs >= last {
                state = .spinning(sinceMs: since, lastMs: atMs)
                guard atMs - since >= config.spinForMs else { return nil }
                state = .open
                totals = Totals(distanceM: 0, movingMs: 0, firstMs: atMs, lastMs: atMs)
                lastTurnMs = atMs
                paused = false
                return .open
            }
            state = .spinning(sinceMs: atMs, lastMs: atMs)
            return nil
        }
    }

    /// Called about once a second: closes the trip when the wheel has stood `closeAfterMs`.
    public mutating func tick(atMs: Int64) -> Action? {
        guard state == .open, let t = lastTurnMs, atMs - t >= config.closeAfterMs else { return nil }
        let done = totals
        closed()
        return .close(done)
    }

    /// A fix was kept into the trip: the fix rules own it from here.
    public mutating func handOver() {
        guard state == .open else { return }
        closed()
    }

    /// The trip was closed by the caller (a stop, the rider's button) or handed over.
    public mutating func closed() {
        state = .idle
        totals = Totals()
        lastTurnMs = nil
        paused = false
    }

    /// Above the pace, or turning with no rate yet (the first revolutions after a reading).
    private func spinning(_ step: WheelSpeed.Step) -> Bool {
        if let v = step.metresPerSecond { return v >= config.spinMps }
        return step.metres > 0
    }

    private mutating func rolling(_ step: WheelSpeed.Step, _ atMs: Int64) -> Action? {
        // New revolutions, not a rate held over from before them (`WheelSpeed.stopAfterMs`).
        guard step.metres > 0 else {
            if let t = lastTurnMs, atMs - t > config.pauseAfterMs { paused = true }
            return nil
        }
        totals.distanceM += step.metres
        // Moving time: the time since the reading before, when the wheel turned in between and
        // the sensor was not quiet (a break in its readings is not riding).
        if let before = lastReadingMs, atMs > before, atMs - before <= config.maxQuietMs { totals.movingMs += atMs - before }
        var action: Action?
        if paused || (lastTurnMs.map { atMs - $0 > config.pauseAfterMs } ?? false) { action = .resumed(atMs: atMs) }
        paused = false
        lastTurnMs = atMs
        totals.lastMs = atMs
        return action
    }
}

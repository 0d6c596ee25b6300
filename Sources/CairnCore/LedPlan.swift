/// What the status LED shows (issue 41, item 2): the recorder's and delivery's state in, one
/// pattern out, a rider learns in a minute. Every pattern is the kernel's `timer` trigger with
/// two delays (`delay_on`, `delay_off`), so the kernel blinks the LED and the recorder wakes for
/// none of it; it writes only when the pattern changes. Solid is a delay off of 0 and dark a
/// delay on of 0: the kernel then sets the brightness once and runs no timer at all.
///
/// | pattern | on / off | says |
/// |---|---|---|
/// | solid | on | a fix: recording, or ready to record |
/// | slow | 1 s / 1 s | waiting for a fix |
/// | fast | 0.1 s / 0.1 s | something needs you: gpsd or the barometer gone, the card nearly full, or delivery failing |
/// | wink | 0.1 s / 1.9 s | a ride waiting to go up |
/// | flicker | 0.1 s / 0.4 s | delivering |
/// | glow | 1.9 s / 0.1 s | delivered: every ride is up, switch off when you like |
/// | dark | off | the recorder is stopped |
public enum LedPattern: String, Sendable, Equatable, CaseIterable {
    case dark, solid, slow, fast, wink, flicker, glow

    /// The timer trigger's `delay_on` and `delay_off`, in ms.
    public var delays: (onMs: Int, offMs: Int) {
        switch self {
        case .dark: (0, 1000)
        case .solid: (1000, 0)
        case .slow: (1000, 1000)
        case .fast: (100, 100)
        case .wink: (100, 1900)
        case .flicker: (100, 400)
        case .glow: (1900, 100)
        }
    }
}

/// Where the rides stand with delivery, as the recorder sees it (see `LedPlan.delivery`).
public enum DeliveryPhase: String, Sendable, Equatable {
    /// No delivery has run on this card (none set up), or its news is older than this boot.
    case none
    /// A finished trip is not up yet.
    case waiting
    case delivering
    /// A run this boot sent every trip.
    case delivered
    /// The last run failed (a trip, or the remote's setup; not a remote out of reach).
    case failing
}

/// The recorder's state the LED is planned from.
public struct LedSituation: Sendable, Equatable {
    /// The recorder has stopped (SIGTERM): dark.
    public var stopped = false
    public var tripOpen = false
    public var gpsdUp = true
    /// A usable fix within the last seconds.
    public var hasFix = false
    public var baroFailing = false
    public var diskNearlyFull = false
    public var delivery = DeliveryPhase.none

    public init(
        stopped: Bool = false, tripOpen: Bool = false, gpsdUp: Bool = true, hasFix: Bool = false, baroFailing: Bool = false,
        diskNearlyFull: Bool = false, delivery: DeliveryPhase = .none
    ) {
        self.stopped = stopped
        self.tripOpen = tripOpen
        self.gpsdUp = gpsdUp
        self.hasFix = hasFix
        self.baroFailing = baroFailing
        self.diskNearlyFull = diskNearlyFull
        self.delivery = delivery
    }
}

public enum LedPlan {
    /// The pattern for `s`. A fault comes first (the rider must act); while a trip is open the
    /// fix is all that matters (delivery never runs then); with none open, delivery's news
    /// comes before the fix.
    public static func pattern(for s: LedSituation) -> LedPattern {
        if s.stopped { return .dark }
        if !s.gpsdUp || s.baroFailing || s.diskNearlyFull { return .fast }
        if s.tripOpen { return s.hasFix ? .solid : .slow }
        switch s.delivery {
        case .failing: return .fast
        case .delivering: return .flicker
        case .waiting: return .wink
        case .delivered: return .glow
        case .none: return s.hasFix ? .solid : .slow
        }
    }

    /// Delivery's phase from what the recorder reads in its log directory: whether a run holds
    /// the lock now (`running`), the last run's result (`ok`, `failed`, `deferred`; nil: no
    /// delivery has run on this card) and the trips it left waiting, whether that result was
    /// written during this recorder's run (`newThisRun`), and whether this recorder closed a
    /// trip after it (`closedSince`).
    public static func delivery(running: Bool, result: String?, waiting: Int, newThisRun: Bool, closedSince: Bool) -> DeliveryPhase {
        if running { return .delivering }
        guard let result else { return .none }
        if closedSince { return .waiting }
        if result == "failed" { return .failing }
        if waiting > 0 { return .waiting }
        return result == "ok" && newThisRun ? .delivered : .none
    }
}

/// What an activity allows, for the fix rules. Chosen with `--activity`.
///
/// | profile | fastest plausible | distance filter | moving again at | pause after | trip closes after |
/// |---|---:|---:|---:|---:|---:|
/// | walk (and hike) | 14 km/h | 5 m | 2.2 km/h | 2 min | 30 min |
/// | run | 32 km/h | 5 m | 3.6 km/h | 2 min | 30 min |
/// | ride | 108 km/h | 5 m | 3.6 km/h | 2 min | 30 min |
/// | drive | 250 km/h | 10 m | 5.4 km/h | 2 min | 30 min |
///
/// | gains speed at most | loses speed at most |
/// |---:|---:|
/// | 2 m/s² | 3 m/s² |
/// | 4 m/s² | 5 m/s² |
/// | 3 m/s² | 7 m/s² |
/// | 5 m/s² | 10 m/s² |
///
/// (walk, run, ride, drive in that order: a walker's stride, a sprinter's start at 0.4 g, a
/// rider's sprint at 0.3 g and the front wheel's pitch-over near 0.7 g, a car's 0-100 km/h in
/// 5.7 s and its 1 g stop.) A top speed from positions must be reached and left within them
/// (`PositionSpeeds`).
///
/// The fastest plausible speed bounds a jump between two fixes (rule 4). The standstill speed
/// (~1 km/h) is the same for all: below it nothing moves. A stop shorter than the pause limit
/// stays inside its segment; a longer one starts a new segment with nothing drawn across; a
/// standstill longer than the close limit ends the trip. 30 minutes keeps a long café stop
/// inside the ride, while a bike left parked, or a board left on for days, produces closed
/// trips and writes nothing while parked.
public struct ActivityProfile: Sendable, Equatable {
    public var name: String
    public var maxSpeedMps: Double
    public var minDistanceM: Double
    /// Below this measured speed the receiver is standing (enter the standstill).
    public var standingSpeedMps: Double
    /// At or above this measured speed, four seconds' worth of fixes in a row (two with the
    /// position leaving the spot), the rider is moving again (rule 6, `Standstill`).
    public var movingSpeedMps: Double
    public var pauseAfterMs: Int64
    public var closeAfterMs: Int64
    /// Where a short stand closes the trip (`HomePlace`); nil: only `closeAfterMs` does.
    public var home: HomePlace? = nil
    /// The fastest gain and loss of speed the activity allows (m/s²): a top speed from positions
    /// reached or left faster is a position excursion, not a speed (`PositionSpeeds`).
    public var speedUpMps2: Double = 5
    public var slowDownMps2: Double = 10

    public static let walk = ActivityProfile(
        name: "walk", maxSpeedMps: 14 / 3.6, minDistanceM: 5,
        standingSpeedMps: 0.28, movingSpeedMps: 0.6,
        pauseAfterMs: 120_000, closeAfterMs: 30 * 60_000, speedUpMps2: 2, slowDownMps2: 3)
    public static let run = ActivityProfile(
        name: "run", maxSpeedMps: 32 / 3.6, minDistanceM: 5,
        standingSpeedMps: 0.28, movingSpeedMps: 1.0,
        pauseAfterMs: 120_000, closeAfterMs: 30 * 60_000, speedUpMps2: 4, slowDownMps2: 5)
    public static let ride = ActivityProfile(
        name: "ride", maxSpeedMps: 108 / 3.6, minDistanceM: 5,
        standingSpeedMps: 0.28, movingSpeedMps: 1.0,
        pauseAfterMs: 120_000, closeAfterMs: 30 * 60_000, speedUpMps2: 3, slowDownMps2: 7)
    public static let drive = ActivityProfile(
        name: "drive", maxSpeedMps: 250 / 3.6, minDistanceM: 10,
        standingSpeedMps: 0.28, movingSpeedMps: 1.5,
        pauseAfterMs: 120_000, closeAfterMs: 30 * 60_000, speedUpMps2: 5, slowDownMps2: 10)

    public static func named(_ name: String) -> ActivityProfile? { Activity(name: name)?.profile }
}

/// What the rider does, as `--activity` names it and a trip's first record stores it. Every
/// choice made by activity (the rules' limits, the smoother's tuning, speed bands, FIT's sport,
/// fuel) switches on this type, so a name is read one way everywhere.
public enum Activity: String, Sendable, CaseIterable {
    case walk, run, ride, drive

    /// The activity a name means: hike is a walk; nil for a name cairn does not know (a log
    /// may hold any text).
    public init?(name: String?) {
        guard let name else { return nil }
        self.init(rawValue: name == "hike" ? "walk" : name)
    }

    public var name: String { rawValue }

    /// The fix rules' limits for it.
    public var profile: ActivityProfile {
        switch self {
        case .walk: return .walk
        case .run: return .run
        case .ride: return .ride
        case .drive: return .drive
        }
    }
}

import CairnCore

/// What the recorder is doing, as the record loop last saw it: the contents of the live status
/// file (`record --status`; its text form is the CLI's, see StatusCommand) and of systemd's
/// status line.
public struct LiveStatus: Sendable {
    public var state = "waiting"
    public var gpsdConnected = false
    public var fixMode = 0
    public var accuracyM: Double?
    public var fixAgeS: Double?
    public var speedMps: Double?
    public var tripFile: String?
    public var stats = TripStats()
    public var tripOpen = false
    public var drops = DropCounts()
    public var baro = "none"
    /// The rider's button: nil without one (`record --button`), else ok, stuck or chattering
    /// (ignored until it rests: `ButtonPresses`), or missing (the device not there).
    public var button: String?
    public var syncedSeq: UInt64 = 0
    public var syncAgeS: Double?
    public var updatedMs: Int64 = 0
    public var seq = 0
    public var refreshS = 1

    public init() {}

    /// The speed is a dash once the newest fix is this old.
    public static let speedStaleMs: Int64 = 8_000

    /// The `state` field: from the recorder's own view (no decision is made here).
    public static func state(
        tripOpen: Bool, standing: Bool, standingForMs: Int64, pauseAfterMs: Int64,
        sinceUsableFixMs: Int64?, gapMs: Int64
    ) -> String {
        guard tripOpen else { return "waiting" }
        if sinceUsableFixMs.map({ $0 >= gapMs }) ?? true { return "gap" }
        if standing { return standingForMs >= pauseAfterMs ? "paused" : "standing" }
        return "recording"
    }
}

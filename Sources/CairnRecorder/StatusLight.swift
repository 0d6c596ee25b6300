import CairnCore
import CairnSystem
import CairnDevice

/// The status LED (`record --led NAME`): at each refresh of the status (no wake-up of its own),
/// the recorder's state and delivery's (`DeliveryWatch`) planned into a pattern (`LedPlan`),
/// written to the LED only when it changed (`LedClassDevice`).
public final class StatusLight: LoopLight {
    public let name: String
    private let sysfsRoot: String
    private let directory: String
    private let say: (String) -> Void
    private var device: LedClassDevice?
    private let delivery: DeliveryWatch
    private var failing = false
    private var lastDiskMono: Int64 = .min
    private var diskNearlyFull = false
    public private(set) var pattern: LedPattern?

    /// Free space under which the card counts as nearly full: a few days of rides with raw
    /// fixes (about 1 MB an hour).
    public static let nearlyFullBytes = 64 << 20

    /// `device`: the LED when it was found at start-up (else it is looked for again at each
    /// change of pattern: a keyboard plugged in later).
    public init(name: String, sysfsRoot: String, directory: String, device: LedClassDevice?, say: @escaping (String) -> Void) {
        self.name = name
        self.sysfsRoot = sysfsRoot
        self.directory = directory
        self.device = device
        self.say = say
        delivery = DeliveryWatch(directory: directory)
    }

    public func tripClosed() { delivery.tripClosed() }

    public func update(_ live: LiveStatus, monoMs: Int64, wallClockMs: Int64, stopped: Bool) {
        if lastDiskMono == .min || monoMs - lastDiskMono >= 60_000 {
            lastDiskMono = monoMs
            diskNearlyFull = POSIX.freeBytes(directory).map { $0 < Self.nearlyFullBytes } ?? false
        }
        // Delivery's news is shown with no trip open only (it never runs during one): while
        // recording, not even its two stats.
        let phase = live.tripOpen ? DeliveryPhase.none : delivery.phase(wallClockMs: wallClockMs)
        let fresh = live.fixMode >= 2 && (live.fixAgeS ?? .infinity) < 10 && (live.accuracyM ?? .infinity) <= 50
        let s = LedSituation(
            stopped: stopped, tripOpen: live.tripOpen, gpsdUp: live.gpsdConnected,
            hasFix: live.tripOpen ? live.state != "gap" : fresh, baroFailing: live.baro == "failing",
            diskNearlyFull: diskNearlyFull, delivery: phase)
        show(LedPlan.pattern(for: s))
    }

    private func show(_ p: LedPattern) {
        let changed = p != pattern
        pattern = p
        if device == nil {
            // Not there at start-up: looked for again at each change of pattern only.
            guard changed else { return }
            device = try? LedClassDevice(name: name, sysfsRoot: sysfsRoot)
        }
        // Written when the pattern changed, or again after a write that failed.
        guard let d = device, d.shown != p else { return }
        if let e = d.show(p) {
            // Said as the outage begins; the next change of pattern tries again.
            if !failing { say("led: \(e)") }
            failing = true
        } else {
            if failing { say("led: \(name) works again") }
            failing = false
        }
    }
}

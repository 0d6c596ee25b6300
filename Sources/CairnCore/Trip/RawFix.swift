/// What the rules decided about one offered fix.
public enum Verdict: Equatable, Sendable {
    case kept
    case dropped(DropReason)
    /// Written before the rules decided: the fix waited longer than the recorder keeps fixes
    /// waiting (`RawQueue.capacity` fixes), and its verdict came too late to be written with it.
    case undecided

    /// `kept`, the dropping rule's name (`DropReason.name`), or `undecided`.
    public var name: String {
        switch self {
        case .kept: return "kept"
        case .dropped(let r): return r.name
        case .undecided: return "undecided"
        }
    }
}

/// What happened to the rules just before a raw fix was offered: what a replay must do again to
/// judge the fixes as they were judged.
public struct RawEvents: OptionSet, Sendable, Equatable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The recorder started with this fix: the rules had judged nothing before it.
    public static let runStart = RawEvents(rawValue: 1)
    /// The rules released what they held (gpsd went away) before this fix.
    public static let rulesFlushed = RawEvents(rawValue: 2)
    /// The trip was closed for want of any fix (`TripRecorder.Config.closeWithoutFixMs`) before this fix.
    public static let closedWithoutFix = RawEvents(rawValue: 4)
}

/// The settings a replay needs besides the activity: how the fixes' age was judged, and the close limit.
public struct RawSettings: Equatable, Sendable {
    public var clockIsFix: Bool
    public var closeAfterMs: Int64
    public init(clockIsFix: Bool, closeAfterMs: Int64) {
        self.clockIsFix = clockIsFix
        self.closeAfterMs = closeAfterMs
    }
}

/// One fix as the rules were offered it (after the epoch's reports were collapsed, before the
/// rules touched it), when it arrived, and what the rules decided: what the log keeps of every
/// fix so the rules can be run again over a trip (`TripRecorder.replay`).
public struct RawFix: Equatable, Sendable {
    public var fix: Fix
    /// The system clock when the fix was offered (the rules' arrival time).
    public var arrivalMs: Int64
    public var verdict: Verdict
    public var events: RawEvents
    public var settings: RawSettings
    public init(fix: Fix, arrivalMs: Int64, verdict: Verdict, events: RawEvents = [], settings: RawSettings) {
        self.fix = fix
        self.arrivalMs = arrivalMs
        self.verdict = verdict
        self.events = events
        self.settings = settings
    }

    /// Whether the top speed from positions judges this fix (`TripStats.addOffered`): kept, or
    /// only thinned out by the distance filter.
    public var countsForTopSpeed: Bool {
        switch verdict {
        case .kept: return true
        case .dropped(let why): return why.onlyThins
        default: return false
        }
    }

    /// Whether this fix's height counts toward the GPS-only climb (`TripStats.addOfferedHeight`):
    /// kept, or thinned out as too close to the last kept point (a stand's fixes are not the ride's).
    public var countsForClimb: Bool {
        switch verdict {
        case .kept: return true
        case .dropped(let why): return why == .tooClose
        default: return false
        }
    }
}

/// The offered fixes waiting for their verdicts, in offer order, in fixed capacity. Verdicts come
/// out of order (the rules hold some fixes back to judge them by their successors); fixes leave
/// in offer order, as soon as every older one is decided. The capacity covers a fix held through
/// a whole standstill up to the default close limit (30 min at 1 Hz: a corner candidate of the
/// distance filter waits for the next kept point). Its storage is reserved whole (untouched
/// memory, not resident) and used as a ring of the smallest power of two that held the fixes
/// waiting at once: a ride's few fixes waiting touch a few kB, not the capacity's 300 kB (the
/// recorder's peak RSS, Tests/bench/record-results.md).
struct RawQueue {
    static let capacity = 2048
    private var items: [RawFix] = []
    private var decided: [Bool] = []
    private var head = 0
    private(set) var count = 0

    init() {
        items.reserveCapacity(Self.capacity)
        decided.reserveCapacity(Self.capacity)
    }

    /// The ring's size now: a power of two, doubled only when the fixes waiting fill it.
    var storage: Int { items.count }

    /// The ring's size is a power of two: its index is masked, not divided.
    private func slot(_ i: Int) -> Int { (head &+ i) & (items.count &- 1) }

    /// Adds an offered fix; a full queue first hands out its oldest fix, undecided, and the
    /// decided ones behind it.
    mutating func append(_ r: RawFix, overflow: (RawFix) -> Void) {
        if count == Self.capacity {
            overflow(items[head])
            head = slot(1)
            count -= 1
            drain(overflow)
        }
        if items.isEmpty {
            items.append(r)
            decided.append(false)
            count = 1
            return
        }
        if count == items.count { grow() }
        let s = slot(count)
        items.withUnsafeMutableBufferPointer { $0[s] = r }
        decided.withUnsafeMutableBufferPointer { $0[s] = false }
        count += 1
    }

    /// Doubles the full ring in place (within the reserved storage, no copy of it elsewhere):
    /// the fixes before the head go on past the old end, so the ring reads on from the head;
    /// the rest of the new half only fills the size (never read: past `count`).
    private mutating func grow() {
        let n = items.count
        for i in 0..<n {
            items.append(items[i])
            decided.append(i < head ? decided[i] : false)
        }
    }

    /// Records the verdict on the oldest undecided fix with this time and position (the rules
    /// change neither: the same bits, which also finds a position that is not a number). A fix
    /// no longer waiting (handed out undecided) is not found. Returns whether the oldest fix is
    /// now decided (there is something to drain).
    mutating func decide(_ f: Fix, _ v: Verdict) -> Bool {
        let found: Int? = items.withUnsafeBufferPointer { fixes in
            decided.withUnsafeBufferPointer { done in
                for i in 0..<count {
                    let s = slot(i)
                    if !done[s], fixes[s].fix.timeMs == f.timeMs, fixes[s].fix.lat.bitPattern == f.lat.bitPattern,
                        fixes[s].fix.lon.bitPattern == f.lon.bitPattern
                    {
                        return i
                    }
                }
                return nil
            }
        }
        guard let i = found else { return false }
        let s = slot(i)
        items[s].verdict = v
        decided[s] = true
        return i == 0
    }

    /// Hands out the decided fixes at the front, oldest first.
    mutating func drain(_ out: (RawFix) -> Void) {
        while count > 0 && decided[head] {
            out(items[head])
            head = slot(1)
            count -= 1
        }
    }
}

extension Fix {
    /// `v` on the grid of `units` per SI unit, to the nearest (clamped to ±2^50 units, as the log
    /// clamps). A conversion, not libm's `round`, which is a call per field on the record path.
    @inlinable @inline(__always)
    public static func onGrid(_ v: Double, _ units: Double) -> Int64 {
        let x = Swift.min(Swift.max(v * units, -0x1p50), 0x1p50)
        return Int64(x < 0 ? x - 0.5 : x + 0.5)
    }

    /// `Double(onGrid(v, units)) / units` to the bit, without the conversions to an integer and
    /// back (and their range checks): the same clamp and half added, then the truncation done in
    /// floating point. Adding 1.5 * 2^52 rounds to the nearest integer (the FPU's rounding, ties
    /// to even); one step toward zero where that went past `t` makes it the truncation.
    @inlinable @inline(__always)
    public static func gridValue(_ v: Double, _ units: Double) -> Double {
        let y = v * units
        let t = y < 0 ? Swift.max(y, -0x1p50) - 0.5 : Swift.min(y, 0x1p50) + 0.5
        var r = (t + 0x1.8p52) - 0x1.8p52
        if t < 0 {
            if r < t { r += 1 }
        } else if r > t {
            r -= 1
        }
        return r / units
    }

    /// The fix as the log stores a raw fix (LOG_FORMAT.md section 7's integer units, speed in
    /// mm/s) and a reader gives it back: what the rules judge when raw fixes are kept, so that a
    /// replay of the stored fixes judges exactly the same numbers. A non-finite optional value,
    /// or one outside `FixBounds` (which a reader leaves out), is absent, as in the log; except
    /// an error estimate above the bounds, which is the bound: a receiver saying "worse than
    /// that" (u-blox says 4,295 km without a fix) must still be rough to the rules, not unknown.
    /// A latitude or longitude that is not finite stays as it is (rule 2 drops the fix).
    public var atLogResolution: Fix {
        @inline(__always) func q(_ v: Double, _ units: Double, _ bounds: ClosedRange<Double>) -> Double {
            guard v.isFinite else { return .nan }
            let x = Self.gridValue(v, units)
            return bounds.contains(x) ? x : .nan
        }
        @inline(__always) func e(_ v: Double) -> Double {
            v.isFinite && v > FixBounds.accuracy.upperBound ? FixBounds.accuracy.upperBound : q(v, 100, FixBounds.accuracy)
        }
        var f = self
        if lat.isFinite { f.lat = Self.gridValue(lat, 1e7) }
        if lon.isFinite { f.lon = Self.gridValue(lon, 1e7) }
        f.storedAltHAE = q(storedAltHAE, 100, FixBounds.height)
        f.storedAltMSL = q(storedAltMSL, 100, FixBounds.height)
        f.storedEph = e(storedEph)
        f.storedEpx = e(storedEpx)
        f.storedEpy = e(storedEpy)
        f.storedEpv = e(storedEpv)
        f.storedSpeed = q(storedSpeed, 1000, FixBounds.speed)
        f.storedTrack = q(storedTrack, 100, FixBounds.track)
        f.storedClimb = q(storedClimb, 1000, FixBounds.climb)
        f.storedPressurePa = q(storedPressurePa, 10, FixBounds.pressure)
        f.storedTemperatureC = q(storedTemperatureC, 100, FixBounds.temperature)
        return f
    }
}

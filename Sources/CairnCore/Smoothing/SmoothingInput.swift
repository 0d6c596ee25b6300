/// Puts a trip's points and the fixes the rules only thinned out (its raw fixes, record type 8)
/// in one time order for the smoother (`TrackSmoother.push` and `aid`).
///
/// The log writes a fix's verdict when the rules have decided it, which can be after later points
/// were written (the rules hold some fixes back): the raw fixes trail the points, or lead them
/// within a sync. A point is handed on once a raw fix at or after its time has been read (every
/// kept point is among the raw fixes too; only a kept or thinned one counts, a fix dropped for
/// its time may lie far ahead), with the thinned fixes before it; a segment start waits
/// for the point after it, so the thinned fixes before that point stay with the segment they
/// follow. Bounded: past `capacity` waiting points or thinned fixes the oldest is handed on
/// anyway (a trip whose raw fixes stop: recorded partly with `--raw off`).
public struct SmoothingInput: Sendable {
    public enum Output: Sendable {
        case item(TrackItem)
        case aid(Fix)
    }

    public static let capacity = 4096

    private var items: [TrackItem] = []
    private var itemsHead = 0
    private var aids: [Fix] = []
    private var aidsHead = 0
    /// The times of the points waiting in `items`, oldest first: the next one is found at once,
    /// however many segment starts wait before it.
    private var pointTimes: [Int64] = []
    private var pointTimesHead = 0
    /// The newest raw fix's time read so far, and the newest time handed on.
    private var rawMs = Int64.min
    private var releasedMs = Int64.min

    public init() {}

    /// A point or segment start of the trip, as recorded.
    public mutating func push(_ item: TrackItem, release: (Output) -> Void) {
        items.append(item)
        if case .point(let f, _) = item { pointTimes.append(f.timeMs) }
        drain(release)
        while items.count - itemsHead > Self.capacity { releaseOldest(release) }
    }

    /// One of the trip's raw fixes, in the order the log holds them.
    public mutating func push(raw: RawFix, release: (Output) -> Void) {
        let t = raw.fix.timeMs
        var thins = false
        if case .dropped(let why) = raw.verdict { thins = why.onlyThins }
        if thins, t > releasedMs, t > (aids.last.map(\.timeMs) ?? .min) || aidsHead == aids.count {
            aids.append(raw.fix)
        }
        // Only a fix on the time line says how far the raw fixes got: one the rules dropped for
        // its time (a week rollover's, rule 12) or never decided may lie years ahead.
        if t > rawMs && (thins || raw.verdict == .kept) { rawMs = t }
        drain(release)
        while aids.count - aidsHead > Self.capacity { releaseOldest(release) }
    }

    /// Hands on everything still waiting (the end of the trip).
    public mutating func finish(release: (Output) -> Void) {
        while itemsHead < items.count || aidsHead < aids.count { releaseOldest(release) }
        items.removeAll(keepingCapacity: true)
        aids.removeAll(keepingCapacity: true)
        pointTimes.removeAll(keepingCapacity: true)
        itemsHead = 0
        aidsHead = 0
        pointTimesHead = 0
    }

    /// The time of the first waiting point (segment starts before it wait with it), if any.
    private var nextPointMs: Int64? {
        pointTimesHead < pointTimes.count ? pointTimes[pointTimesHead] : nil
    }

    private mutating func drain(_ release: (Output) -> Void) {
        while let t = nextPointMs, t <= rawMs { releasePoint(release) }
        compact()
    }

    /// Hands on the thinned fixes before the next point, the segment starts before it and the point.
    private mutating func releasePoint(_ release: (Output) -> Void) {
        guard let t = nextPointMs else { return }
        while aidsHead < aids.count && aids[aidsHead].timeMs < t { releaseAid(release) }
        while itemsHead < items.count {
            let item = items[itemsHead]
            itemsHead += 1
            release(.item(item))
            if case .point(let f, _) = item {
                pointTimesHead += 1
                releasedMs = max(releasedMs, f.timeMs)
                break
            }
        }
    }

    private mutating func releaseAid(_ release: (Output) -> Void) {
        let f = aids[aidsHead]
        aidsHead += 1
        if f.timeMs > releasedMs {
            releasedMs = f.timeMs
            release(.aid(f))
        }
    }

    /// Hands on the oldest thing waiting, whatever the raw fixes say.
    private mutating func releaseOldest(_ release: (Output) -> Void) {
        let point = nextPointMs
        if aidsHead < aids.count, point.map({ aids[aidsHead].timeMs < $0 }) ?? true {
            releaseAid(release)
        } else if point != nil {
            releasePoint(release)
        } else {
            // Segment starts with no point after them (the end of the trip).
            while itemsHead < items.count {
                release(.item(items[itemsHead]))
                itemsHead += 1
            }
        }
        compact()
    }

    /// Drops what was handed on from the front of the queues (in amortised constant time).
    private mutating func compact() {
        if itemsHead > 0 && itemsHead * 2 >= items.count {
            items.removeFirst(itemsHead)
            itemsHead = 0
        }
        if aidsHead > 0 && aidsHead * 2 >= aids.count {
            aids.removeFirst(aidsHead)
            aidsHead = 0
        }
        if pointTimesHead > 0 && pointTimesHead * 2 >= pointTimes.count {
            pointTimes.removeFirst(pointTimesHead)
            pointTimesHead = 0
        }
    }
}

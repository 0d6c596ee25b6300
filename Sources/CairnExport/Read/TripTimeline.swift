import CairnCore
import CairnLog

/// One decision that shaped a trip, from its raw fixes and records (`cairn info --why`).
public enum TimelineEvent: Equatable, Sendable {
    /// The recorder started (the rules had judged nothing before this fix).
    case recorderStarted(atMs: Int64)
    /// gpsd went away: the rules released what they held before the fix at this time.
    case gpsdLost(atMs: Int64)
    /// The trip was closed for want of any fix before the fix at this time.
    case closedWithoutFix(atMs: Int64)
    /// Fixes the rules judged that the log does not hold (a long wait before the trip opened,
    /// or values the format cannot hold), before the fix at this time.
    case notLogged(count: UInt64, beforeMs: Int64?)
    /// A run of consecutive fixes dropped by one rule (nil: written before the rules decided).
    /// `beforeStart`: before the trip's first point (why it did not start earlier).
    case dropped(DropReason?, count: Int, fromMs: Int64, toMs: Int64, beforeStart: Bool)
    /// The trip's first point: where it started.
    case started(atMs: Int64)
    /// A new segment (nothing drawn across a pause or reset; a gap keeps none either).
    case segment(SegmentReason, atMs: Int64?)
    /// The trip's end record.
    case ended(TripEndReason, atMs: Int64?)
    /// The rider's button (record type 10): a lap marked, or the trip ended by hand; `atMs` nil
    /// for a press without a usable time (told where the log holds it).
    case riderMark(RiderMark.Kind, atMs: Int64?)
}

/// Streams a trip's timeline: its raw fixes' verdicts grouped into runs, in time order with its
/// segment starts. Memory is bounded: one run, one record and a few waiting segment starts.
public enum TripTimeline {
    /// Throws `TripRaw.missing` for a trip without raw fixes.
    public static func read(_ trip: TripRef, visit: (TimelineEvent) -> Void) throws {
        var run: (reason: DropReason?, undecided: Bool, count: Int, from: Int64, to: Int64)?
        var started = false
        var firstSegment = true
        var segments = RingBuffer<(SegmentReason, Int64?)>(capacity: 64)
        var raws = 0
        func closeRun() {
            guard let r = run else { return }
            visit(.dropped(r.undecided ? nil : r.reason, count: r.count, fromMs: r.from, toMs: r.to, beforeStart: !started))
            run = nil
        }
        func segment(_ s: (SegmentReason, Int64?)) {
            closeRun()
            // The first segment's start is the trip's start, told with its first point.
            if firstSegment && s.0 == .start { firstSegment = false; return }
            firstSegment = false
            visit(.segment(s.0, atMs: s.1))
        }
        /// The segment starts due by `t` (segment starts are written at once, raw fixes at the next sync).
        func segmentsDue(by t: Int64?) {
            while let s = segments.first, t == nil || (s.1 ?? Int64.min) <= t! {
                segments.popFirst()
                segment(s)
            }
        }
        // The rider's marks, told in time order among the fixes as segment starts are.
        var marks = RingBuffer<RiderMark>(capacity: 64)
        func marksDue(by t: Int64?) {
            while let m = marks.first, t == nil || m.timeMs <= t! {
                marks.popFirst()
                closeRun()
                visit(.riderMark(m.kind, atMs: m.timeMs))
            }
        }
        // The end record is written when the trip closes, but the raw fixes judged before it
        // (a standstill's, say) reach the log at the next sync, after it: the end is told once
        // its file has been read, after everything that came before it.
        var ended: TripEnd?
        func tellEnd() {
            guard let end = ended else { return }
            ended = nil
            segmentsDue(by: nil)
            marksDue(by: nil)
            closeRun()
            visit(.ended(end.reason, atMs: end.lastTimeMs))
        }
        for f in trip.files {
            defer { tellEnd() }
            try LogReader(path: f.path).forEach { entry in
                switch entry.record {
                case .segmentStart(let reason, let t):
                    tellEnd()
                    if segments.isFull, let s = segments.popFirst() { segment(s) }
                    segments.append((reason, t))
                case .tripEnd(let end):
                    tellEnd()
                    ended = end
                case .riderMark(let m) where !m.hasUsableTime:
                    closeRun()
                    visit(.riderMark(m.kind, atMs: nil))
                case .riderMark(let m):
                    if marks.isFull { marksDue(by: marks.first?.timeMs) }
                    marks.append(m)
                case .rawFixes(let batch):
                    if batch.leftOutBefore > 0 {
                        closeRun()
                        visit(.notLogged(count: batch.leftOutBefore, beforeMs: batch.fixes.first?.fix.timeMs))
                    }
                    for r in batch.fixes {
                        raws += 1
                        let t = r.fix.timeMs
                        segmentsDue(by: t)
                        marksDue(by: t)
                        if !r.events.isEmpty { closeRun() }
                        if r.events.contains(.runStart) { visit(.recorderStarted(atMs: t)) }
                        if r.events.contains(.closedWithoutFix) {
                            visit(.closedWithoutFix(atMs: t))
                        } else if r.events.contains(.rulesFlushed) {
                            visit(.gpsdLost(atMs: t))
                        }
                        switch r.verdict {
                        case .kept:
                            closeRun()
                            if !started {
                                started = true
                                visit(.started(atMs: t))
                            }
                        case .dropped(let reason):
                            if let c = run, !c.undecided, c.reason == reason {
                                run = (reason, false, c.count + 1, c.from, t)
                            } else {
                                closeRun()
                                run = (reason, false, 1, t, t)
                            }
                        case .undecided:
                            if let c = run, c.undecided {
                                run = (nil, true, c.count + 1, c.from, t)
                            } else {
                                closeRun()
                                run = (nil, true, 1, t, t)
                            }
                        }
                    }
                default:
                    break
                }
                return true
            }
        }
        segmentsDue(by: nil)
        marksDue(by: nil)
        closeRun()
        if raws == 0 { throw TripRaw.missing(trip) }
    }
}

import CairnCore
import CairnLog

/// Runs the rules again over a trip's raw fixes (`TripRecorder.replay`): the track as the rules
/// make it now, or with another activity's limits. Streamed: one recorder's state, one record.
public enum TripReplay {
    public struct Options: Sendable {
        /// The activity to judge by; nil: the one each fix was recorded with.
        public var activity: ActivityProfile?
        /// The close limit (a standstill this long ends the trip); nil: the recorded one.
        public var closeAfterMs: Int64?
        public var limits = RuleLimits()
        /// The trips of the logs being read (`TripCatalog.trips`): where the trips recorded
        /// before a trip in its directory are found.
        public var logTrips: [TripRef] = []
        /// Also stream each fix the replay judged, with its new verdict (`TripEvent.raw`).
        public var judged = false
        /// The rules' state at the end of the trip replayed last, for the trip after it in the
        /// same run: given, trips read in order replay their run once (linear), instead of
        /// every earlier trip of the run again for each.
        public var carry: Carry?
        public init(activity: ActivityProfile? = nil, closeAfterMs: Int64? = nil) {
            self.activity = activity
            self.closeAfterMs = closeAfterMs
        }
    }

    /// The rules as the last trip read left them (`Options.carry`); only a state the replay of
    /// the run from its start would reach is kept.
    public final class Carry: @unchecked Sendable {
        var afterTrip: (id: UInt64, path: String)?
        var recorder: TripRecorder<FixRules>?
        public init() {}
    }

    /// Streams the re-filtered trip: `visit` gets its segment starts and points (and with
    /// `Options.judged` the fixes with their new verdicts) as
    /// `TripCatalog.read` gives the recorded ones (at the points record's resolution); the summary's figures and drop counts are the
    /// new rules'. `warn` is told when the replay cannot be exact (the rules' state before the
    /// first stored fix is unknown).
    /// A trip that did not start a recorder run (a standstill or a silence closed the one
    /// before, and the ride went on) is judged by rules that remember that run's earlier trips
    /// (`Options.logTrips`): those are run through first, from the run's start, without output.
    @discardableResult
    public static func read(
        _ trip: TripRef, options: Options = Options(), warn: (String) -> Void = { _ in },
        visit: (TripEvent) -> Void = { _ in }
    ) throws -> TripSummary {
        var s = TripSummary(id: trip.id, files: trip.files.map(\.path))
        var recorder: TripRecorder<FixRules>?
        var lastTime: Int64?
        var lastKept: Fix?
        var runStarts = 0
        var checkedStart = false
        // What the recorder does before this trip opens (the end of the trip before, when the
        // run is replayed from its start) is not this trip's.
        var opened = false
        func act(_ a: RecorderAction) {
            if case .openTrip = a { opened = true }
            guard opened else { return }
            switch a {
            case .startSegment(let reason, _):
                s.stats.startSegment(reason)
                visit(.segment(reason))
            case .keep(let kept):
                // As the points record would hold it: the export of a recording made anew.
                let fix = PointResolution.stored(kept)
                if let t = lastTime, fix.timeMs <= t { return }
                lastTime = fix.timeMs
                lastKept = fix
                s.stats.add(fix)
                visit(.point(fix))
            case .closeTrip(let totals):
                add(totals.drops)
                // The barometer's climb over every fix kept or thinned out, as the recorder counted
                // it (the replay sees the kept ones only).
                s.stats.takeOfferedClimb(from: totals.stats)
            case .raw(let r):
                visit(.raw(r))
            case .openTrip:
                break
            }
        }
        func add(_ d: DropCounts) {
            for c in d.nonzero {
                let (sum, overflow) = s.drops[rule: c.rule].addingReportingOverflow(c.count)
                s.drops.set(rule: c.rule, count: overflow ? .max : sum)
            }
        }
        func newRecorder(_ raw: RawFix, _ batch: RawBatch) -> TripRecorder<FixRules> {
            var profile = options.activity ?? ActivityProfile.named(batch.activity) ?? .ride
            profile.closeAfterMs = options.closeAfterMs ?? (raw.settings.closeAfterMs > 0 ? raw.settings.closeAfterMs : profile.closeAfterMs)
            var config = TripRecorder<FixRules>.Config()
            config.clockIsFix = raw.settings.clockIsFix
            config.closeWithoutFixMs = profile.closeAfterMs
            config.keepsRaw = options.judged
            return TripRecorder(filter: FixRules(profile: profile, limits: options.limits), config: config)
        }
        // The run this trip continues, from its start: the earlier trips' raw fixes.
        var warmedUp = false
        let startsARun = try startsRun(trip)
        let before = startsARun ? [] : earlier(trip, options.logTrips)
        if !startsARun, let carry = options.carry, let r = carry.recorder, let p = before.last,
            let after = carry.afterTrip, after.id == p.id, after.path == p.files.first?.path
        {
            recorder = r
            warmedUp = true
        } else if !startsARun, let run = try runBefore(before) {
            for (k, t) in run.trips.enumerated() {
                var index = 0
                try TripRaw.read(t) { raw, batch in
                    defer { index += 1 }
                    if k == 0 && index < run.firstIndex { return }
                    if recorder == nil || raw.events.contains(.runStart) { recorder = newRecorder(raw, batch) }
                    recorder!.replay(raw) { _ in }
                }
            }
            warmedUp = recorder != nil
        }
        func endRun() {
            guard var r = recorder else { return }
            r.finish(wallClockMs: lastTime ?? 0, emit: act)
            if opened, r.tripOpen { s.stats.takeOfferedClimb(from: r.stats) }
            add(r.drops)
            recorder = nil
        }
        try TripRaw.read(trip) { raw, batch in
            if !checkedStart {
                checkedStart = true
                if batch.leftOutBefore > 0 || !(raw.events.contains(.runStart) || warmedUp) {
                    warn(
                        "trip \(trip.id): the rules had judged fixes before its first stored one "
                            + (batch.leftOutBefore > 0
                                ? "(\(batch.leftOutBefore) waited longer than the recorder keeps them before a trip) "
                                : "(a trip after another in one recording) ")
                            + "that are not in the log: its first points may differ from a recording made anew")
                }
            }
            if raw.events.contains(.runStart) || recorder == nil {
                if recorder != nil { runStarts += 1 }
                endRun()
                var r = newRecorder(raw, batch)
                // A later run continued the trip as a previous run left it (a restart resumes).
                r.resumeCandidate = lastKept
                recorder = r
            }
            if s.activity == nil { s.activity = recorder!.filter.profile.name }
            recorder!.replay(raw, emit: act)
        }
        if let carry = options.carry {
            // The state the next trip's warm-up would reach: this trip continued its run (or
            // started one) and no restart inside it made a recorder resume from a point.
            let genuine = (warmedUp || startsARun) && runStarts == 0
            carry.recorder = genuine ? recorder : nil
            carry.afterTrip = genuine ? trip.files.first.map { (trip.id, $0.path) } : nil
        }
        endRun()
        // The trip's own facts: its recorded UTC offset and board.
        if let first = trip.files.first {
            try LogReader(path: first.path).forEach { e in
                if case .tripStart(_, _, let o, let b) = e.record {
                    s.utcOffsetS = o
                    s.board = b
                }
                return false
            }
        }
        return s
    }

    /// The trips recorded before `trip` in its directory, oldest first.
    static func earlier(_ trip: TripRef, _ all: [TripRef]) -> [TripRef] {
        func directory(_ t: TripRef) -> Substring? {
            guard let p = t.files.first?.path, let slash = p.lastIndex(of: "/") else { return t.files.isEmpty ? nil : "" }
            return p[..<slash]
        }
        let here = directory(trip)
        return all.filter { $0.id < trip.id && directory($0) == here }.sorted { $0.id < $1.id }
    }

    /// Whether the trip's first raw fix started a recorder run (or the trip has none).
    static func startsRun(_ trip: TripRef) throws -> Bool {
        for f in trip.files {
            var first: RawFix?
            try LogReader(path: f.path).forEach { entry in
                if case .rawFixes(let b) = entry.record, let r = b.fixes.first { first = r }
                return first == nil
            }
            if let r = first { return r.events.contains(.runStart) }
        }
        return true
    }

    /// The recorder run that the trip after `earlier` continues: its trips, oldest first, and the
    /// index of the run's first raw fix in the first of them; nil if it cannot be found (a trip
    /// without raw fixes on the way, or none that starts a run).
    static func runBefore(_ earlier: [TripRef]) throws -> (trips: [TripRef], firstIndex: Int)? {
        var trips: [TripRef] = []
        for t in earlier.reversed() {
            var index = 0, lastStart: Int?
            var any = false
            for f in t.files {
                try LogReader(path: f.path).forEach { entry in
                    guard case .rawFixes(let b) = entry.record else { return true }
                    for r in b.fixes {
                        any = true
                        if r.events.contains(.runStart) { lastStart = index }
                        index += 1
                    }
                    return true
                }
            }
            guard any else { return nil }
            trips.insert(t, at: 0)
            if let i = lastStart { return (trips, i) }
        }
        return nil
    }
}

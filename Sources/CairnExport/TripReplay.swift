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
        public init(activity: ActivityProfile? = nil, closeAfterMs: Int64? = nil) {
            self.activity = activity
            self.closeAfterMs = closeAfterMs
        }
    }

    /// Streams the re-filtered trip: `visit` gets its segment starts and points as
    /// `TripCatalog.read` gives the recorded ones (at the points record's resolution); the summary's figures and drop counts are the
    /// new rules'. `warn` is told when the replay cannot be exact (the rules' state before the
    /// first stored fix is unknown).
    @discardableResult
    public static func read(_ trip: TripRef, options: Options = Options(), warn: (String) -> Void = { _ in },
                            visit: (TripEvent) -> Void = { _ in }) throws -> TripSummary {
        var s = TripSummary(id: trip.id, files: trip.files.map(\.path))
        var recorder: TripRecorder<FixRules>?
        var lastTime: Int64?
        var lastKept: Fix?
        var runStarts = 0
        var checkedStart = false
        func act(_ a: RecorderAction) {
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
            case .openTrip, .raw:
                break
            }
        }
        func add(_ d: DropCounts) {
            for c in d.nonzero {
                let (sum, overflow) = s.drops[rule: c.rule].addingReportingOverflow(c.count)
                s.drops.set(rule: c.rule, count: overflow ? .max : sum)
            }
        }
        func endRun() {
            guard var r = recorder else { return }
            r.finish(wallClockMs: lastTime ?? 0, emit: act)
            add(r.drops)
            recorder = nil
        }
        try TripRaw.read(trip) { raw, batch in
            if !checkedStart {
                checkedStart = true
                if batch.leftOutBefore > 0 || !raw.events.contains(.runStart) {
                    warn("trip \(trip.id): the rules had judged fixes before its first stored one "
                         + (batch.leftOutBefore > 0 ? "(\(batch.leftOutBefore) waited longer than the recorder keeps them before a trip) " : "(a trip after another in one recording) ")
                         + "that are not in the log: its first points may differ from a recording made anew")
                }
            }
            if raw.events.contains(.runStart) || recorder == nil {
                if recorder != nil { runStarts += 1 }
                endRun()
                var profile = options.activity ?? ActivityProfile.named(batch.activity) ?? .ride
                profile.closeAfterMs = options.closeAfterMs ?? (raw.settings.closeAfterMs > 0 ? raw.settings.closeAfterMs : profile.closeAfterMs)
                if s.activity == nil { s.activity = profile.name }
                var config = TripRecorder<FixRules>.Config()
                config.clockIsFix = raw.settings.clockIsFix
                config.closeWithoutFixMs = profile.closeAfterMs
                var r = TripRecorder(filter: FixRules(profile: profile, limits: options.limits), config: config)
                // A later run continued the trip as a previous run left it (a restart resumes).
                r.resumeCandidate = lastKept
                recorder = r
            }
            recorder!.replay(raw, emit: act)
        }
        endRun()
        // The trip's own facts: its recorded UTC offset.
        if let first = trip.files.first {
            try LogReader(path: first.path).forEach { e in
                if case .tripStart(_, _, let o) = e.record { s.utcOffsetS = o }
                return false
            }
        }
        return s
    }
}

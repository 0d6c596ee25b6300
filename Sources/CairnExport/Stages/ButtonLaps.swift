import CairnCore

/// The laps one export of a trip makes by default (`LapRule.marksElsePause`), counted by a first
/// streamed pass through the same stages as the export's points: the rider's laps when a press
/// makes one in this export, else pause laps. Only presses that make a lap decide (one inside a
/// privacy zone, before the second point written or after the last makes none), so the
/// default says nothing of a press the export leaves out; `info` lists the same laps.
public struct ButtonLaps: Sendable, Equatable {
    /// When each lap after the first starts (the last point at or before its press: where the
    /// exports put the boundary), at most `LapSplitter.maxLaps - 1`.
    public var startsMs: [Int64] = []
    /// The laps the pause rule makes of the same points (the default without the rider's laps).
    public var pauseLaps = 1
    /// The rider's end press as the exports place it (the last point at or before it, where
    /// they end; nil without one, or one placed nowhere), and the points after it they leave out.
    public var endMs: Int64?
    public var afterEnd = 0
    /// Counted on a trainer's records (the wheel's samples), which `afterEnd` counts.
    public var onWheel = false
    /// A trainer's trip that went outdoors, ended by a press indoors: the indoor records after
    /// it the exports leave out (`afterEnd` counts its points alone: they are not records).
    public var recordsAfterEnd = 0
    /// The end press lay before the trip's first point (a clock behind the fixes): placed
    /// nowhere, so every export keeps the whole trip (`EndCut`), and `info` says so.
    public var endBeforeStart = false

    public init(startsMs: [Int64] = [], pauseLaps: Int = 1) {
        self.startsMs = startsMs
        self.pauseLaps = pauseLaps
    }

    /// The rule the default takes for this export.
    public var rule: LapRule { startsMs.isEmpty ? .pause : .marks }
    /// The laps the exports write (FIT's `num_laps`).
    public var count: Int { startsMs.isEmpty ? pauseLaps : startsMs.count + 1 }

    /// Counts them for `trip`'s export through `window` and `pipeline` (nil: the points as
    /// recorded); `read` streams the trip's events, as for `ExportStages.summary`.
    public static func count(
        _ trip: TripRef, marks: TripMarks, window: PrivacyWindow?, pipeline: TrackPipeline? = nil,
        read: (TripRef, (TripEvent) -> Void) throws -> TripSummary = { try TripCatalog.read($0, visit: $1) }
    ) throws -> ButtonLaps {
        var counter = Counter(window: window, marks: marks)
        func points() throws -> TripSummary {
            if let pipeline {
                defer { pipeline.finish(emit: { counter.feed($0) }) }
                return try read(trip) { pipeline.push($0, emit: { counter.feed($0) }) }
            }
            return try read(trip) { e in
                switch e {
                case .segment(let r): counter.feed(.segment(r))
                case .point(let f): counter.feed(.point(f, .measured))
                case .raw: break
                }
            }
        }
        // A trainer's records are the wheel's samples, which the presses split as the export
        // does (`TripConversion`), with a segment after each pause of the wheel; no position,
        // so no zone to cut.
        func wheelRecords(_ w: WheelTrack, _ samples: ArraySlice<WheelTrack.Sample>) {
            let resumes = Set(w.resumes)
            for (i, s) in zip(samples.indices, samples) {
                if resumes.contains(i) { counter.feed(.segment(.pause)) }
                counter.feed(.point(Fix(timeMs: s.timeMs, lat: 0, lon: 0, mode: 1), .measured))
            }
        }
        let summary = try points()
        if summary.hasNoPositions, counter.lastMs == nil, let wheel = try WheelTrack.read(trip) {
            counter = Counter(window: nil, marks: marks)
            wheelRecords(wheel, wheel.samples[...])
            counter.laps.onWheel = true
        } else if pipeline == nil, let first = summary.wheelLeadToMs, let wheel = try WheelTrack.read(trip), let lead = wheel.lead(before: first) {
            // A trainer's trip that went outdoors: its indoor records, then its points (one
            // more pass, for such trips alone).
            counter = Counter(window: window, marks: marks)
            wheelRecords(wheel, lead.samples)
            counter.laps.recordsAfterEnd = counter.marks.afterEnd
            counter.feed(.segment(.start))
            _ = try points()
        }
        counter.laps.afterEnd = counter.marks.afterEnd - counter.laps.recordsAfterEnd
        if counter.marks.endPressMs != nil { counter.laps.endMs = counter.marks.lastWritten?.timeMs }
        counter.laps.endBeforeStart = marks.endMs != nil && counter.marks.endPressMs == nil
        return counter.laps
    }

    /// Both rules over one stream of the exported track's items.
    struct Counter {
        var marks: ExportStages
        var pause: ExportStages
        var laps = ButtonLaps()
        var lastMs: Int64?

        init(window: PrivacyWindow?, marks m: TripMarks) {
            marks = ExportStages(window: window, laps: .marks, marks: m)
            pause = ExportStages(window: window, laps: .pause, marks: TripMarks(endMs: m.endMs))
        }

        mutating func feed(_ item: TrackItem) {
            var lap: Int?
            var at: Int64?
            marks.feed(item, segment: { _ in }, point: { f, e in (lap, at) = (e.lap, f.timeMs) })
            if let l = lap, l > laps.startsMs.count + 1, let start = lastMs { laps.startsMs.append(start) }
            if let t = at { lastMs = t }
            var pauseLap: Int?
            pause.feed(item, segment: { _ in }, point: { _, e in pauseLap = e.lap })
            if let l = pauseLap { laps.pauseLaps = max(laps.pauseLaps, l) }
        }
    }
}

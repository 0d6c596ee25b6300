import CairnCore
import CairnLog

/// What stands between a trip's exported track (as recorded, or through `TrackPipeline`) and a
/// writer: the privacy window (no point inside a zone's cut circle is written, wherever in the
/// ride) and the lap numbering, in that order, so laps and figures count what the export holds.
/// Streamed: constant memory whatever the trip's length.
///
/// Segment starts are passed on just before the next point that is written (several in a row
/// as one, the last: what every writer makes of them), so a segment that lies wholly inside a
/// zone leaves no trace. A stretch left out between written points starts a new segment
/// (`SegmentReason.hidden`): never a line drawn through the zone, no distance counted across it.
public struct ExportStages: Sendable {
    public let window: PrivacyWindow?
    public private(set) var laps: LapSplitter
    private var pendingSegment: SegmentReason?
    private var wrote = false
    private var hiding = false
    /// Points left out by the privacy window, and the stretches they make (each run of them).
    public private(set) var leftOut = 0
    public private(set) var stretches = 0
    /// The first point written (its time names files; nil until one is).
    public private(set) var firstWritten: Fix?
    /// Made-up points (`--fill-gaps`) written: a chord across a zone loses those inside it.
    public private(set) var interpolatedWritten = 0
    /// The rider's end press (`TripMarks.endMs`): the export ends at the last point at or before
    /// it, as a device stops recording at its stop button; nil once a first point lies after
    /// it (a press on a clock behind the fixes' places nothing: no trip is cut away whole).
    public var endPressMs: Int64? { endCut.endMs }
    /// Points after the end press, left out (the log keeps them; `--raw` writes them).
    public var afterEnd: Int { endCut.after }
    private var endCut: EndCut
    /// The last point written (before a left-out stretch: the zone's edge, where a lap pressed
    /// inside the zone starts).
    public private(set) var lastWritten: Fix?
    /// The wheel's distance (a tunnel's gap: `WheelTrack.extraMetres`): each point's
    /// `wheelExtraM`, and the distance laps count it, as FIT's records do (attack-r21 F5).
    public var wheel: WheelTrack? { didSet { endCut = EndCut(endMs: endCut.endMs, wheel: wheel) } }
    /// The rider's end press lies in the wheel's ride before the first point (a trainer's indoor
    /// part) and every point came after it: the export is that part's records up to the press.
    public var endsInLead: Bool { endCut.inLead && lastWritten == nil && leftOut == 0 }
    /// The point before, for a gap the wheel measured (nil after a segment that does not bridge).
    private var wheelBefore: Fix?

    /// `marks`: the trip's presses, for the rider's laps (`LapRule.marks`, `.marksElsePause`)
    /// and its end press.
    public init(window: PrivacyWindow?, laps: LapRule, marks: TripMarks = .none) {
        self.window = window
        self.laps = LapSplitter(laps, marks: marks)
        endCut = EndCut(endMs: marks.endMs)
    }

    /// The points' distance laps go on from the wheel's `metres` before the first point
    /// (`LapSplitter.goOn`): call before the first point, when the export writes that lead.
    public mutating func lapsGoOn(fromM metres: Double) { laps.goOn(fromM: metres) }

    /// Feeds one event of the trip as recorded; calls `segment` and `point` for what the export gets.
    public mutating func feed(_ event: TripEvent, segment: (SegmentReason) -> Void, point: (Fix, PointExtras) -> Void) {
        switch event {
        case .segment(let r): feed(TrackItem.segment(r), segment: segment, point: point)
        case .point(let f): feed(TrackItem.point(f, .measured), segment: segment, point: point)
        case .raw: break  // what the pipeline learns from, never exported
        }
    }

    /// Feeds one item of the exported track (`TrackPipeline`'s: smoothed or filled points carry
    /// their origin); calls `segment` and `point` for what the export gets.
    public mutating func feed(_ item: TrackItem, segment: (SegmentReason) -> Void, point: (Fix, PointExtras) -> Void) {
        switch item {
        case .segment(let r):
            // Every reason reaches the laps (a pause followed by a gap is still a pause); a pause
            // before the first point written starts no lap.
            laps.segment(r)
            pendingSegment = r
        case .point(let f, let origin):
            if endCut.cuts(f, placed: lastWritten != nil || hiding) { return }
            if let w = window, !w.keeps(f) {
                leftOut += 1
                if !hiding { stretches += 1 }
                hiding = true
                return
            }
            let afterLeftOut = hiding && wrote
            if afterLeftOut {
                // A left-out stretch between written points: a break, whatever was recorded in it.
                laps.segment(.hidden)
                pendingSegment = .hidden
            }
            hiding = false
            if let r = pendingSegment {
                pendingSegment = nil
                if !TripStats.bridges(r) { wheelBefore = nil }
                segment(r)
            }
            var extras = PointExtras(f, origin: origin)
            if let wheel, let b = wheelBefore { extras.wheelExtraM = wheel.extraMetres(from: b, to: f) }
            wheelBefore = f
            extras.lap = laps.lap(of: f, extraM: extras.wheelExtraM ?? 0)
            // A press in the left-out stretch: its lap starts at the zone's edge (the last point
            // written before it), its lap event there too, with no time from inside the zone
            // (PRIVACY.md): every lap a press makes has its event.
            if laps.startedAtMarkMs != nil { extras.lapMarkMs = afterLeftOut ? lastWritten?.timeMs : laps.startedAtMarkMs }
            if firstWritten == nil { firstWritten = f }
            lastWritten = f
            if origin == .interpolated { interpolatedWritten += 1 }
            wrote = true
            point(f, extras)
        }
    }

    /// A first pass for privacy zones: reads the trip to count what its window leaves out.
    public static func window(_ trip: TripRef, zones: PrivacyZones) throws -> PrivacyWindow {
        var w = zones.window(for: trip)
        try TripCatalog.read(trip) { e in
            if case .point(let f) = e { w.see(f) }
        }
        return w
    }

    /// The same with the zones cut as asked (no key): tests.
    public static func window(_ trip: TripRef, zones: [PrivacyZone]) throws -> PrivacyWindow {
        try window(trip, zones: PrivacyZones(zones))
    }

    /// The trip's summary (`TripCatalog.read`) with its figures counted over what the export
    /// holds: the track after `pipeline` (smoothing, gap filling), up to the rider's end press
    /// (`endPressMs`), and with a privacy window the written points only (the left-out
    /// stretches add no distance, time or climb to any figure an exporter writes); with none of
    /// them, the whole trip as recorded. The points go through the
    /// same stages as the export's second pass, so both see the same final points.
    /// `read` streams the trip's events (the recorded ones by default; `convert --refilter`
    /// gives the rules' new ones). `leftOut` is told how many points the window left out.
    public static func summary(
        _ trip: TripRef, window: PrivacyWindow?, pipeline: TrackPipeline? = nil, endPressMs: Int64? = nil,
        read: (TripRef, (TripEvent) -> Void) throws -> TripSummary = { try TripCatalog.read($0, visit: $1) },
        leftOut: (Int) -> Void = { _ in }
    )
        throws -> TripSummary
    {
        if window == nil && pipeline == nil && endPressMs == nil { return try read(trip, { _ in }) }
        var kept = TripStats()
        var stages = ExportStages(window: window, laps: .none, marks: TripMarks(endMs: endPressMs))
        // A press may lie in the wheel's ride before the first point (`EndCut`): read only then.
        if endPressMs != nil { stages.wheel = try WheelTrack.read(trip) }
        func add(_ item: TrackItem) {
            stages.feed(item, segment: { kept.startSegment($0) }, point: { f, _ in kept.add(f) })
        }
        var s: TripSummary
        if let pipeline {
            s = try read(trip) { pipeline.push($0, emit: add) }
            pipeline.finish(emit: add)
            s.smoothed = pipeline.smooths
            if let f = pipeline.filled {
                s.filledGaps = f.gaps
                s.interpolatedPoints = window == nil ? f.points : stages.interpolatedWritten
            }
        } else {
            s = try read(trip) { e in stages.feed(e, segment: { kept.startSegment($0) }, point: { f, _ in kept.add(f) }) }
        }
        // A trip without positions (a trainer): no position for a zone to cut, so its figures stay
        // the wheel's, up to the rider's end press, where every export ends
        // (`TripConversion.writeWithoutPositions`: the records up to it, the first always).
        if s.hasNoPositions {
            if let end = endPressMs, let wheel = try WheelTrack.read(trip), let cut = wheel.figures(upToMs: end, activity: s.activity) {
                (s.stats, s.wheelSamples) = cut
            }
            return s
        }
        // The rider ended the ride on the wheel before the first fix: the export is the wheel's
        // records up to the press, a trip without positions (`TripConversion`).
        if stages.endsInLead, let end = endPressMs, let wheel = stages.wheel, let cut = wheel.figures(upToMs: end, activity: s.activity) {
            (s.stats, s.wheelSamples) = cut
            s.wheelDistanceM = cut.0.distanceM
            (s.wheelLeadM, s.wheelLeadMovingMs, s.wheelLeadFromMs, s.wheelLeadToMs, s.wheelLeadSamples) = (0, 0, nil, nil, 0)
            leftOut(0)
            return s
        }
        // The top speed from positions is judged on the offered fixes, which the stages never
        // see: with a zone or the end press cutting, only those the export's window keeps
        // (attack-r21: a fast excursion inside home's zone made the exported top speed).
        // So is the barometer's climb, on every fix kept or thinned out (`TripStats.addOfferedHeight`).
        var top = s.stats
        if (s.stats.positionTopMps != nil || s.stats.offeredClimb.fromBarometer) && (window != nil || stages.afterEnd > 0) {
            let end = stages.afterEnd > 0 ? stages.endPressMs ?? .max : .max
            var only = s.stats.emptyForOffered
            _ = try TripCatalog.read(trip, raw: true) { e in
                guard case .raw(let r) = e, r.countsForTopSpeed, r.fix.timeMs <= end, window?.keeps(r.fix) ?? true else { return }
                only.addOffered(r.fix)
                if r.countsForClimb { only.addOfferedHeight(r.fix) }
            }
            top = only
        }
        kept.takePositionTop(from: top)
        kept.takeOfferedClimb(from: top)
        // The wheel's ride before the first point (a trainer's indoor part): every export that
        // holds records without a position writes it, and no zone or press cuts a position from it.
        // Only when the trip's first point is written: a zone that hid the start hides the lead.
        if let from = s.wheelLeadFromMs, kept.points > 0, kept.firstTimeMs == s.wheelLeadToMs, stages.leftOut == 0 {
            kept.addWheelLead(metres: s.wheelLeadM, movingMs: s.wheelLeadMovingMs, fromMs: from, topMps: s.wheelLeadTopMps)
        } else {
            // Hidden: the summary (`info`'s figures) says nothing of it either (attack-r23 case 7:
            // "664 m (9.60 km of it on the wheel before the first fix, from 08:00:00Z)").
            (s.wheelLeadM, s.wheelLeadMovingMs, s.wheelLeadFromMs, s.wheelLeadToMs, s.wheelLeadSamples) = (0, 0, nil, nil, 0)
        }
        // The wheel's ride after the last point (back on the trainer): FIT and CSV write it as
        // records without a position, up to the end press, after the trip's own last point only,
        // and, as the lead, with nothing left out by a zone (one may hide where the fixes end).
        if let from = s.wheelTrailFromMs, kept.points > 0, kept.lastTimeMs == from, stages.afterEnd == 0, stages.leftOut == 0 {
            if let end = endPressMs {
                let trail = stages.wheel?.trail(after: from, upToMs: end)
                s.dropWheelTrail()
                if let trail { s.takeWheelTrail(trail, afterMs: from) }
            }
            kept.addWheelTrail(
                metres: s.wheelTrailM, movingMs: s.wheelTrailMovingMs, toMs: s.wheelTrailToMs ?? from, topMps: s.wheelTrailTopMps)
        } else {
            s.dropWheelTrail()
        }
        s.stats = kept
        leftOut(stages.leftOut)
        return s
    }
}

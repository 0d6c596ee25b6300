import CairnCore
import CairnLog

/// What stands between a trip's exported track (as recorded, or through `TrackPipeline`) and a
/// writer: the privacy window (the runs inside a privacy zone at the start and the end left
/// out) and the lap numbering, in that order, so laps and figures count what the export holds. Streamed: constant memory whatever the trip's length.
///
/// Segment starts are passed on just before the next point that is written (several in a row
/// as one, the last: what every writer makes of them), so a segment that lies wholly inside the
/// left-out runs leaves no trace.
public struct ExportStages: Sendable {
    public let window: PrivacyWindow?
    public private(set) var laps: LapSplitter
    private var pendingSegment: SegmentReason?

    public init(window: PrivacyWindow?, laps: LapRule) {
        self.window = window
        self.laps = LapSplitter(laps)
    }

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
            if let w = window, !w.keeps(f) { return }
            if let r = pendingSegment {
                pendingSegment = nil
                segment(r)
            }
            var extras = PointExtras(f, origin: origin)
            extras.lap = laps.lap(of: f)
            point(f, extras)
        }
    }

    /// The first pass for privacy zones: reads the trip to find the stretch the export keeps.
    public static func window(_ trip: TripRef, zones: [PrivacyZone]) throws -> PrivacyWindow {
        var w = PrivacyWindow(zones: zones)
        try TripCatalog.read(trip) { e in
            if case .point(let f) = e { w.see(f) }
        }
        return w
    }

    /// The trip's summary (`TripCatalog.read`) with its figures counted over what the export
    /// holds: the track after `pipeline` (smoothing, gap filling), and with a privacy window the
    /// kept stretch only (the left-out runs add no distance, time or climb to any figure an
    /// exporter writes); with neither, the whole trip as recorded.
    /// `read` streams the trip's events (the recorded ones by default; `convert --refilter`
    /// gives the rules' new ones).
    public static func summary(
        _ trip: TripRef, window: PrivacyWindow?, pipeline: TrackPipeline? = nil,
        read: (TripRef, (TripEvent) -> Void) throws -> TripSummary = { try TripCatalog.read($0, visit: $1) }
    )
        throws -> TripSummary
    {
        if window == nil && pipeline == nil { return try read(trip, { _ in }) }
        var kept = TripStats()
        var stages = ExportStages(window: window, laps: .none)
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
                s.interpolatedPoints = f.points
            }
        } else {
            s = try read(trip) { e in stages.feed(e, segment: { kept.startSegment($0) }, point: { f, _ in kept.add(f) }) }
        }
        s.stats = kept
        return s
    }
}

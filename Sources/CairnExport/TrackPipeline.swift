import CairnCore

/// The export-side stages a conversion runs a trip's points through, in order: smoothing
/// (`TrackSmoother`), then gap filling (`GapFiller`, on the smoothed ends). Both stream: the
/// pipeline holds at most the smoother's lag, whatever the trip's length. With neither stage,
/// points pass through as measured.
public final class TrackPipeline {
    private var smoother: TrackSmoother?
    private var filler: GapFiller?
    public let smooths: Bool
    public let fillsGaps: Bool

    public init(smooth: Bool, fillGaps: Bool, activity: String?) {
        smooths = smooth
        fillsGaps = fillGaps
        smoother = smooth ? TrackSmoother(tuning: .forActivity(activity)) : nil
        filler = fillGaps ? GapFiller() : nil
    }

    /// What the filler did so far (gaps, of them straight chords, points made up); nil when off.
    public var filled: (gaps: Int, chords: Int, points: Int)? {
        filler.map { ($0.gaps, $0.chords, $0.points) }
    }

    public func push(_ event: TripEvent, emit: (TrackItem) -> Void) {
        let item: TrackItem
        switch event {
        case .segment(let r): item = .segment(r)
        case .point(let f): item = .point(f, .measured)
        }
        guard smoother != nil else { return fill(item, emit: emit) }
        // Taken out while it runs, so that its buffer stays uniquely referenced (no copy).
        var s = smoother!
        smoother = nil
        s.push(item) { fill($0, emit: emit) }
        smoother = s
    }

    /// Writes what the smoother still holds: call at the end of the trip.
    public func finish(emit: (TrackItem) -> Void) {
        guard var s = smoother else { return }
        smoother = nil
        s.finish { fill($0, emit: emit) }
        smoother = s
    }

    private func fill(_ item: TrackItem, emit: (TrackItem) -> Void) {
        guard var f = filler else { return emit(item) }
        filler = nil
        f.push(item, emit: emit)
        filler = f
    }
}

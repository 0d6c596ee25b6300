import CairnCore

/// The export-side stages a conversion runs a trip's points through, in order: smoothing
/// (`TrackSmoother`), then gap filling (`GapFiller`, on the smoothed ends). Both stream: the
/// pipeline holds at most the smoother's lag, whatever the trip's length. With neither stage,
/// points pass through as measured.
///
/// Given the trip's raw fixes (`usesRaw`: the log holds them), the smoother also learns from the
/// fixes the rules only thinned out (`SmoothingInput`): between buildings the rules keep about
/// one fix in several, and the ones between carry the doppler that tells the receiver's wander
/// from the road.
public final class TrackPipeline {
    private var smoother: TrackSmoother?
    private var filler: GapFiller?
    private var input: SmoothingInput?
    public let smooths: Bool
    public let fillsGaps: Bool

    public init(smooth: Bool, fillGaps: Bool, activity: String?, usesRaw: Bool = false) {
        smooths = smooth
        fillsGaps = fillGaps
        smoother = smooth ? TrackSmoother(tuning: .forActivity(activity)) : nil
        filler = fillGaps ? GapFiller() : nil
        input = smooth && usesRaw ? SmoothingInput() : nil
    }

    /// Whether the pipeline wants the trip's raw fixes (`TripEvent.raw`).
    public var usesRaw: Bool { input != nil }

    /// What the filler did so far (gaps, of them straight chords, points made up); nil when off.
    public var filled: (gaps: Int, chords: Int, points: Int)? {
        filler.map { ($0.gaps, $0.chords, $0.points) }
    }

    public func push(_ event: TripEvent, emit: (TrackItem) -> Void) {
        let item: TrackItem
        switch event {
        case .segment(let r): item = .segment(r)
        case .point(let f): item = .point(f, .measured)
        case .raw(let r):
            guard var i = input else { return }
            input = nil
            i.push(raw: r) { smooth($0, emit: emit) }
            input = i
            return
        }
        guard smoother != nil else { return fill(item, emit: emit) }
        if var i = input {
            input = nil
            i.push(item) { smooth($0, emit: emit) }
            input = i
        } else {
            smooth(.item(item), emit: emit)
        }
    }

    /// Writes what the smoother still holds: call at the end of the trip.
    public func finish(emit: (TrackItem) -> Void) {
        if var i = input {
            input = nil
            i.finish { smooth($0, emit: emit) }
            input = i
        }
        guard var s = smoother else { return }
        smoother = nil
        s.finish { fill($0, emit: emit) }
        smoother = s
    }

    private func smooth(_ x: SmoothingInput.Output, emit: (TrackItem) -> Void) {
        // Taken out while it runs, so that its buffer stays uniquely referenced (no copy).
        guard var s = smoother else { return }
        smoother = nil
        switch x {
        case .item(let item): s.push(item) { fill($0, emit: emit) }
        case .aid(let f): s.aid(f) { fill($0, emit: emit) }
        }
        smoother = s
    }

    private func fill(_ item: TrackItem, emit: (TrackItem) -> Void) {
        guard var f = filler else { return emit(item) }
        filler = nil
        f.push(item, emit: emit)
        filler = f
    }
}

import CairnCore

/// The export-side stages a conversion runs a trip's points through, in order: smoothing
/// (`TrackSmoother`), then gap filling (`GapFiller`, on the smoothed ends). Both stream: the
/// pipeline holds at most the smoother's lag, whatever the trip's length. With neither stage,
/// points pass through as measured.
///
/// Given the trip's raw fixes (`usesRaw`: the log holds them), the fixes the rules only thinned
/// out come in time order with the points (`SmoothingInput`): the smoother learns from them (where
/// the rules keep one fix in several, the ones between carry the doppler that tells the
/// receiver's wander from the road), and the filler fills only real dropouts, not a long step
/// the rules thinned (`GapFiller.push(_:silenceMs:emit:)`).
public final class TrackPipeline {
    private var smoother: TrackSmoother?
    private var filler: GapFiller?
    private var input: SmoothingInput?
    /// Per point on its way through the smoother, in order: the longest silence before it (the
    /// smoother holds at most `Tuning.maxPoints` entries).
    private var silences = RingBuffer<Int64>(capacity: 4096)
    private var lastFixMs: Int64?
    private var longestSilenceMs: Int64 = 0
    /// The privacy window the export goes through after the pipeline (`ExportStages`): a gap
    /// from or to a point it leaves out is not filled, since none of its made-up points would be
    /// written (they lie in time between the two ends), and the counts say what the export holds.
    private let window: PrivacyWindow?
    private var lastKept = false
    public let smooths: Bool
    public let fillsGaps: Bool
    /// Whether the pipeline wants the trip's raw fixes (`TripEvent.raw`).
    public let usesRaw: Bool

    public init(smooth: Bool, fillGaps: Bool, activity: String?, usesRaw: Bool = false, window: PrivacyWindow? = nil) {
        self.window = window
        smooths = smooth
        fillsGaps = fillGaps
        smoother = smooth ? TrackSmoother(tuning: .forActivity(activity)) : nil
        filler = fillGaps ? GapFiller() : nil
        self.usesRaw = (smooth || fillGaps) && usesRaw
        input = self.usesRaw ? SmoothingInput() : nil
    }

    /// What the filler did so far (gaps, of them straight chords, points made up); nil when off.
    public var filled: (gaps: Int, chords: Int, points: Int)? {
        filler.map { ($0.gaps, $0.chords, $0.points) }
    }

    /// Gaps the filler left unfilled (`GapFiller.tooLong`, `overBudget`); nil when off.
    public var unfilled: (tooLong: Int, overBudget: Int)? {
        filler.map { ($0.tooLong, $0.overBudget) }
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
        if var i = input {
            input = nil
            i.push(item) { smooth($0, emit: emit) }
            input = i
        } else if smoother != nil {
            smooth(.item(item), emit: emit)
        } else {
            fill(item, emit: emit)
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
        if usesRaw && filler != nil { noteSilence(x) }
        // Taken out while it runs, so that its buffer stays uniquely referenced (no copy).
        guard var s = smoother else {
            if case .item(let item) = x { fill(item, emit: emit) }
            return
        }
        smoother = nil
        switch x {
        case .item(let item): s.push(item) { fill($0, emit: emit) }
        case .aid(let f): s.aid(f) { fill($0, emit: emit) }
        }
        smoother = s
    }

    /// Counts the longest time without a usable fix before each point (the points and the thinned
    /// fixes in time order), for the filler.
    private func noteSilence(_ x: SmoothingInput.Output) {
        switch x {
        case .item(.segment):
            lastFixMs = nil
            longestSilenceMs = 0
        case .item(.point(let f, _)):
            silences.append(lastFixMs.map { max(longestSilenceMs, f.timeMs - $0) } ?? .max)
            lastFixMs = f.timeMs
            longestSilenceMs = 0
        case .aid(let f):
            if let t = lastFixMs { longestSilenceMs = max(longestSilenceMs, f.timeMs - t) }
            lastFixMs = f.timeMs
        }
    }

    private func fill(_ item: TrackItem, emit: (TrackItem) -> Void) {
        guard var f = filler else { return emit(item) }
        filler = nil
        var silence: Int64?
        if usesRaw, case .point = item { silence = silences.popFirst() }
        if let w = window, case .point(let p, _) = item {
            let kept = w.keeps(p)
            if !kept || !lastKept { silence = 0 }  // no step to fill that the export keeps
            lastKept = kept
        }
        f.push(item, silenceMs: silence, emit: emit)
        filler = f
    }
}

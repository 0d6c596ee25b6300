/// Rules 4 and 5: the jump reference and the fixes held to be judged by their successors.
///
/// 4. **No impossible jumps** (`jump`). A fix farther from the reference (the last kept point)
///    than the activity's fastest plausible speed (`ActivityProfile.maxSpeedMps`) over the time
///    between them, plus both fixes' uncertainty, is dropped. After
///    `RuleLimits.jumpsBeforeReset` (5) in a row the reference was the bad one: the next such
///    fix is taken and starts a new segment with no line across (`SegmentReason.reset`).
///    There is no reference at a trip start and after a gap, a pause or a reset.
/// 5. **No out-and-back spikes** (`spike`). Each fix is held until the next arrives (the live
///    view runs one fix behind because of this). A held fix B between the reference A and the
///    new C is a spike when the detour A→B→C exceeds the straight A→C by more than twice B's
///    uncertainty (at least 10 m) and one of its legs, A→B or B→C, is too fast: longer than 1.5 ×
///    the measured (doppler) speed of its ends (the faster; without one, the average speed
///    A→C) over that leg's time, plus both ends' uncertainty and 2 m. When B came too fast but C
///    sits by it (C's leg is not too fast), C is held too and the next fix D decides: B and C
///    both out, stood off the line A→D by more than twice their uncertainty (at least 10 m),
///    with the way out to B and the way back from C too fast, is a two-fix excursion; both are
///    dropped. Forced fixes (the first of a stop, a segment's start) are never spikes. A held
///    fix no successor will judge (a stop, a gap, the end) is dropped as a spike if its way in
///    was too fast, else kept.
///
/// Without a reference, a held fix is judged as a start (rule 1, `TripStart`).
struct SpikeHold {
    /// The reference for the jump and spike rules.
    var jumpRef: Fix?
    var jumpsInRow = 0
    /// A fix that passed the gates and waits for its successor, and whether it must be kept
    /// whatever the distance filter says (the first fix of a stop).
    var held: Fix?
    var heldForced = false
    /// A second held fix, when the first arrived too fast and this one sits by it.
    var secondHeld: Fix?
    var secondHeldForced = false

    /// The newest fix held, or nil.
    @inline(__always) var newest: Fix? { secondHeld ?? held }

    mutating func reset() {
        jumpRef = nil
        held = nil
        secondHeld = nil
        heldForced = false
        jumpsInRow = 0
    }

    /// `b` is within the jump limit of `a`.
    @inline(__always) static func withinJump(_ a: Fix, _ b: Fix, maxSpeedMps: Double, unknownM: Double, noiseM: Double = 0) -> Bool {
        let dt = Double(b.timeMs - a.timeMs) / 1000
        return Geodesy.distance(a, b) <= maxSpeedMps * dt + uncertainty(a, unknownM, noiseM) + uncertainty(b, unknownM, noiseM)
    }

    /// The leg p → q is longer than the measured speed allows over its own time (50 % slack
    /// plus both ends' uncertainty and 2 m). Without a measured speed, `fallback` is used.
    static func tooFast(_ p: Fix, _ q: Fix, fallback: Double, unknownM: Double, noiseM: Double = 0) -> Bool {
        let dt = Double(q.timeMs - p.timeMs) / 1000
        let v = max(p.speed ?? -1, q.speed ?? -1)
        return Geodesy.distance(p, q) > 1.5 * (v >= 0 ? v : fallback) * dt + uncertainty(p, unknownM, noiseM) + uncertainty(q, unknownM, noiseM) + 2
    }

    static func averageSpeed(_ a: Fix, _ c: Fix) -> Double {
        Geodesy.distance(a, c) / max(Double(c.timeMs - a.timeMs) / 1000, 0.001)
    }

    /// B stands off the way A → C and a leg to or from it is too fast: out and back (a leg that
    /// spans a stop is long in time, the other one is not).
    static func isSpike(_ a: Fix, _ b: Fix, _ c: Fix, unknownM: Double, noiseM: Double = 0) -> Bool {
        let ab = Geodesy.distance(a, b), bc = Geodesy.distance(b, c), ac = Geodesy.distance(a, c)
        guard ab + bc - ac > max(10, 2 * uncertainty(b, unknownM, noiseM)) else { return false }
        let v = averageSpeed(a, c)
        return tooFast(a, b, fallback: v, unknownM: unknownM, noiseM: noiseM) || tooFast(b, c, fallback: v, unknownM: unknownM, noiseM: noiseM)
    }

    /// B and C both stand off the way A → D, and the way out to B and the way back from C are
    /// too fast: a two-fix excursion.
    static func isExcursion(_ a: Fix, _ b: Fix, _ c: Fix, _ d: Fix, unknownM: Double, noiseM: Double = 0) -> Bool {
        let v = averageSpeed(a, d)
        guard tooFast(a, b, fallback: v, unknownM: unknownM, noiseM: noiseM), tooFast(c, d, fallback: v, unknownM: unknownM, noiseM: noiseM) else {
            return false
        }
        return DistanceFilter.offLine(b, a, d) > max(10, 2 * uncertainty(b, unknownM, noiseM))
            && DistanceFilter.offLine(c, a, d) > max(10, 2 * uncertainty(c, unknownM, noiseM))
    }

    /// The fix's 68 % horizontal uncertainty, or `unknownM` for a fix without one; at least the
    /// noise the receiver has shown (`noiseM`: `FixRules.shownNoise68`).
    @inline(__always) static func uncertainty(_ f: Fix, _ unknownM: Double, _ noiseM: Double = 0) -> Double {
        max(Accuracy.horizontal68(f) ?? unknownM, noiseM)
    }
}

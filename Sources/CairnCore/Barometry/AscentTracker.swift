#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Ascent and descent, the way riders' devices count them: from the calibrated barometric
/// altitude with a hysteresis of 3.3 × its learnt noise (1-2 m; 2 m until known) when there
/// is a barometer; otherwise from trusted GPS heights, averaged and counted with a hysteresis that
/// follow what the ride shows of the heights' noise.
///
/// GPS heights carry two errors, and each is learnt per ride (issue 28: a head unit's GPS-only
/// climb was +38 % where its heights wandered, while smooth Garmin series came out 6-11 % under):
/// - **Short-term noise** (fresh every fix), from the second differences of the heights (white
///   noise σ gives a mean |Δ²| of 0.8 × √6 σ; a slope and a slow wander give little). Until 10
///   heights have been seen the series counts as noisy (1.5 m).
/// - **Wander** (metres over minutes). Second differences do not see it, and along a single pass
///   it looks like terrain, so it is measured where the true change is zero: **the same place
///   reached again** 30 s to 15 min later (a stop: the fixes before and after it; a lap; an
///   out-and-back) gives the wander's difference over that time. A table of 256 places on a 20 m
///   grid (the latest visit to each, and the pass before it) finds those in O(1); a sample is the
///   height difference between two fixes at most 15 m apart. A stop shows the wander over its own
///   length, while the counter's turns are minutes apart: a sample is brought to 5 minutes
///   (× √(300 s / lag), at most 3). Revisits after more than 15 min are not used: over that long
///   a barometric series drifts with the weather too (the Edge 810 ride's out-and-back: 4.8 m
///   after 37 min), which is not the wander that adds climb. Before there are samples, the
///   receiver's own vertical figure (`Accuracy.vertical68`: VDOP × 3.5 m, or its estimate)
///   stands in: half of it, as the part that moves within minutes (the rest is a bias the ride
///   keeps), worth four samples.
/// The **hysteresis** is 3 × the wander's σ, at least 2 m and 3.3 × the short-term σ, at most 15 m.
/// The **average** is a box of 20 s × (the larger of the short-term σ and, once four revisits
/// have shown it, the wander's σ less 1 m) / 1.5 m, at most 20 s: a smooth series with little
/// wander (a barometric one behind NMEA, a clean receiver's rollers) is hardly averaged. A box, not an exponential average: a box shaves
/// a peak by a quarter of its width times the mean slope (2.8 m over 20 s at 8 % up and down), an
/// exponential average by twice that.
/// Evidence (generated rides, tuned on seeds 1-8, heights wandering σ 4 m over 2 min): the town
/// ride went from +32 % to +12 %, the hilly ride from -2.4 % to -0.9 %, the 3-hour one on noisy
/// heights from -8.8 % to -1 %; 2.5 × the wander left the town ride +22 %. The Edge 810's smooth
/// barometric series (VDOP 1.2 set by its conversion, no revisit within 15 min) loses 9 % at
/// 3 × and 18 % at 4 ×. Where a wander is a true wander its extremes over a flat stretch still
/// add a few metres to each real climb (the rest of the town ride's excess): no hysteresis that
/// keeps rollers can take those out. Rollers smaller than the hysteresis are lost; the recorder's
/// distance filter, which thins the kept points on straight roads, costs sharp ones more.
/// Deterministic: a re-read feeds the same heights in the same order and gets the same figure.
public struct AscentTracker: Sendable {
    public private(set) var baro = ClimbCounter(threshold: 2)
    public private(set) var gps = ClimbCounter(threshold: 5)
    /// The averaging window (s) for noisy or wandering heights; a smooth series gets its share of it.
    public var gpsWindowS = 20.0
    /// The noise level (σ, metres) at and above which the full window applies.
    public static let noisyHeightSigmaM = 1.5
    /// The hysteresis in multiples of the wander's σ, and its bounds (metres).
    public static let wanderHysteresis = 3.0
    public static let minThresholdM = 2.0
    public static let maxThresholdM = 15.0
    private var previous: (h: Double, t: Int64)?
    private var beforePrevious: (h: Double, t: Int64)?
    private var meanSecondDifference: Double?
    private var secondDifferences = 0
    private var recent = RingBuffer<TimedHeight>(capacity: 64)
    private var lastGPSMs: Int64?

    private struct TimedHeight: Sendable {
        var t: Int64
        var h: Double
    }

    // The wander: the places seen, and what returning to them showed.
    private var places: [Place?] = []
    private var origin: (lat: Double, lon: Double, metresPerDegreeLon: Double)?
    private var wanderSquares = 0.0
    public private(set) var wanderSamples = 0
    private var verticalFigureSum = 0.0
    private var verticalFigures = 0

    /// The latest visit to a grid cell, and the last fix of the pass before it.
    private struct Place: Sendable {
        var cell: Int64
        var east: Double
        var north: Double
        var h: Double
        var t: Int64
        var before: Visit?
        var visit: Visit { Visit(east: east, north: north, h: h, t: t) }
    }

    private struct Visit: Sendable {
        var east: Double
        var north: Double
        var h: Double
        var t: Int64
    }

    public static let placeCellM = 20.0
    public static let placeCount = 256
    public static let revisitWithinM = 15.0
    static let referenceLagMs: Int64 = 300_000
    public static let revisitLagMs: ClosedRange<Int64> = 30_000...900_000
    /// The prior's weight, in samples, and its share of the receiver's vertical figure.
    static let priorSamples = 4.0
    static let priorShareOfVertical = 0.5
    /// Without any vertical figure: a receiver's usual σ (VDOP 1.3 × 3.5 m), half of it.
    static let defaultWanderSigmaM = 2.3

    public init() {}

    /// A barometric altitude (its fix's time when known: the noise is learnt from it). The
    /// hysteresis follows the series' own noise (`baroThresholdM`).
    public mutating func addBarometric(altitude: Double, timeMs: Int64? = nil) {
        guard altitude.isFinite else { return }
        if let t = timeMs { learnBaroNoise(altitude, t) }
        baro.threshold = baroThresholdM
        baro.add(height: altitude)
    }

    /// The barometric hysteresis now: 3.3 × the learnt noise (white noise that large reverses by
    /// it about once an hour), from 1 m to 2 m; 2 m until 10 samples of the noise are in. The
    /// noise is read 5 s apart, where a road's own bends in height show too: they can only
    /// raise it, to the 2 m that held for every series before.
    public var baroThresholdM: Double {
        guard let m = baroMeanSecondDifference, baroSecondDifferences >= 10 else { return Self.unknownBaroThresholdM }
        return min(Self.unknownBaroThresholdM, max(Self.minBaroThresholdM, 3.3 * m / (6.0.squareRoot() * 0.798)))
    }
    public static let unknownBaroThresholdM = 2.0
    public static let minBaroThresholdM = 1.0
    /// The noise is read on altitudes at least this far apart: the readings behind them are
    /// (one every 5 s with the default batches; the fixes between get the line between two), so
    /// closer ones would show the line, not the noise.
    static let baroNoiseSpacingMs: Int64 = 5_000
    private var baroPrevious: (h: Double, t: Int64)?
    private var baroBeforePrevious: (h: Double, t: Int64)?
    private var baroMeanSecondDifference: Double?
    private var baroSecondDifferences = 0

    private mutating func learnBaroNoise(_ h: Double, _ t: Int64) {
        if let p = baroPrevious, t - p.t < Self.baroNoiseSpacingMs { return }
        if let p = baroPrevious, let q = baroBeforePrevious, t > p.t, p.t > q.t {
            let d2 = (h - p.h) - (p.h - q.h) * Double(t - p.t) / Double(p.t - q.t)
            baroMeanSecondDifference = baroMeanSecondDifference.map { $0 + (abs(d2) - $0) / 20 } ?? abs(d2)
            baroSecondDifferences += 1
        }
        baroBeforePrevious = baroPrevious
        baroPrevious = (h, t)
    }

    /// The heights' white-noise σ as learnt so far.
    var gpsNoiseSigmaM: Double {
        guard let m = meanSecondDifference, secondDifferences >= 10 else { return Self.noisyHeightSigmaM }
        return m / (6.0.squareRoot() * 0.798)
    }

    /// The wander's σ as learnt so far (metres): the prior blended with the revisits.
    public var gpsWanderSigmaM: Double {
        let prior =
            verticalFigures > 0
            ? Self.priorShareOfVertical * verticalFigureSum / Double(verticalFigures) : Self.defaultWanderSigmaM
        let n = Self.priorSamples
        return ((n * prior * prior + wanderSquares) / (n + Double(wanderSamples))).squareRoot()
    }

    /// The hysteresis the GPS heights are counted with now.
    public var gpsThresholdM: Double {
        min(Self.maxThresholdM, max(Self.minThresholdM, 3.3 * gpsNoiseSigmaM, Self.wanderHysteresis * gpsWanderSigmaM))
    }

    /// A trusted GPS height; with the fix's position and vertical figure (68 %, metres) when known,
    /// which the wander is learnt from.
    public mutating func addGPS(height h: Double, timeMs: Int64, lat: Double? = nil, lon: Double? = nil, vertical68: Double? = nil) {
        guard h.isFinite else { return }
        if let v = vertical68, v.isFinite, v > 0 {
            verticalFigureSum += v
            verticalFigures += 1
        }
        if let lat, let lon, lat.isFinite, lon.isFinite { learnWander(height: h, timeMs: timeMs, lat: lat, lon: lon) }
        if let p = previous, let q = beforePrevious, timeMs > p.t, p.t > q.t {
            let d2 = (h - p.h) - (p.h - q.h) * Double(timeMs - p.t) / Double(p.t - q.t)
            meanSecondDifference = meanSecondDifference.map { $0 + (abs(d2) - $0) / 20 } ?? abs(d2)
            secondDifferences += 1
        }
        if previous.map({ timeMs > $0.t }) ?? true {
            beforePrevious = previous
            previous = (h, timeMs)
        }
        if let last = lastGPSMs, timeMs <= last { return }
        lastGPSMs = timeMs
        // The wander widens the average only where the ride has shown it (as many revisits as the
        // prior weighs), not on the receiver's claim alone.
        let wanderShown = Double(wanderSamples) >= Self.priorSamples ? gpsWanderSigmaM - 1 : 0
        let noise = min(1, max(gpsNoiseSigmaM, wanderShown) / Self.noisyHeightSigmaM)
        let windowMs = Int64(gpsWindowS * noise * 1000)
        recent.append(TimedHeight(t: timeMs, h: h))
        while let first = recent.first, first.t <= timeMs - windowMs, recent.count > 1 { _ = recent.popFirst() }
        var sum = 0.0
        for i in 0..<recent.count { sum += recent[i].h }
        gps.threshold = gpsThresholdM
        gps.add(height: sum / Double(recent.count))
    }

    /// Compares a height with the last one seen at the same place, and remembers this one there.
    private mutating func learnWander(height h: Double, timeMs: Int64, lat: Double, lon: Double) {
        if origin == nil {
            origin = (lat, lon, 111_195 * cos(lat * .pi / 180))
            places = Array(repeating: nil, count: Self.placeCount)
        }
        guard let o = origin else { return }
        let east = (lon - o.lon) * o.metresPerDegreeLon, north = (lat - o.lat) * 111_195
        guard abs(east) < 1e7, abs(north) < 1e7 else { return }
        let cx = Int64((east / Self.placeCellM).rounded(.down)), cy = Int64((north / Self.placeCellM).rounded(.down))
        var nearest: (d2: Double, h: Double, lagMs: Int64)?
        for dx: Int64 in -1...1 {
            for dy: Int64 in -1...1 {
                let c = Self.cellKey(cx &+ dx, cy &+ dy)
                guard let latest = places[Self.slot(c)], latest.cell == c else { continue }
                // This pass's own fixes are no revisit: the pass before it is.
                guard let p = timeMs - latest.t < Self.revisitLagMs.lowerBound ? latest.before : latest.visit,
                    Self.revisitLagMs.contains(timeMs - p.t)
                else { continue }
                let de = east - p.east, dn = north - p.north
                let d2 = de * de + dn * dn
                if d2 <= Self.revisitWithinM * Self.revisitWithinM, d2 < nearest?.d2 ?? .infinity { nearest = (d2, p.h, timeMs - p.t) }
            }
        }
        if let n = nearest {
            // One odd height (a multipath jump) must not set the ride's hysteresis alone.
            let cap = 3 * gpsWanderSigmaM + 2
            let d = min(abs(h - n.h), cap)
            // A wander grows with time: a short stop shows less of it than the minutes between
            // turns of the climb count. Brought to 5 minutes (√ of the lag ratio, as a wander
            // correlated over minutes grows until it saturates).
            let scale = max(1, min(3, (Double(Self.referenceLagMs) / Double(n.lagMs)).squareRoot()))
            wanderSquares += d * d / 2 * scale
            wanderSamples += 1
        }
        let cell = Self.cellKey(cx, cy)
        let slot = Self.slot(cell)
        var place = Place(cell: cell, east: east, north: north, h: h, t: timeMs)
        if let latest = places[slot], latest.cell == cell {
            // The same pass goes on (it keeps the pass before), or a new one starts.
            place.before = timeMs - latest.t < Self.revisitLagMs.lowerBound ? latest.before : latest.visit
        }
        places[slot] = place
    }

    static func cellKey(_ x: Int64, _ y: Int64) -> Int64 { x &* 1_000_003 &+ y }
    static func slot(_ cell: Int64) -> Int { Int((UInt64(bitPattern: cell) &* 0x9E37_79B9_7F4A_7C15) >> 56) % placeCount }

    /// Whether the figures below are the barometer's (it gave at least one altitude).
    public var fromBarometer: Bool { baro.hasHeight }

    /// The barometer's figures when it gave any, else the GPS's; nil (a dash) with neither.
    public var ascentM: Double? { baro.hasHeight ? baro.ascent : gps.hasHeight ? gps.ascent : nil }
    public var descentM: Double? { baro.hasHeight ? baro.descent : gps.hasHeight ? gps.descent : nil }
}

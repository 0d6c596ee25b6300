import XCTest
@testable import CairnCore

/// `TrackSmoother` and `GapFiller` on synthetic tracks: a straight line with noise, a corner, a
/// gap on a curve, segment breaks, missing figures, and a long trip streamed.
final class TrackStagesTests: XCTestCase {
    static let plane = LocalPlane(lat: 47.3769, lon: 8.5417)
    static let t0: Int64 = 1_748_764_800_000

    /// A fix at east/north metres, with the receiver's own figures (eph: a DOP guess of `h68`).
    static func fix(_ t: Int, _ e: Double, _ n: Double, speed: Double?, course: Double?, h68: Double? = 3.5) -> Fix {
        let g = plane.global(east: e, north: n)
        return Fix(
            timeMs: t0 + Int64(t) * 1000, lat: g.lat, lon: g.lon, mode: 3, altMSL: 420,
            eph: h68.map { $0 / Accuracy.rangeErrorM * Accuracy.gpsdHorizontalPerDOP }, epv: 30,
            speed: speed, track: course, pressurePa: 96_000, temperatureC: 18)
    }

    static func en(_ f: Fix) -> (Double, Double) {
        let l = plane.local(lat: f.lat, lon: f.lon)
        return (l.east, l.north)
    }

    static func run(_ items: [TrackItem], tuning: TrackSmoother.Tuning = .ride) -> [TrackItem] {
        var s = TrackSmoother(tuning: tuning)
        var out: [TrackItem] = []
        for i in items { s.push(i) { out.append($0) } }
        s.finish { out.append($0) }
        return out
    }

    static func fill(_ items: [TrackItem]) -> ([TrackItem], GapFiller) {
        var g = GapFiller()
        var out: [TrackItem] = []
        for i in items { g.push(i) { out.append($0) } }
        return (out, g)
    }

    static func points(_ items: [TrackItem]) -> [(Fix, PointOrigin)] {
        items.compactMap { if case .point(let f, let o) = $0 { return (f, o) } else { return nil } }
    }

    /// A Gauss–Markov drift plus white noise, per axis, deterministic.
    struct Noise {
        var rng: SplitMix
        var de = 0.0, dn = 0.0
        let sigma: Double, tau: Double, white: Double
        init(seed: UInt64, sigma: Double, tau: Double = 60, white: Double = 0.5) {
            rng = SplitMix(seed: seed)
            self.sigma = sigma; self.tau = tau; self.white = white
            de = sigma * rng.gauss(); dn = sigma * rng.gauss()
        }
        mutating func next(dt: Double) -> (Double, Double) {
            let a = exp(-dt / tau), q = sigma * (1 - a * a).squareRoot()
            de = a * de + q * rng.gauss(); dn = a * dn + q * rng.gauss()
            return (de + white * rng.gauss(), dn + white * rng.gauss())
        }
    }

    // MARK: - Smoother

    func testStraightLineWithNoiseComesCloserToTheLine() {
        // East at 6 m/s for 20 minutes, a point every 5 s, drift σ 5 m (the point says 7 m).
        var noise = Noise(seed: 7, sigma: 5)
        var items: [TrackItem] = [.segment(.start)]
        for k in 0..<240 {
            let t = k * 5
            let (ne, nn) = noise.next(dt: 5)
            items.append(.point(Self.fix(t, 6 * Double(t) + ne, nn, speed: 6, course: 90, h68: 7), .measured))
        }
        let out = Self.run(items)
        let pts = Self.points(out)
        XCTAssertEqual(pts.count, 240)
        var raw = 0.0, smooth = 0.0
        for ((f, o), item) in zip(pts, Self.points(items)) {
            XCTAssertEqual(o, .smoothed)
            XCTAssertEqual(f.timeMs, item.0.timeMs)
            // Everything but the position is the point's own.
            XCTAssertEqual(f.speed, item.0.speed); XCTAssertEqual(f.track, item.0.track)
            XCTAssertEqual(f.altMSL, item.0.altMSL); XCTAssertEqual(f.eph, item.0.eph)
            XCTAssertEqual(f.pressurePa, item.0.pressurePa); XCTAssertEqual(f.temperatureC, item.0.temperatureC)
            raw += Self.en(item.0).1 * Self.en(item.0).1
            smooth += Self.en(f).1 * Self.en(f).1
        }
        let rawRMS = (raw / 240).squareRoot(), smoothRMS = (smooth / 240).squareRoot()
        XCTAssertLessThan(smoothRMS, 0.7 * rawRMS, "cross-track RMS \(smoothRMS) m smoothed, \(rawRMS) m recorded")
        if case .segment(.start) = out.first! {} else { XCTFail("the segment start comes first") }
    }

    func testACornerIsNotCut() {
        // North 200 m, a 90° right turn of radius 15 m, east 200 m, at 5 m/s; exact positions
        // and doppler: the smoothed track keeps to the road.
        var items: [TrackItem] = [.segment(.start)]
        var t = 0
        func add(_ e: Double, _ n: Double, _ course: Double) {
            items.append(.point(Self.fix(t, e, n, speed: 5, course: course, h68: 5), .measured))
        }
        for k in 0...40 { t = k; add(0, 5 * Double(k), 0) }
        let arc = 15 * Double.pi / 2
        let steps = Int((arc / 5).rounded())
        for k in 1...steps {
            t += 1
            let a = Double(k) / Double(steps) * Double.pi / 2
            add(15 - 15 * cos(a), 200 + 15 * sin(a), a * 180 / .pi)
        }
        for k in 1...40 { t += 1; add(15 + 5 * Double(k), 215, 90) }
        let pts = Self.points(Self.run(items))
        for ((f, _), (r, _)) in zip(pts, Self.points(items)) {
            let (e, n) = Self.en(f), (re, rn) = Self.en(r)
            XCTAssertLessThan(((e - re) * (e - re) + (n - rn) * (n - rn)).squareRoot(), 1.5, "at \(re), \(rn): smoothed to \(e), \(n)")
        }
    }

    func testSegmentsAreNeverSmoothedAcross() {
        // Two segments 300 m apart, each straight; the second's first point stays its own.
        var items: [TrackItem] = [.segment(.start)]
        for k in 0..<60 { items.append(.point(Self.fix(k, 0, 6 * Double(k), speed: 6, course: 0), .measured)) }
        items.append(.segment(.pause))
        for k in 0..<60 { items.append(.point(Self.fix(200 + k, 300, 6 * Double(k), speed: 6, course: 0), .measured)) }
        let out = Self.run(items)
        XCTAssertEqual(out.count, items.count)
        if case .segment(.pause) = out[61] {} else { XCTFail("the pause stays between the two segments' points") }
        let pts = Self.points(out)
        for (f, _) in pts[60...] { XCTAssertEqual(Self.en(f).0, 300, accuracy: 0.5) }
        for (f, _) in pts[..<60] { XCTAssertEqual(Self.en(f).0, 0, accuracy: 0.5) }
    }

    func testPointsWithoutUncertaintyOrDopplerStayNearWhereTheyWere() {
        var items: [TrackItem] = [.segment(.start)]
        var noise = Noise(seed: 3, sigma: 3)
        for k in 0..<120 {
            let (ne, nn) = noise.next(dt: 2)
            items.append(.point(Self.fix(2 * k, 10 * Double(k) + ne, nn, speed: nil, course: nil, h68: nil), .measured))
        }
        let pts = Self.points(Self.run(items))
        XCTAssertEqual(pts.count, 120)
        for ((f, _), (r, _)) in zip(pts, Self.points(items)) {
            XCTAssertTrue(f.lat.isFinite && f.lon.isFinite)
            let (e, n) = Self.en(f), (re, rn) = Self.en(r)
            XCTAssertLessThan(((e - re) * (e - re) + (n - rn) * (n - rn)).squareRoot(), 10)
        }
    }

    func testALongTripStreamsInBoundedMemory() {
        // 100,000 points at 1 Hz: points come out while the trip is read, never more than
        // `maxPoints` held back.
        var s = TrackSmoother()
        var emitted = 0, maxHeld = 0
        s.push(.segment(.start)) { _ in }
        for k in 0..<100_000 {
            let e = 6 * Double(k % 20_000)  // a back-and-forth road: stays near the origin
            s.push(.point(Self.fix(k, e, 0, speed: 6, course: 90), .measured)) { item in
                if case .point = item { emitted += 1 }
            }
            maxHeld = max(maxHeld, k + 1 - emitted)
        }
        s.finish { _ in emitted += 1 }
        XCTAssertEqual(emitted, 100_000)
        XCTAssertLessThanOrEqual(maxHeld, TrackSmoother.Tuning.ride.maxPoints)
        XCTAssertLessThanOrEqual(maxHeld, 2 * 241)  // twice the lag at 1 Hz
    }

    func testAnOutlierIsNotFollowed() {
        var items: [TrackItem] = [.segment(.start)]
        for k in 0..<60 {
            let side = k == 30 ? 80.0 : 0
            items.append(.point(Self.fix(2 * k, 12 * Double(k), side, speed: 6, course: 90), .measured))
        }
        let pts = Self.points(Self.run(items))
        XCTAssertLessThan(abs(Self.en(pts[30].0).1), 3, "the 80 m outlier is pulled back to the road")
        XCTAssertLessThan(abs(Self.en(pts[29].0).1), 1)
    }

    /// Aids (the fixes the rules only thinned out, `aid`) far off the road, more in a row than
    /// `maxRejects` (a 10 Hz receiver's nine between two points; a crafted log's): the filter
    /// never starts over from an aid, which is not written, so the points stay on the road.
    func testAidsFarOffInARowAreNotFollowed() {
        var s = TrackSmoother()
        var out: [TrackItem] = []
        s.push(.segment(.start)) { out.append($0) }
        for k in 0..<600 {
            if k % 10 == 0 {
                s.push(.point(Self.fix(k, 6 * Double(k), 0, speed: 6, course: 90), .measured)) { out.append($0) }
            } else {
                let far = (300..<400).contains(k) ? 300.0 : 0
                s.aid(Self.fix(k, 6 * Double(k), far, speed: 6, course: 90)) { out.append($0) }
            }
        }
        s.finish { out.append($0) }
        let pts = Self.points(out)
        XCTAssertEqual(pts.count, 60)
        let worst = pts.map { abs(Self.en($0.0).1) }.max() ?? .infinity
        XCTAssertLessThan(worst, 3, "no point is pulled towards the aids 300 m off the road")
    }

    /// An aid with an absurd doppler (a crafted log's 900 m/s; the rules do not judge a thinned
    /// fix's speed) does not open the gate for an aid kilometres off after it: its doppler is not
    /// used above the activity's fastest plausible speed, and the points stay on the road.
    func testAnAidsAbsurdSpeedDoesNotOpenTheGate() {
        var s = TrackSmoother()
        var out: [TrackItem] = []
        s.push(.segment(.start)) { out.append($0) }
        for k in 0..<120 {
            if k % 4 == 0 {
                s.push(.point(Self.fix(k, 6 * Double(k), 0, speed: 6, course: 90), .measured)) { out.append($0) }
            } else if k == 21 {
                s.aid(Self.fix(k, 6 * Double(k), 0, speed: 900, course: 107)) { out.append($0) }
            } else if k != 22 {
                s.aid(Self.fix(k, 6 * Double(k), k == 23 ? -3300 : 0, speed: 6, course: 90)) { out.append($0) }
            }
        }
        s.finish { out.append($0) }
        let pts = Self.points(out)
        XCTAssertEqual(pts.count, 30)
        let worst = pts.map { abs(Self.en($0.0).1) }.max() ?? .infinity
        XCTAssertLessThan(worst, 3, "no point is pulled towards the aid 3.3 km off")
    }

    /// An aid off the gate is not used at all, its doppler neither: a crafted log's thinned fix
    /// with another fix's time (its position far back, its course across the road) steered the
    /// prediction with that course and pulled the points after it off the road.
    func testAnAidOffTheGateDoesNotSteerWithItsDoppler() {
        var s = TrackSmoother()
        var out: [TrackItem] = []
        s.push(.segment(.start)) { out.append($0) }
        for k in 0..<300 {
            // Riding north at 8 m/s; points every 20 s.
            if k % 20 == 0 {
                s.push(.point(Self.fix(k, 0, 8 * Double(k), speed: 8, course: 0), .measured)) { out.append($0) }
            } else if k == 191 {
                // Another fix's: 1.5 km back, heading east.
                s.aid(Self.fix(k, 0, -1500, speed: 8, course: 90)) { out.append($0) }
            }
        }
        s.finish { out.append($0) }
        let pts = Self.points(out)
        XCTAssertEqual(pts.count, 15)
        let worst = pts.map { abs(Self.en($0.0).0) }.max() ?? .infinity
        XCTAssertLessThan(worst, 3, "no point is steered east by the rejected aid's course")
    }

    // MARK: - Gap filler

    /// A long silence while moving at both ends (a stop whose fixes were all dropped, a turn in a
    /// tunnel): the ends' dopplers say nothing of the path between, so the points after it are
    /// not pulled towards where riding on at that speed would have put them.
    func testALongSilenceIsAnUnknownPath() {
        for (gap, stood) in [(340, 300), (600, 560), (120, 0), (60, 30)] {
            var items: [TrackItem] = [.segment(.start)]
            for t in 0..<60 { items.append(.point(Self.fix(t, 6.6 * Double(t), 0, speed: 6.6, course: 90), .measured)) }
            // Silent for `gap` s, standing `stood` of them, then on east as before: both ends'
            // dopplers agree, and riding on at their speed would have gone much farther.
            for t in 0..<60 {
                items.append(.point(Self.fix(59 + gap + t, 6.6 * Double(59 + gap - stood + t), 0, speed: 6.6, course: 90), .measured))
            }
            let out = Self.points(Self.run(items))
            XCTAssertEqual(out.count, 120)
            for ((f, _), item) in zip(out, items.dropFirst()) {
                guard case .point(let r, _) = item else { continue }
                let (e, n) = Self.en(f), (re, rn) = Self.en(r)
                XCTAssertLessThan(
                    ((e - re) * (e - re) + (n - rn) * (n - rn)).squareRoot(), 3, "gap \(gap) s: a point at \(re), \(rn) written at \(e), \(n)")
            }
        }
    }

    /// The same silence as the segment's first step (one point, then nothing for minutes): the
    /// receiver's interval is not known from that step alone, so it is not taken for one.
    func testALongSilenceAsTheFirstStepIsAnUnknownPath() {
        for (gap, stood) in [(340, 300), (120, 100), (60, 30)] {
            var items: [TrackItem] = [.segment(.start), .point(Self.fix(0, 0, 0, speed: 6.6, course: 90), .measured)]
            for t in 0..<60 {
                items.append(.point(Self.fix(gap + t, 6.6 * Double(gap - stood + t), 0, speed: 6.6, course: 90), .measured))
            }
            let out = Self.points(Self.run(items))
            XCTAssertEqual(out.count, 61)
            for ((f, _), item) in zip(out, items.dropFirst()) {
                guard case .point(let r, _) = item else { continue }
                let (e, n) = Self.en(f), (re, rn) = Self.en(r)
                XCTAssertLessThan(
                    ((e - re) * (e - re) + (n - rn) * (n - rn)).squareRoot(), 3, "gap \(gap) s: a point at \(re), \(rn) written at \(e), \(n)")
            }
        }
    }

    func testAGapOnACurveFollowsTheCurve() {
        // A circle of radius 100 m at 10 m/s (course turning 5.7°/s); 20 s missing.
        let r = 100.0, v = 10.0
        func onCircle(_ t: Int) -> Fix {
            let a = v * Double(t) / r
            return Self.fix(t, r * sin(a), r - r * cos(a), speed: v, course: (90 - a * 180 / .pi + 360).truncatingRemainder(dividingBy: 360))
        }
        let items: [TrackItem] = [
            .segment(.start), .point(onCircle(0), .measured), .point(onCircle(10), .measured),
            .point(onCircle(30), .measured), .point(onCircle(35), .measured)
        ]
        let (out, g) = Self.fill(items)
        let pts = Self.points(out)
        XCTAssertEqual(g.gaps, 1); XCTAssertEqual(g.chords, 0); XCTAssertEqual(g.points, 19)
        XCTAssertEqual(pts.count, 4 + 19)
        var worstCurve = 0.0, worstChord = 0.0
        let a = Self.en(onCircle(10).self), b = Self.en(onCircle(30))
        for (k, (f, o)) in pts[2..<21].enumerated() {
            XCTAssertEqual(o, .interpolated)
            XCTAssertEqual(f.timeMs, Self.t0 + Int64(11 + k) * 1000)
            let (e, n) = Self.en(f)
            worstCurve = max(worstCurve, abs(((e * e + (n - r) * (n - r)).squareRoot()) - r))
            let u = Double(k + 1) / 20
            let ce = a.0 + (b.0 - a.0) * u, cn = a.1 + (b.1 - a.1) * u
            worstChord = max(worstChord, abs(((ce * ce + (cn - r) * (cn - r)).squareRoot()) - r))
            XCTAssertEqual(f.speed ?? 0, v, accuracy: 1.5)
            XCTAssertNil(f.pressurePa); XCTAssertNil(f.temperatureC)
            XCTAssertEqual(f.altMSL, 420)
        }
        XCTAssertLessThan(worstCurve, 5, "the filled points keep to the circle (within 5 % of its radius)")
        XCTAssertGreaterThan(worstChord, 15, "where the chord would cut across")
    }

    func testAStraightGapIsEvenInTime() {
        let items: [TrackItem] = [
            .segment(.start), .point(Self.fix(0, 0, 0, speed: 8, course: 45), .measured),
            .point(Self.fix(30, 8 * 30 * sin(.pi / 4), 8 * 30 * cos(.pi / 4), speed: 8, course: 45), .measured)
        ]
        let pts = Self.points(Self.fill(items).0)
        XCTAssertEqual(pts.count, 31)
        for (k, (f, o)) in pts[1..<30].enumerated() {
            XCTAssertEqual(o, .interpolated)
            let (e, n) = Self.en(f)
            XCTAssertEqual((e * e + n * n).squareRoot(), 8 * Double(k + 1), accuracy: 0.5)
            XCTAssertEqual(f.track ?? 0, 45, accuracy: 0.5)
        }
    }

    func testNothingIsFilledAcrossASegmentOrAStopOrAShortStep() {
        let a = Self.fix(0, 0, 0, speed: 6, course: 0)
        let items: [TrackItem] = [
            .segment(.start), .point(a, .measured),
            .segment(.gap), .point(Self.fix(60, 0, 360, speed: 6, course: 0), .measured),  // a break
            .point(Self.fix(70, 0, 420, speed: 6, course: 0), .measured),  // 10 s: no gap
            .point(Self.fix(80, 0, 480, speed: 0.1, course: nil), .measured),  // 10 s
            .point(Self.fix(130, 0, 500, speed: 6, course: 0), .measured)
        ]  // from a standing point
        let (out, g) = Self.fill(items)
        XCTAssertEqual(out.count, items.count)
        XCTAssertEqual(g.gaps, 0)
    }

    func testAnAbsurdCurveOrMissingSpeedsFallBackToTheChord() {
        // The ends point away from each other: the curve would loop.
        var (out, g) = Self.fill([
            .segment(.start), .point(Self.fix(0, 0, 0, speed: 8, course: 180), .measured),
            .point(Self.fix(20, 0, 100, speed: 8, course: 180), .measured)
        ])
        XCTAssertEqual(g.gaps, 1); XCTAssertEqual(g.chords, 1)
        for (k, (f, _)) in Self.points(out)[1..<20].enumerated() {
            let (e, n) = Self.en(f)
            XCTAssertEqual(e, 0, accuracy: 0.01)
            XCTAssertEqual(n, 5 * Double(k + 1), accuracy: 0.01)
            XCTAssertEqual(f.speed ?? 0, 5, accuracy: 0.01)
        }
        // No doppler at one end: the chord, at the chord's speed.
        (out, g) = Self.fill([
            .segment(.start), .point(Self.fix(0, 0, 0, speed: nil, course: nil), .measured),
            .point(Self.fix(20, 100, 0, speed: 5, course: 90), .measured)
        ])
        XCTAssertEqual(g.chords, 1)
        XCTAssertEqual(Self.points(out).count, 21)
        // No doppler at either end and not moving: nothing.
        (out, g) = Self.fill([
            .segment(.start), .point(Self.fix(0, 0, 0, speed: nil, course: nil), .measured),
            .point(Self.fix(60, 3, 0, speed: nil, course: nil), .measured)
        ])
        XCTAssertEqual(g.gaps, 0)
    }
}

import XCTest
import Foundation
@testable import CairnCore

/// Judges the fix rules on generated rides with a known truth, against a raw recorder that keeps
/// every fix (like gpxlogger). Set CAIRN_RULES_REPORT=path to write the results table
/// (`Tests/bench/rules-report.sh` does).
final class ScenarioTests: XCTestCase {
    typealias G = ScenarioGenerator

    struct Outcome {
        var distance = 0.0
        var points = 0
        var spikes = 0
        var standstillMetres = 0.0
        var movingSeconds = 0.0
        var trips = 0
        /// Trips the rules closed before the stream ended (a stop over the close limit).
        var closed = 0
        var maxOff = 0.0
        /// Points and metres added during one chosen standstill window (the parked bike).
        var windowPoints = 0
        var windowMetres = 0.0
        /// What a GPX reader measures: the lines inside segments only.
        var readerDistance = 0.0
        /// The top speed and the ascent the trips report (the fastest; the sum).
        var maxSpeed = 0.0
        var ascent = 0.0
    }

    /// A 10.6 km, 30-minute town ride: three laps of a 3.5 km loop of straights, bends of 15-50 m
    /// radius, two stops at lights per lap and some grades.
    static let route: [G.Leg] = lap + lap + lap

    static let lap: [G.Leg] = [
        .straight(metres: 400, speed: 6), .bend(radius: 30, degrees: 90, speed: 5),
        .straight(metres: 300, speed: 7), .stop(seconds: 40), .straight(metres: 250, speed: 6),
        .bend(radius: 20, degrees: -120, speed: 4), .grade(percent: 5), .straight(metres: 500, speed: 5),
        .bend(radius: 50, degrees: 60, speed: 7), .grade(percent: -4), .straight(metres: 350, speed: 9),
        .stop(seconds: 60), .grade(percent: 0), .bend(radius: 15, degrees: 90, speed: 4),
        .straight(metres: 600, speed: 7), .bend(radius: 40, degrees: -45, speed: 6), .straight(metres: 400, speed: 7)
    ]

    static func scenarios(seed: UInt64) -> [(G.Scenario, ClosedRange<Int>?)] {
        var g = G(seed: seed)
        var out: [(G.Scenario, ClosedRange<Int>?)] = []
        out.append((g.scenario("open sky", route, .init()), nil))
        out.append((g.scenario("open sky, jittery receiver", route, .init(sky: .jittery)), nil))
        out.append((g.scenario("between buildings", route, .init(sky: .buildings)), nil))
        out.append((g.scenario("urban canyon (not asserted)", route, .init(sky: .canyon)), nil))
        var tunnels = route
        tunnels.insert(.tunnel(metres: 150, speed: 6), at: 3)
        tunnels.insert(.tunnel(metres: 700, speed: 7), at: 10)
        out.append((g.scenario("tunnels", tunnels, .init()), nil))
        let cafe: [G.Leg] = Array(route.prefix(8)) + [.stop(seconds: 25 * 60)] + Array(route.suffix(from: 8))
        out.append((g.scenario("café stop 25 min", cafe, .init()), nil))
        let park: [G.Leg] = Array(route.prefix(5)) + [.stop(seconds: 30 * 60)]
        let parkStart = g.truth(Array(route.prefix(5))).count
        out.append((g.scenario("parked 30 min", park, .init()), (parkStart + 5)...(parkStart + 30 * 60 - 1)))
        out.append((g.scenario("spikes", route, .init(spikeRate: 0.03)), nil))
        // The rider waits for the receiver at the start, as riders do; it first reports a stale
        // position 3 km away (with a poor, then a confident error figure) and then converges.
        let waitThenRide: [G.Leg] = [.stop(seconds: 40)] + route
        out.append((g.scenario("cold start", waitThenRide, .init(coldStartSeconds: 15)), nil))
        out.append((g.scenario("cold start, confident", waitThenRide, .init(coldStartSeconds: 15, staleEph: 25)), nil))
        var flat = route
        flat.insert(.flat2D(metres: 200, speed: 6), at: 2)
        flat.insert(.flat2D(metres: 300, speed: 7), at: 9)
        out.append((g.scenario("2-D stretches", flat, .init()), nil))
        let hills: [G.Leg] = [
            .grade(percent: 8), .straight(metres: 1500, speed: 4), .grade(percent: -8),
            .straight(metres: 1500, speed: 10), .grade(percent: 6), .bend(radius: 60, degrees: 180, speed: 4),
            .straight(metres: 1200, speed: 4), .grade(percent: -6), .straight(metres: 1200, speed: 9)
        ]
        out.append((g.scenario("hills", hills, .init()), nil))
        // Conditions the rules were not first built on (issue: right on real receivers).
        var straight = route
        straight.insert(.tunnel(metres: 900, speed: 6), at: 2)
        straight.insert(.tunnel(metres: 900, speed: 6), at: 14)
        out.append((g.scenario("two straight 150 s tunnels", straight, .init()), nil))
        let hour: [G.Leg] = Array(route.prefix(8)) + [.stop(seconds: 60 * 60)] + Array(route.suffix(from: 8))
        let hourStart = g.truth(Array(route.prefix(8))).count
        out.append(
            (
                g.scenario("stop 60 min among buildings", hour, .init(sky: .cafe, blipRate: 0.05, blipSpeeds: 0.25...0.45)),
                (hourStart + 5)...(hourStart + 60 * 60 - 1)
            ))
        var outage = route
        outage.insert(.tunnel(metres: 1080, speed: 6), at: 4)
        outage.insert(.tunnel(metres: 1260, speed: 7), at: 11)
        out.append((g.scenario("3 min outages, converging back", outage, .init(reacquireOffsetM: 45, reacquireTauS: 12)), nil))
        var walked = route
        walked.insert(.flat2D(metres: 420, speed: 1.4), at: 6)
        out.append((g.scenario("5 min 2-D, walking the bike", walked, .init()), nil))
        out.append((g.scenario("one fix every 12 s", route, .init(everySeconds: 12)), nil))
        out.append((g.scenario("poor sky, DOP only (HDOP 5.4)", route, .init(sky: .poor, vdop: 1.6)), nil))
        // Issue 28's conditions, each drawn per seed from its range.
        var walked2D = route
        let walkMinutes = 1 + 9 * g.rng.uniform()
        walked2D.insert(.flat2D(metres: walkMinutes * 60 * 1.4, speed: 1.4), at: 6)
        out.append((g.scenario("2-D without speed, σ 15-50 m, 1-10 min", walked2D, .init(poor2DSigma: 15 + 35 * g.rng.uniform())), nil))
        let hdop = 4 + 3 * g.rng.uniform()
        let poorOwn = G.Sky(driftSigma: 2.2 * hdop, driftTau: 40, whiteSigma: 2, hdop: hdop)
        out.append((g.scenario("poor sky, own estimates (HDOP 4-7)", route, .init(sky: poorOwn, vdop: 1.6, ownEstimates: true)), nil))
        let canopy = G.Sky(driftSigma: 8, driftTau: 30, whiteSigma: 1.5, hdop: 1 + 2 * g.rng.uniform())
        let standSeconds = 300 + Int(3300 * g.rng.uniform())
        let lie = 0.5...(1 + 3 * g.rng.uniform())
        out.append(
            (
                g.scenario("standing 5-60 min, doppler lies (no trip)", [.stop(seconds: standSeconds)], .init(sky: canopy, lyingDoppler: lie)),
                1...(standSeconds - 1)
            ))
        let treeStop = 300 + Int(3300 * g.rng.uniform())
        let trees: [G.Leg] = Array(route.prefix(8)) + [.stop(seconds: treeStop)] + Array(route.suffix(from: 8))
        let treesStart = g.truth(Array(route.prefix(8))).count
        out.append(
            (
                g.scenario("stop 5-60 min, doppler lies", trees, .init(sky: canopy, lyingDoppler: lie)),
                (treesStart + 5)...(treesStart + treeStop - 1)
            ))
        out.append((g.scenario("GGA only, speed from positions", route, .init(sky: .buildings, derivedSpeed: true)), nil))
        out.append((g.scenario("3 h of hills, noisy GPS heights", hills + hills + hills, .init(heightSigma: 6, heightWhite: 2)), nil))
        // Issue 28 item 4: GPS-only climb per receiver. Rollers of 3-6 m on a receiver whose heights
        // are clean (σ 1 m over 5 min, VDOP 0.6), and the town ride on one whose heights wander 6 m
        // over 3 minutes on top of 1 m of jitter (VDOP 2).
        var rollers: [G.Leg] = []
        for _ in 0..<24 {
            let rise = 3 + 3 * g.rng.uniform()
            rollers += [.grade(percent: rise / 2), .straight(metres: 200, speed: 7), .grade(percent: -rise / 2), .straight(metres: 200, speed: 8)]
        }
        rollers += [.grade(percent: 0), .bend(radius: 40, degrees: 90, speed: 6)]
        out.append((g.scenario("rollers 3-6 m, clean heights (σ 1 m)", rollers, .init(heightSigma: 1, vdop: 0.6, heightTauS: 300)), nil))
        out.append((g.scenario("town, heights wander 6 m over 3 min", route, .init(heightSigma: 6, vdop: 2, heightWhite: 1, heightTauS: 180)), nil))
        return out
    }

    /// Local east/north metres of a fix, relative to the generator's origin.
    static func en(_ f: Fix) -> (Double, Double) {
        ((f.lon - G.lon0) * 111_195.0 * cos(G.lat0 * .pi / 180), (f.lat - G.lat0) * 111_195.0)
    }

    /// Distance from a kept point to the truth path near its time.
    static func offPath(_ f: Fix, _ truth: [G.TruthPoint]) -> Double {
        let t = Int((f.timeMs - G.t0Ms) / 1000)
        let (e, n) = en(f)
        var best = Double.infinity
        let lo = max(0, t - 30), hi = min(truth.count - 1, t + 30)
        guard lo < hi else { return best }
        for i in lo..<hi {
            let a = truth[i], b = truth[i + 1]
            let dx = b.east - a.east, dy = b.north - a.north
            let len2 = dx * dx + dy * dy
            var u = len2 > 0 ? ((e - a.east) * dx + (n - a.north) * dy) / len2 : 0
            u = min(1, max(0, u))
            let px = a.east + u * dx - e, py = a.north + u * dy - n
            best = min(best, (px * px + py * py).squareRoot())
        }
        return best
    }

    static func truthMoved(_ truth: [G.TruthPoint], _ t1: Int, _ t2: Int) -> Double {
        var d = 0.0
        var i = max(0, t1)
        while i < min(t2, truth.count - 1) {
            let a = truth[i], b = truth[i + 1]
            d += ((b.east - a.east) * (b.east - a.east) + (b.north - a.north) * (b.north - a.north)).squareRoot()
            i += 1
        }
        return d
    }

    /// Runs the rules (or a raw keep-everything recorder) over a scenario.
    static func evaluate(_ s: G.Scenario, raw: Bool, window: ClosedRange<Int>?, profile: ActivityProfile = .ride) -> Outcome {
        var o = Outcome()
        var kept: [(Fix, Bool)] = []  // point, starts a segment without a line to it
        var breaks: [Bool] = []  // point starts a segment (a GPX reader draws no line to it)
        if raw {
            var last: Int64 = .min
            for r in s.reports where r.fix.mode >= 2 && r.fix.timeMs > last {
                kept.append((r.fix, false))
                last = r.fix.timeMs
            }
            o.trips = kept.isEmpty ? 0 : 1
            var stats = TripStats()
            for (f, _) in kept { stats.add(f) }
            o.distance = stats.distanceM
            o.movingSeconds = Double(stats.movingTimeMs) / 1000
            o.maxSpeed = stats.maxSpeedMps ?? 0
            o.ascent = stats.ascentM ?? 0
        } else {
            var c = TripRecorder<FixRules>.Config()
            c.clockIsFix = true
            var rec = TripRecorder(filter: FixRules(profile: profile), config: c)
            var noLine = false, segBreak = false, finishing = false
            let handle: (RecorderAction) -> Void = { a in
                switch a {
                case .openTrip: o.trips += 1; noLine = true; segBreak = true
                case .startSegment(let r, _): segBreak = true; if r != .gap && r != .reconnect && r != .resume { noLine = true }
                case .keep(let f): kept.append((f, noLine)); breaks.append(segBreak); noLine = false; segBreak = false
                case .closeTrip(let t):
                    if !finishing { o.closed += 1 }
                    o.distance += t.stats.distanceM
                    o.movingSeconds += Double(t.stats.movingTimeMs) / 1000
                    o.maxSpeed = max(o.maxSpeed, t.stats.maxSpeedMps ?? 0)
                    o.ascent += t.stats.ascentM ?? 0
                case .raw: break
                }
            }
            for r in s.reports { rec.report(.fix(r.fix), wallClockMs: 0, emit: handle) }
            finishing = true
            rec.finish(wallClockMs: 0, emit: handle)
            if rec.tripOpen {
                o.distance += rec.stats.distanceM
                o.movingSeconds += Double(rec.stats.movingTimeMs) / 1000
                o.maxSpeed = max(o.maxSpeed, rec.stats.maxSpeedMps ?? 0)
                o.ascent += rec.stats.ascentM ?? 0
            }
        }
        o.points = kept.count
        for (f, _) in kept {
            let off = offPath(f, s.truth)
            o.maxOff = max(o.maxOff, off)
            if off > 30 { o.spikes += 1 }
        }
        for (i, (q, noLine)) in kept.enumerated() where i > 0 && !noLine {
            let p = kept[i - 1].0
            if raw || !breaks[i] { o.readerDistance += Geodesy.distance(p, q) }
            let t1 = Int((p.timeMs - G.t0Ms) / 1000), t2 = Int((q.timeMs - G.t0Ms) / 1000)
            if truthMoved(s.truth, t1, t2) < 0.5 { o.standstillMetres += Geodesy.distance(p, q) }
            if let w = window, w.contains(t2) { o.windowMetres += Geodesy.distance(p, q) }
        }
        if let w = window { o.windowPoints = kept.filter { w.contains(Int(($0.0.timeMs - G.t0Ms) / 1000)) }.count }
        return o
    }

    /// Seeds 1-8 in the test suite (the rules were tuned on these); the report script asks for
    /// others (CAIRN_SCENARIO_FIRST_SEED, CAIRN_SCENARIO_SEEDS: 50 seeds from 9).
    static let seeds: [UInt64] = {
        let env = ProcessInfo.processInfo.environment
        let first = env["CAIRN_SCENARIO_FIRST_SEED"].flatMap { UInt64($0) } ?? 1
        let n = env["CAIRN_SCENARIO_SEEDS"].flatMap { UInt64($0) } ?? 8
        return Array(first..<(first + n))
    }()

    func testRulesMeetTheTargetsOnEveryScenario() throws {
        var rows: [String] = []
        var failures: [String] = []
        let names = Self.scenarios(seed: 1).map(\.0.name)
        for (k, name) in names.enumerated() {
            var errs: [Double] = [], rawErrs: [Double] = []
            var spikes = 0, rawSpikes = 0, points = 0, rawPoints = 0
            var still = 0.0, rawStill = 0.0, movErr: [Double] = [], maxOff = 0.0
            var windowPts = 0, windowM = 0.0, readerErrs: [Double] = []
            var trips = 0, topSpeeds: [Double] = [], trueTop = 0.0, climbErrs: [Double] = []
            for seed in Self.seeds {
                let (s, window) = Self.scenarios(seed: seed)[k]
                let o = Self.evaluate(s, raw: false, window: window)
                let r = Self.evaluate(s, raw: true, window: window)
                // (A ride that only stands has no length to be a percentage of: its metres.)
                let base = s.trueDistance > 0 ? s.trueDistance / 100 : 1
                errs.append((o.distance - s.trueDistance) / base)
                readerErrs.append((o.readerDistance - s.trueDistance) / base)
                rawErrs.append((r.distance - s.trueDistance) / base)
                spikes += o.spikes; rawSpikes += r.spikes
                points += o.points; rawPoints += r.points
                still += o.standstillMetres; rawStill += r.standstillMetres
                movErr.append((o.movingSeconds - Double(s.trueMovingSeconds)) / Double(s.trueMovingSeconds) * 100)
                maxOff = max(maxOff, o.maxOff)
                trips += o.trips
                topSpeeds.append(o.maxSpeed)
                trueTop = max(trueTop, s.truth.map(\.speed).max() ?? 0)
                let rise = zip(s.truth, s.truth.dropFirst()).reduce(0.0) { $0 + max(0, $1.1.up - $1.0.up) }
                if rise > 0 { climbErrs.append((o.ascent - rise) / rise * 100) }
                windowPts = max(windowPts, o.windowPoints)
                windowM = max(windowM, o.windowMetres)
            }
            let n = Double(Self.seeds.count)
            let worst = errs.map(abs).max()!
            // The product's targets: ±0.5 % on open sky, tunnels, café and cold start, ±1 %
            // between buildings. We hold the other rides (spiky, 2-D, hilly) to ±1 %.
            let strict = ["open sky", "tunnels", "café stop 25 min", "cold start", "cold start, confident"]
            // A receiver whose error is mostly fresh every second pays for it in length: held to 1.5 %.
            var limit = strict.contains(name) ? 0.5 : name.contains("jittery") ? 1.5 : 1.0
            if name.hasPrefix("5 min 2-D") { limit = 4 }
            if name.hasPrefix("one fix every") { limit = 5 }
            // Drift among buildings that is fresher than "between buildings" (τ 30 s, not 60).
            if name.hasPrefix("stop 60") { limit = 1.5 }
            // The product's target for poor sky is keeping the ride (≥ 85 % of its length); its
            // drift alone (σ 9 m per axis) puts the odd fix 30 m out.
            if name.hasPrefix("poor sky") { limit = 15 }
            // Issue 28's conditions: position-only stretches, own estimates and GGA-only within 4 %,
            // a ride with a stand under a lying doppler within 10 % (its first 20 s are ridden, by
            // all the rules can tell); standing alone is judged by its trips and metres below.
            if name.hasPrefix("2-D without") || name.hasPrefix("poor sky, own") || name.hasPrefix("GGA only") { limit = 4 }
            if name.hasPrefix("stop 5-60") { limit = 10 }
            let asserted = !name.contains("not asserted") && !name.hasPrefix("standing")
            // The parked ride is 1.1 km: its distance is at the mercy of two endpoints' noise,
            // and what it is for is the park itself (asserted below).
            if asserted && !name.hasPrefix("parked") && worst > limit {
                failures.append("\(name): distance error up to \(f2(worst)) % (limit \(limit) %)")
            }
            if asserted && spikes > 0 && !name.hasPrefix("poor sky") && !name.hasPrefix("2-D without") && !name.hasPrefix("stop 5-60") {
                failures.append("\(name): \(spikes) points farther than 30 m from the path")
            }
            if name.hasPrefix("parked") || name.hasPrefix("stop 60") || name.hasPrefix("standing"), windowM > 5 || windowPts > 3 {
                failures.append("\(name): the stop added \(f2(windowM)) m and \(windowPts) points")
            }
            if name.hasPrefix("standing") && trips > 0 { failures.append("\(name): \(trips) trips that never happened") }
            // A top speed is one held for seconds: never a third over the truth's.
            if let top = topSpeeds.max(), top > 1.3 * trueTop, trueTop > 0 {
                failures.append("\(name): top speed \(f1(top)) m/s against a true \(f1(trueTop))")
            }
            // GPS-only climb (issue 28 item 4): heights that wander must not add metres, and rollers on
            // clean heights still count. Mean over the seeds within 30 % (the town rides: 83 m of
            // real climbing under heights wandering 4-6 m: now +9 … +25 % on seeds 1-8, +26 … +35 %
            // before on the open-sky ones), 10 % on the
            // hilly rides, 20 % on the rollers; poor sky with the receiver's own estimates claims a
            // vertical error of 15-25 m, so its heights are not trusted and it has no climb at all,
            // by design.
            if asserted, !climbErrs.isEmpty {
                let mean = climbErrs.reduce(0, +) / Double(climbErrs.count)
                if name.hasPrefix("poor sky, own") {
                    if climbErrs.contains(where: { $0 != -100 }) { failures.append("\(name): a climb from untrusted heights") }
                } else {
                    let climbLimit = name.contains("hills") ? 10.0 : name.hasPrefix("rollers") ? 20.0 : 30.0
                    if abs(mean) > climbLimit { failures.append("\(name): GPS-only climb off by \(f1(mean)) % on average (limit \(climbLimit) %)") }
                }
            }
            // GPX readers measure inside segments only: a dropout must not cost them the chord.
            let readerWorst = readerErrs.map(abs).max()!
            if name.hasPrefix("two straight") && readerWorst > 0.5 {
                failures.append("\(name): a GPX reader's length is off by up to \(f2(readerWorst)) %")
            }
            rows.append(
                "| \(name) | \(f2(errs.reduce(0, +) / n)) (\(f2(errs.min()!)) … \(f2(errs.max()!))) | \(spikes) | \(f1(still / n)) | \(Int((Double(points) / n).rounded())) | \(f2(movErr.reduce(0, +) / n)) | \(f2(rawErrs.reduce(0, +) / n)) | \(rawSpikes) | \(f1(rawStill / n)) | \(Int((Double(rawPoints) / n).rounded())) |"
                    + " \(f2(readerErrs.reduce(0, +) / n)) (\(f2(readerErrs.min()!)) … \(f2(readerErrs.max()!))) |"
                    + " \(f2(Double(trips) / n)) | \(f1(topSpeeds.max() ?? 0)) (\(f1(trueTop))) | "
                    + (climbErrs.isEmpty
                        ? "" : "\(f1(climbErrs.reduce(0, +) / Double(climbErrs.count))) (\(f1(climbErrs.min()!)) … \(f1(climbErrs.max()!)))") + " |"
                    + (name.hasPrefix("parked") || name.hasPrefix("stop") || name.hasPrefix("standing")
                        ? " stop: \(windowPts) points, \(f2(windowM)) m (worst seed)" : ""))
        }
        let table = """
            | scenario | distance error % mean (min … max) | points > 30 m off | standstill m | points | moving-time error % | raw: distance error % | raw: > 30 m off | raw: standstill m | raw: points | GPX reader's distance error % mean (min … max) | trips (mean) | top speed m/s, worst seed (true) | GPS-only climb error % mean (min … max) |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            """
        print(table)
        if let path = ProcessInfo.processInfo.environment["CAIRN_RULES_REPORT"] {
            let head =
                "Fix rules vs a raw recorder (every fix kept, like gpxlogger) on generated rides; \(Self.seeds.count) seeds each (sums of spikes, means otherwise). Produced by `Tests/bench/rules-report.sh`.\n\n"
            try (head + table + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
    }

    func f1(_ v: Double) -> String { String(format: "%.1f", v) }
    func f2(_ v: Double) -> String { String(format: "%.2f", v) }
}

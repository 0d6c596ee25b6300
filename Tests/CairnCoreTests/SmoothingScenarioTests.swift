import XCTest
import Foundation
@testable import CairnCore

/// Judges `convert --smooth` (`TrackSmoother`) and `--fill-gaps` (`GapFiller`) on generated rides
/// with a known truth: the rides of `ScenarioTests`, recorded through the fix rules (what the log
/// holds), then smoothed or filled as `convert` does. Seeds 1-8 here (the stages were tuned on
/// them); `Tests/bench/smooth-report.sh` reports on others and writes Tests/bench/smooth-results.md
/// (CAIRN_SMOOTH_REPORT=path).
final class SmoothingScenarioTests: XCTestCase {
    typealias G = ScenarioGenerator

    /// What the log holds of a trip, in the order the recorder hands it on: its points and
    /// segment starts, and (as `record` keeps them by default) its raw fixes with their verdicts.
    enum Logged {
        case item(TrackItem)
        case raw(RawFix)
    }

    static func log(_ s: G.Scenario, profile: ActivityProfile = .ride, keepsRaw: Bool = true) -> [Logged] {
        var c = TripRecorder<FixRules>.Config()
        c.clockIsFix = true
        c.keepsRaw = keepsRaw
        var rec = TripRecorder(filter: FixRules(profile: profile), config: c)
        var out: [Logged] = []
        let handle: (RecorderAction) -> Void = { a in
            switch a {
            case .openTrip: out.append(.item(.segment(.start)))
            case .startSegment(let r, _): out.append(.item(.segment(r)))
            case .keep(let f): out.append(.item(.point(f, .measured)))
            case .raw(let r): out.append(.raw(r))
            case .closeTrip: break
            }
        }
        for r in s.reports { rec.report(.fix(r.fix), wallClockMs: 0, emit: handle) }
        rec.finish(wallClockMs: 0, emit: handle)
        return out
    }

    /// The rules' output for a scenario: the points and segment starts a trip's log holds.
    static func recorded(_ s: G.Scenario, profile: ActivityProfile = .ride) -> [TrackItem] {
        items(log(s, profile: profile, keepsRaw: false))
    }

    static func items(_ log: [Logged]) -> [TrackItem] {
        log.compactMap { if case .item(let i) = $0 { return i } else { return nil } }
    }

    /// `convert --smooth` of a log: with its raw fixes (`SmoothingInput`, as `TrackPipeline` runs
    /// it for a log that holds them), or from the points alone (`record --raw off`).
    static func smoothed(_ log: [Logged], raw: Bool = true, tuning: TrackSmoother.Tuning = .ride) -> [TrackItem] {
        var s = TrackSmoother(tuning: tuning)
        var input = SmoothingInput()
        var out: [TrackItem] = []
        func smooth(_ x: SmoothingInput.Output) {
            switch x {
            case .item(let i): s.push(i) { out.append($0) }
            case .aid(let f): s.aid(f) { out.append($0) }
            }
        }
        for l in log {
            switch l {
            case .item(let i): if raw { input.push(i, release: smooth) } else { smooth(.item(i)) }
            case .raw(let r): if raw { input.push(raw: r, release: smooth) }
            }
        }
        input.finish(release: smooth)
        s.finish { out.append($0) }
        return out
    }

    static func smoothed(_ items: [TrackItem], tuning: TrackSmoother.Tuning = .ride) -> [TrackItem] {
        smoothed(items.map { .item($0) }, raw: false, tuning: tuning)
    }

    static func filled(_ items: [TrackItem]) -> (items: [TrackItem], filler: GapFiller) {
        var g = GapFiller()
        var out: [TrackItem] = []
        for i in items { g.push(i) { out.append($0) } }
        return (out, g)
    }

    static func points(_ items: [TrackItem]) -> [(Fix, PointOrigin)] {
        items.compactMap { if case .point(let f, let o) = $0 { return (f, o) } else { return nil } }
    }

    /// The trip's length as cairn's figures count it.
    static func length(_ items: [TrackItem]) -> Double {
        var st = TripStats()
        for i in items {
            switch i {
            case .segment(let r): st.startSegment(r)
            case .point(let f, _): st.add(f)
            }
        }
        return st.distanceM
    }

    static func rms(_ v: [Double]) -> Double {
        v.isEmpty ? 0 : (v.reduce(0) { $0 + $1 * $1 } / Double(v.count)).squareRoot()
    }

    /// The point's offset from the truth path (nearest step within ±30 s), signed positive toward
    /// the inside of the turn when that step is part of a bend; `corner` numbers the bend.
    static func offset(_ f: Fix, _ truth: [G.TruthPoint]) -> (off: Double, inward: Double?, corner: Int?) {
        let t = Int((f.timeMs - G.t0Ms) / 1000)
        let (e, n) = ScenarioTests.en(f)
        var best = Double.infinity, bestI = -1, bestSide = 0.0
        let lo = max(0, t - 30), hi = min(truth.count - 1, t + 30)
        guard lo < hi else { return (best, nil, nil) }
        for i in lo..<hi {
            let a = truth[i], b = truth[i + 1]
            let dx = b.east - a.east, dy = b.north - a.north
            let len2 = dx * dx + dy * dy
            var u = len2 > 0 ? ((e - a.east) * dx + (n - a.north) * dy) / len2 : 0
            u = min(1, max(0, u))
            let px = e - (a.east + u * dx), py = n - (a.north + u * dy)
            let d = (px * px + py * py).squareRoot()
            if d < best {
                best = d
                bestI = i
                // Right of the direction of travel is positive.
                bestSide = len2 > 0 ? (px * dy - py * dx) / len2.squareRoot() : 0
            }
        }
        guard bestI >= 0 else { return (best, nil, nil) }
        let turn = Self.turn(truth, bestI)
        guard turn != 0 else { return (best, nil, nil) }
        var first = bestI
        while first > 0 && Self.turn(truth, first - 1) != 0 { first -= 1 }
        return (best, bestSide * turn, first)
    }

    /// +1 for a step of a right-hand bend, -1 left, 0 straight (or standing).
    static func turn(_ truth: [G.TruthPoint], _ i: Int) -> Double {
        guard i + 1 < truth.count, truth[i + 1].moving else { return 0 }
        var d = truth[i + 1].heading - truth[i].heading
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return abs(d) < 0.01 ? 0 : (d > 0 ? 1 : -1)
    }

    struct SmoothOutcome {
        var rawRMS = 0.0, smoothRMS = 0.0
        var lengthChangePct = 0.0
        var trueLengthErrRaw = 0.0, trueLengthErrSmooth = 0.0
        /// Corners: the smoothed points' mean inward offset per bend, and those points' mean 68 % radius.
        var cornerCuts: [(cut: Double, h68: Double, key: Int)] = []
        var points = 0
    }

    static func judgeSmoothing(_ s: G.Scenario, raw: Bool = true, tuning: TrackSmoother.Tuning = .ride) -> SmoothOutcome {
        var o = SmoothOutcome()
        let logged = log(s, keepsRaw: raw)
        let rec = items(logged)
        let sm = smoothed(logged, raw: raw, tuning: tuning)
        let rp = points(rec), sp = points(sm)
        precondition(rp.count == sp.count)
        o.points = rp.count
        var rawOff: [Double] = [], smOff: [Double] = []
        var corners: [Int: (sum: Double, h: Double, n: Int)] = [:]
        for ((r, _), (q, origin)) in zip(rp, sp) {
            precondition(origin == .smoothed && r.timeMs == q.timeMs)
            rawOff.append(offset(r, s.truth).off)
            let x = offset(q, s.truth)
            smOff.append(x.off)
            if let inward = x.inward, let c = x.corner {
                let h = Accuracy.horizontal68(r) ?? 10
                let v = corners[c] ?? (0, 0, 0)
                corners[c] = (v.sum + inward, v.h + h, v.n + 1)
            }
        }
        o.rawRMS = rms(rawOff)
        o.smoothRMS = rms(smOff)
        let lr = length(rec), ls = length(sm)
        o.lengthChangePct = (ls - lr) / lr * 100
        o.trueLengthErrRaw = (lr - s.trueDistance) / s.trueDistance * 100
        o.trueLengthErrSmooth = (ls - s.trueDistance) / s.trueDistance * 100
        o.cornerCuts = corners.sorted { $0.key < $1.key }.map { ($0.value.sum / Double($0.value.n), $0.value.h / Double($0.value.n), $0.key) }
        return o
    }

    static let seeds: [UInt64] = ScenarioTests.seeds

    /// The tuning judged: `.ride`, or CAIRN_SMOOTH_TUNING="turnShare,tau,share,speedSigma,courseSigma,lagS[,accuracyScale,speedChangeShare,rampS,rampSpeedShare]" (for tuning runs).
    static let tuning: TrackSmoother.Tuning = {
        var t = TrackSmoother.Tuning.ride
        guard let v = ProcessInfo.processInfo.environment["CAIRN_SMOOTH_TUNING"]?.split(separator: ",").compactMap({ Double($0) }), v.count >= 6
        else { return t }
        if v.count > 6 { t.accuracyScale = v[6] }
        if v.count > 7 { t.speedChangeShare = v[7] }
        if v.count > 8 { t.rampS = v[8] }
        if v.count > 9 { t.rampSpeedShare = v[9] }
        t.turnShare = v[0]; t.driftTauS = v[1]; t.driftShare = v[2]; t.speedSigma = v[3]; t.courseSigmaDeg = v[4]; t.lagMs = Int64(v[5] * 1000)
        return t
    }()

    /// The rides judged for smoothing: `ScenarioTests`' rides with the sky views the issue names,
    /// and the harder receivers.
    static let smoothingScenarios = [
        "open sky", "open sky, jittery receiver", "between buildings", "urban canyon (not asserted)",
        "spikes", "2-D stretches", "tunnels", "poor sky, DOP only (HDOP 5.4)", "one fix every 12 s"
    ]

    /// The log as `record` writes it by default: the smoother learns from the thinned raw fixes.
    func testSmoothingMeetsTheTargets() throws {
        let (table, failures) = Self.judgeAll(withRaw: true)
        print(table)
        if let path = ProcessInfo.processInfo.environment["CAIRN_SMOOTH_REPORT"] {
            try (table + "\n").write(toFile: path + ".smooth", atomically: true, encoding: .utf8)
        }
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
    }

    /// A log without raw fixes (`record --raw off`, an older cairn): the points alone, held where
    /// they were before the raw fixes were used (between buildings 28 %, the target missed).
    func testSmoothingFromPointsAloneHolds() throws {
        let (table, failures) = Self.judgeAll(withRaw: false)
        print(table)
        if let path = ProcessInfo.processInfo.environment["CAIRN_SMOOTH_REPORT"] {
            try (table + "\n").write(toFile: path + ".points", atomically: true, encoding: .utf8)
        }
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
    }

    static func judgeAll(withRaw raw: Bool) -> (table: String, failures: [String]) {
        var rows: [String] = []
        var failures: [String] = []
        let all = ScenarioTests.scenarios(seed: 1).map(\.0.name)
        for name in Self.smoothingScenarios {
            guard let k = all.firstIndex(of: name) else { failures.append("no scenario \(name)"); continue }
            var recordedRMS: [Double] = [], sm: [Double] = [], lenChange: [Double] = [], errRaw: [Double] = [], errSm: [Double] = []
            var worstCut = -Double.infinity, worstCutH = 0.0, cutsOver = 0, cutsTotal = 0
            var systematic: [Int: (Double, Double, Int)] = [:]  // per bend of the route, over seeds
            for seed in Self.seeds {
                let s = ScenarioTests.scenarios(seed: seed)[k].0
                let o = Self.judgeSmoothing(s, raw: raw, tuning: Self.tuning)
                recordedRMS.append(o.rawRMS); sm.append(o.smoothRMS)
                lenChange.append(o.lengthChangePct)
                errRaw.append(o.trueLengthErrRaw); errSm.append(o.trueLengthErrSmooth)
                for c in o.cornerCuts {
                    cutsTotal += 1
                    if c.cut > c.h68 { cutsOver += 1 }
                    if c.cut > worstCut { worstCut = c.cut; worstCutH = c.h68 }
                    let v = systematic[c.key] ?? (0, 0, 0)
                    systematic[c.key] = (v.0 + c.cut, v.1 + c.h68, v.2 + 1)
                }
            }
            let n = Double(Self.seeds.count)
            let rawRMS = recordedRMS.reduce(0, +) / n, smRMS = sm.reduce(0, +) / n
            let gain = (1 - smRMS / rawRMS) * 100
            let worstSystematic = systematic.values.map { ($0.0 / Double($0.2), $0.1 / Double($0.2)) }.max { $0.0 < $1.0 }
            let worstLen = lenChange.map(abs).max() ?? 0
            // The target is 30 % where the log holds its raw fixes; from the points alone between
            // buildings falls short of it (Tests/bench/smooth-results.md) and is held at 28 %, so
            // it cannot slip.
            let floor = raw ? 30.0 : 28.0
            if (name.hasPrefix("urban canyon") || name == "between buildings") && gain < floor {
                failures.append("\(name): cross-track RMS down \(Self.f1(gain)) % (\(raw ? "target" : "held at") \(Int(floor)) %)")
            }
            if name == "open sky" && worstLen > 0.5 { failures.append("\(name): length changed by up to \(Self.f2(worstLen)) % (limit 0.5 %)") }
            if let w = worstSystematic, w.0 > w.1 {
                failures.append("\(name): a corner is cut by \(Self.f1(w.0)) m on average, more than its points' 68 % radius \(Self.f1(w.1)) m")
            }
            rows.append(
                "| \(name) | \(Self.f2(rawRMS)) | \(Self.f2(smRMS)) | \(Self.f1(gain)) | \(Self.f2(lenChange.reduce(0, +) / n)) (\(Self.f2(lenChange.min()!)) … \(Self.f2(lenChange.max()!))) | \(Self.f2(errRaw.reduce(0, +) / n)) | \(Self.f2(errSm.reduce(0, +) / n)) | "
                    + "\(worstSystematic.map { "\(Self.f1($0.0)) (\(Self.f1($0.1)))" } ?? "–") | \(cutsTotal > 0 ? "\(Self.f1(worstCut)) (\(Self.f1(worstCutH)))" : "–") | \(cutsOver) of \(cutsTotal) |"
            )
        }
        let table = """
            | scenario | cross-track RMS m, recorded | smoothed | RMS down % | length change % mean (min … max) | length error vs truth %, recorded | smoothed | worst corner's mean cut m (points' 68 % m) | worst single cut m (68 % m) | corners cut by more than their 68 % |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            """
        return (table, failures)
    }

    /// The route with a 24 s dropout over every bend (the receiver loses the sky in each turn).
    static func bendDropouts(seed: UInt64) -> G.Scenario {
        var g = G(seed: seed)
        var truth = g.truth(ScenarioTests.route)
        var i = 1
        while i < truth.count - 20 {
            if turn(truth, i) != 0 && turn(truth, i - 1) == 0 {
                for j in max(0, i - 8)..<min(truth.count, i + 16) { truth[j].visible = false }
                i += 20
            }
            i += 1
        }
        var d = 0.0
        for (p, q) in zip(truth, truth.dropFirst()) {
            d += ((q.east - p.east) * (q.east - p.east) + (q.north - p.north) * (q.north - p.north)).squareRoot()
        }
        return G.Scenario(
            name: "dropouts over every bend", truth: truth, reports: g.observe(truth, .init()), trueDistance: d,
            trueMovingSeconds: zip(truth, truth.dropFirst()).filter { $1.moving }.count)
    }

    /// The made-up points' distance from the truth, and the straight chord's at the same times.
    static func judgeFilling(_ s: G.Scenario) -> (
        hermite: [Double], chord: [Double], lengthRecorded: Double, lengthFilled: Double, gaps: Int, chords: Int
    ) {
        let rec = recorded(s)
        let (out, filler) = filled(rec)
        var hermite: [Double] = [], chord: [Double] = []
        var before: Fix?
        let pts = points(out)
        var k = 0
        while k < pts.count {
            let (f, o) = pts[k]
            guard o == .interpolated, let a = before else { before = f; k += 1; continue }
            var m = k
            while m < pts.count && pts[m].1 == .interpolated { m += 1 }
            let b = pts[m].0
            for j in k..<m {
                let q = pts[j].0
                hermite.append(offset(q, s.truth).off)
                let u = Double(q.timeMs - a.timeMs) / Double(b.timeMs - a.timeMs)
                var c = q
                c.lat = a.lat + (b.lat - a.lat) * u
                c.lon = a.lon + (b.lon - a.lon) * u
                chord.append(offset(c, s.truth).off)
            }
            k = m
        }
        return (hermite, chord, length(rec), length(out), filler.gaps, filler.chords)
    }

    static let fillingScenarios = ["tunnels", "two straight 150 s tunnels", "3 min outages, converging back"]

    func testGapFillingFollowsTheRoad() throws {
        var rows: [String] = []
        var failures: [String] = []
        let all = ScenarioTests.scenarios(seed: 1).map(\.0.name)
        for name in ["dropouts over every bend"] + Self.fillingScenarios {
            var h: [Double] = [], c: [Double] = [], errRec: [Double] = [], errFill: [Double] = [], gaps = 0, chords = 0, worstH = 0.0
            for seed in Self.seeds {
                let s =
                    name == "dropouts over every bend"
                    ? Self.bendDropouts(seed: seed) : ScenarioTests.scenarios(seed: seed)[all.firstIndex(of: name)!].0
                let o = Self.judgeFilling(s)
                h += o.hermite; c += o.chord
                worstH = max(worstH, o.hermite.max() ?? 0)
                errRec.append((o.lengthRecorded - s.trueDistance) / s.trueDistance * 100)
                errFill.append((o.lengthFilled - s.trueDistance) / s.trueDistance * 100)
                gaps += o.gaps; chords += o.chords
            }
            let n = Double(Self.seeds.count)
            let hr = Self.rms(h), cr = Self.rms(c)
            if name == "dropouts over every bend" {
                if !(hr < 0.7 * cr) { failures.append("\(name): the curve is \(Self.f2(hr)) m RMS off the road, the chord \(Self.f2(cr)) m") }
                if errFill.map(abs).max()! > errRec.map(abs).max()! { failures.append("\(name): filling made the length worse") }
            }
            rows.append(
                "| \(name) | \(gaps) | \(chords) | \(h.count) | \(Self.f2(hr)) | \(Self.f2(cr)) | \(Self.f1(worstH)) | \(Self.f2(errRec.reduce(0, +) / n)) | \(Self.f2(errFill.reduce(0, +) / n)) |"
            )
        }
        let table = """
            | scenario | gaps filled | as straight chords | points made up | made-up points' RMS off the road m | a straight chord's m | worst made-up point m | length error vs truth %, recorded | filled |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            """
        print(table)
        if let path = ProcessInfo.processInfo.environment["CAIRN_SMOOTH_REPORT"] {
            try (table + "\n").write(toFile: path + ".fill", atomically: true, encoding: .utf8)
        }
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
    }

    static func f1(_ v: Double) -> String { String(format: "%.1f", v) }
    static func f2(_ v: Double) -> String { String(format: "%.2f", v) }
}

import XCTest
@testable import CairnCore

/// Raw fixes (`Config.keepsRaw`): every fix the rules are offered comes out once, in offer
/// order, with the verdict the rules gave it, and a replay of them judges them the same way.
final class RawFixTests: XCTestCase {
    func testEveryOfferedFixGetsOneVerdictInEveryScenario() {
        for (scenario, _) in ScenarioTests.scenarios(seed: 11) {
            var config = TripRecorder<FixRules>.Config()
            config.clockIsFix = true
            config.keepsRaw = true
            var rec = TripRecorder(filter: FixRules(profile: .ride), config: config)
            var raws: [RawFix] = [], kept: [Fix] = [], segments: [SegmentReason] = []
            var drops = DropCounts()
            let handle: (RecorderAction) -> Void = { a in
                switch a {
                case .raw(let r): raws.append(r)
                case .keep(let f): kept.append(f)
                case .startSegment(let r, _): segments.append(r)
                case .closeTrip(let t): for c in t.drops.nonzero { drops.set(rule: c.rule, count: drops[rule: c.rule] + c.count) }
                case .openTrip: break
                }
            }
            for r in scenario.reports { rec.report(.fix(r.fix), wallClockMs: r.fix.timeMs + 300, emit: handle) }
            rec.finish(wallClockMs: (scenario.reports.last?.fix.timeMs ?? 0) + 300, emit: handle)
            for c in rec.drops.nonzero { drops.set(rule: c.rule, count: drops[rule: c.rule] + c.count) }
            let name = scenario.name
            XCTAssertEqual(raws.count + Int(drops[.duplicate]), scenario.reports.count, "\(name): one raw fix per epoch")
            XCTAssertFalse(raws.contains { $0.verdict == .undecided }, name)
            XCTAssertEqual(raws.filter { $0.verdict == .kept }.map(\.fix.timeMs), kept.map(\.timeMs), "\(name): kept ones")
            var counted = DropCounts()
            for r in raws { if case .dropped(let d) = r.verdict { counted.add(d) } }
            for d in DropReason.allCases where d != .duplicate {
                XCTAssertEqual(counted[d], drops[d], "\(name): \(d.name)")
            }
            // Replayed, the stored fixes make the same points and segments.
            var again = TripRecorder(filter: FixRules(profile: .ride), config: config)
            var keptAgain: [Fix] = [], segmentsAgain: [SegmentReason] = []
            let replayed: (RecorderAction) -> Void = { a in
                if case .keep(let f) = a { keptAgain.append(f) }
                if case .startSegment(let r, _) = a { segmentsAgain.append(r) }
            }
            for r in raws { again.replay(r, emit: replayed) }
            again.finish(wallClockMs: raws.last?.arrivalMs ?? 0, emit: replayed)
            XCTAssertEqual(keptAgain, kept, "\(name): replayed")
            XCTAssertEqual(segmentsAgain, segments, "\(name): replayed segments")
        }
    }
}

extension RawFixTests {
    /// A filter that keeps the first fix and then holds one fix for ever, deciding the others.
    struct HoldsOne: FixFilter {
        var n = 0
        mutating func offer(_ fix: Fix, nowMs: Int64, arrivalMs: Int64?, emit: (RuleOutput) -> Void) {
            n += 1
            if n == 1 { emit(.keep(fix)) } else if n != 2 { emit(.drop(.tooClose, fix)) }
        }
        mutating func flush(emit: (RuleOutput) -> Void) {}
        mutating func tripClosed() {}
    }

    func testAFixHeldLongerThanTheQueueIsHandedOutUndecidedAndTheRestFollow() {
        var config = TripRecorder<HoldsOne>.Config()
        config.keepsRaw = true
        var rec = TripRecorder(filter: HoldsOne(), config: config)
        var raws: [RawFix] = []
        let n = 2048 + 10
        for i in 0..<n {
            let f = Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47, lon: 8, mode: 3)
            rec.report(.fix(f), wallClockMs: f.timeMs, emit: { if case .raw(let r) = $0 { raws.append(r) } })
        }
        rec.finish(wallClockMs: 0, emit: { if case .raw(let r) = $0 { raws.append(r) } })
        // The collapser holds the newest epoch until the next; finish releases it.
        XCTAssertEqual(raws.count, n, "every fix is handed out, in order")
        XCTAssertEqual(raws.map(\.fix.timeMs), (0..<n).map { 1_748_764_800_000 + Int64($0) * 1000 })
        XCTAssertEqual(raws[0].verdict, .kept)
        XCTAssertEqual(raws[1].verdict, .undecided, "the held fix, when 2,047 newer ones waited behind it")
        XCTAssertTrue(raws[2...].allSatisfy { $0.verdict == .dropped(.tooClose) })
        XCTAssertEqual(raws[0].events, .runStart)
    }
}

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

    private func raw(_ i: Int) -> RawFix {
        RawFix(
            fix: Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47, lon: 8, mode: 3), arrivalMs: 0, verdict: .undecided,
            settings: RawSettings(clockIsFix: true, closeAfterMs: 1_800_000))
    }

    /// The queue's ring touches memory for the fixes waiting at once, not for its capacity: a
    /// ride of fixes decided one by one keeps it at one slot (it filled all 2,048, 300 kB of
    /// resident memory, after 2,048 fixes).
    func testTheQueueUsesStorageForWhatWaitsNotForItsCapacity() {
        var q = RawQueue()
        var out: [RawFix] = []
        for i in 0..<5000 {
            q.append(raw(i)) { out.append($0) }
            if q.decide(raw(i).fix, .kept) { q.drain { out.append($0) } }
        }
        XCTAssertEqual(out.map(\.fix.timeMs), (0..<5000).map { raw($0).fix.timeMs })
        XCTAssertEqual(q.storage, 1)
        // Three waiting at once: four slots.
        for i in 5000..<5003 { q.append(raw(i)) { out.append($0) } }
        XCTAssertEqual(q.storage, 4)
    }

    /// A ring that grows with its head inside it hands the fixes out in offer order still, each
    /// with its verdict; at capacity the oldest goes out undecided as before.
    func testAGrowingRingKeepsOfferOrderAndVerdicts() {
        var q = RawQueue()
        var out: [RawFix] = []
        var next = 0
        // Wrap the head around a small ring, then grow it several times with fixes waiting.
        for round in 0..<40 {
            let held = round % 7 + 1
            let first = next
            for _ in 0..<held {
                q.append(raw(next)) { out.append($0) }
                next += 1
            }
            // Decided newest first: nothing leaves before the oldest is decided.
            for i in stride(from: next - 1, through: first, by: -1) {
                let v: Verdict = i % 2 == 0 ? .kept : .dropped(.tooClose)
                if q.decide(raw(i).fix, v) { q.drain { out.append($0) } }
            }
        }
        XCTAssertEqual(q.count, 0)
        XCTAssertEqual(out.map(\.fix.timeMs), (0..<next).map { raw($0).fix.timeMs })
        XCTAssertEqual(out.map(\.verdict), (0..<next).map { $0 % 2 == 0 ? Verdict.kept : .dropped(.tooClose) })
        XCTAssertEqual(q.storage, 8)
        // Full: 2,048 waiting, the next pushes the oldest out undecided.
        out = []
        for i in 0..<(RawQueue.capacity + 1) { q.append(raw(next + i)) { out.append($0) } }
        XCTAssertEqual(q.storage, RawQueue.capacity)
        XCTAssertEqual(out.map(\.fix.timeMs), [raw(next).fix.timeMs])
        XCTAssertEqual(out.first?.verdict, .undecided)
    }
}

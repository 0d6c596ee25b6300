#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import CairnCore

/// `SmoothingInput`: a trip's points and its thinned raw fixes handed to the smoother in one time
/// order, whichever way round the log holds them, in bounded memory.
final class SmoothingInputTests: XCTestCase {
    static let settings = RawSettings(clockIsFix: true, closeAfterMs: 1_800_000)

    static func raw(_ t: Double, _ verdict: Verdict) -> RawFix {
        RawFix(fix: fix(t, north: 5 * t), arrivalMs: 0, verdict: verdict, settings: settings)
    }

    /// What came out, as text: "s" a segment start, "pT" a point at T s, "aT" an aid at T s.
    static func trace(_ out: [SmoothingInput.Output]) -> [String] {
        out.map { o in
            switch o {
            case .item(.segment): return "s"
            case .item(.point(let f, _)): return "p\((f.timeMs - fix(0).timeMs) / 1000)"
            case .aid(let f): return "a\((f.timeMs - fix(0).timeMs) / 1000)"
            }
        }
    }

    func testRawFixesThatTrailThePointsAreSlottedInByTime() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        // The points of a sync first, then the raw fixes that judged them (the rules held t = 3).
        input.push(.segment(.start)) { out.append($0) }
        for t in [0.0, 2, 4] { input.push(.point(fix(t, north: 5 * t), .measured)) { out.append($0) } }
        XCTAssertEqual(Self.trace(out), [], "nothing before the raw fixes say how far they got")
        for (t, v) in [(0.0, Verdict.kept), (1, .dropped(.tooClose)), (2, .kept), (3, .dropped(.tooClose))] {
            input.push(raw: Self.raw(t, v)) { out.append($0) }
        }
        XCTAssertEqual(Self.trace(out), ["s", "p0", "a1", "p2"], "t = 4 waits: its raw fix is not in yet")
        input.push(raw: Self.raw(4, .kept)) { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p0", "a1", "p2", "a3", "p4"])
    }

    func testRawFixesThatLeadThePointsAreSlottedInByTime() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        for (t, v) in [(0.0, Verdict.kept), (1, .dropped(.standing)), (2, .dropped(.noSpeedNear)), (3, .kept)] {
            input.push(raw: Self.raw(t, v)) { out.append($0) }
        }
        input.push(.segment(.start)) { out.append($0) }
        input.push(.point(fix(0), .measured)) { out.append($0) }
        input.push(.point(fix(3, north: 15), .measured)) { out.append($0) }
        input.finish { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p0", "a1", "a2", "p3"])
    }

    func testOnlyFixesLeftOutToThinTheTrackAreAids() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        input.push(.segment(.start)) { out.append($0) }
        input.push(.point(fix(0), .measured)) { out.append($0) }
        let judged: [Verdict] = [
            .dropped(.spike), .dropped(.jump), .dropped(.rough), .dropped(.converging), .dropped(.stale), .dropped(.timeJump),
            .dropped(.firstFix), .dropped(.invalid), .undecided, .dropped(.tooClose)
        ]
        for (k, v) in judged.enumerated() { input.push(raw: Self.raw(Double(k + 1), v)) { out.append($0) } }
        input.push(.point(fix(20, north: 100), .measured)) { out.append($0) }
        input.finish { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p0", "a10", "p20"])
    }

    func testASegmentStartWaitsForItsPointAndTheAidsBeforeItStayBehind() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        input.push(.segment(.start)) { out.append($0) }
        input.push(.point(fix(0), .measured)) { out.append($0) }
        input.push(.segment(.pause)) { out.append($0) }
        input.push(.point(fix(300), .measured)) { out.append($0) }
        input.push(raw: Self.raw(0, .kept)) { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p0"], "the pause waits with the point after it")
        input.push(raw: Self.raw(100, .dropped(.standing))) { out.append($0) }
        input.push(raw: Self.raw(300, .kept)) { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p0", "a100", "s", "p300"])
    }

    func testAidsOutOfOrderOrAtAPointsTimeAreLeftOut() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        input.push(.segment(.start)) { out.append($0) }
        input.push(.point(fix(5), .measured)) { out.append($0) }
        for (t, v) in [(5.0, Verdict.kept), (3, .dropped(.tooClose)), (7, .dropped(.tooClose)), (6, .dropped(.tooClose)), (7, .dropped(.tooClose))] {
            input.push(raw: Self.raw(t, v)) { out.append($0) }
        }
        input.push(.point(fix(9), .measured)) { out.append($0) }
        input.finish { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p5", "a7", "p9"])
    }

    /// A receiver's fix dated far ahead (rule 12 drops it: `time_jump`; a GPS week rollover) says
    /// nothing about how far the raw fixes got: the points after it still wait for their thinned
    /// fixes, which trail them.
    func testAFixOffTheTimeLineDoesNotReleaseThePointsEarly() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        input.push(.segment(.start)) { out.append($0) }
        input.push(.point(fix(0), .measured)) { out.append($0) }
        input.push(raw: Self.raw(0, .kept)) { out.append($0) }
        input.push(raw: Self.raw(20 * 365 * 86400, .dropped(.timeJump))) { out.append($0) }
        for t in stride(from: 4.0, through: 12, by: 4) {
            input.push(.point(fix(t, north: 5 * t), .measured)) { out.append($0) }
            for a in [t - 3, t - 2, t - 1] { input.push(raw: Self.raw(a, .dropped(.tooClose))) { out.append($0) } }
            input.push(raw: Self.raw(t, .kept)) { out.append($0) }
        }
        input.finish { out.append($0) }
        XCTAssertEqual(
            Self.trace(out), ["s", "p0", "a1", "a2", "a3", "p4", "a5", "a6", "a7", "p8", "a9", "a10", "a11", "p12"])
    }

    /// A crafted log's flood of segment starts with no point after them (300,000 records of 9
    /// bytes took `convert --smooth` 33 s, 1 s without the raw fixes): finding the next waiting
    /// point costs the same however many segment starts wait before it, so the work stays
    /// linear in the records (about 0.1 s here; 20 s when each push looked through them all).
    func testAFloodOfSegmentStartsStaysLinear() {
        var input = SmoothingInput()
        var out = 0
        // The thread's CPU time, not the wall clock, which on a loaded machine says how busy it is.
        var t0 = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0)
        input.push(.segment(.start)) { _ in out += 1 }
        input.push(.point(fix(0), .measured)) { _ in out += 1 }
        input.push(raw: Self.raw(0, .kept)) { _ in out += 1 }
        for _ in 0..<SmoothingInput.capacity - 1 { input.push(.segment(.pause)) { _ in out += 1 } }
        input.push(.point(fix(1), .measured)) { _ in out += 1 }
        for _ in 0..<200_000 { input.push(.segment(.pause)) { _ in out += 1 } }
        input.finish { _ in out += 1 }
        XCTAssertEqual(out, 2 + SmoothingInput.capacity - 1 + 1 + 200_000)
        var t1 = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1)
        XCTAssertLessThan(Double(t1.tv_sec - t0.tv_sec) + Double(t1.tv_nsec - t0.tv_nsec) / 1e9, 4)
    }

    /// A log whose raw fixes stop (recorded partly with `--raw off`): the points still come out,
    /// in order, never more than `capacity` behind.
    func testPointsWithoutRawFixesFlowAfterTheCapacity() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        let n = SmoothingInput.capacity + 500
        input.push(.segment(.start)) { out.append($0) }
        for t in 0..<n { input.push(.point(fix(Double(t), north: 5 * Double(t)), .measured)) { out.append($0) } }
        XCTAssertEqual(out.count, 1 + 500, "the oldest points go on once the capacity is full")
        input.finish { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s"] + (0..<n).map { "p\($0)" })
    }

    /// A long standstill's raw fixes with no point after them: bounded, and in order.
    func testALongStandstillsAidsAreBounded() {
        var input = SmoothingInput()
        var out: [SmoothingInput.Output] = []
        input.push(.segment(.start)) { out.append($0) }
        input.push(.point(fix(0), .measured)) { out.append($0) }
        input.push(raw: Self.raw(0, .kept)) { out.append($0) }
        let n = SmoothingInput.capacity + 100
        for t in 1...n { input.push(raw: Self.raw(Double(t), .dropped(.standing))) { out.append($0) } }
        XCTAssertEqual(out.count, 2 + 100)
        input.finish { out.append($0) }
        XCTAssertEqual(Self.trace(out), ["s", "p0"] + (1...n).map { "a\($0)" })
    }

    /// The smoother learns from aids and never writes them; an aid before a segment's first point
    /// is not used.
    func testTheSmootherWritesOnlyThePoints() {
        var s = TrackSmoother()
        var out: [TrackItem] = []
        s.aid(fix(0)) { out.append($0) }
        s.push(.segment(.start)) { out.append($0) }
        for t in stride(from: 1.0, to: 200, by: 1) {
            let f = fix(t, north: 5 * t, speed: 5)
            if Int(t) % 8 == 1 { s.push(.point(f, .measured)) { out.append($0) } } else { s.aid(f) { out.append($0) } }
        }
        s.finish { out.append($0) }
        let written = out.compactMap { i -> Int64? in if case .point(let f, _) = i { return f.timeMs } else { return nil } }
        XCTAssertEqual(written, stride(from: 1, to: 200, by: 8).map { fix(Double($0)).timeMs })
    }

    /// Thinned fixes far off the track (a crafted log: the rules never thinned such a fix), many
    /// in a row, neither pull the points nor restart the filter there.
    func testThinnedFixesOffTheTrackAreNotFollowed() {
        func smooth(crafted: Bool) -> [Fix] {
            var s = TrackSmoother()
            var out: [Fix] = []
            let emit: (TrackItem) -> Void = { if case .point(let f, _) = $0 { out.append(f) } }
            s.push(.segment(.start), emit: emit)
            for t in stride(from: 0.0, to: 120, by: 1) {
                let f = fix(t, north: 5 * t, speed: 5)
                if Int(t) % 8 == 0 {
                    s.push(.point(f, .measured), emit: emit)
                } else if crafted && t > 40 && t < 80 {
                    s.aid(fix(t, north: 5 * t, east: 1000, speed: 5), emit: emit)
                } else {
                    s.aid(f, emit: emit)
                }
            }
            s.finish(emit: emit)
            return out
        }
        let plain = smooth(crafted: false), crafted = smooth(crafted: true)
        XCTAssertEqual(plain.count, 15)
        XCTAssertEqual(crafted.count, 15)
        for (a, b) in zip(plain, crafted) {
            XCTAssertLessThan(Geodesy.distance(a, b), 2, "at \(a.timeMs): the crafted fixes 1 km east moved the point")
        }
    }
}

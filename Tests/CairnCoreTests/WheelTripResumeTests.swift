import CairnCore
import XCTest

/// When an unfinished wheel trip goes on after a restart: only in the same boot (the monotonic
/// clock runs on), within close-after of the wheel's last turn.
final class WheelTripResumeTests: XCTestCase {
    func testOnlyTheSameBootWithinCloseAfterResumes() {
        let a = "6f1c2b9e-0d6a-4c1e-9a51-2f8e7d3c4b5a", b = "0a0a0a0a-0000-4000-8000-000000000000"
        let close: Int64 = 30 * 60_000
        let cases: [(left: String?, now: String?, lastTurn: Int64, mono: Int64, want: WheelTripResume.Decision)] = [
            (a, a, 600_000, 660_000, .resume(gapMs: 60_000)),
            (a, a, 600_000, 600_000 + close - 1, .resume(gapMs: close - 1)),
            (a, a, 600_000, 600_000 + close, .tooLong(gapMs: close)),
            // A power cut: another boot, its monotonic clock from 0 again (here seemingly later).
            (a, b, 600_000, 700_000, .otherBoot),
            (a, b, 600_000, 10_000, .otherBoot),
            // A boot not known (an older recorder's file, /proc unreadable): nothing proves it.
            (nil, a, 600_000, 660_000, .otherBoot),
            (a, nil, 600_000, 660_000, .otherBoot),
            (nil, nil, 600_000, 660_000, .otherBoot),
            // The same boot id with the clock behind the last turn cannot be: not trusted.
            (a, a, 600_000, 599_000, .otherBoot)
        ]
        for c in cases {
            let got = WheelTripResume.decide(
                WheelTripResume.Unfinished(bootId: c.left, lastTurnMonoMs: c.lastTurn), bootId: c.now, monoMs: c.mono, closeAfterMs: close)
            XCTAssertEqual(got, c.want, "\(c)")
        }
    }
}

import XCTest

@testable import CairnRecorder
@testable import cairn

/// The status file's `button` field (issue 41, item 3): only with a button, after `baro`; and
/// what `cairn status` says of a stuck or chattering one.
final class ButtonStatusTests: XCTestCase {
    func testTheButtonFieldOnlyWithAButton() {
        var live = LiveStatus()
        XCTAssertFalse(live.render().contains("button="))
        live.button = "stuck"
        XCTAssertTrue(live.render().contains("baro=none\nbutton=stuck\nsynced_seq="), live.render())
        XCTAssertEqual(LiveStatus.parse(live.render()).first { $0.0 == "button" }?.1, "stuck")
        XCTAssertEqual(StatusCommand.buttonText("stuck"), "stuck (held down 15 s; presses ignored until released for 10 s)")
        XCTAssertTrue(StatusCommand.buttonText("chattering").hasPrefix("chattering (pressed again and again"))
        XCTAssertEqual(StatusCommand.buttonText("ok"), "ok")
    }
}

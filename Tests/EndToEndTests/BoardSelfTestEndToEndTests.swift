import XCTest
import Foundation

/// The board in a box's host-side checks (deploy/board/board.py) against crafted disks and logs,
/// without booting a guest (deploy/board/selftest/run.py): a lost, fabricated or damaged log is
/// rejected, what a real power cut leaves on ext4 and vfat is accepted.
final class BoardSelfTestEndToEndTests: XCTestCase {
    func testBoardChecksRejectLossAndAcceptWhatACutLeaves() throws {
        for tool in ["/usr/sbin/mkfs.vfat", "/usr/sbin/fsck.vfat", "/usr/bin/mcopy", "/usr/sbin/debugfs", "/usr/sbin/e2fsck"] {
            XCTAssertTrue(
                FileManager.default.isExecutableFile(atPath: tool)
                    || FileManager.default.isExecutableFile(atPath: tool.replacingOccurrences(of: "/usr", with: "")),
                "\(tool) is missing: bash Tests/tools/install-deps.sh installs what the board needs")
        }
        let script = Harness.repoRoot.appendingPathComponent("deploy/board/selftest/run.py").path
        let r = try Harness.run("/usr/bin/env", ["python3", script, "--cairn", Harness.cairn], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("selftest: all "), r.stdout)
        XCTAssertFalse(r.stdout.contains(" BAD "), r.stdout)
    }
}

import Foundation
import XCTest

/// The always-on slice of crash tests B and D1 (Tests/crash/run-campaign.sh runs them in full):
/// kill -9 of a recording `cairn record` and a restart, and the strace syscall audit.
final class DurabilityEndToEndTests: XCTestCase {
    static let crash = Harness.repoRoot.appendingPathComponent("Tests/crash").path

    func testKill9SliceLosesNothingAcknowledged() throws {
        let out = Harness.tempDir() + "/kill9.json"
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Self.crash + "/kill9.py", "--bin", Harness.cairn,
                "--trials", "16", "--jobs", "2", "--seed", "7", "--json", out
            ], timeout: 240)
        XCTAssertEqual(r.status, 0, r.stdout.suffix(3000) + r.stderr)
        print(r.stdout.split(separator: "\n").last ?? "")
    }

    func testSyscallAudit() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else { throw XCTSkip("strace is not installed") }
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Self.crash + "/audit.py", "--bin", Harness.cairn,
                "--seconds", "11", "--sync", "2"
            ], timeout: 90)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        guard let json = r.stdout.range(of: "{").map({ String(r.stdout[$0.lowerBound...]) }),
            let end = json.range(of: "}"),
            let obj = try JSONSerialization.jsonObject(with: Data(json[...end.lowerBound].utf8)) as? [String: Any]
        else {
            return XCTFail("no audit figures: \(r.stdout)")
        }
        XCTAssertEqual(obj["renames_truncates_unlinks_on_logs"] as? Int, 0)
        XCTAssertEqual(obj["io_after_failed_fdatasync"] as? Int, 0)
        XCTAssertEqual(obj["dir_fsyncs"] as? Int, obj["new_log_files"] as? Int, "one directory fsync per new file")
        // The lock file, with its PID, synced once at the start, then its directory.
        XCTAssertEqual(obj["lock_fsyncs"] as? Int, 1)
        XCTAssertEqual(obj["lock_dir_fsyncs"] as? Int, 1)
        // Zeros are written ahead of the data, and trimmed (to exactly the data) when the file closes.
        XCTAssertEqual(obj["close_trims"] as? Int, obj["new_log_files"] as? Int, "one trim at close per file")
        XCTAssertGreaterThanOrEqual(obj["zero_bytes_written"] as? Int ?? 0, 65_536)
        // 11 s at --sync 2: the header, about five cadence syncs and the one at stop.
        let n = obj["fdatasyncs"] as? Int ?? 0
        XCTAssertTrue((5...9).contains(n), "fdatasyncs: \(n)")
    }
}

import Foundation
import XCTest

/// `--json` on status, verify and deliver (issue 42): one object each on standard output, with
/// the fields Sources/cairn/README.md documents, as a script or a display process reads them.
final class JSONOutputEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testDeliverThenStatusAndVerify() throws {
        let dir = CraftedLog.directory()
        for i in 1...2 {
            try CraftedLog.write(
                CraftedLog.file(trip: UInt64(i), salt: UInt32(0x10 * i), startMs: CraftedLog.june1 + Int64(i) * 86_400_000, points: 20, closed: true),
                dir + "/0000000\(i).cairn")
        }
        let t = try Harness.offCardDir()
        try "[loc]\ntype = local\n".write(toFile: t + "/rclone.conf", atomically: true, encoding: .utf8)
        let args = ["deliver", "--dir", dir, "--remote", "loc:" + t + "/remote", "--rclone-config", t + "/rclone.conf", "--config", "none", "--json"]
        let d = try Harness.run(Harness.cairn, args)
        XCTAssertEqual(d.status, 0, d.stderr)
        let run = try object(d.stdout)
        XCTAssertEqual(run["result"] as? String, "ok")
        XCTAssertEqual(run["delivered"] as? Int, 2)
        XCTAssertEqual(run["waiting"] as? Int, 0)
        XCTAssertEqual(run["exit_status"] as? Int, 0)
        XCTAssertEqual(run["board_folder"] as? String, "unnamed")
        XCTAssertGreaterThan(run["sent_files"] as? Int ?? 0, 2)
        let again = try object(try Harness.run(Harness.cairn, args).stdout)
        XCTAssertEqual(again["delivered"] as? Int, 0)
        XCTAssertEqual(again["already_there"] as? Int, 2)

        // status: the file's fields, numbers as numbers, '-' as null, and the delivery.
        let live = Harness.tempDir() + "/status"
        try
            "# cairn live status\nstate=recording\nfix=3d\naccuracy_m=2.5\nspeed_kmh=-\ndropped=jump:3,slow:1\npoints=120\nrefresh_s=5\npid=\(getpid())\n"
            .write(toFile: live, atomically: true, encoding: .utf8)
        let s = try Harness.cairn("status", live, "--dir", dir, "--json")
        XCTAssertEqual(s.status, 0, s.stderr)
        let status = try object(s.stdout)
        XCTAssertEqual(status["state"] as? String, "recording")
        XCTAssertEqual(status["accuracy_m"] as? Double, 2.5)
        XCTAssertTrue(status["speed_kmh"] is NSNull)
        XCTAssertEqual(status["points"] as? Int, 120)
        XCTAssertEqual(status["dropped"] as? [String: Int], ["jump": 3, "slow": 1])
        XCTAssertEqual(status["stale"] as? Bool, false)
        XCTAssertEqual((status["delivery"] as? [String: Any])?["result"] as? String, "ok")
        XCTAssertEqual(status["exit_status"] as? Int, 0)
        let raw = try Harness.cairn("status", live, "--dir", dir, "--raw")
        XCTAssertTrue(raw.stdout.contains("\ndelivery=ok\ndelivery_summary=delivered 0 trips to "), raw.stdout)
        XCTAssertEqual(try Harness.cairn("status", live, "--raw", "--json").status, 64)

        // verify: each file's state, and the exit status it returns.
        var torn = try Data(contentsOf: URL(fileURLWithPath: dir + "/00000002.cairn"))
        torn.append(contentsOf: [0x43, 0x41, 0x49])
        try torn.write(to: URL(fileURLWithPath: dir + "/00000002.cairn"))
        let v = try Harness.cairn("verify", dir, "--json")
        XCTAssertEqual(v.status, 2, v.stderr)
        let verify = try object(v.stdout)
        let files = try XCTUnwrap(verify["files"] as? [[String: Any]])
        XCTAssertEqual(files.map { $0["state"] as? String }, ["clean", "torn"])
        XCTAssertEqual(files[1]["torn_tail_bytes"] as? Int, 3)
        XCTAssertEqual(verify["exit_status"] as? Int, 2)
        XCTAssertEqual(verify["trips"] as? Int, 2)
    }
}

import CairnExport
import XCTest

@testable import cairn

/// The `delivery` file's round trip, rclone's messages on one line, and remote folder names.
final class DeliveryStatusTests: XCTestCase {
    func testRoundTripAndSummary() throws {
        let dir = freshDirectory()
        var s = DeliveryStatus()
        s.result = .failed
        s.atMs = 1_748_764_800_000
        s.remote = "nas:rides"
        s.waiting = 3
        s.failures = 2
        s.failingSinceMs = 1_748_760_000_000
        s.reason = "upload to nas:x: dial tcp: connection refused\nsecond line"
        try s.write(directory: dir)
        var back = try XCTUnwrap(DeliveryStatus.read(directory: dir))
        XCTAssertEqual(back.reason, "upload to nas:x: dial tcp: connection refused second line")
        back.reason = s.reason
        XCTAssertEqual(back, s)
        XCTAssertEqual(
            back.summary, "failing since 2025-06-01T06:40:00Z (2 runs): upload to nas:x: dial tcp: connection refused\nsecond line; 3 waiting")
    }

    func testRcloneLastLines() {
        let text = """
            2026/12/03 16:29:59 ERROR : : error listing: directory not found
            2026/12/03 16:29:59 Failed to lsjson with 2 errors: last error was: directory not found

            """
        XCTAssertEqual(
            Rclone.lastLines(text), ": error listing: directory not found; Failed to lsjson with 2 errors: last error was: directory not found")
    }

    func testFind() {
        XCTAssertTrue(Rclone.find(Array("\"IsDir\":true".utf8), in: Array("{\"Path\":\"\",\"IsDir\":true}".utf8)))
        XCTAssertFalse(Rclone.find(Array("\"IsDir\":true".utf8), in: Array("{\"IsDir\":false}".utf8)))
        XCTAssertFalse(Rclone.find(Array("abc".utf8), in: Array("ab".utf8)))
        XCTAssertTrue(Rclone.find(Array("c".utf8), in: Array("abc".utf8)))
    }

    func testJoin() {
        XCTAssertEqual(DeliverCommand.join("nas:", "b1"), "nas:b1")
        XCTAssertEqual(DeliverCommand.join("nas:rides", "b1"), "nas:rides/b1")
        XCTAssertEqual(DeliverCommand.join("nas:rides/", "b1"), "nas:rides/b1")
    }

    /// A remote defined only in rclone's environment (RCLONE_CONFIG_NAME_TYPE) is one rclone
    /// uses, though its rc server's listremotes leaves it out; one defined nowhere is refused.
    func testRemoteFromEnvironment() throws {
        let rclone = Rclone(program: "rclone", configFile: nil, timeoutSeconds: 5)
        let env = ["RCLONE_CONFIG_ENVR_TYPE": "alias", "RCLONE_CONFIG_MY_NAS_TYPE": "sftp", "RCLONE_CONFIG_HALF_REMOTE": "/x"]
        func check(_ remote: String) throws {
            try DeliverCommand.checkRemote(remote, rclone: rclone, remotes: { ["al"] }, environment: { env[$0] })
        }
        XCTAssertNoThrow(try check("al:r"))
        XCTAssertNoThrow(try check("envr:r"))
        XCTAssertNoThrow(try check("my-nas:rides"))
        XCTAssertThrowsError(try check("half:r")) { e in
            XCTAssertEqual((e as? Failure)?.message, "--remote half:r: rclone has no remote 'half'; it has: al")
            XCTAssertEqual((e as? Failure)?.status, ExitCode.config)
        }
        XCTAssertThrowsError(try check("other:r"))
    }

    /// Retention runs the program the last delivery named only when no one else can change it:
    /// resolved through links (a link flipped later changes nothing), every folder above it
    /// closed to others (a sticky one such as /tmp with an entry of this user's).
    func testTrustedProgram() throws {
        let d = freshDirectory()
        let program = d + "/rclone"
        XCTAssertTrue(FileManager.default.createFile(atPath: program, contents: Data("#!/bin/sh\n".utf8)))
        XCTAssertEqual(chmod(program, 0o755), 0)
        XCTAssertEqual(chmod(d, 0o755), 0)
        XCTAssertEqual(DeliveredCopies.trustedProgram(program), program)
        XCTAssertEqual(symlink(program, d + "/link"), 0)
        XCTAssertEqual(DeliveredCopies.trustedProgram(d + "/link"), program, "run by its resolved path")
        XCTAssertEqual(chmod(program, 0o775), 0)
        XCTAssertNil(DeliveredCopies.trustedProgram(program), "group-writable")
        XCTAssertEqual(chmod(program, 0o755), 0)
        XCTAssertEqual(chmod(d, 0o777), 0)
        XCTAssertNil(DeliveredCopies.trustedProgram(program), "in a folder anyone can write")
        XCTAssertEqual(chmod(d, 0o1777), 0)
        XCTAssertEqual(DeliveredCopies.trustedProgram(program), program, "sticky, the entry this user's")
        XCTAssertNil(DeliveredCopies.trustedProgram(d + "/missing"))
    }
}

private func freshDirectory() -> String {
    let p = "/tmp/cairn-delivery-status-\(getpid())-\(Int.random(in: 0..<1_000_000))"
    mkdir(p, 0o755)
    return p
}

import Foundation
import XCTest

/// The board's privacy key on the remote renamed or deleted by hand (issue 38, attack r24
/// c03b/c19): the logs there are raw, and cut the same way again only with that key.
extension ChangesAfterDeliveryEndToEndTests {
    func testAKeyRenamedOrDeletedThereIsSentAgainAndPruneWaitsForIt() throws {
        let dir = try logs(3)
        try Harness.recorderKey(dir)
        let (conf, remote, path) = try remote()
        let cfg = try zoneConfig()
        let extra = ["--config", cfg, "--logs", "yes", "--format", "gpx"]
        XCTAssertEqual(try deliver(dir, conf, remote, extra).status, 0)
        let logsFolder = try unnamedFolder(path) + "/logs"
        let key = try data(logsFolder + "/privacy-key")
        for lose in ["rename", "delete"] {
            if lose == "rename" {
                try fm.moveItem(atPath: logsFolder + "/privacy-key", toPath: logsFolder + "/privacy-key.old")
            } else {
                try fm.removeItem(atPath: logsFolder + "/privacy-key")
            }
            // prune: no trip whose remote logs need the key goes while it is not there whole.
            let p = try prune(dir)
            XCTAssertTrue(fm.fileExists(atPath: dir + "/00000001.cairn"), lose + ": " + p.stderr)
            XCTAssertTrue(fm.fileExists(atPath: dir + "/00000002.cairn"), lose + ": " + p.stderr)
            XCTAssertTrue(p.stderr.contains("privacy-key"), lose + ": " + p.stderr)
            // deliver: sent again, said.
            let r = try deliver(dir, conf, remote, extra)
            XCTAssertEqual(r.status, 0, lose + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("privacy-key: this card's key is not there"), lose + ": " + r.stderr)
            XCTAssertEqual(try? data(logsFolder + "/privacy-key"), key, lose + ": " + r.stderr)
        }
        let p = try prune(dir)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/00000001.cairn"), p.stderr)
    }
}

import Foundation
import XCTest

/// A second card (another log directory, its own logs under the same numbers) exported to a
/// stick that holds the first card's export (issue 38, attack r24 c14c): it wrote gpx and fit of
/// the second card's trips without their logs or a page row; then it was refused whole. Now
/// each of its trips goes beside the first card's under names with its logs' salt (as deliver's),
/// said, its page row added, and nothing of the first card's replaced or deleted.
final class ExportSecondCardEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func card(salt: UInt32, firstDay: Int64) throws -> String {
        let dir = CraftedLog.directory()
        for i in 1...2 {
            try CraftedLog.write(
                CraftedLog.file(
                    trip: UInt64(i), salt: salt * UInt32(i), startMs: CraftedLog.june1 + (firstDay + Int64(i)) * 86_400_000, points: 30 + i,
                    closed: true),
                dir + "/0000000\(i).cairn")
        }
        return dir
    }

    func snapshot(_ root: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        guard let e = fm.enumerator(atPath: root) else { return out }
        while let p = e.nextObject() as? String {
            var d: ObjCBool = false
            if fm.fileExists(atPath: root + "/" + p, isDirectory: &d), !d.boolValue {
                out[p] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + p))
            }
        }
        return out
    }

    func testASecondCardsExportGoesBesideTheFirstsOnItsStick() throws {
        for extra in [[String](), ["--format", "gpx,fit"]] {
            // Cards and stick of their own: a card's receipts remember the names a stick took.
            let first = try card(salt: 0x10, firstDay: 0)
            let second = try card(salt: 0x4400, firstDay: 10)
            let stick = try Harness.offCardDir() + "/stick"
            let e = try Harness.run(Harness.cairn, ["export", "--dir", first, "--to", stick] + extra)
            XCTAssertEqual(e.status, 0, e.stderr)
            let before = try snapshot(stick)
            let e2 = try Harness.run(Harness.cairn, ["export", "--dir", second, "--to", stick] + extra)
            XCTAssertEqual(e2.status, 0, e2.stderr)
            XCTAssertTrue(
                e2.stderr.contains("trip 1 (00000001.cairn): another card's log holds its names on \(stick); exported beside it"), e2.stderr)
            let after = try snapshot(stick)
            // Nothing of the first card changed or gone (the page's files are made again with both).
            for (p, bytes) in before where !["index.html", "index.tsv"].contains(p) { XCTAssertEqual(after[p], bytes, p + ": " + e2.stderr) }
            // The second card's logs, byte for byte, under salted names; its conversions beside.
            for (i, salt) in [(1, "00004400"), (2, "00008800")] {
                let log = try Data(contentsOf: URL(fileURLWithPath: second + "/0000000\(i).cairn"))
                XCTAssertEqual(after["logs/0000000\(i)-\(salt).cairn"], log, e2.stderr)
                let convs = after.keys.filter { $0.hasPrefix("gpx/") && $0.contains("trip\(i)-\(salt)") }
                XCTAssertEqual(convs.count, 1, "\(after.keys.sorted())")
            }
            // Both cards' rows on the page.
            let index = String(decoding: after["index.tsv"] ?? Data(), as: UTF8.self)
            XCTAssertEqual(index.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("key\t") }.count, 4, index)
            // Again: nothing more to do, the same names.
            let e3 = try Harness.run(Harness.cairn, ["export", "--dir", second, "--to", stick] + extra)
            XCTAssertEqual(e3.status, 0, e3.stderr)
            XCTAssertFalse(e3.stderr.contains("another card's log"), e3.stderr)
            XCTAssertEqual(try snapshot(stick).keys.sorted(), after.keys.sorted(), e3.stderr)
            // Retention finds them under those names: a trip pruned has its copy there, whole.
            let logs = try (1...2).map { try Data(contentsOf: URL(fileURLWithPath: second + "/0000000\($0).cairn")) }
            let p = try Harness.cairn("prune", "--dir", second, "--max-mb", "0.000001")
            XCTAssertEqual(p.status, 0, p.stderr)
            for (i, salt) in [(1, "00004400"), (2, "00008800")] where !fm.fileExists(atPath: second + "/0000000\(i).cairn") {
                XCTAssertEqual(try snapshot(stick)["logs/0000000\(i)-\(salt).cairn"], logs[i - 1], p.stderr)
            }
        }
    }
}

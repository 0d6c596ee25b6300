import Foundation
import XCTest

/// A second card (another log directory, its own logs under the same numbers) exported to a
/// stick that holds the first card's export (issue 38, attack r24 c14c): it wrote gpx and fit of
/// the second card's trips without their logs or a page row. Refused whole now, said, and
/// nothing of the first card's replaced or deleted.
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

    func testASecondCardsExportToTheFirstsStickIsRefusedWhole() throws {
        let first = try card(salt: 0x10, firstDay: 0)
        let second = try card(salt: 0x4400, firstDay: 10)
        let stick = try Harness.offCardDir() + "/stick"
        for extra in [[String](), ["--format", "gpx,fit"]] {
            try? fm.removeItem(atPath: stick)
            let e = try Harness.run(Harness.cairn, ["export", "--dir", first, "--to", stick] + extra)
            XCTAssertEqual(e.status, 0, e.stderr)
            let before = try snapshot(stick)
            let e2 = try Harness.run(Harness.cairn, ["export", "--dir", second, "--to", stick] + extra)
            XCTAssertNotEqual(e2.status, 0, e2.stderr)
            XCTAssertTrue(e2.stderr.contains("\(stick)/logs/00000001.cairn: exists and is another file"), e2.stderr)
            XCTAssertTrue(e2.stderr.contains("nothing of trip 1 (00000001.cairn) is written to \(stick)"), e2.stderr)
            // No half export: nothing of the second card there, nothing of the first changed.
            let after = try snapshot(stick)
            XCTAssertEqual(Set(after.keys), Set(before.keys), e2.stderr)
            for (p, bytes) in before where p != "index.html" { XCTAssertEqual(after[p], bytes, p + ": " + e2.stderr) }
        }
    }
}

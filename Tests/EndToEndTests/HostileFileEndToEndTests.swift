import Foundation
import XCTest

/// The reading commands on hostile directories: crafted records, failing outputs, leftovers of a
/// power cut, two files claiming one trip. Each output is read by the independent readers of
/// Tests/tools/check-export.py.
final class HostileFileEndToEndTests: XCTestCase {
    func check(_ format: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        var args = ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/check-export.py").path, format, path]
        if format == "gpx" { args += ["--gpx-schema", Harness.gpxSchema] }
        let r = try Harness.run("/usr/bin/env", args)
        XCTAssertEqual(r.status, 0, "\(format) rejected: \(r.stderr)", file: file, line: line)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// A directory holding a copy of the crafted-values fixture (CairnLogTests.ImpossibleValuesTests
    /// builds it: 20 good points, 7 records with an impossible time or position, 2 points with
    /// impossible optional values).
    func craftedDir() throws -> String {
        let d = Harness.tempDir()
        try FileManager.default.copyItem(atPath: Harness.repoRoot.appendingPathComponent("Tests/Fixtures/logs/crafted-values/00000001.cairn").path,
                                         toPath: d + "/00000001.cairn")
        return d
    }

    func testCraftedValuesAreSkippedAndEveryFormatStaysValid() throws {
        let dir = try craftedDir()
        let v = try Harness.cairn("verify", dir)
        XCTAssertEqual(v.status, 3, v.stdout + v.stderr)
        XCTAssertTrue(v.stdout.contains("7 record(s) with impossible values skipped (first: latitude 91.0 out of range)"), v.stdout)
        XCTAssertTrue(v.stdout.contains("3 impossible value(s) left out of their points"), v.stdout)
        let trips = try Harness.trips(dir)
        XCTAssertEqual(trips.count, 1)
        XCTAssertEqual(trips[0]["points"] as? Int, 22)
        XCTAssertEqual(trips[0]["damaged_records"] as? Int, 7)
        XCTAssertEqual(trips[0]["status"] as? String, "recovered")
        XCTAssertEqual(trips[0]["start"] as? String, "2025-06-01T08:00:00Z")
        let out = Harness.tempDir()
        for format in ["gpx", "geojson", "kml", "csv"] {
            let path = out + "/t." + format
            let r = try Harness.cairn("convert", dir, "--to", format, "-o", path)
            XCTAssertEqual(r.status, 0, r.stderr)
            let c = try check(format, path)
            switch format {
            case "gpx": XCTAssertEqual(c["points"] as? Int, 22)
            case "csv": XCTAssertEqual(c["rows"] as? Int, 22)
            case "kml": XCTAssertEqual(c["whens"] as? Int, 22)
            default: XCTAssertEqual((c["trips"] as? [[String: Any]])?.first?["points"] as? Int, 22)
            }
        }
        let fit = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/fit")
        XCTAssertEqual(fit.status, 0, fit.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/fit"), ["20250601-080000-trip1.fit"])
        XCTAssertEqual(try check("fit", out + "/fit/20250601-080000-trip1.fit")["record"] as? Int, 22)
        // export: the trip and its conversions, valid.
        let dest = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", dest, "--format", "gpx,fit,geojson,kml,csv")
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(try check("fit", dest + "/fit/20250601-080000-trip1.fit")["record"] as? Int, 22)
        XCTAssertEqual(try check("gpx", dest + "/gpx/20250601-080000-trip1.gpx")["points"] as? Int, 22)
    }
}

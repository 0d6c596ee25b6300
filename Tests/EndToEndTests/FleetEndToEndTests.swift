import XCTest
import Foundation

/// The fleet recipe (Tests/fleet/README.md): a generated fleet of boards' delivered
/// CSV files plus one board holding real cairn output (a real ride recorded through gpsd and
/// converted by the binary under test, without a `board` column: its folder names it), loaded
/// into DuckDB and into a private PostGIS cluster. The generated boards' answers must equal the
/// generator's truth (Tests/fleet/run.py checks them); the real board's day must read cairn's
/// own `info` distance within 0.5 % and its cells be `cairn cells`'s.
final class FleetEndToEndTests: XCTestCase {
    static let board = "stjohns-edge810"

    func testRecipeAnswersAGeneratedFleetAndRealCairnOutput() throws {
        // Never a skip: the engines come from Tests/tools/install-deps.sh.
        let py = try Harness.run("/usr/bin/env", ["python3", "-c", "import duckdb"])
        XCTAssertEqual(py.status, 0, "DuckDB's python package is missing: Tests/tools/install-deps.sh installs it. \(py.stderr)")
        for tool in ["initdb", "pg_ctl", "psql"] {
            XCTAssertTrue(
                FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/\(tool)"),
                "PostgreSQL 15 is missing: Tests/tools/install-deps.sh installs postgresql-15-postgis-3")
        }

        let rec = try Harness.record(Harness.repoRoot.appendingPathComponent("Tests/Fixtures/real/edge810.nmea").path)
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let trips = try Harness.trips(rec.dir)
        XCTAssertEqual(trips.count, 1)
        let info = try Harness.cairn("info", rec.dir, "--json", "--config", "none")
        XCTAssertEqual(info.status, 0, info.stderr)
        let trip = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any], info.stdout)
        let distance = try XCTUnwrap(trip["distance_m"] as? Double, "\(trip)")
        let moving = try XCTUnwrap(trip["moving_time_s"] as? Double, "\(trip)")
        let cells = try Harness.cairn("cells", rec.dir, "--config", "none")
        XCTAssertEqual(cells.status, 0, cells.stderr)
        let cairnCells = Set(cells.stdout.split(separator: "\n").dropLast().map { String($0.split(separator: " ")[0]) })
        XCTAssertGreaterThan(cairnCells.count, 100)

        // The delivered layout: REMOTE/<board>/csv/<name>.csv, beside the generated boards.
        let work = Harness.tempDir()
        let csvDir = work + "/remote/\(Self.board)/csv"
        try FileManager.default.createDirectory(atPath: csvDir, withIntermediateDirectories: true)
        let conv = try Harness.cairn("convert", rec.dir, "--to", "csv", "-o", csvDir + "/edge810.csv", "--config", "none")
        XCTAssertEqual(conv.status, 0, conv.stderr)

        let out = work + "/fleet.json"
        let run = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/fleet/run.py").path, "--remote", work + "/remote",
                "--generate", "8", "5", "--geojson", "--json", out
            ], timeout: 240)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("MISMATCH"), run.stderr)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: XCTUnwrap(FileManager.default.contents(atPath: out))) as? [String: Any])
        for engine in ["duckdb", "postgis"] {
            let answer = try XCTUnwrap(report[engine] as? [String: Any], "\(engine): \(report)")
            let extra = try XCTUnwrap(answer["extra"] as? [String: Any], engine)
            let days = try XCTUnwrap((extra["days"] as? [String: Any])?[Self.board] as? [String: [String: Double]], "\(engine): \(extra)")
            XCTAssertEqual(days.count, 1, "\(engine): one day, one ride: \(days)")
            let day = try XCTUnwrap(days.values.first)
            XCTAssertEqual(day["distance_m"] ?? 0, distance, accuracy: distance * 0.005, "\(engine): the day's distance is cairn info's")
            XCTAssertEqual(day["moving_s"] ?? 0, moving, accuracy: moving * 0.03, "\(engine): the day's moving time near cairn info's")
            let cells = Set(try XCTUnwrap(extra["cells"] as? [String], engine))
            // The CSV's positions are rounded to 7 decimals (1 cm): a point that close to a cell's
            // edge may fall on the other side; all but a handful are the same.
            let same = cells.intersection(cairnCells).count
            XCTAssertGreaterThanOrEqual(Double(same), Double(cairnCells.count) * 0.995, "\(engine): \(cells.count) cells, cairn \(cairnCells.count)")
            XCTAssertLessThanOrEqual(cells.count - same, cairnCells.count / 200, "\(engine): cells cairn does not have")
            XCTAssertEqual((extra["box"] as? [String]) ?? [], [], "\(engine): St. John's is not in Leipzig's box")
        }

        // The generator writes cairn's formats: the CSV header is the real one plus `board`
        // (the column cairn's board ids add), the GeoJSON passes the export checks with the real figures' keys.
        let realCSV = try String(contentsOfFile: csvDir + "/edge810.csv", encoding: .utf8)
        let realHeader = String(realCSV.prefix { $0 != "\n" })
        let generated = try FileManager.default.subpathsOfDirectory(atPath: work + "/remote").sorted()
        let csv = try XCTUnwrap(generated.first { $0.hasPrefix("courier-001-") && $0.hasSuffix(".csv") }, "\(generated)")
        let header = try String(contentsOfFile: work + "/remote/" + csv, encoding: .utf8).prefix { $0 != "\n" }
        // The real ride has laps (the Edge's): a `lap` column follows `trip` there.
        let base = try XCTUnwrap(realHeader.range(of: ",trip").map { String(realHeader[..<$0.upperBound]) }, realHeader)
        XCTAssertEqual(String(header), base + ",board", "the real one: \(realHeader)")
        let geojson = try XCTUnwrap(generated.first { $0.hasPrefix("courier-001-") && $0.hasSuffix(".geojson") }, "\(generated)")
        let realGeo = work + "/real.geojson"
        let conv2 = try Harness.cairn("convert", rec.dir, "--to", "geojson", "-o", realGeo, "--config", "none")
        XCTAssertEqual(conv2.status, 0, conv2.stderr)
        let realTrips = try XCTUnwrap(Harness.checkExport("geojson", realGeo)["trips"] as? [[String: Any]])
        let genTrips = try XCTUnwrap(Harness.checkExport("geojson", work + "/remote/" + geojson)["trips"] as? [[String: Any]])
        XCTAssertEqual(genTrips.count, 1)
        XCTAssertEqual(
            Set(genTrips.first?.keys.map { $0 } ?? []).subtracting(["board"]), Set(realTrips.first?.keys.map { $0 } ?? []).subtracting(["board"]))

        // Tests/fleet/README.md's DuckDB command: every board's day, the real one's by its folder.
        let ask = try Harness.run(
            "/usr/bin/env", ["python3", Harness.repoRoot.appendingPathComponent("Tests/fleet/duckdb/ask.py").path, work + "/remote"],
            timeout: 120)
        XCTAssertEqual(ask.status, 0, ask.stderr)
        for part in ["== days", "== cells", "== box", Self.board, "unnamed"] { XCTAssertTrue(ask.stdout.contains(part), "\(part): \(ask.stdout)") }
    }
}

import Foundation
import XCTest

/// The board id end to end (issue 31, item 3): `record --board` writes it into each trip, `list`
/// and `info` show it, every format of `convert` and `export` carries it; `--board` (or the
/// config's `board` line) names the trips of logs that carry none, and the log's own id wins.
final class BoardEndToEndTests: XCTestCase {
    let fm = FileManager.default

    func names(_ dir: String) -> [String] { ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted() }

    /// Every format of `convert` of `dir` names `board`: GPX (valid against the schema), FIT (the
    /// creator's descriptor, and the file's name), GeoJSON, CSV, KML.
    func checkEveryFormat(_ dir: String, board: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let out = Harness.tempDir()
        for format in ["gpx", "geojson", "csv", "kml"] {
            let path = out + "/all." + format
            let c = try Harness.run(Harness.cairn, ["convert", dir, "--to", format, "-o", path] + extra)
            XCTAssertEqual(c.status, 0, c.stderr, file: file, line: line)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            switch format {
            case "gpx":
                XCTAssertTrue(text.contains("<metadata>\n    <extensions>\n      <cairn:board>\(board)</cairn:board>"), file: file, line: line)
                XCTAssertEqual(Harness.count("<cairn:board>\(board)</cairn:board>", in: text), 2, "metadata and the track", file: file, line: line)
            case "geojson":
                let doc = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                let props = (doc?["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any]
                XCTAssertEqual(props?["board"] as? String, board, file: file, line: line)
            case "csv":
                let rows = text.split(separator: "\n")
                XCTAssertEqual(rows.first?.split(separator: ",")[11], "board", file: file, line: line)
                let cells = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[11] }
                XCTAssertTrue(cells.allSatisfy { $0 == board }, String(rows[1]), file: file, line: line)
            default:
                XCTAssertTrue(text.contains("<Data name=\"board\"><value>\(board)</value></Data>"), file: file, line: line)
            }
            _ = try Harness.checkExport(format, path, file: file, line: line)  // the readers (xmllint for GPX and KML)
        }
        let fit = out + "/fit"
        let c = try Harness.run(Harness.cairn, ["convert", dir, "--to", "fit", "-o", fit] + extra)
        XCTAssertEqual(c.status, 0, c.stderr, file: file, line: line)
        let files = names(fit)
        XCTAssertEqual(files.count, 1, file: file, line: line)
        XCTAssertTrue(files.allSatisfy { $0.contains("-\(board)-trip") }, "\(files)", file: file, line: line)
        let strava = Harness.repoRoot.appendingPathComponent("Tests/tools/check-strava.py").path
        for f in files {
            let seen = try Harness.checkExport("fit", fit + "/" + f, file: file, line: line)
            XCTAssertEqual(seen["descriptors"] as? [String], [board], file: file, line: line)
            // Strava's upload rules, and the GPX of the same trip against the FIT.
            let s = try Harness.run("/usr/bin/env", ["python3", strava, "fit", fit + "/" + f])
            XCTAssertEqual(s.status, 0, "check-strava fit: \(s.stderr)", file: file, line: line)
            let g = try Harness.run("/usr/bin/env", ["python3", strava, "gpx", out + "/all.gpx", "--fit", fit + "/" + f])
            XCTAssertEqual(g.status, 0, "check-strava gpx: \(g.stderr)", file: file, line: line)
        }
    }

    func testARecordedBoardIsInTheLogListInfoAndEveryExport() throws {
        let r = try Harness.record("haicom-305N.log", extra: ["--board", "pi-e2e.7"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let trips = try Harness.trips(r.dir)
        XCTAssertEqual(trips.count, 1, r.stderr)
        XCTAssertEqual(trips.first?["board"] as? String, "pi-e2e.7")
        let list = try Harness.cairn("list", r.dir)
        XCTAssertTrue(list.stdout.split(separator: "\n").first?.hasSuffix("STATUS    BOARD") == true, list.stdout)
        XCTAssertTrue(list.stdout.split(separator: "\n").last?.hasSuffix("closed    pi-e2e.7") == true, list.stdout)
        let info = try Harness.cairn("info", r.dir, "--config", "none")
        XCTAssertTrue(info.stdout.contains("\n  board:      pi-e2e.7\n"), info.stdout)
        // The log's id wins over --board.
        try checkEveryFormat(r.dir, board: "pi-e2e.7", extra: ["--board", "other", "--config", "none"])

        // export: the names carry it.
        let stick = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", r.dir, "--to", stick, "--format", "gpx,fit,csv", "--config", "none")
        XCTAssertEqual(e.status, 0, e.stderr)
        for format in ["gpx", "fit", "csv"] {
            let got = names(stick + "/" + format)
            XCTAssertEqual(got.count, 1, e.stderr)
            XCTAssertTrue(got.first?.hasSuffix("-pi-e2e.7-trip1." + format) == true, "\(got)")
        }
    }

    /// A log without an id (an older recorder's) is named by `--board`, or by the config's line.
    func testAGivenBoardNamesTheTripsOfLogsWithout() throws {
        let dir = CraftedLog.directory()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 40, closed: true), dir + "/00000001.cairn")
        XCTAssertNil(try Harness.trips(dir).first?["board"], "no board key when the log has none")
        XCTAssertTrue(try Harness.cairn("list", dir).stdout.hasSuffix("closed    -\n"))
        XCTAssertTrue(try Harness.cairn("info", dir, "--config", "none").stdout.contains("\n  board:      - (not recorded"))
        try checkEveryFormat(dir, board: "given-1", extra: ["--board", "given-1", "--config", "none"])

        let conf = Harness.tempDir() + "/cairn.conf"
        try "# written by install.sh\nboard = from-conf\n".write(toFile: conf, atomically: true, encoding: .utf8)
        try checkEveryFormat(dir, board: "from-conf", extra: ["--config", conf])
        let stick = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", stick, "--format", "gpx,csv", "--config", conf)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(names(stick + "/gpx"), ["20250601-080000-from-conf-trip1.gpx"])
        XCTAssertEqual(names(stick + "/csv"), ["20250601-080000-from-conf-trip1.csv"])
        // Without any: the names of before, an empty board cell.
        let plain = Harness.tempDir() + "/plain"
        let p = try Harness.cairn("export", "--dir", dir, "--to", plain, "--format", "gpx,csv", "--config", "none")
        XCTAssertEqual(p.status, 0, p.stderr)
        XCTAssertEqual(names(plain + "/gpx"), ["20250601-080000-trip1.gpx"])
        let csv = try String(contentsOfFile: plain + "/csv/20250601-080000-trip1.csv", encoding: .utf8)
        XCTAssertTrue(csv.split(separator: "\n").dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false)[11].isEmpty })
    }

    /// A bad id is a usage error naming the option, or the config file and its line.
    func testABadIdIsAUsageErrorNamingTheOptionOrTheLine() throws {
        let tmp = Harness.tempDir()
        let dir = CraftedLog.directory()
        try CraftedLog.write(CraftedLog.file(trip: 1, salt: 0x11, points: 10, closed: true), dir + "/00000001.cairn")
        let r = try Harness.cairn("record", "--dir", tmp + "/logs", "--board", "my board", "--check")
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(
                "The value 'my board' is invalid for '--board <id>': a board id holds only letters, digits, '.', '_' and '-' (not ' ')"),
            r.stderr)
        let conf = tmp + "/cairn.conf"
        try "dir = \(tmp)/logs\nboard = ../up\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let fromFile = try Harness.cairn("record", "--config", conf, "--check")
        XCTAssertEqual(fromFile.status, 64, fromFile.stderr)
        XCTAssertTrue(fromFile.stderr.contains("\(conf):2: The value '../up' is invalid for '--board <id>'"), fromFile.stderr)
        let convert = try Harness.cairn("convert", dir, "--to", "gpx", "--config", conf)
        XCTAssertEqual(convert.status, 64, convert.stderr)
        XCTAssertTrue(convert.stderr.contains("\(conf):2: board: a board id holds only"), convert.stderr)
        let export = try Harness.cairn("export", "--dir", dir, "--to", tmp + "/stick", "--board", String(repeating: "x", count: 33))
        XCTAssertEqual(export.status, 64, export.stderr)
        XCTAssertTrue(export.stderr.contains("a board id has at most 32 characters"), export.stderr)
        // --check shows the one in effect and where it came from.
        try "dir = \(tmp)/logs\nboard = pi-north\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let check = try Harness.cairn("record", "--config", conf, "--check")
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("board = pi-north  (\(conf):2)"), check.stdout)
    }
}

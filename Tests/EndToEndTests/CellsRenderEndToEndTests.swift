import XCTest
import Foundation

/// `cairn cells`, `cairn render` and the fuel figures on real rides (Tests/Fixtures/real) and a
/// generated one, recorded through a private gpsd; and their bad input: each a clear error
/// naming the option or file, and the logs never touched.
final class CellsRenderEndToEndTests: XCTestCase {
    static func real(_ name: String) -> String { Harness.repoRoot.appendingPathComponent("Tests/Fixtures/real/\(name)").path }
    static func tool(_ name: String) -> String { Harness.repoRoot.appendingPathComponent("Tests/tools/\(name)").path }

    func logBytes(_ dir: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where f.hasSuffix(".cairn") {
            out[f] = FileManager.default.contents(atPath: dir + "/" + f)
        }
        return out
    }

    func testEdge810CellsAndPicture() throws {
        let rec = try Harness.record(Self.real("edge810.nmea"))
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let before = logBytes(rec.dir)
        XCTAssertEqual(before.count, 1)
        // A log of a trip that ended a minute ago (the index keeps only files that have settled).
        for f in before.keys {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: rec.dir + "/" + f)
        }

        // Text: every cell once, then the total; the index appears beside the log.
        let text = try Harness.cairn("cells", rec.dir)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stderr, "")
        let lines = text.stdout.split(separator: "\n")
        let total = try XCTUnwrap(lines.last)
        XCTAssertTrue(total.hasSuffix("cells at precision 7"), String(total))
        let n = Int(total.split(separator: " ")[0]) ?? 0
        XCTAssertEqual(lines.count, n + 1)
        // A 41 km ride through ~150 m cells crosses at least 41,000 / 220 of them (a diagonal cell).
        XCTAssertGreaterThan(n, 41_000 / 220)
        XCTAssertTrue(lines.dropLast().allSatisfy { $0.hasPrefix("fb6") && $0.contains(" 1 trip ") }, "St. John's, one trip")
        let index = rec.dir + "/.cairn-cells"
        let indexBefore = try FileManager.default.attributesOfItem(atPath: index)
        // The second run answers from the index: the same answer, the index not rewritten.
        usleep(20_000)
        let again = try Harness.cairn("cells", rec.dir)
        XCTAssertEqual(again.stdout, text.stdout)
        let indexAfter = try FileManager.default.attributesOfItem(atPath: index)
        XCTAssertEqual(indexBefore[.modificationDate] as? Date, indexAfter[.modificationDate] as? Date)

        // GeoJSON at every precision validates (RFC 7946 ring order) and matches the text.
        for p in ["5", "6", "7"] {
            let out = Harness.tempDir() + "/cells\(p).geojson"
            let r = try Harness.cairn("cells", rec.dir, "--precision", p, "--to", "geojson", "-o", out)
            XCTAssertEqual(r.status, 0, r.stderr)
            let c = try Harness.run("/usr/bin/env", ["python3", Self.tool("check-cells.py"), out, "--precision", p])
            XCTAssertEqual(c.status, 0, c.stderr)
            if p == "7" { XCTAssertTrue(c.stdout.contains("\"features\": \(n),"), c.stdout) }
        }
        let prefixed = try Harness.cairn("cells", rec.dir, "--prefix", "FB6R", "--precision", "6")
        XCTAssertEqual(prefixed.status, 0, prefixed.stderr)
        XCTAssertTrue(prefixed.stdout.split(separator: "\n").dropLast().allSatisfy { $0.hasPrefix("fb6r") })
        XCTAssertFalse(prefixed.stdout.hasPrefix("0 cells"))

        // The picture: valid SVG, a PNG that is not blank and holds the ride's band colours.
        let dir = Harness.tempDir()
        let svg = dir + "/ride.svg"
        let r = try Harness.cairn("render", rec.dir, "--cells", "-o", svg)
        XCTAssertEqual(r.status, 0, r.stderr)
        let size = (try FileManager.default.attributesOfItem(atPath: svg)[.size] as? Int) ?? 0
        XCTAssertLessThan(size, 300_000)
        let body = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(body.contains("41.3") && body.contains("km"), "the summary line")
        let c = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Self.tool("check-picture.py"), svg, dir + "/ride.png",
                "--colour", "#d7191c", "--colour", "#fdae61", "--colour", "#dfe7ef", "--colour", "#2ca02c"
            ])
        XCTAssertEqual(c.status, 0, c.stderr)
        // By trip id too; an existing file is refused without --force.
        XCTAssertEqual(try Harness.cairn("render", "1", "--dir", rec.dir, "-o", svg).status, 1)
        XCTAssertEqual(try Harness.cairn("render", "1", "--dir", rec.dir, "-o", svg, "--force").status, 0)

        XCTAssertEqual(logBytes(rec.dir), before, "cells and render never write a log")
    }

    func testDriveFuelAndCarColours() throws {
        let rec = try Harness.record(Self.real("dashcam-spb.nmea"), extra: ["--activity", "drive"])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let dir = Harness.tempDir()
        let conf = dir + "/cairn.conf"
        try "gpsd = 127.0.0.1:2947\nactivity = drive\nfuel_l_per_100km = 8\nfuel_price = 2.00\n".write(
            toFile: conf, atomically: true, encoding: .utf8)
        XCTAssertEqual(try Harness.cairn("record", "--config", conf, "--check").status, 0, "record takes the fuel keys")
        let info = try Harness.cairn("info", rec.dir, "--config", conf)
        XCTAssertEqual(info.status, 0, info.stderr)
        let list = try Harness.cairn("list", rec.dir, "--json", "--config", conf)
        let trips = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        let d = try XCTUnwrap(trips.first?["distance_m"] as? Double)
        let litres = try XCTUnwrap(trips.first?["fuel_l"] as? Double)
        XCTAssertEqual(litres, d / 100_000 * 8, accuracy: 0.006)
        XCTAssertEqual(try XCTUnwrap(trips.first?["fuel_cost"] as? Double), litres * 2, accuracy: 0.011)
        XCTAssertTrue(info.stdout.contains("fuel:") && info.stdout.contains("l at 8 l/100 km, cost"), info.stdout)
        // Without --config, no fuel keys.
        XCTAssertFalse(try Harness.cairn("list", rec.dir, "--json").stdout.contains("fuel_l"))

        for (text, needle) in [
            ("fuel_l_per_100km = -3\n", "cairn.conf:1"), ("fuel_l_per_100km = 1e1\n", "cairn.conf:1"),
            ("activity = drive\nfuel_price = 2\n", "cairn.conf:2"), ("fuel_l_per_100km = 7\nfuel_price = cheap\n", "cairn.conf:2")
        ] {
            try text.write(toFile: conf, atomically: true, encoding: .utf8)
            for args in [["info", rec.dir, "--config", conf], ["list", rec.dir, "--config", conf], ["record", "--config", conf, "--check"]] {
                let r = try Harness.run(Harness.cairn, args)
                XCTAssertEqual(r.status, 64, "\(args) \(text)")
                XCTAssertTrue(r.stderr.contains(needle) && r.stderr.contains("fuel_"), r.stderr)
            }
        }

        // A price over the limit says the limit (it said only "a plain decimal number").
        try "fuel_l_per_100km = 7\nfuel_price = 1000000.1\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let over = try Harness.cairn("info", rec.dir, "--config", conf)
        XCTAssertEqual(over.status, 64)
        XCTAssertTrue(over.stderr.contains("cairn.conf:2") && over.stderr.contains("1000000"), over.stderr)
        XCTAssertTrue(over.stderr.contains("from 0 to 1000000"), over.stderr)

        let svg = dir + "/drive.svg"
        XCTAssertEqual(try Harness.cairn("render", rec.dir, "-o", svg).status, 0)
        let body = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(body.contains("stroke=\"#1a9641\""), "city traffic under 50 km/h is green")
        XCTAssertTrue(body.contains("&lt; 50 km/h") && body.contains("&gt;= 110 km/h"), "the car bands in the legend")
    }

    func testGeneratedRideWithAStop() throws {
        let dir = Harness.tempDir()
        let nmea = dir + "/ride.nmea"
        let g = try Harness.run(
            "/usr/bin/env",
            [
                "python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path,
                "0.5", nmea, "--stop", "600:240", "--seed", "4"
            ])
        XCTAssertEqual(g.status, 0, g.stderr)
        let rec = try Harness.record(nmea)
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let svg = dir + "/ride.svg"
        let r = try Harness.cairn("render", rec.dir, "-o", svg)
        XCTAssertEqual(r.status, 0, r.stderr)
        let body = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(body.contains("class=\"stop\"") || body.contains("class=\"pause\""), "the 4-minute stand is marked")
        let c = try Harness.run("/usr/bin/env", ["python3", Self.tool("check-picture.py"), svg, dir + "/ride.png", "--colour", "#fdae61"])
        XCTAssertEqual(c.status, 0, c.stderr)
        let cells = try Harness.cairn("cells", rec.dir, "--precision", "6")
        XCTAssertEqual(cells.status, 0, cells.stderr)
        XCTAssertTrue(cells.stdout.contains("cells at precision 6"))
    }

    func testHelp() throws {
        let top = try Harness.cairn("--help")
        for sub in ["cells", "render"] {
            XCTAssertTrue(top.stdout.contains("  \(sub) "), top.stdout)
            let h = try Harness.cairn(sub, "--help")
            XCTAssertEqual(h.status, 0, sub)
            XCTAssertTrue(h.stdout.contains("USAGE: cairn \(sub)"), h.stdout)
            XCTAssertEqual(try Harness.cairn("help", sub).stdout, h.stdout)
        }
        for sub in ["info", "list"] { XCTAssertTrue(try Harness.cairn(sub, "--help").stdout.contains("--config <file>"), sub) }
    }

    /// A card mounted read-only: `cells` says it cannot save the index, naming it, and answers.
    func testReadOnlyCardIsAnsweredWithoutTheIndex() throws {
        let rec = try Harness.record(Self.real("pixel6-walk.nmea"), extra: ["--activity", "walk"])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let card = Harness.tempDir() + "/card"
        try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
        guard try Harness.run("/bin/mount", ["--bind", rec.dir, card]).status == 0 else {
            throw XCTSkip("no bind mounts here (needs root with CAP_SYS_ADMIN)")
        }
        defer { _ = try? Harness.run("/bin/umount", [card]) }
        guard try Harness.run("/bin/mount", ["-o", "remount,ro,bind", card]).status == 0 else { throw XCTSkip("cannot remount read-only here") }
        let before = logBytes(card)
        let r = try Harness.cairn("cells", card)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(card + "/.cairn-cells") && r.stderr.contains("Read-only file system")
                && r.stderr.contains("answered without saving the index"), r.stderr)
        XCTAssertTrue(r.stdout.contains("cells at precision 7") && !r.stdout.hasPrefix("0 cells"), r.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: card + "/.cairn-cells"))
        XCTAssertEqual(logBytes(card), before)
    }

    func testBadInput() throws {
        let rec = try Harness.record(Self.real("pixel6-walk.nmea"), extra: ["--activity", "walk"])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let before = logBytes(rec.dir)
        func usage(_ args: [String], _ needle: String) throws {
            let r = try Harness.run(Harness.cairn, args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
        }
        try usage(["cells", rec.dir, "--precision", "8"], "'--precision <n>'")
        try usage(["cells", rec.dir, "--precision", "07x"], "'--precision <n>'")
        try usage(["cells", rec.dir, "--prefix", "u0qa"], "'--prefix <geohash>'")
        try usage(["cells", rec.dir, "--prefix", "u0qj2ykx", "--precision", "7"], "longer than --precision 7")
        try usage(["cells", rec.dir, "--to", "kml"], "'--to <format>'")
        try usage(["render", rec.dir], "'-o, --output <path>'")
        try usage(["render", rec.dir, "-o", "x.svg", "--precision", "6"], "'--precision' applies with '--cells'")
        try usage(["render", rec.dir, "-o", "x.svg", "--speed-bands", "5,3"], "--speed-bands")

        let missing = try Harness.cairn("cells", rec.dir + "/nothing")
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nothing: no such file or directory"), missing.stderr)

        // An index that cannot be written: said, naming it; the answer is still given.
        let index = rec.dir + "/.cairn-cells"
        try FileManager.default.createDirectory(atPath: index, withIntermediateDirectories: false)
        let blocked = try Harness.cairn("cells", rec.dir)
        XCTAssertEqual(blocked.status, 0, blocked.stderr)
        XCTAssertTrue(blocked.stderr.contains(".cairn-cells") && blocked.stderr.contains("without saving the index"), blocked.stderr)
        XCTAssertFalse(blocked.stdout.hasPrefix("0 cells"))
        try FileManager.default.removeItem(atPath: index)

        // A damaged index: said and rebuilt, the same answer.
        let good = try Harness.cairn("cells", rec.dir)
        try Data("CAIRNCEL garbage".utf8).write(to: URL(fileURLWithPath: index))
        let rebuilt = try Harness.cairn("cells", rec.dir)
        XCTAssertEqual(rebuilt.status, 0)
        XCTAssertTrue(rebuilt.stderr.contains("rebuilding the index"), rebuilt.stderr)
        XCTAssertEqual(rebuilt.stdout, good.stdout)
        XCTAssertEqual(try Harness.cairn("cells", rec.dir).stderr, "", "rebuilt and saved")

        // A file that is no log: named, exit 1, the other trips still answered (as list does);
        // an empty file (a power cut while the recorder created it): said, exit 0.
        let junk = rec.dir + "/00000009.cairn"
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: junk))
        let withJunk = try Harness.cairn("cells", rec.dir)
        XCTAssertEqual(withJunk.status, 1)
        XCTAssertTrue(withJunk.stderr.contains("00000009.cairn"), withJunk.stderr)
        XCTAssertEqual(withJunk.stdout, good.stdout)
        try Data().write(to: URL(fileURLWithPath: junk))
        let withEmpty = try Harness.cairn("cells", rec.dir)
        XCTAssertEqual(withEmpty.status, 0, withEmpty.stderr)
        XCTAssertTrue(withEmpty.stderr.contains("00000009.cairn"), withEmpty.stderr)
        XCTAssertEqual(withEmpty.stdout, good.stdout)
        try FileManager.default.removeItem(atPath: junk)

        // A trip with no points: render fails naming its file; cells says so and skips it.
        let empty = Harness.tempDir()
        let src = try XCTUnwrap(before.keys.first)
        // The walk's log cut before its first points record (Tests/crash/cairnlog.py, the
        // independent reader, finds it): a header and a trip start, no point.
        let cut = try Harness.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sys; sys.path.insert(0, sys.argv[1]); import cairnlog
                f = cairnlog.LogFile(sys.argv[2])
                off = next(o for o, t, _ in f.frames if t in (3, 7))
                open(sys.argv[3], "wb").write(f.data[:off])
                """, Harness.repoRoot.appendingPathComponent("Tests/crash").path, rec.dir + "/" + src, empty + "/00000001.cairn"
            ])
        XCTAssertEqual(cut.status, 0, cut.stderr)
        let r = try Harness.cairn("render", empty, "-o", empty + "/x.svg")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("00000001.cairn") && r.stderr.contains("no points"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: empty + "/x.svg"), "nothing written")
        let c = try Harness.cairn("cells", empty)
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertTrue(c.stderr.contains("no points") && c.stderr.contains("00000001.cairn"), c.stderr)
        XCTAssertTrue(c.stdout.hasPrefix("0 cells"))

        XCTAssertEqual(logBytes(rec.dir), before, "nothing in the logs touched")
    }
}

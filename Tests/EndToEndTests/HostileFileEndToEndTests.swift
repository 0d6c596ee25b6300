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
        try FileManager.default.copyItem(
            atPath: Harness.repoRoot.appendingPathComponent("Tests/Fixtures/logs/crafted-values/00000001.cairn").path,
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

    /// The fixture with its header saying trip `id` (header CRC recomputed; frames are salted,
    /// not tied to the trip id).
    func fixture(trip id: UInt64) throws -> Data {
        var b = [UInt8](try Data(contentsOf: Harness.repoRoot.appendingPathComponent("Tests/Fixtures/logs/crafted-values/00000001.cairn")))
        for i in 0..<8 { b[16 + i] = UInt8(truncatingIfNeeded: id >> (8 * UInt64(i))) }
        var c: UInt32 = 0xFFFF_FFFF
        for x in b[0..<28] {
            c ^= UInt32(x)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        }
        c = ~c
        for i in 0..<4 { b[28 + i] = UInt8(truncatingIfNeeded: c >> (8 * UInt32(i))) }
        return Data(b)
    }

    func testTwoFilesClaimingOneTripAreBothReadAndNamed() throws {
        // A second recorder's file (or a leftover) claiming trip 1 part 0 too, with the same
        // times: merged, the second's points would all go as "not after" the first's.
        let dir = try craftedDir()
        try FileManager.default.copyItem(atPath: dir + "/00000001.cairn", toPath: dir + "/00000002.cairn")
        let l = try Harness.cairn("list", dir, "--json")
        XCTAssertEqual(l.status, 0, l.stderr)
        let trips = try JSONSerialization.jsonObject(with: Data(l.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(trips.map { $0["points"] as? Int ?? 0 }, [22, 22], "both rides, whole")
        XCTAssertEqual(trips.map { $0["file"] as? String ?? "" }, [dir + "/00000001.cairn", dir + "/00000002.cairn"])
        let note = "two files claim trip 1 part 0: \(dir)/00000001.cairn and \(dir)/00000002.cairn"
        XCTAssertEqual(Harness.count(note, in: l.stderr), 1, l.stderr)
        XCTAssertFalse(l.stderr.contains("recovered from a damaged or interrupted log"), l.stderr)
        let out = Harness.tempDir()
        let g = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out + "/all.gpx")
        XCTAssertEqual(g.status, 0, g.stderr)
        XCTAssertTrue(g.stderr.contains(note), g.stderr)
        XCTAssertEqual(try check("gpx", out + "/all.gpx")["points"] as? Int, 44)
        let f = try Harness.cairn("convert", dir, "--to", "fit", "-o", out + "/fit")
        XCTAssertEqual(f.status, 0, f.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out + "/fit").sorted(),
            ["20250601-080000-trip1-00000002.fit", "20250601-080000-trip1.fit"])
        let dest = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", dest)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("exported 2 trips"), e.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dest + "/gpx").sorted(),
            ["20250601-080000-trip1-00000002.gpx", "20250601-080000-trip1.gpx"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dest + "/logs").sorted(), ["00000001.cairn", "00000002.cairn"])
    }

    func testUnfinishedAndEmptyFilesAreSaidOnceAndNotFailures() throws {
        let dir = try craftedDir()
        _ = FileManager.default.createFile(atPath: dir + "/00000002.cairn", contents: Data())  // created, nothing written
        _ = FileManager.default.createFile(atPath: dir + "/00000003.cairn", contents: Data(count: 4096))  // zeros only
        _ = FileManager.default.createFile(atPath: dir + "/00000004.cairn", contents: try fixture(trip: 2).prefix(32))  // a header, no record
        try fixture(trip: 3).write(to: URL(fileURLWithPath: dir + "/00000005.cairn"))
        for args in [["list", dir], ["list", dir, "--json"], ["info", dir], ["info", "1", "--dir", dir]] {
            let r = try Harness.run(Harness.cairn, args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(Harness.count("00000002.cairn: empty file", in: r.stderr), 1, r.stderr)
            XCTAssertEqual(Harness.count("00000003.cairn: header is all zeros", in: r.stderr), 1, r.stderr)
            XCTAssertFalse(r.stdout.contains("0 open") || r.stdout.contains("\"points\": 0"), "\(args): an empty trip listed: \(r.stdout)")
        }
        let list = try Harness.cairn("list", dir)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 3, "the header, trips 1 and 3: \(list.stdout)")
        XCTAssertTrue(list.stderr.contains("trip 2 (\(dir)/00000004.cairn): no points (an empty or unfinished trip); skipped"), list.stderr)
        let out = Harness.tempDir()
        let c = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out + "/t.gpx")
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(try check("gpx", out + "/t.gpx")["tracks"] as? Int, 2)
        // Export copies trips 1 and 3, not the empty trip 2.
        let dest = Harness.tempDir() + "/stick"
        let e = try Harness.cairn("export", "--dir", dir, "--to", dest)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dest + "/logs").sorted(), ["00000001.cairn", "00000005.cairn"])
        XCTAssertTrue(e.stderr.contains("trip 2 (00000004.cairn): no points (an empty or unfinished trip); nothing to export"), e.stderr)

        // Nothing to convert at all: no file, exit 1, a clear line.
        let empty = Harness.tempDir()
        _ = FileManager.default.createFile(atPath: empty + "/00000001.cairn", contents: Data())
        let none = try Harness.cairn("convert", empty, "--to", "gpx", "-o", out + "/none.gpx")
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertTrue(none.stderr.contains("no trips in \(empty): nothing written"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/none.gpx"))
        _ = FileManager.default.createFile(atPath: empty + "/00000002.cairn", contents: try fixture(trip: 2).prefix(32))
        for (format, target) in [("gpx", out + "/none.gpx"), ("csv", "-"), ("fit", out + "/nonefit")] {
            let r = try Harness.cairn("convert", empty, "--to", format, "-o", target)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("no trip with points in \(empty): nothing written"), r.stderr)
            XCTAssertEqual(r.stdout, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/none.gpx"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/nonefit"), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".part") }, [])
    }

    func testConvertReplacesOnlyOnSuccessAndNeverLeavesAPartialFile() throws {
        let dir = try craftedDir()
        let out = Harness.tempDir()
        let target = out + "/t.gpx"
        let old = Data("the previous good file, kept until a new one is complete\n".utf8) + Data(repeating: 0x41, count: 8192)
        _ = FileManager.default.createFile(atPath: target, contents: old)
        // Without --force: refused, untouched.
        let refused = try Harness.cairn("convert", dir, "--to", "gpx", "-o", target)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("already exists"), refused.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: target), old)
        // With --force and a write that fails (file size limit, SIGXFSZ ignored): the old file stays.
        for format in ["gpx", "csv", "kml", "geojson"] {
            let r = try Harness.run(
                "/bin/bash",
                [
                    "-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" convert \"$1\" --to \(format) -o \"$2\" --force",
                    Harness.cairn, dir, target
                ])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("File too large"), r.stderr)
            XCTAssertEqual(FileManager.default.contents(atPath: target), old, "\(format): the old file was touched")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["t.gpx"], "\(format): a temporary file was left")
        }
        // FIT: a failed write leaves no file under the trip's name.
        let fit = out + "/fit"
        let r = try Harness.run(
            "/bin/bash", ["-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" convert \"$1\" --to fit -o \"$2\"", Harness.cairn, dir, fit])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fit), [], r.stderr)
        // And a success replaces it whole.
        let ok = try Harness.cairn("convert", dir, "--to", "gpx", "-o", target, "--force")
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(try check("gpx", target)["points"] as? Int, 22)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["fit", "t.gpx"])
    }

    func testExportGoesOnPastABadTripAndSaysWhich() throws {
        let dir = Harness.tempDir()
        for id in 1...3 { try fixture(trip: UInt64(id)).write(to: URL(fileURLWithPath: dir + "/0000000\(id).cairn")) }
        let dest = Harness.tempDir() + "/stick"
        // Trip 2's log name is taken on the stick by another file.
        try FileManager.default.createDirectory(atPath: dest + "/logs", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dest + "/logs/00000002.cairn", contents: Data("another board's log".utf8))
        let e = try Harness.cairn("export", "--dir", dir, "--to", dest, "--format", "gpx,fit")
        XCTAssertEqual(e.status, 1, "some trips failed: exit 1: \(e.stderr)")
        XCTAssertTrue(e.stderr.contains("exported 2 trips"), e.stderr)
        XCTAssertTrue(e.stderr.contains("1 trip not exported"), e.stderr)
        XCTAssertEqual(Harness.count("00000002.cairn: exists and is another file", in: e.stderr), 1, e.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dest + "/logs").sorted(), ["00000001.cairn", "00000002.cairn", "00000003.cairn"])
        // Trip 2 is refused whole (issue 38, c14c): no conversions or page row beside a log copy
        // that is not its own; the other trips' conversions are written.
        XCTAssertTrue(e.stderr.contains("nothing of trip 2 (00000002.cairn) is written"), e.stderr)
        for sub in ["gpx", "fit"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: dest + "/" + sub)
            XCTAssertEqual(names.count, 2, "\(sub): conversions of the other trips are written: \(names)")
            XCTAssertEqual(names.filter { $0.contains("trip2.") }, [], "\(sub): nothing of the refused trip")
        }
        for sub in ["logs", "gpx", "fit"] {
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dest + "/" + sub).filter { $0.hasSuffix(".part") }, [], sub)
        }
        // The log directory inside the destination, or the destination inside it: refused.
        for (d, to) in [(dir, dir + "/stick"), (dir, dir), (dest + "/logs", dest)] {
            let r = try Harness.cairn("export", "--dir", d, "--to", to)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("--to \(to): "), r.stderr)
            XCTAssertTrue(r.stderr.contains("inside the log directory") || r.stderr.contains("holds the log directory"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/stick"))
    }

    func testStdoutErrorsAndTripNames() throws {
        let dir = try craftedDir()
        for args in [["list", dir], ["list", dir, "--json"], ["verify", dir], ["info", "1", "--dir", dir], ["convert", dir, "--to", "csv"]] {
            let r = try Harness.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", Harness.cairn] + args)
            XCTAssertEqual(r.status, 1, "\(args) > /dev/full: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("standard output: write failed: No space left on device"), "\(args): \(r.stderr)")
        }
        let info = try Harness.cairn("info", "99", "--dir", dir)
        XCTAssertEqual(info.status, 1)
        XCTAssertTrue(info.stderr.contains("trip 99: no such trip"), info.stderr)
        XCTAssertFalse(info.stderr.contains("--trip"), info.stderr)
    }

    /// A FIFO named like a log (a mistaken `mkfifo`, a tool's pipe) is refused as not a regular
    /// file by every reading command, without waiting for a writer; the other trips are read.
    func testFIFONamedLikeALogIsRefusedWithoutBlocking() throws {
        let dir = try craftedDir()
        XCTAssertEqual(mkfifo(dir + "/00000002.cairn", 0o644), 0)
        let out = Harness.tempDir()
        for args in [
            ["list", dir], ["verify", dir], ["info", dir], ["convert", dir, "--to", "gpx", "-o", out + "/t.gpx"],
            ["export", "--dir", dir, "--to", out + "/stick"]
        ] {
            let r = try Harness.run(Harness.cairn, args, timeout: 20)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(
                r.stderr.contains("\(dir)/00000002.cairn: not a regular file") || r.stdout.contains("\(dir)/00000002.cairn: not a regular file"),
                "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try check("gpx", out + "/t.gpx")["points"] as? Int, 22)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/stick/logs"), ["00000001.cairn"])
    }

    /// `--force` over a symbolic link replaces the file it leads to and keeps the link; over a
    /// FIFO (or a device such as /dev/null) it writes into it: a rename would put a regular
    /// file in place of the link or the node.
    func testForceWritesThroughLinksAndIntoFIFOs() throws {
        let dir = try craftedDir()
        let out = Harness.tempDir()
        try FileManager.default.createDirectory(atPath: out + "/real", withIntermediateDirectories: false)
        try "old".write(toFile: out + "/real/t.gpx", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: out + "/latest.gpx", withDestinationPath: "real/t.gpx")
        let l = try Harness.cairn("convert", dir, "--to", "gpx", "-o", out + "/latest.gpx", "--force")
        XCTAssertEqual(l.status, 0, l.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/latest.gpx"), "real/t.gpx")
        XCTAssertEqual(try check("gpx", out + "/real/t.gpx")["points"] as? Int, 22)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/real"), ["t.gpx"], "no .part left")

        let fifo = out + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat \"$0\" > \"$1\"", fifo, out + "/read.csv"]
        try reader.run()
        let f = try Harness.run(Harness.cairn, ["convert", dir, "--to", "csv", "-o", fifo, "--force"], timeout: 20)
        reader.waitUntilExit()
        XCTAssertEqual(f.status, 0, f.stderr)
        var st = stat()
        XCTAssertEqual(lstat(fifo, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "the FIFO was replaced")
        XCTAssertEqual(try check("csv", out + "/read.csv")["rows"] as? Int, 22)
    }

    /// Two exports from one directory at once (a udev rule and a timer) shared the temporary
    /// names in the destination: each unlinked or renamed the other's `.part` files, and a trip
    /// could be reported as failed or renamed into place half written. The second now stops at
    /// once, naming the first; once the first is done, an export runs.
    func testASecondExportFromOneDirectoryStopsAtOnce() throws {
        let dir = try craftedDir()
        let lockPath = dir + "/.cairn-export.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        _ = "4242\n".withCString { write(fd, $0, 5) }
        let dest = Harness.tempDir() + "/stick"
        let held = try Harness.run(Harness.cairn, ["export", "--dir", dir, "--to", dest], timeout: 20)
        XCTAssertEqual(held.status, 1, held.stderr)
        XCTAssertTrue(
            held.stderr.contains("\(dir): another export from this directory is running (PID 4242); run again once it is done"), held.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dest), "nothing written while the other export runs")
        close(fd)
        let e = try Harness.cairn("export", "--dir", dir, "--to", dest)
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dest + "/logs"), ["00000001.cairn"])
        XCTAssertEqual(try check("gpx", dest + "/gpx/20250601-080000-trip1.gpx")["points"] as? Int, 22)
        let l = try Harness.cairn("list", dir)
        XCTAssertFalse(l.stderr.contains("cairn-export.lock"), l.stderr)
    }

    /// A one-point log file written by hand from LOG_FORMAT.md, with `activity` in its trip start.
    static func logFile(activity: [UInt8]) -> Data {
        let salt: UInt32 = 7
        var h =
            Array("CAIRNLOG".utf8) + CraftedLog.le(UInt16(2)) + CraftedLog.le(UInt16(32)) + CraftedLog.le(salt) + CraftedLog.le(UInt64(1))
            + CraftedLog.le(UInt32(0))
        h += CraftedLog.le(~CraftedLog.crc32c(h))
        func frame(_ type: UInt8, _ seq: UInt64, _ body: [UInt8]) -> [UInt8] {
            let payload = CraftedLog.varint(seq) + body
            let covered = CraftedLog.le(UInt16(payload.count)) + [type] + payload
            let c = ~CraftedLog.crc32c(covered, CraftedLog.crc32c(CraftedLog.le(salt)))
            return CraftedLog.le(((c >> 15) | (c << 17)) &+ 0xA282_EAD8) + covered
        }
        func zigzag(_ v: Int64) -> [UInt8] { CraftedLog.varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }
        let point =
            CraftedLog.varint(1) + [0] + CraftedLog.varint(7) + CraftedLog.varint(0) + zigzag(1_748_764_800_000) + zigzag(470_000_000)
            + zigzag(85_000_000)
        let b =
            h + frame(1, 1, CraftedLog.varint(UInt64(activity.count)) + activity + CraftedLog.varint(1) + [65])
            + frame(2, 2, [0, 0]) + frame(7, 3, point)
        return Data(b)
    }

    /// A crafted activity cannot drive the terminal: `info` prints its control characters as
    /// U+FFFD (an escape sequence, or a newline faking a line of output, came through as is).
    func testInfoPrintsNoControlCharactersFromALog() throws {
        let dir = Harness.tempDir()
        try Self.logFile(activity: Array("ride\u{1b}[2J\nfiles: x\u{9b}".utf8)).write(to: URL(fileURLWithPath: dir + "/00000001.cairn"))
        let r = try Harness.cairn("info", dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("Trip 1 (ride\u{FFFD}[2J\u{FFFD}files: x\u{FFFD}), open\n"), r.stdout)
        XCTAssertFalse(r.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B }, r.stdout)
        let j = try Harness.cairn("info", dir, "--json")
        XCTAssertTrue(j.stdout.contains(#""activity": "ride\u001b[2J\nfiles: x"#), j.stdout)
    }

    /// Over a file size limit (`ulimit -f`) convert and export were killed by SIGXFSZ without a
    /// word, leaving `.part` files; now the write fails, is reported, and nothing is left behind.
    func testFileSizeLimitIsReportedNotFatal() throws {
        try XCTSkipIf(
            Harness.isEmulated,
            "under qemu-user the emulator itself takes SIGXFSZ (the guest's SIG_IGN does not reach the host process), so this tests qemu, not cairn")
        let dir = try craftedDir()
        let out = Harness.tempDir()
        try "old".write(toFile: out + "/t.gpx", atomically: false, encoding: .utf8)
        let c = try Harness.run(
            "/bin/sh",
            [
                "-c", "ulimit -f 1 && exec \"$0\" \"$@\"", Harness.cairn,
                "convert", dir, "--to", "gpx", "-o", out + "/t.gpx", "--force"
            ])
        XCTAssertEqual(c.status, 1, c.stderr)
        XCTAssertTrue(c.stderr.contains("\(out)/t.gpx: write failed: File too large"), c.stderr)
        XCTAssertEqual(try String(contentsOfFile: out + "/t.gpx", encoding: .utf8), "old")
        let e = try Harness.run(
            "/bin/sh",
            [
                "-c", "ulimit -f 1 && exec \"$0\" \"$@\"", Harness.cairn,
                "export", "--dir", dir, "--to", out + "/stick", "--format", "gpx"
            ])
        XCTAssertEqual(e.status, 1, e.stderr)
        XCTAssertTrue(e.stderr.contains("gpx not written: \(out)/stick/gpx/.20250601-080000-trip1.gpx.part: write failed: File too large"), e.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/stick/gpx"), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["stick", "t.gpx"])
    }
}

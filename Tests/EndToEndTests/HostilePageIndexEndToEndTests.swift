import Foundation
import XCTest

/// An attacker's findings against what issue 31 added (the page beside `cairn export` and each
/// delivery, and `cairn deliver`), through the binary: an edited index at the destination whose
/// links lead out of the folder or whose bad fields reach the terminal as escape sequences, and
/// a huge index at the remote read whole into the board.
final class HostilePageIndexEndToEndTests: XCTestCase {
    let fm = FileManager.default

    /// A log directory with two closed crafted trips.
    func logs() throws -> String {
        let dir = CraftedLog.directory()
        for i in 1...2 {
            try CraftedLog.write(
                CraftedLog.file(
                    trip: UInt64(i), salt: 0x31 * UInt32(i), startMs: CraftedLog.june1 + Int64(i) * 86_400_000, points: 30, closed: true),
                dir + "/0000000\(i).cairn")
        }
        return dir
    }

    /// The href and src values of `html`.
    func links(_ html: String) -> [String] {
        var out: [String] = []
        for attr in ["href=\"", "src=\""] {
            var rest = html[...]
            while let r = rest.range(of: attr) {
                let value = rest[r.upperBound...].prefix { $0 != "\"" }
                out.append(String(value))
                rest = rest[r.upperBound...]
            }
        }
        return out
    }

    /// Someone else's index.tsv at the destination (a shared stick, a folder others write to)
    /// with file and picture paths that climb out of it. Before the fix the page linked
    /// `../../../../home/u/.ssh/id_rsa` and showed `<img src="../../../../etc/x.svg">`: from
    /// file:// that is any file of the computer the page is opened on.
    func testAnEditedIndexGetsNoLinkOutOfTheFolder() throws {
        let dir = try logs()
        let out = Harness.tempDir() + "/stick"
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        let hostile =
            "# cairn trip index, version 1\n"
            + "key\ttrip\tstart_ms\tutc_offset_s\tactivity\tdistance_m\tmoving_s\tascent_m\tpoints\tname\tpicture\tfiles\n"
            + "x/trip9\t9\t1\t0\tride\t1\t1\t1\t1\tn\t../../../../etc/x.svg\t"
            + "../../../../home/u/.ssh/id_rsa gpx/../../up.gpx javascript:alert(1) /etc/passwd //evil.example/x gpx/ok.gpx\n"
        try hostile.write(toFile: out + "/index.tsv", atomically: true, encoding: .utf8)
        let e = try Harness.run(Harness.cairn, ["export", "--dir", dir, "--to", out, "--format", "gpx", "--config", "none"])
        XCTAssertEqual(e.status, 0, e.stderr)
        let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let all = links(html)
        XCTAssertTrue(all.contains("gpx/ok.gpx"), "the edited trip's own link inside the folder stays: \(all)")
        for l in all {
            XCTAssertFalse(l.split(separator: "/", omittingEmptySubsequences: false).contains(".."), "a link out of the folder: \(l)")
            XCTAssertFalse(l.contains(":"), "a link with a scheme: \(l)")
            XCTAssertFalse(l.hasPrefix("/"), "an absolute link: \(l)")
        }
        // The index keeps what it had: only the page leaves those paths out.
        let tsv = try String(contentsOfFile: out + "/index.tsv", encoding: .utf8)
        XCTAssertTrue(tsv.contains("../../../../home/u/.ssh/id_rsa"), tsv)
    }

    /// Someone else's index.tsv with escape sequences in fields that do not read: the line's
    /// problem was said with the field as it is, so the file could set the terminal's title,
    /// clear it or colour what follows (and write what it likes into the journal of a timer's
    /// run). Before the fix stderr held ESC ] 2 ; PWNED BEL ESC [ 2 J.
    func testAnEditedIndexSendsNoEscapeSequenceToTheTerminal() throws {
        let dir = try logs()
        let out = Harness.tempDir() + "/stick"
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        let hostile =
            "# cairn trip index, version 1\n"
            + "key\ttrip\tstart_ms\tutc_offset_s\tactivity\tdistance_m\tmoving_s\tascent_m\tpoints\tname\tpicture\tfiles\n"
            + "x/trip9\t9\u{1B}]2;PWNED\u{07}\u{1B}[2J\t1\t0\tride\t1\t1\t1\t1\tn\t\t\n"
            + "x/trip8\t8\t1\t0\tride\t1e\u{1B}[31mRED\t1\t1\t1\tn\t\t\n"
        try hostile.write(toFile: out + "/index.tsv", atomically: true, encoding: .utf8)
        let e = try Harness.run(Harness.cairn, ["export", "--dir", dir, "--to", out, "--format", "gpx", "--config", "none"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.contains("index.tsv: line 3: column trip:"), e.stderr)
        XCTAssertTrue(e.stderr.contains("index.tsv: line 4: column distance_m:"), e.stderr)
        let controls = e.stderr.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
        XCTAssertEqual(controls.map { $0.value }, [], e.stderr.debugDescription)
        // The lines stay in the index as they were.
        let tsv = try String(contentsOfFile: out + "/index.tsv", encoding: .utf8)
        XCTAssertTrue(tsv.contains("\u{1B}]2;PWNED"), tsv.debugDescription)
    }

    /// A huge index.tsv at the remote (a broken or hostile writer to a shared folder): deliver
    /// read it whole into the board's memory, then wrote it to the board's card, only for the
    /// page builder to refuse it over 64 MiB. Before the fix a 512 MiB file took the run to
    /// 638 MB resident (this test; 300 MiB: 532 MB), more than a Pi Zero has. It is now read to
    /// one byte past the limit: 179 MB (/usr/bin/time -f %M, debug build).
    func testAHugeIndexAtTheRemoteIsNotReadWhole() throws {
        let dir = try logs()
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        try fm.createDirectory(atPath: t + "/remote/b1", withIntermediateDirectories: true)
        let huge = t + "/remote/b1/index.tsv"
        XCTAssertTrue(fm.createFile(atPath: huge, contents: nil))
        let h = FileHandle(forWritingAtPath: huge)!
        try h.truncate(atOffset: 512 << 20)  // sparse: no disk used
        try h.close()
        // The peak resident size of cairn and of the rclone it ran, in KiB.
        let measure = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.write(r.stderr.decode(errors="replace"))
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(r.returncode)
            """
        let r = try Harness.run(
            "/usr/bin/env",
            [
                "python3", "-c", measure, Harness.cairn, "deliver", "--dir", dir, "--remote", "loc:" + t + "/remote", "--rclone-config", conf,
                "--config", "none", "--retries", "1", "--board", "b1", "--format", "gpx"
            ],
            timeout: 300)
        // The trips go; the page that could not be updated makes the run's status 1, as before.
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("over 8 MiB, not a cairn trip index; the page is not updated"), r.stderr)
        XCTAssertTrue(r.stderr.contains("delivered 2 trips"), r.stderr)
        let peakKiB = Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max
        XCTAssertLessThan(peakKiB, 300 * 1024, "peak resident KiB of deliver with a 512 MiB index at the remote")
        // The remote's index is left as it was.
        XCTAssertEqual((try fm.attributesOfItem(atPath: huge)[.size] as? NSNumber)?.intValue, 512 << 20)
    }

    /// attack-r20: the board's own index at the remote, cut and padded with zeros to 40 MiB (a
    /// torn upload, a disk's garbage), under the old 64 MiB limit was read whole (235 MB), kept
    /// as a line and uploaded back, exit 0. Now over 8 MiB it is refused unread (the trips go,
    /// the run's status 1); under the limit the lines of zeros are dropped and the index written
    /// back holds only text.
    func testTheBoardsIndexPaddedWithZerosIsNeitherReadWholeNorSentBack() throws {
        let dir = try logs()
        let t = try Harness.offCardDir()
        let conf = t + "/rclone.conf"
        try "[loc]\ntype = local\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let args = [
            "--remote", "loc:" + t + "/remote", "--rclone-config", conf, "--config", "none", "--retries", "1", "--board", "b1", "--format", "gpx"
        ]
        let first = try Harness.run(Harness.cairn, ["deliver", "--dir", dir] + args)
        XCTAssertEqual(first.status, 0, first.stderr)
        let index = t + "/remote/b1/index.tsv"
        let good = try String(contentsOfFile: index, encoding: .utf8)
        func pad(to size: UInt64) throws {
            let h = FileHandle(forWritingAtPath: index)!
            try h.truncate(atOffset: size)  // sparse zeros after the real lines
            try h.close()
        }
        func addTrip(_ n: Int) throws {
            try CraftedLog.write(
                CraftedLog.file(
                    trip: UInt64(n), salt: 0x31 * UInt32(n), startMs: CraftedLog.june1 + Int64(n) * 86_400_000, points: 30, closed: true),
                dir + "/0000000\(n).cairn")
        }
        try pad(to: 40 << 20)
        try addTrip(3)
        let measure = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.write(r.stderr.decode(errors="replace"))
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(r.returncode)
            """
        let big = try Harness.run("/usr/bin/env", ["python3", "-c", measure, Harness.cairn, "deliver", "--dir", dir] + args, timeout: 300)
        XCTAssertEqual(big.status, 1, big.stderr)
        XCTAssertTrue(big.stderr.contains("over 8 MiB, not a cairn trip index; the page is not updated"), big.stderr)
        XCTAssertTrue(big.stderr.contains("delivered 1 trip"), big.stderr)
        let peakKiB = Int(big.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max
        XCTAssertLessThan(peakKiB, 100 * 1024, "peak resident KiB (cairn or its rclone) with a 40 MiB index at the remote")
        XCTAssertEqual((try fm.attributesOfItem(atPath: index)[.size] as? NSNumber)?.intValue, 40 << 20, "left as it was, not sent back")
        // Under the limit: read, its zeros dropped and said, the page written with text only.
        try pad(to: 2 << 20)
        try addTrip(4)
        let small = try Harness.run(Harness.cairn, ["deliver", "--dir", dir] + args)
        XCTAssertTrue(small.stderr.contains("not text (NUL bytes); dropped"), small.stderr)
        let back = try Data(contentsOf: URL(fileURLWithPath: index))
        XCTAssertFalse(back.contains(0), "no NUL byte written back")
        XCTAssertLessThan(back.count, 64 << 10)
        let text = String(decoding: back, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix(good.components(separatedBy: "\n").prefix(2).joined(separator: "\n")), text)
        for n in 1...4 { XCTAssertTrue(text.contains("\ttrip\(n)") || text.contains("trip\(n)-"), "trip \(n): " + text) }
    }
}

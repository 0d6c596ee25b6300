import XCTest
import Foundation

/// The deploy pieces: the systemd unit (checked by systemd-analyze itself), the config file and
/// its precedence, the install script (staged into a directory).
final class DeployTests: XCTestCase {
    static let unit = Harness.repoRoot.appendingPathComponent("deploy/cairn.service").path
    static let conf = Harness.repoRoot.appendingPathComponent("deploy/cairn.conf").path

    func analyze() throws -> String {
        for p in ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"] where FileManager.default.isExecutableFile(atPath: p) { return p }
        XCTFail("systemd-analyze is missing: Tests/tools/install-deps.sh installs the systemd package")
        throw NSError(domain: "systemd-analyze", code: 1)
    }

    /// `systemd-analyze verify` needs no running systemd, but checks that ExecStart= exists: the
    /// unit is verified as shipped, with only the binary's path pointed at the build under test.
    func testUnitPassesSystemdAnalyzeVerify() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        for line in [
            "Type=notify", "NotifyAccess=main", "Restart=always", "User=cairn", "StateDirectory=cairn",
            "ProtectSystem=strict", "ProtectHome=yes", "NoNewPrivileges=yes", "PrivateTmp=yes",
            "ReadWritePaths=/var/lib/cairn", "RestartPreventExitStatus=64 73 78"
        ] {
            XCTAssertTrue(text.components(separatedBy: "\n").contains(line), "the unit lacks \(line)")
        }
        XCTAssertTrue(text.contains("\nWatchdogSec="), "the unit sets no watchdog")
        XCTAssertTrue(text.contains("\nAfter=gpsd.socket gpsd.service") && text.contains("\nWants=gpsd.socket gpsd.service"))
        XCTAssertTrue(text.contains("ExecStart=/usr/local/bin/cairn record --config /etc/cairn.conf"))

        let dir = Harness.tempDir()
        let staged = dir + "/cairn.service"
        try text.replacingOccurrences(of: "/usr/local/bin/cairn", with: Harness.cairn).write(toFile: staged, atomically: true, encoding: .utf8)
        let sa = try analyze()
        let v = try Harness.run(sa, ["verify", staged])
        XCTAssertEqual(v.status, 0, v.stderr)
        // verify exits 0 on a misspelt key or a bad value too ("... ignoring"): any output fails.
        XCTAssertEqual(v.stderr + v.stdout, "", "systemd-analyze verify complained")

        // The check has teeth: a typo and a bad value are reported.
        let bad = dir + "/bad.service"
        try text.replacingOccurrences(of: "/usr/local/bin/cairn", with: Harness.cairn)
            .replacingOccurrences(of: "WatchdogSec=30", with: "WatchdogSec=thirty")
            .replacingOccurrences(of: "ProtectHome=yes", with: "ProtecHome=yes").write(toFile: bad, atomically: true, encoding: .utf8)
        let b = try Harness.run(sa, ["verify", bad])
        XCTAssertTrue(b.stderr.contains("WatchdogSec") || b.stderr.contains("sec value"), b.stderr)
        XCTAssertTrue(b.stderr.contains("ProtecHome"), b.stderr)

        // The sandbox, as systemd scores it (0 = locked down, 10 = fully exposed; 'OK' below 5).
        let s = try Harness.run(sa, ["security", "--offline=yes", "--threshold=40", staged])
        XCTAssertEqual(s.status, 0, "exposure above 4.0: \(s.stdout.suffix(300))")
        XCTAssertTrue(s.stdout.contains("Overall exposure level for cairn.service"), s.stdout + s.stderr)
    }

    func write(_ text: String) -> String {
        let p = Harness.tempDir() + "/cairn.conf"
        try! text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    func testConfigFileErrorsNameTheLine() throws {
        let cases: [(String, String)] = [
            ("# comment\n\ngpsd = 127.0.0.1\nsyncc = 3\n", ":4: unknown key 'syncc' (did you mean 'sync'?)"),
            ("gpsd = 127.0.0.1\njust words\n", ":2: expected 'key = value'"),
            ("sync = 2\nsync = 3\n", ":2: 'sync' is already set on line 1"),
            ("activity = ride\nsync = 99\n", ":2: The value '99' is invalid for '--sync <seconds>'"),
            ("\n\nactivity = unicycle\n", ":3: The value 'unicycle' is invalid for '--activity <activity>'"),
            ("verbose = maybe\n", ":1: 'verbose' is a flag: use yes or no"),
            ("dir =\n", ":1: 'dir' has no value"),
            ("config = /etc/other.conf\n", ":1: 'config' cannot be set in a config file"),
            ("gpsd = gps.example.org\n", ":1: The value 'gps.example.org' is invalid for '--gpsd"),
            ("keep-days = -3\n", ":1: The value '-3' is invalid for '--keep-days <days>'")
        ]
        for (text, expected) in cases {
            let p = write(text)
            let r = try Harness.cairn("record", "--config", p, "--check")
            XCTAssertEqual(r.status, 64, "\(text): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("Error: \(p)\(expected)"), "\(text) -> \(r.stderr)")
        }
        let missing = try Harness.cairn("record", "--config", "/nonexistent/cairn.conf", "--check")
        XCTAssertEqual(missing.status, 78, "EX_CONFIG: \(missing.stderr)")
        XCTAssertTrue(missing.stderr.contains("/nonexistent/cairn.conf: cannot read the config file: No such file or directory"), missing.stderr)
    }

    /// `check` in the file would make every start print the settings and exit 0: under
    /// Restart=always, a loop that never records.
    func testCheckIsACommandLineFlagOnly() throws {
        for text in ["check = yes\n", "sync = 5\ncheck = no\n"] {
            let p = write(text)
            let r = try Harness.cairn("record", "--config", p, "--dir", Harness.tempDir())
            XCTAssertEqual(r.status, 64, r.stderr)
            let line = text.hasPrefix("check") ? 1 : 2
            XCTAssertTrue(r.stderr.hasPrefix("Error: \(p):\(line): 'check' is a command-line flag only"), r.stderr)
        }
    }

    /// The file is read whole or refused: a value past 1 MiB is never silently cut off; a NUL or
    /// another control character, or bytes that are not UTF-8, are errors naming the line; a
    /// directory, a FIFO or an unreadable file exits 78 without hanging.
    func testConfigFileIsReadWholeAndCheckedByteByByte() throws {
        let big = write("sync = 2\n" + String(repeating: "# padding\n", count: 110_000) + "sync = 3\n")
        let b = try Harness.cairn("record", "--config", big, "--check")
        XCTAssertEqual(b.status, 78, b.stderr)
        XCTAssertTrue(b.stderr.contains("\(big): cannot read the config file") && b.stderr.contains("over the 1 MiB"), b.stderr)
        // Under the limit, the last line counts (read whole).
        let long = write("sync = 2\n" + String(repeating: "# padding\n", count: 90_000) + "activity = run\n")
        let l = try Harness.cairn("record", "--config", long, "--check")
        XCTAssertEqual(l.status, 0, l.stderr)
        XCTAssertTrue(l.stdout.contains("activity = run  (\(long):90002)"), l.stdout)
        for (bytes, line, what) in [
            (Array("sync = 2\ndir = /tmp/a\u{0}b\n".utf8), 2, "control character (byte 0x00)"),
            (Array("gpsd = 127.0.0.1\u{1b}[2J\n".utf8), 1, "control character (byte 0x1B)"),
            (Array("sync = 2\n\ndir = /tmp/".utf8) + [0xFF, 0x0A], 3, "not valid UTF-8")
        ] {
            let p = Harness.tempDir() + "/c.conf"
            XCTAssertTrue(FileManager.default.createFile(atPath: p, contents: Data(bytes)))
            let r = try Harness.cairn("record", "--config", p, "--check")
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("Error: \(p):\(line): ") && r.stderr.contains(what), r.stderr)
        }
        let dir = Harness.tempDir()
        let d = try Harness.cairn("record", "--config", dir, "--check")
        XCTAssertEqual(d.status, 78, d.stderr)
        XCTAssertTrue(d.stderr.contains("\(dir): cannot read the config file: not a regular file"), d.stderr)
        let fifo = Harness.tempDir() + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let f = try Harness.run(Harness.cairn, ["record", "--config", fifo, "--check"], timeout: 10)
        XCTAssertEqual(f.status, 78, f.stderr)
        XCTAssertTrue(f.stderr.contains("not a regular file"), f.stderr)
    }

    func testConfigPrecedenceCommandLineThenFileThenDefaults() throws {
        let p = write("# a rider's settings\r\nsync = 2\nactivity = \"run\"\ngpsd=127.0.0.1:3000\nverbose = yes\nkeep-days = 30\n")
        let r = try Harness.cairn("record", "--config", p, "--sync", "7", "--check")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.components(separatedBy: "\n")
        XCTAssertTrue(lines.contains("sync = 7  (command line)"), r.stdout)
        XCTAssertTrue(lines.contains("activity = run  (\(p):3)"), r.stdout)
        XCTAssertTrue(lines.contains("gpsd = 127.0.0.1:3000  (\(p):4)"), r.stdout)
        XCTAssertTrue(lines.contains("verbose = yes  (\(p):5)"), r.stdout)
        XCTAssertTrue(lines.contains("keep-days = 30  (\(p):6)"), r.stdout)
        XCTAssertTrue(lines.contains("clock = system  (default)"), r.stdout)
        XCTAssertTrue(lines.contains("dir = /var/lib/cairn  (default)"), r.stdout)
        // A bad value on the command line is the command line's error, even when the file sets it well.
        let cl = try Harness.cairn("record", "--config", p, "--sync", "0", "--check")
        XCTAssertEqual(cl.status, 64)
        XCTAssertTrue(cl.stderr.hasPrefix("Error: The value '0' is invalid for '--sync"), cl.stderr)
        // The shipped example is valid and sets every key it documents only in comments.
        let ex = try Harness.cairn("record", "--config", Self.conf, "--check")
        XCTAssertEqual(ex.status, 0, ex.stderr)
        let doc = try String(contentsOfFile: Self.conf, encoding: .utf8)
        let help = try Harness.cairn("record", "--help").stdout
        for line in help.components(separatedBy: "\n") {
            guard let r = line.range(of: #"^  --[a-z-]+"#, options: .regularExpression) else { continue }
            let key = String(line[r].dropFirst(4))
            // Command-line flags only (led-grant: the unit's root step).
            if ["config", "check", "help", "led-grant"].contains(key) { continue }
            XCTAssertTrue(doc.contains("# \(key) =") || doc.contains("`\(key)`"), "deploy/cairn.conf does not document '\(key)'")
        }
    }

    func testInstallScriptStagesIdempotentlyAndUninstalls() throws {
        let root = Harness.tempDir()
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        for f in ["passwd", "group", "shadow", "gshadow", "login.defs"] where fm.fileExists(atPath: "/etc/" + f) {
            try fm.copyItem(atPath: "/etc/" + f, toPath: root + "/etc/" + f)
        }
        let script = Harness.repoRoot.appendingPathComponent("deploy/install.sh").path
        let args = [script, "--root", root, "--binary", Harness.cairn, "--no-static-check"]
        let first = try Harness.run("/bin/bash", args)
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
        XCTAssertTrue(first.stdout.contains("created user cairn"), first.stdout)
        for f in [
            "/usr/local/bin/cairn", "/etc/systemd/system/cairn.service", "/etc/cairn.conf", "/usr/local/share/doc/cairn/README.md",
            "/usr/local/share/man/man1/cairn.1.gz", "/usr/local/share/bash-completion/completions/cairn"
        ] {
            XCTAssertTrue(fm.fileExists(atPath: root + f), "not installed: \(f)")
        }
        // The completion offers the subcommands, then each one's options, as the binary has them.
        let completion = root + "/usr/local/share/bash-completion/completions/cairn"
        let complete = try Harness.run(
            "/bin/bash",
            [
                "-c",
                "source '\(completion)'; COMP_WORDS=(cairn del); COMP_CWORD=1; _cairn; echo \"${COMPREPLY[*]}\";"
                    + " COMP_WORDS=(cairn deliver --re); COMP_CWORD=2; _cairn; echo \"${COMPREPLY[*]}\""
            ])
        XCTAssertEqual(complete.stdout, "deliver\n--remote --retries\n", complete.stderr)
        var isDir: ObjCBool = false
        XCTAssertTrue(fm.fileExists(atPath: root + "/var/lib/cairn", isDirectory: &isDir) && isDir.boolValue)
        let passwd = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
        let entry = passwd.components(separatedBy: "\n").first { $0.hasPrefix("cairn:") } ?? ""
        XCTAssertTrue(entry.hasSuffix(":/var/lib/cairn:/usr/sbin/nologin"), entry)
        let owner = try fm.attributesOfItem(atPath: root + "/var/lib/cairn")[.ownerAccountID] as? Int
        XCTAssertEqual(owner.map(String.init), entry.components(separatedBy: ":").dropFirst(2).first, "the data directory belongs to cairn")

        // Again: nothing duplicated, the rider's config kept.
        try "sync = 2\n".write(toFile: root + "/etc/cairn.conf", atomically: true, encoding: .utf8)
        let second = try Harness.run("/bin/bash", args)
        XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
        XCTAssertFalse(second.stdout.contains("created user"), second.stdout)
        XCTAssertTrue(second.stdout.contains("kept the existing"), second.stdout)
        XCTAssertEqual(try String(contentsOfFile: root + "/etc/cairn.conf", encoding: .utf8), "sync = 2\n")
        let passwd2 = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
        XCTAssertEqual(passwd2.components(separatedBy: "\n").filter { $0.hasPrefix("cairn:") }.count, 1)

        // A broken config stops the install with the line named.
        try "sync = 2\nsnyc = 3\n".write(toFile: root + "/etc/cairn.conf", atomically: true, encoding: .utf8)
        let broken = try Harness.run("/bin/bash", args)
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stderr.contains("cairn.conf:2: unknown key 'snyc'"), broken.stderr)

        // Uninstall keeps the rides and the config; --purge removes them and the user.
        try "ride".write(toFile: root + "/var/lib/cairn/00000001.cairn", atomically: true, encoding: .utf8)
        let un = try Harness.run("/bin/bash", [script, "--root", root, "--uninstall"])
        XCTAssertEqual(un.status, 0, un.stderr)
        XCTAssertFalse(fm.fileExists(atPath: root + "/usr/local/bin/cairn"))
        XCTAssertFalse(fm.fileExists(atPath: completion))
        XCTAssertFalse(fm.fileExists(atPath: root + "/etc/systemd/system/cairn.service"))
        XCTAssertTrue(fm.fileExists(atPath: root + "/var/lib/cairn/00000001.cairn"))
        XCTAssertTrue(fm.fileExists(atPath: root + "/etc/cairn.conf"))
        let purge = try Harness.run("/bin/bash", [script, "--root", root, "--uninstall", "--purge"])
        XCTAssertEqual(purge.status, 0, purge.stderr)
        XCTAssertFalse(fm.fileExists(atPath: root + "/var/lib/cairn"))
        XCTAssertFalse(try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8).contains("\ncairn:"))
    }

    /// install.sh writes `board = HOSTNAME-XXXXXX` (the machine id's first 6 hex digits, the
    /// hostname made an id) at the top of a config that has none, once; a config with one keeps it.
    func testInstallScriptNamesTheBoardWhenTheConfigHasNone() throws {
        let root = Harness.tempDir()
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        let script = Harness.repoRoot.appendingPathComponent("deploy/install.sh").path
        let args = [script, "--root", root, "--binary", Harness.cairn, "--no-static-check"]
        // Nothing to name it by (an image before its first boot): no line, and a word saying so.
        let bare = try Harness.run("/bin/bash", args)
        XCTAssertEqual(bare.status, 0, bare.stdout + bare.stderr)
        XCTAssertTrue(bare.stdout.contains("no hostname or machine id to name the board by"), bare.stdout)
        XCTAssertFalse(try String(contentsOfFile: root + "/etc/cairn.conf", encoding: .utf8).contains("\nboard ="))

        try "-Pi Zero #2\n".write(toFile: root + "/etc/hostname", atomically: true, encoding: .utf8)
        try "3FA9C2d4e5f60718293a4b5c6d7e8f90\n".write(toFile: root + "/etc/machine-id", atomically: true, encoding: .utf8)
        let named = try Harness.run("/bin/bash", args)
        XCTAssertEqual(named.status, 0, named.stdout + named.stderr)
        XCTAssertTrue(named.stdout.contains("set board = Pi-Zero--2-3fa9c2 in"), named.stdout)
        let conf = try String(contentsOfFile: root + "/etc/cairn.conf", encoding: .utf8)
        let lines = conf.split(separator: "\n")
        XCTAssertEqual(lines[1], "board = Pi-Zero--2-3fa9c2", "at the top")
        XCTAssertTrue(conf.hasSuffix("gpsd = 127.0.0.1:2947\nactivity = ride\nsync = 5\n"), "the rest as it was")
        let check = try Harness.cairn("record", "--config", root + "/etc/cairn.conf", "--check")
        XCTAssertTrue(check.stdout.contains("board = Pi-Zero--2-3fa9c2  ("), check.stdout + check.stderr)
        // Once: a third run keeps it; a long hostname is cut to fit 32 characters.
        try "a-very-long-hostname-for-one-small-board\n".write(toFile: root + "/etc/hostname", atomically: true, encoding: .utf8)
        XCTAssertEqual(try Harness.run("/bin/bash", args).status, 0)
        XCTAssertEqual(try String(contentsOfFile: root + "/etc/cairn.conf", encoding: .utf8), conf)
        try "sync = 2\n".write(toFile: root + "/etc/cairn.conf", atomically: true, encoding: .utf8)
        let long = try Harness.run("/bin/bash", args)
        XCTAssertTrue(long.stdout.contains("set board = a-very-long-hostname-for--3fa9c2 in"), long.stdout)
        XCTAssertTrue(
            try String(contentsOfFile: root + "/etc/cairn.conf", encoding: .utf8).hasSuffix("board = a-very-long-hostname-for--3fa9c2\nsync = 2\n"))
    }
}

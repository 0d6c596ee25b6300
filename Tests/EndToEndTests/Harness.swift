import XCTest
import Foundation

/// Runs the real `cairn` binary, and a private gpsd (Tests/tools/gpsd-replay.py) on a free port for
/// the tests that record. Tests of the other subcommands need no gpsd: `CraftedLog` writes their logs.
enum Harness {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test: $CAIRN_BIN (the test script points it at the static release build),
    /// else the `cairn` built next to this test bundle.
    static var cairn: String {
        if let b = ProcessInfo.processInfo.environment["CAIRN_BIN"], !b.isEmpty { return b }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // On Linux the test bundle is `<build>/debug/cairnPackageTests.xctest`.
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("cairn").path
    }

    /// The binary under test is for another machine than this one (the aarch64 build run by
    /// qemu-user through binfmt_misc): its ELF machine field is not the host's.
    static var isEmulated: Bool {
        guard let h = FileHandle(forReadingAtPath: cairn) else { return false }
        defer { try? h.close() }
        let head = h.readData(ofLength: 20)
        guard head.count == 20 else { return false }
        let machine = UInt16(head[18]) | UInt16(head[19]) << 8
        #if arch(x86_64)
        return machine != 62
        #elseif arch(arm64)
        return machine != 183
        #else
        return false
        #endif
    }

    static func fixture(_ name: String) -> String {
        name.hasPrefix("/") ? name : repoRoot.appendingPathComponent("Tests/Fixtures/gpsd/\(name)").path
    }
    static var gpxSchema: String { repoRoot.appendingPathComponent("Tests/Fixtures/schemas/gpx.xsd").path }

    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-e2e-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d.path
    }

    /// A folder on another file system than `tempDir()`'s, as a stick or a remote disk is to the
    /// board's card: retention deletes a trip only on the strength of copies off the card. It is
    /// in /dev/shm (a tmpfs on every Linux with systemd); a machine where that is the temporary
    /// directory's own file system fails here, saying so.
    static func offCardDir() throws -> String {
        let d = "/dev/shm/cairn-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        var a = stat()
        var b = stat()
        guard stat(d, &a) == 0, stat(FileManager.default.temporaryDirectory.path, &b) == 0, a.st_dev != b.st_dev else {
            throw NSError(domain: "Harness", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(d) is on the temporary directory's file system"])
        }
        return d
    }

    /// A board's privacy key in the log directory `dir`, as the recorder makes it there (16
    /// random bytes, 0600): only the recorder makes one; every other command needs it to cut zones.
    @discardableResult
    static func recorderKey(_ dir: String) throws -> String {
        let path = dir + "/privacy-key"
        var g = SystemRandomNumberGenerator()
        try Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a command to completion (with a time limit) and captures its output.
    @discardableResult
    static func run(_ exe: String, _ args: [String], timeout: TimeInterval = 60, cwd: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        p.arguments = args
        // Output goes to files, so a chatty child never blocks on a full pipe.
        let dir = tempDir()
        let outPath = dir + "/stdout", errPath = dir + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = FileHandle(forWritingAtPath: outPath)!, err = FileHandle(forWritingAtPath: errPath)!
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if p.isRunning { p.terminate(); throw NSError(domain: "timeout: \(exe) \(args)", code: 1) }
        p.waitUntilExit()
        try? out.close()
        try? err.close()
        let o = FileManager.default.contents(atPath: outPath) ?? Data()
        let e = FileManager.default.contents(atPath: errPath) ?? Data()
        try? FileManager.default.removeItem(atPath: dir)
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func cairn(_ args: String...) throws -> Result { try run(cairn, args) }

    /// Polls `condition` every 20 ms until it holds or `timeout` seconds pass; whether it held.
    /// For waiting on what a process writes (a line, a file) instead of sleeping a fixed time.
    @discardableResult
    static func waitUntil(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            if Date() >= deadline { return false }
            usleep(20_000)
        }
    }

    /// A line-oriented reader over a child's pipe, for waiting on READY/DONE lines.
    final class Lines: @unchecked Sendable {
        private var buffer = ""
        private var lines: [String] = []
        private let lock = NSLock()
        private(set) var all = ""
        init(_ h: FileHandle) {
            h.readabilityHandler = { [weak self] fh in
                let d = fh.availableData
                guard let self else { return }
                self.lock.lock(); defer { self.lock.unlock() }
                if d.isEmpty { fh.readabilityHandler = nil; return }
                let s = String(decoding: d, as: UTF8.self)
                self.all += s
                self.buffer += s
                while let i = self.buffer.firstIndex(of: "\n") {
                    self.lines.append(String(self.buffer[..<i]))
                    self.buffer = String(self.buffer[self.buffer.index(after: i)...])
                }
            }
        }
        var text: String { lock.lock(); defer { lock.unlock() }; return all }
        /// Waits for a line with this prefix; returns it.
        func wait(prefix: String, timeout: TimeInterval) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                lock.lock()
                if let l = lines.first(where: { $0.hasPrefix(prefix) }) { lock.unlock(); return l }
                lock.unlock()
                usleep(20_000)
            }
            return nil
        }
    }

    struct Recording {
        var dir: String
        var status: Int32
        var stderr: String
        var stopSeconds: Double
        var replayOutput: String
    }

    /// Replays `log` through a private gpsd into `cairn record --clock fix`, stops the recorder
    /// with SIGTERM once the replay is done, and returns what it left.
    static func record(
        _ log: String, dir: String? = nil, restartAt: [Double] = [], rate: Double = 0,
        extra: [String] = [], stopSignal: Int32 = SIGTERM,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Recording {
        let dir = dir ?? tempDir() + "/logs"
        let replay = Process()
        replay.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var rargs = ["python3", repoRoot.appendingPathComponent("Tests/tools/gpsd-replay.py").path, fixture(log), "--port", "0"]
        if !restartAt.isEmpty { rargs += ["--restart-at"] + restartAt.map { String($0) } }
        if rate > 0 { rargs += ["--rate", String(rate)] }
        replay.arguments = rargs
        let rout = Pipe(), rerr = Pipe()
        replay.standardOutput = rout
        replay.standardError = rerr
        let replayLines = Lines(rout.fileHandleForReading)
        let replayErr = Lines(rerr.fileHandleForReading)
        try replay.run()
        defer { if replay.isRunning { replay.terminate() } }
        guard let ready = replayLines.wait(prefix: "READY", timeout: 30), let port = ready.split(separator: " ").last else {
            XCTFail("gpsd replay did not start: \(replayErr.text)", file: file, line: line)
            throw NSError(domain: "replay", code: 1)
        }

        let rec = Process()
        rec.executableURL = URL(fileURLWithPath: cairn)
        rec.arguments = ["record", "--gpsd", "127.0.0.1:\(port)", "--dir", dir, "--baro", "none", "--clock", "fix", "--sync", "1"] + extra
        let cerr = Pipe()
        rec.standardError = cerr
        rec.standardOutput = FileHandle.nullDevice
        let recErr = Lines(cerr.fileHandleForReading)
        try rec.run()
        defer { if rec.isRunning { kill(rec.processIdentifier, SIGKILL) } }

        guard replayLines.wait(prefix: "DONE", timeout: 120) != nil else {
            XCTFail("replay did not finish: \(replayLines.text) \(replayErr.text) / cairn: \(recErr.text)", file: file, line: line)
            throw NSError(domain: "replay", code: 2)
        }
        // Let gpsd deliver the last reports, then wait for the replay to stop gpsd.
        let deadline = Date().addingTimeInterval(20)
        while replay.isRunning && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(rec.isRunning, "the recorder must not exit when gpsd goes away", file: file, line: line)
        let t0 = Date()
        kill(rec.processIdentifier, stopSignal)
        while rec.isRunning && Date().timeIntervalSince(t0) < 10 { usleep(10_000) }
        let stop = Date().timeIntervalSince(t0)
        XCTAssertFalse(rec.isRunning, "cairn record must exit after SIGTERM", file: file, line: line)
        rec.waitUntilExit()
        usleep(50_000)
        return Recording(
            dir: dir, status: rec.terminationStatus, stderr: recErr.text, stopSeconds: stop,
            replayOutput: replayLines.text + replayErr.text)
    }

    /// `cairn list DIR --json`, parsed.
    static func trips(_ dir: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let r = try run(cairn, ["list", dir, "--json"])
        XCTAssertEqual(r.status, 0, "list failed: \(r.stderr)", file: file, line: line)
        guard let arr = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] else {
            XCTFail("list --json is not an array: \(r.stdout)", file: file, line: line)
            return []
        }
        return arr
    }

    /// What `cairn --version` prints.
    static var version: String {
        ((try? run(cairn, ["--version"]).stdout) ?? "").split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Tests/tools/check-export.py on one export: what the independent readers saw (a rejection fails).
    static func checkExport(_ format: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        var args = ["python3", repoRoot.appendingPathComponent("Tests/tools/check-export.py").path, format, path]
        if format == "gpx" { args += ["--gpx-schema", gpxSchema] }
        let r = try run("/usr/bin/env", args)
        XCTAssertEqual(r.status, 0, "\(format) rejected: \(r.stderr)", file: file, line: line)
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    static func count(_ needle: String, in s: String) -> Int { s.components(separatedBy: needle).count - 1 }
}

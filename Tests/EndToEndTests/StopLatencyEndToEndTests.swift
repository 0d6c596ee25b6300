import Foundation
import XCTest

/// How soon a stop signal ends the recorder's waits, against the real binary.
final class StopLatencyEndToEndTests: XCTestCase {
    #if arch(x86_64)
    static let fdatasyncNumber = "75"
    #elseif arch(arm64)
    static let fdatasyncNumber = "83"
    #else
    static let fdatasyncNumber = ""
    #endif

    /// A SIGTERM that arrives while a sync is in progress (fdatasync made to take 1 s by strace):
    /// the loop has looked at the stop flag before the sync, and the wait after it must end at
    /// once rather than run to the next batch (5 s at the default settings).
    func testAStopDuringASyncEndsTheNextWaitAtOnce() throws {
        let strace = "/usr/bin/strace"
        guard !Harness.isEmulated, !Self.fdatasyncNumber.isEmpty, FileManager.default.isExecutableFile(atPath: strace) else {
            throw XCTSkip("needs strace and a native binary")
        }
        let gpsd = try FaultEndToEndTests.FakeGpsd(["--ride", "--rate", "1"])
        defer { gpsd.stop() }
        let sock = ServiceTests.NotifySocket()
        let dir = Harness.tempDir() + "/logs"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: strace)
        p.arguments = [
            "-f", "-o", "/dev/null", "-e", "trace=fdatasync", "-e", "inject=fdatasync:delay_enter=1000000",
            Harness.cairn, "record", "--gpsd", "127.0.0.1:\(gpsd.port)", "--dir", dir, "--baro", "none", "--clock", "fix"
        ]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = sock.path
        p.environment = env
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        var cairnPid: Int32 = 0
        defer {
            if cairnPid > 0 { kill(cairnPid, SIGKILL) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            // Bounded: Foundation once never reaped the killed strace (a zombie), and an unbounded
            // waitUntilExit hung the whole suite after this test had failed.
            _ = Harness.waitUntil(timeout: 10) { !p.isRunning }
        }
        func inFdatasync() -> Bool {
            let s = (try? String(contentsOfFile: "/proc/\(cairnPid)/syscall", encoding: .utf8)) ?? ""
            return s.split(separator: " ").first.map(String.init) == Self.fdatasyncNumber
        }
        XCTAssertTrue(
            Harness.waitUntil(timeout: 10) {
                let kids = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/task/\(p.processIdentifier)/children", encoding: .utf8)) ?? ""
                cairnPid = kids.split(separator: " ").first.flatMap { Int32($0) } ?? 0
                return cairnPid > 0
            }, "cairn did not start under strace")
        // Past the start (the trip open and synced a few times), then the moment a sync begins.
        usleep(7_000_000)
        XCTAssertTrue(Harness.waitUntil(timeout: 20) { inFdatasync() }, "no sync seen")
        kill(cairnPid, SIGTERM)
        let got = sock.receive(for: 10) { m in m.contains { $0.1.contains("STOPPING=1") } }
        guard let stopping = got.first(where: { $0.1.contains("STOPPING=1") }) else {
            return XCTFail("no STOPPING=1 within 10 s: \(got.map(\.1))")
        }
        // The sync in progress takes up to 1 s more; then the stop must begin, not a 4 s wait.
        XCTAssertLessThan(stopping.0, 2.5, "SIGTERM during a sync: the stop began only after \(stopping.0) s")
        XCTAssertTrue(Harness.waitUntil(timeout: 20) { !p.isRunning }, "the recorder did not exit")
        p.waitUntilExit()
        cairnPid = 0
        XCTAssertEqual(p.terminationStatus, 0)
    }
}

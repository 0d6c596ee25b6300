import CairnSystem
import XCTest

/// The runner `cairn deliver` starts rclone with: output streamed, errors kept, exit status and
/// signals told apart, a program past its deadline killed, a missing program named.
final class SubprocessTests: XCTestCase {
    func testOutputStatusAndErrorText() throws {
        var out: [UInt8] = []
        let o = try Subprocess.run(["/bin/sh", "-c", "printf hello; echo oops >&2; exit 3"]) { out.append(contentsOf: $0) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "hello")
        XCTAssertEqual(o.status, 3)
        XCTAssertNil(o.signal)
        XCTAssertEqual(o.errorText, "oops\n")
        XCTAssertFalse(o.timedOut)
    }

    func testLargeOutputOnBothStreamsDoesNotDeadlock() throws {
        var n = 0
        let o = try Subprocess.run(["/bin/sh", "-c", "head -c 3000000 /dev/zero; head -c 200000 /dev/zero >&2"], errorLimit: 1000) { n += $0.count }
        XCTAssertEqual(n, 3_000_000)
        XCTAssertEqual(o.errorText.utf8.count, 1000)
        XCTAssertEqual(o.status, 0)
    }

    func testDeadlineKillsAStalledProgram() throws {
        let start = Subprocess.monotonicSeconds()
        let o = try Subprocess.run(["/bin/sleep", "30"], deadline: 0.5)
        XCTAssertTrue(o.timedOut)
        XCTAssertEqual(o.signal, SIGKILL)
        XCTAssertLessThan(Subprocess.monotonicSeconds() - start, 10)
    }

    func testMissingProgramIsNamed() {
        XCTAssertThrowsError(try Subprocess.run(["/nonexistent/rclone", "version"])) { e in
            XCTAssertEqual("\(e)", "/nonexistent/rclone: cannot be started: No such file or directory (ENOENT)")
        }
    }

    func testNoDescriptorLeaksIntoTheChild() throws {
        // A high number, which the child's own files never take.
        let low = open("/dev/null", O_RDONLY)
        let fd = fcntl(low, F_DUPFD_CLOEXEC, 200)
        close(low)
        defer { close(fd) }
        var out: [UInt8] = []
        _ = try Subprocess.run(["/bin/sh", "-c", "ls /proc/self/fd"]) { out.append(contentsOf: $0) }
        let fds = String(decoding: out, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        XCTAssertFalse(fds.contains(fd), "\(fds)")
    }
}

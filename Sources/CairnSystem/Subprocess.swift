#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs another program (rclone) to its end: its standard output streamed to a closure, its
/// standard error kept (the last `errorLimit` bytes), standard input from /dev/null. A program that
/// outlives `deadline` seconds is killed (SIGKILL), so a stalled transfer never holds a delivery.
public enum Subprocess {
    public struct Outcome: Sendable {
        /// The exit status, or nil when a signal ended it.
        public var status: Int32?
        /// The signal that ended it, when one did.
        public var signal: Int32?
        /// The end of what it wrote to standard error.
        public var errorText: String
        /// Killed for running past the deadline.
        public var timedOut: Bool
    }

    /// A program that cannot be started (not found, not executable).
    public struct StartFailure: Error, CustomStringConvertible, Sendable {
        public let program: String
        public let errno: Errno
        public var description: String { "\(program): cannot be started: \(errno)" }
    }

    /// Runs `arguments[0]` (looked up in PATH when it has no '/') with `arguments`.
    public static func run(
        _ arguments: [String], deadline: Double? = nil, errorLimit: Int = 16384, output: (UnsafeRawBufferPointer) -> Void = { _ in }
    ) throws(StartFailure) -> Outcome {
        precondition(!arguments.isEmpty)
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard makePipe(&outPipe) else { throw StartFailure(program: arguments[0], errno: .current) }
        guard makePipe(&errPipe) else {
            let e = Errno.current
            close(outPipe[0]); close(outPipe[1])
            throw StartFailure(program: arguments[0], errno: e)
        }
        // On the heap: Swift 6.0.3's optimizer asserts (AccessPathVerification) on these as
        // locals passed inout, destroyed in a defer.
        let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
        let attributes = UnsafeMutablePointer<posix_spawnattr_t>.allocate(capacity: 1)
        let defaults = UnsafeMutablePointer<sigset_t>.allocate(capacity: 1)
        posix_spawn_file_actions_init(actions)
        posix_spawnattr_init(attributes)
        defer {
            posix_spawn_file_actions_destroy(actions)
            posix_spawnattr_destroy(attributes)
            actions.deallocate()
            attributes.deallocate()
            defaults.deallocate()
        }
        posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(actions, errPipe[1], 2)
        // The child starts with default signal handling (cairn ignores SIGPIPE and SIGXFSZ).
        sigemptyset(defaults)
        sigaddset(defaults, SIGPIPE)
        sigaddset(defaults, SIGXFSZ)
        posix_spawnattr_setsigdefault(attributes, defaults)
        // Its own process group: a deadline kills rclone and whatever it started, and no
        // grandchild holds the pipes open after it.
        posix_spawnattr_setpgroup(attributes, 0)
        posix_spawnattr_setflags(attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var cArgs: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], actions, attributes, &cArgs, environ)
        close(outPipe[1]); close(errPipe[1])
        if rc != 0 {
            close(outPipe[0]); close(errPipe[0])
            throw StartFailure(program: arguments[0], errno: Errno(rawValue: rc))
        }

        var errorBytes: [UInt8] = []
        var timedOut = false
        let start = monotonicSeconds()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        var open: [Int32] = [outPipe[0], errPipe[0]]
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var wait: Int32 = -1
            if let d = deadline {
                let left = d - (monotonicSeconds() - start)
                if left <= 0 {
                    if !timedOut { kill(-pid, SIGKILL); timedOut = true }
                    wait = 1000  // its pipes close once it is gone
                } else {
                    wait = Int32(min(left * 1000 + 1, 60_000))
                }
            }
            let n = poll(&fds, nfds_t(fds.count), wait)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                // A grandchild holding the pipes open after the kill: stop reading.
                if timedOut && n == 0 { break }
                continue
            }
            for p in fds where p.revents != 0 {
                let r = read(p.fd, buffer.baseAddress, buffer.count)
                if r < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if r <= 0 {
                    open.removeAll { $0 == p.fd }
                    continue
                }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<r])
                if p.fd == outPipe[0] {
                    output(chunk)
                } else {
                    errorBytes.append(contentsOf: chunk)
                    if errorBytes.count > errorLimit { errorBytes.removeFirst(errorBytes.count - errorLimit) }
                }
            }
        }
        close(outPipe[0]); close(errPipe[0])
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        let exited = (st & 0x7F) == 0
        return Outcome(
            status: exited ? (st >> 8) & 0xFF : nil, signal: exited ? nil : st & 0x7F,
            errorText: String(decoding: errorBytes, as: UTF8.self), timedOut: timedOut)
    }

    /// pipe(2), both ends close-on-exec (cairn's other descriptors never reach rclone).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// CLOCK_MONOTONIC in seconds: deadlines that a clock set back or forward does not move.
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

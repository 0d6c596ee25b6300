#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem

/// A program that serves cairn for a while (`rclone rcd` for a delivery run): started with
/// extra environment, its standard output and error on one pipe cairn reads, in its own process
/// group, and killed by the kernel when cairn ends however it ends (PR_SET_PDEATHSIG, SIGKILL):
/// a `kill -9` of cairn leaves no server behind.
public struct BoundProcess: Sendable {
    public let pid: Int32
    /// The read end of its standard output and error (close-on-exec).
    public let output: Int32

    /// Starts `arguments[0]` (looked up in PATH when it has no '/') with cairn's environment
    /// plus `environment` ("NAME=value", over any of the same name).
    public static func start(_ arguments: [String], environment: [String]) throws(Subprocess.StartFailure) -> BoundProcess {
        precondition(!arguments.isEmpty)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw Subprocess.StartFailure(program: arguments[0], errno: .current) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        let names = Set(environment.map { $0.prefix { $0 != "=" } })
        var env: [String] = environment
        var e = environ
        while let p = e.pointee {
            let s = String(cString: p)
            if !names.contains(s.prefix { $0 != "=" }) { env.append(s) }
            e += 1
        }
        let cArgs: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            for p in cArgs { free(p) }
            for p in cEnv { free(p) }
        }
        let pid = cArgs.withUnsafeBufferPointer { a in
            cEnv.withUnsafeBufferPointer { v in cairn_spawn_bound(arguments[0], a.baseAddress, v.baseAddress, fds[1], fds[1]) }
        }
        let failure = Errno.current
        close(fds[1])
        if pid < 0 {
            close(fds[0])
            throw Subprocess.StartFailure(program: arguments[0], errno: failure)
        }
        return BoundProcess(pid: pid, output: fds[0])
    }

    /// One line of its output within `seconds` (without the newline; at most 4 KiB): nil when it
    /// closed its output or the time ran out. `pending` keeps what came after the line.
    public func readLine(within seconds: Double, pending: inout [UInt8]) -> String? {
        let end = Subprocess.monotonicSeconds() + seconds
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            if pending.count >= 4096 {
                let line = String(decoding: pending, as: UTF8.self)
                pending = []
                return line
            }
            let left = end - Subprocess.monotonicSeconds()
            if left <= 0 { return nil }
            var p = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32(left * 1000) + 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            let r = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { return nil }
            pending += buffer[0..<r]
        }
    }

    /// Waits up to `grace` seconds for it to end (asked to by its own protocol), then SIGTERM,
    /// then after `seconds` more SIGKILL to its group; reaps it and closes its output.
    public func stop(grace: Double, within seconds: Double) {
        for (signal, wait) in [(0, grace), (SIGTERM, seconds), (SIGKILL, 5)] {
            if signal == SIGTERM { signalOne(SIGTERM) } else if signal == SIGKILL { signalGroup(SIGKILL) }
            let end = Subprocess.monotonicSeconds() + wait
            while true {
                var st: Int32 = 0
                let r = waitpid(pid, &st, WNOHANG)
                if r == pid || (r < 0 && errno != EINTR) {
                    close(output)
                    return
                }
                if Subprocess.monotonicSeconds() >= end { break }
                usleep(5_000)
            }
        }
        close(output)
    }

    /// Kills its group now (SIGKILL) and reaps it: a server that stopped answering.
    public func killNow() {
        signalGroup(SIGKILL)
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        close(output)
    }

    private func signalOne(_ s: Int32) { _ = kill(pid, s) }
    private func signalGroup(_ s: Int32) { _ = kill(-pid, s) }
}

import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// Retries: a remote call tried again, with waits growing between tries.
extension DeliveryRun {
    /// Runs `call` up to `retries` times, waiting 2, 8, 32... s between (monotonic: a clock set
    /// back or forward does not change the waits); the last failure stops the run.
    func attempt(_ call: () throws(Rclone.Failure) -> Void) throws {
        var wait: UInt32 = 2
        for n in 1...retries {
            do {
                try call()
                return
            } catch {
                // A full remote stays full for the seconds between tries: said at once.
                if n == retries || DeliveryPlans.RemoteTrouble(error.description) == .full { throw Stop.remote(error.description) }
                POSIX.sleep(seconds: wait)
                wait = min(wait * 4, 300)
            }
        }
    }

    /// Reads the remote file at `relative` (at most `limit` bytes) into the open file `fd`,
    /// retried as `attempt` says, each try from an empty file. False when a write to `fd` failed.
    func download(_ relative: String, into fd: Int32, limit: Int?) throws -> Bool {
        var ok = true
        try attempt { () throws(Rclone.Failure) in
            ok = true
            try? POSIX.truncate(fd, to: 0)
            _ = try? POSIX.seek(fd, to: 0)
            try transport.read(DeliverCommand.join(base, relative), limit: limit) { chunk in
                if ok { ok = (try? POSIX.writeAll(fd, chunk)) != nil }
            }
        }
        return ok
    }
}

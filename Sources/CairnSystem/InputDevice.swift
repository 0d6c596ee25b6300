#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem

/// A Linux input device (evdev, `/dev/input/eventN`: a button from the `gpio-key` overlay),
/// read without blocking whenever the caller is awake anyway. Its events are stamped by the
/// kernel on CLOCK_MONOTONIC (EVIOCSCLOCKID), the clock the record loop keeps, so an event's
/// time is when it happened, not when it was read.
public final class InputDevice {
    /// One event: `type` 1 is EV_KEY (`value` 1 down, 0 up, 2 auto-repeat).
    public struct Event: Sendable, Equatable {
        public var monoMs: Int64
        public var type: UInt16
        public var code: UInt16
        public var value: Int32
        public init(monoMs: Int64, type: UInt16, code: UInt16, value: Int32) {
            self.monoMs = monoMs
            self.type = type
            self.code = code
            self.value = value
        }
    }

    public let path: String
    private let fd: Int32

    /// Opens `path` read-only and non-blocking and sets its clock to CLOCK_MONOTONIC.
    public init(path: String) throws(Errno) {
        self.path = path
        fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if cairn_evdev_use_monotonic(fd) != 0 {
            let e = Errno.current
            _ = POSIX.close(fd)
            throw e
        }
    }

    deinit { _ = POSIX.close(fd) }

    /// Whether the device can send key `code` (EVIOCGBIT).
    public func hasKey(_ code: Int) throws(Errno) -> Bool {
        try valueOrErrno { cairn_evdev_has_key(fd, Int32(code)) }.get() == 1
    }

    /// The events queued now, oldest first (none when the queue is empty). A device unplugged
    /// (ENODEV) throws.
    public func queued() throws(Errno) -> [Event] {
        var out: [Event] = []
        var buf = [cairn_input_event](repeating: cairn_input_event(), count: 64)
        while true {
            // A Result out of the closure: Swift 6.0.3 (the aarch64 build) does not carry a typed
            // throw through withUnsafeMutableBufferPointer.
            let n: Int
            switch buf.withUnsafeMutableBufferPointer({ b in valueOrErrno { cairn_evdev_read(fd, b.baseAddress, 64) } }) {
            case .success(let v): n = v
            case .failure(let e):
                if e == .wouldBlock { return out }
                throw e
            }
            for e in buf[0..<n] {
                out.append(Event(monoMs: e.mono_us / 1000, type: e.type, code: e.code, value: e.value))
            }
            if n < 64 || out.count >= 4096 { return out }
        }
    }
}

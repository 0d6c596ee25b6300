#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether a link's loss is the adapter's doing (powered off, reset, bluetoothd restarted)
/// rather than the sensor's, pure: an adapter going down is no sensor's instability, and every
/// link that dropped with it is tried again soon (Hardware/bluetooth.md).
enum AdapterDown {
    /// Errors that say the adapter is gone: no adapter up (a connect while it is off), the
    /// kernel ending the link itself (HCI "terminated by local host": the adapter powered off
    /// or reset), the network or device down.
    static func isAdapters(_ errno: Int32) -> Bool {
        [EHOSTUNREACH, ECONNABORTED, ENETDOWN, ENODEV].contains(errno)
    }

    /// Two or more links ending at one wake-up: sensors do not drop together, an adapter does.
    static func fromLinksEnded(_ count: Int) -> Bool { count >= 2 }
}

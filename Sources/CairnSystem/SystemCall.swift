#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a system call that returns -1 and sets errno on failure, again while it fails with
/// EINTR (a signal arrived first) when `retryOnInterrupt`: its value, or the errno it failed with.
/// The one place an interrupted call is retried; callers that must see EINTR (a wait that a
/// stop signal should end) pass `retryOnInterrupt: false`.
@inlinable
public func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<I, Errno> {
    while true {
        let r = call()
        if r != -1 { return .success(r) }
        let e = Errno.current
        if retryOnInterrupt && e == .interrupted { continue }
        return .failure(e)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An errno value with its name and text: "No space left on device (ENOSPC)".
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    @inlinable
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno now.
    @inlinable
    public static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let ioError = Errno(rawValue: EIO)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    public static let permissionDenied = Errno(rawValue: EACCES)

    /// The symbolic name ("ENOSPC") of the values cairn's messages meet, nil for others.
    public var name: String? {
        switch rawValue {
        case EPERM: return "EPERM"
        case ENOENT: return "ENOENT"
        case EINTR: return "EINTR"
        case EIO: return "EIO"
        case EBADF: return "EBADF"
        case EAGAIN: return "EAGAIN"
        case EACCES: return "EACCES"
        case EEXIST: return "EEXIST"
        case ENOTDIR: return "ENOTDIR"
        case EISDIR: return "EISDIR"
        case EINVAL: return "EINVAL"
        case EFBIG: return "EFBIG"
        case ENOSPC: return "ENOSPC"
        case EROFS: return "EROFS"
        case EDQUOT: return "EDQUOT"
        case ELOOP: return "ELOOP"
        case ENAMETOOLONG: return "ENAMETOOLONG"
        case ECONNREFUSED: return "ECONNREFUSED"
        case ECONNRESET: return "ECONNRESET"
        default: return nil
        }
    }

    /// The C library's text for the value ("No space left on device").
    public var text: String { strerror(rawValue).map { String(cString: $0) } ?? "error \(rawValue)" }

    /// The text, with the name where there is one: "No space left on device (ENOSPC)".
    public var description: String { name.map { "\(text) (\($0))" } ?? text }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A buffered writer to a file descriptor: exporters stream through a fixed 64 KiB buffer, so
/// memory does not grow with the trip.
public final class OutputSink {
    public let path: String
    private let fd: Int32
    private let ownsFd: Bool
    private var buffer: [UInt8] = []
    private let capacity = 64 * 1024
    public private(set) var error: String?

    /// Standard output.
    public init(stdout: Void = ()) {
        path = "-"
        fd = 1
        ownsFd = false
        buffer.reserveCapacity(capacity)
    }

    /// Creates `path`; refuses to replace an existing file unless `force`.
    public init(creating path: String, force: Bool) throws(ExportError) {
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL)
        let fd = openFile(path, flags, 0o644)
        if fd < 0 {
            let e = errno
            if e == EEXIST { throw ExportError("\(path): already exists (use --force to replace it)") }
            throw ExportError("\(path): cannot create: \(String(cString: strerror(e)))")
        }
        self.fd = fd
        ownsFd = true
        buffer.reserveCapacity(capacity)
    }

    public func write(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if buffer.count + bytes.count > capacity { flush() }
        if bytes.count > capacity {
            writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ b: UnsafeBufferPointer<UInt8>) {
        guard error == nil, var p = b.baseAddress else { return }
        var left = b.count
        while left > 0 {
            let n = writeFd(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                error = "\(path): write failed: \(String(cString: strerror(errno)))"
                return
            }
            left -= n
            p += n
        }
    }

    /// Flushes, syncs a created file, and closes it. Returns an error text if anything failed.
    public func finish() -> String? {
        flush()
        if ownsFd {
            if error == nil && fsync(fd) != 0 { error = "\(path): sync failed: \(String(cString: strerror(errno)))" }
            closeFd(fd)
        }
        return error
    }
}

public struct ExportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

// File-level wrappers: inside the class, `write`/`close` would resolve to its own methods.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func writeFd(_ fd: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int { write(fd, p, n) }
private func closeFd(_ fd: Int32) { _ = close(fd) }

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// A stream an exporter needs to write out of order (GeoJSON's times after its coordinates,
/// KML's `<gx:coord>`s after their `<when>`s): bytes go to a 64 KiB buffer and, past that, to an
/// unlinked temporary file, so memory stays fixed however long the trip. `drain` copies them
/// into the real output and empties the spool.
public final class Spool {
    private var sink: OutputSink?
    private let directory: String
    public private(set) var error: OutputError?

    public init(directory: String? = nil) {
        var d = directory ?? ""
        if d.isEmpty, let t = POSIX.environment("TMPDIR") { d = t }
        if d.isEmpty { d = "/tmp" }
        self.directory = d
    }

    deinit {
        try? sink?.finish()
    }

    /// True when nothing has been written since the last drain.
    public var isEmpty: Bool { (sink?.bytesWritten ?? 0) == 0 }

    /// Where to write: a sink of its own, opened on first use past the in-memory part.
    public var out: OutputSink {
        if let s = sink { return s }
        let s = open()
        sink = s
        return s
    }

    private func open() -> OutputSink {
        // A named file, unlinked at once: nothing is left behind, whatever happens to the process.
        var fd: Int32
        var name = directory + "/cairn-spool (unlinked)"
        do throws(Errno) {
            (fd, name) = try POSIX.makeTemporaryFile(prefix: directory + "/cairn-spool-")
            POSIX.unlink(name)
        } catch {
            self.error = OutputError(directory, .createTemporary(error))
            fd = (try? POSIX.open("/dev/null", O_WRONLY | O_CLOEXEC)) ?? -1
        }
        return OutputSink(spoolFd: fd, path: name)
    }

    /// Copies everything written since the last drain into `target`, then empties the spool.
    public func drain(into target: OutputSink) {
        guard let s = sink else { return }
        if s.flushedBytes == 0 {
            // Never left memory: copy the buffer.
            target.append(s.bufferedBytes)
            s.dropBuffered()
            return
        }
        s.flush()
        if let e = s.error { error = error ?? e }
        let fd = s.file.fd
        var offset = 0
        let total = s.flushedBytes
        while offset < total {
            let want = min(OutputSink.capacity, total - offset)
            let p = target.reserve(want)
            let r: Int
            do throws(Errno) { r = try POSIX.readFully(fd, into: UnsafeMutableRawBufferPointer(start: p, count: want), at: offset) } catch {
                self.error = self.error ?? OutputError(s.path, .readBack(error))
                break
            }
            if r == 0 {
                error = error ?? OutputError(s.path, .readBackShort)
                break
            }
            target.commit(r)
            offset += r
        }
        do throws(Errno) { try POSIX.truncate(fd, to: 0) } catch { self.error = self.error ?? OutputError(s.path, .truncate(error)) }
        _ = try? POSIX.seek(fd, to: 0)
        s.rewound()
    }
}

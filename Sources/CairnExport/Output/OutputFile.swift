#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnLog

/// Where an export's bytes end up: standard output, a new file, or a file replaced atomically
/// through a hidden temporary one. Unbuffered (`OutputSink` buffers); the first failure is kept
/// and thrown by `finish`.
final class OutputFile {
    /// The name the user gave ("-" for standard output).
    let path: String
    private(set) var fd: Int32
    private let ownsFd: Bool
    /// Where the bytes go until `finish` renames them to `path`, or to the file a link at
    /// `path` leads to (atomic files only); an atomic file is synced before its rename.
    private let atomic: AtomicFile?
    private let replace: Bool
    private(set) var error: OutputError?
    private(set) var finished = false

    /// Standard output.
    init(stdout: Void = ()) {
        path = "-"
        fd = 1
        ownsFd = false
        atomic = nil
        replace = false
    }

    /// See `OutputSink.init(atomically:force:)`.
    init(atomically path: String, force: Bool) throws(ExportError) {
        self.path = path
        if !force && Self.exists(path) { throw ExportError("\(path): already exists (use --force to replace it)") }
        if POSIX.isDirectory(path) { throw ExportError("\(path): is a directory") }
        if let st = try? POSIX.status(path), (st.st_mode & S_IFMT) != S_IFREG {
            do { fd = try POSIX.open(path, O_WRONLY | O_CLOEXEC) } catch { throw ExportError("\(path): cannot open: \(error)") }
            ownsFd = true
            atomic = nil
            replace = false
            return
        }
        let final = Self.resolvingLink(path)
        if Self.isLog(final) { throw Self.refusingLog(path) }
        let tmp = Self.temporaryName(for: final)
        do throws(AtomicFile.Failure) {  // a leftover of a run that was killed is removed
            atomic = try AtomicFile(path: final, temporaryPath: tmp, removeLeftover: true)
        } catch {
            throw ExportError("\(path): cannot create \(tmp): \(error.errno)")
        }
        fd = atomic!.fd
        ownsFd = true
        replace = force
    }

    /// See `OutputSink.init(replacing:)`.
    init(replacing path: String) throws(ExportError) {
        self.path = path
        if let st = try? POSIX.status(path, followLinks: false), (st.st_mode & S_IFMT) == S_IFDIR {
            throw ExportError("\(path): is a directory")
        }
        // A temporary name of this write's own: two runs at once each rename a complete file
        // into place (with one name, each removed the other's as a leftover and renamed a file
        // still being written, or found none).
        let tag = String(UInt32(truncatingIfNeeded: POSIX.processID), radix: 16) + "-" + String(UInt32.random(in: .min ... .max), radix: 16)
        let tmp = String(Self.temporaryName(for: path).dropLast(5)) + "." + tag + ".part"
        do throws(AtomicFile.Failure) { atomic = try AtomicFile(path: path, temporaryPath: tmp) } catch {
            throw ExportError("\(path): cannot create \(tmp): \(error.errno)")
        }
        fd = atomic!.fd
        ownsFd = true
        replace = true
    }

    /// See `OutputSink.init(creating:force:)`.
    init(creating path: String, force: Bool) throws(ExportError) {
        self.path = path
        if force && Self.isLog(path) { throw Self.refusingLog(path) }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL)
        do throws(Errno) { fd = try POSIX.open(path, flags, 0o644) } catch {
            if error == .fileExists { throw ExportError("\(path): already exists (use --force to replace it)") }
            if error == .isDirectory { throw ExportError("\(path): is a directory") }
            throw ExportError("\(path): cannot create: \(error)")
        }
        ownsFd = true
        atomic = nil
        replace = false
    }

    /// A descriptor it owns but never syncs (a spool's temporary file).
    init(spoolFd: Int32, path: String) {
        self.path = path
        fd = spoolFd
        ownsFd = true
        atomic = nil
        replace = false
    }

    deinit {
        if ownsFd && !finished && fd >= 0 && atomic == nil { POSIX.close(fd) }
        atomic?.discard()
    }

    /// Where a symbolic link at `path` leads (a link may name a relative target); `path` itself
    /// when it is no link or leads nowhere.
    static func resolvingLink(_ path: String) -> String {
        guard let st = try? POSIX.status(path, followLinks: false), (st.st_mode & S_IFMT) == S_IFLNK,
            let r = try? POSIX.realPath(path)
        else { return path }
        return r
    }

    /// Whether `path` (links followed) is a regular file that starts like a cairn log: an
    /// export never replaces the record it is made from, whatever `-o` and `--force` say.
    static func isLog(_ path: String) -> Bool {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) else { return false }
        defer { POSIX.close(fd) }
        guard let st = try? POSIX.status(fd), (st.st_mode & S_IFMT) == S_IFREG else { return false }
        let magic = FileHeader.magic
        var head = [UInt8](repeating: 0, count: magic.count)
        let got = head.withUnsafeMutableBytes { b in (try? POSIX.readFully(fd, into: b, at: 0)) ?? 0 }
        return got == magic.count && head == magic
    }

    static func refusingLog(_ path: String) -> ExportError {
        ExportError("\(path): is a cairn log; an export never replaces a log (choose another output name)")
    }

    /// `.NAME.part` next to `path`.
    static func temporaryName(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." + path + ".part" }
        return String(path[...slash]) + "." + path[path.index(after: slash)...] + ".part"
    }

    static func exists(_ p: String) -> Bool {
        (try? POSIX.status(p, followLinks: false)) != nil
    }

    /// Writes all of `bytes`; after a failure nothing more is written.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard error == nil else { return }
        do { try POSIX.writeAll(fd, bytes) } catch {
            self.error = OutputError(path == "-" ? "standard output" : path, .write(error))
        }
    }

    /// Overwrites bytes already written (FIT's header, completed at the end). Needs a file.
    func overwrite(at offset: Int, _ bytes: [UInt8]) {
        guard error == nil else { return }
        let r = bytes.withUnsafeBytes { b in Result { () throws(Errno) in try POSIX.write(fd, b, at: offset) } }
        switch r {
        case .success(let n) where n == bytes.count: break
        case .success: error = OutputError(path, .rewriteHeaderShort)
        case .failure(let e): error = OutputError(path, .rewriteHeader(e))
        }
    }

    /// Drops an atomic file's output: the temporary file goes, `path` is untouched.
    func discard() {
        guard !finished else { return }
        if let atomic { atomic.discard() } else if ownsFd { POSIX.close(fd) }
        finished = true
    }

    /// Closes a created file (syncs and renames an atomic one into place). Throws the first
    /// failure (a write or a close: NFS and quotas report late errors at close); again when
    /// called again.
    func finish() throws(OutputError) {
        guard !finished else { return try rethrowKept() }
        finished = true
        guard let atomic else {
            if ownsFd, let e = POSIX.close(fd), error == nil && fd > 2 { error = OutputError(path, .close(e)) }
            return try rethrowKept()
        }
        if error != nil {
            atomic.discard()
            return try rethrowKept()
        }
        do throws(AtomicFile.Failure) { try atomic.commit(replace: replace) } catch {
            let final = atomic.path
            let dir = POSIX.parent(of: final)
            switch error {
            case .sync(let e): self.error = OutputError(path, .sync(e))
            case .close(let e): self.error = OutputError(path, .close(e))
            case .exists: self.error = OutputError(final, .exists)
            case .directory(.open(let e)): self.error = OutputError(dir, .openToSync(e))
            case .directory(.sync(let e)): self.error = OutputError(dir, .sync(e))
            default: self.error = OutputError(final, .rename(temporary: atomic.temporaryPath, error.errno))
            }
        }
        try rethrowKept()
    }

    /// Throws the failure kept, if any.
    private func rethrowKept() throws(OutputError) {
        if let error { throw error }
    }
}

public struct ExportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnExport
import CairnLog
import CairnSystem

func baseName(_ p: String) -> String {
    guard let i = p.lastIndex(of: "/") else { return p }
    return String(p[p.index(after: i)...])
}

/// fsync on a directory: makes a rename or unlink in it durable.
func syncDirectory(_ dir: String) throws {
    do throws(POSIX.DirectorySyncError) { try POSIX.syncDirectory(dir) } catch { try syncDirectoryFailure(dir, error) }
}

/// The message of a failed directory sync.
func syncDirectoryFailure(_ dir: String, _ error: POSIX.DirectorySyncError) throws -> Never {
    switch error {
    case .open(let e): throw Failure("\(dir): cannot open to sync: \(e)")
    case .sync(let e): throw Failure("\(dir): sync failed: \(e)")
    }
}

/// The temporary name a file is written under before its rename: hidden, same directory (the
/// exporters' own rule).
func temporaryName(for path: String) -> String { OutputSink.temporaryName(for: path) }

/// Writes `bytes` to `path` through a temporary name: write, fsync, rename, fsync the directory.
func writeFileAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws {
    let tmp = temporaryName(for: path)
    do throws(AtomicFile.Failure) {  // a leftover of another mode is removed first
        try AtomicFile.write(bytes, to: path, temporaryPath: tmp, mode: mode)
    } catch {
        switch error {
        case .create(let e): throw Failure("\(tmp): cannot create: \(e)")
        case .rename(let e): throw Failure("\(path): cannot rename into place: \(e)")
        case .directory(let d): try syncDirectoryFailure(POSIX.parent(of: path), d)
        default: throw Failure("\(tmp): write failed: \(error.errno)")
        }
    }
}

/// Copies `src` to `dst` through a temporary name (copy, fsync, rename; the caller syncs the
/// directory once for a batch). Returns the size and CRC-32C of the bytes copied.
func copyFileAtomically(_ src: String, _ dst: String) throws -> FileDigest {
    let input: Int32
    do { input = try POSIX.open(src, O_RDONLY | O_CLOEXEC) } catch { throw Failure("\(src): cannot open: \(error)") }
    defer { POSIX.close(input) }
    let tmp = temporaryName(for: dst)
    let out: AtomicFile
    do throws(AtomicFile.Failure) { out = try AtomicFile(path: dst, temporaryPath: tmp, exclusive: false) } catch {
        throw Failure("\(tmp): cannot create: \(error.errno)")
    }
    let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    defer { buf.deallocate() }
    var copied = FileDigest.Accumulator()
    var failure: String?
    while true {
        let n: Int
        do { n = try POSIX.read(input, into: buf) } catch { failure = "\(src): read failed: \(error)"; break }
        if n == 0 { break }
        let piece = UnsafeRawBufferPointer(rebasing: buf[0..<n])
        do { try out.write(piece) } catch { failure = "\(tmp): write failed: \(error.errno)"; break }
        copied.add(piece)
    }
    if let f = failure { out.discard(); throw Failure(f) }
    do throws(AtomicFile.Failure) { try out.commit(syncDirectory: false) } catch {
        switch error {
        case .sync(let e): throw Failure("\(tmp): sync failed: \(e)")
        case .close(let e): throw Failure("\(tmp): close failed: \(e)")
        default: throw Failure("\(dst): cannot rename into place: \(error.errno)")
        }
    }
    return copied.digest
}

func fileSize(_ p: String) -> Int? {
    (try? POSIX.status(p)).map { Int($0.st_size) }
}

func ensureDirectory(_ d: String) throws {
    do throws(Errno) { try POSIX.makeDirectory(d) } catch { throw Failure("\(d): cannot create directory: \(error)") }
    guard let st = try? POSIX.status(d), (st.st_mode & S_IFMT) == S_IFDIR else { throw Failure("\(d): not a directory") }
}

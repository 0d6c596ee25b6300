#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnExport
import CairnSystem

/// Which trips have been exported, kept in the log directory as `exported` (a small text file;
/// the log files themselves are never touched). One line per trip:
///
///     <first log file name> <trip id> <salt> <destination>
///
/// The first file's name, the trip id and that file's random salt (from its header) name a trip
/// for good, even if a counter were ever reused. Replaced atomically (temp, fsync, rename, directory fsync) whenever it changes.
struct ExportState {
    static let fileName = "exported"
    let directory: String
    private(set) var lines: [(file: String, trip: UInt64, salt: UInt32, destination: String)] = []

    init(directory: String) {
        self.directory = directory
        guard let text = readSmallFile(path) else { return }
        for l in text.split(separator: "\n") where !l.hasPrefix("#") {
            let parts = l.split(separator: " ", maxSplits: 3)
            guard parts.count >= 3, let id = UInt64(parts[1]), let salt = UInt32(parts[2], radix: 16) else { continue }
            lines.append((String(parts[0]), id, salt, parts.count > 3 ? String(parts[3]) : "-"))
        }
    }

    var path: String { POSIX.join(directory, Self.fileName) }

    private static func same(_ l: (file: String, trip: UInt64, salt: UInt32, destination: String), _ t: TripRef) -> Bool {
        l.file == baseName(t.files[0].path) && l.trip == t.id && l.salt == t.files[0].header.salt
    }

    func isExported(_ t: TripRef) -> Bool { lines.contains { Self.same($0, t) } }

    func isExported(_ t: TripRef, to destination: String) -> Bool {
        lines.contains { Self.same($0, t) && $0.destination == destination }
    }

    mutating func mark(_ t: TripRef, destination: String) {
        guard !isExported(t, to: destination) else { return }
        lines.append((baseName(t.files[0].path), t.id, t.files[0].header.salt, destination))
    }

    mutating func forget(_ t: TripRef) { lines.removeAll { Self.same($0, t) } }

    func save() throws {
        var text = "# trips copied off this directory by 'cairn export': first-file trip-id salt destination\n"
        for l in lines { text += "\(l.file) \(l.trip) \(String(l.salt, radix: 16)) \(l.destination)\n" }
        try writeFileAtomically(path, Array(text.utf8))
    }
}

func baseName(_ p: String) -> String {
    guard let i = p.lastIndex(of: "/") else { return p }
    return String(p[p.index(after: i)...])
}

/// fsync on a directory: makes a rename or unlink in it durable.
func syncDirectory(_ dir: String) throws {
    do throws(POSIX.DirectorySyncError) {
        try POSIX.syncDirectory(dir)
    } catch {
        switch error {
        case .open(let e): throw Failure("\(dir): cannot open to sync: \(e)")
        case .sync(let e): throw Failure("\(dir): sync failed: \(e)")
        }
    }
}

/// fsync a file by path (after another writer closed it).
func syncFile(_ path: String) throws {
    let fd: Int32
    do { fd = try POSIX.open(path, O_RDONLY | O_CLOEXEC) } catch { throw Failure("\(path): cannot open to sync: \(error)") }
    defer { POSIX.close(fd) }
    if fsync(fd) != 0 { throw Failure("\(path): sync failed: \(Errno.current)") }
}

/// The temporary name a file is written under before its rename: hidden, same directory (the
/// exporters' own rule).
func temporaryName(for path: String) -> String { OutputSink.temporaryName(for: path) }

/// Writes `bytes` to `path` through a temporary name: write, fsync, rename, fsync the directory.
func writeFileAtomically(_ path: String, _ bytes: [UInt8]) throws {
    let tmp = temporaryName(for: path)
    let fd: Int32
    do { fd = try POSIX.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } catch { throw Failure("\(tmp): cannot create: \(error)") }
    var failure: Errno?
    do throws(Errno) {
        try POSIX.writeAll(fd, bytes)
        if fsync(fd) != 0 { throw .current }
    } catch {
        failure = error
    }
    if let e = POSIX.close(fd), failure == nil { failure = e }
    if let e = failure { unlink(tmp); throw Failure("\(tmp): write failed: \(e)") }
    if rename(tmp, path) != 0 { let m = Errno.current; unlink(tmp); throw Failure("\(path): cannot rename into place: \(m)") }
    try syncDirectory(POSIX.parent(of: path))
}

/// Copies `src` to `dst` through a temporary name (copy, fsync, rename; the caller syncs the
/// directory once for a batch). Returns the bytes copied.
func copyFileAtomically(_ src: String, _ dst: String) throws -> Int {
    let input: Int32
    do { input = try POSIX.open(src, O_RDONLY | O_CLOEXEC) } catch { throw Failure("\(src): cannot open: \(error)") }
    defer { POSIX.close(input) }
    let tmp = temporaryName(for: dst)
    let out: Int32
    do { out = try POSIX.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } catch { throw Failure("\(tmp): cannot create: \(error)") }
    let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    defer { buf.deallocate() }
    var total = 0
    var failure: String?
    while true {
        let n: Int
        do { n = try POSIX.read(input, into: buf) } catch { failure = "\(src): read failed: \(error)"; break }
        if n == 0 { break }
        do { try POSIX.writeAll(out, UnsafeRawBufferPointer(rebasing: buf[0..<n])) } catch { failure = "\(tmp): write failed: \(error)"; break }
        total += n
    }
    if failure == nil && fsync(out) != 0 { failure = "\(tmp): sync failed: \(Errno.current)" }
    if let e = POSIX.close(out), failure == nil { failure = "\(tmp): close failed: \(e)" }
    if let f = failure { unlink(tmp); throw Failure(f) }
    if rename(tmp, dst) != 0 { let m = Errno.current; unlink(tmp); throw Failure("\(dst): cannot rename into place: \(m)") }
    return total
}

func fileSize(_ p: String) -> Int? {
    var st = stat()
    guard stat(p, &st) == 0 else { return nil }
    return Int(st.st_size)
}

func ensureDirectory(_ d: String) throws {
    if mkdir(d, 0o755) != 0 && errno != EEXIST { throw Failure("\(d): cannot create directory: \(Errno.current)") }
    var st = stat()
    guard stat(d, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw Failure("\(d): not a directory") }
}

/// The trips of one log directory that will never change again: closed by the recorder, or
/// followed by a later trip (a trip continues only while it is the newest). The newest trip,
/// when not closed, may still be recording, and is never exported or deleted.
///
/// `unfinished`, when given, hears of files whose header was never completed (they hold no
/// record) instead of `say`.
func finishedTrips(
    in dir: String, say: (String) -> Void,
    unfinished: ((String) -> Void)? = nil
) throws -> [(TripRef, TripSummary)] {
    let files = TripCatalog.files([dir], problem: { say($0) }, unfinished: unfinished)
    let trips = TripCatalog.trips(files)
    var out: [(TripRef, TripSummary)] = []
    for (i, t) in trips.enumerated() {
        let s: TripSummary
        do { s = try TripCatalog.read(t) } catch { say("trip \(t.id): \(error)"); continue }
        if s.closed || i < trips.count - 1 { out.append((t, s)) }
    }
    return out
}

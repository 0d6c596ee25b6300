#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnExport

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

    var path: String { joinPath(directory, Self.fileName) }

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

func joinPath(_ dir: String, _ name: String) -> String {
    dir.hasSuffix("/") ? dir + name : dir + "/" + name
}

func parentDir(_ p: String) -> String {
    guard let i = p.lastIndex(of: "/") else { return "." }
    return i == p.startIndex ? "/" : String(p[..<i])
}

func errText() -> String { String(cString: strerror(errno)) }

/// fsync on a directory: makes a rename or unlink in it durable.
func syncDirectory(_ dir: String) throws {
    let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd < 0 { throw Failure("\(dir): cannot open to sync: \(errText())") }
    defer { close(fd) }
    // Some file systems (vfat on older kernels) refuse fsync on a directory: EINVAL is not a loss.
    if fsync(fd) != 0 && errno != EINVAL { throw Failure("\(dir): sync failed: \(errText())") }
}

/// fsync a file by path (after another writer closed it).
func syncFile(_ path: String) throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw Failure("\(path): cannot open to sync: \(errText())") }
    defer { close(fd) }
    if fsync(fd) != 0 { throw Failure("\(path): sync failed: \(errText())") }
}

/// The temporary name a file is written under before its rename: hidden, same directory.
func temporaryName(for path: String) -> String {
    joinPath(parentDir(path), "." + baseName(path) + ".part")
}

/// Writes `bytes` to `path` through a temporary name: write, fsync, rename, fsync the directory.
func writeFileAtomically(_ path: String, _ bytes: [UInt8]) throws {
    let tmp = temporaryName(for: path)
    let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    if fd < 0 { throw Failure("\(tmp): cannot create: \(errText())") }
    var ok = true
    bytes.withUnsafeBytes { raw in
        var off = 0
        while off < raw.count {
            let n = write(fd, raw.baseAddress! + off, raw.count - off)
            if n < 0 { if errno == EINTR { continue }; ok = false; return }
            off += n
        }
    }
    if ok && fsync(fd) != 0 { ok = false }
    let e = errno
    if close(fd) != 0 { ok = false }
    if !ok { unlink(tmp); throw Failure("\(tmp): write failed: \(String(cString: strerror(e)))") }
    if rename(tmp, path) != 0 { let m = errText(); unlink(tmp); throw Failure("\(path): cannot rename into place: \(m)") }
    try syncDirectory(parentDir(path))
}

/// Copies `src` to `dst` through a temporary name (copy, fsync, rename; the caller syncs the
/// directory once for a batch). Returns the bytes copied.
func copyFileAtomically(_ src: String, _ dst: String) throws -> Int {
    let input = open(src, O_RDONLY | O_CLOEXEC)
    if input < 0 { throw Failure("\(src): cannot open: \(errText())") }
    defer { close(input) }
    let tmp = temporaryName(for: dst)
    let out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    if out < 0 { throw Failure("\(tmp): cannot create: \(errText())") }
    var buf = [UInt8](repeating: 0, count: 65536)
    var total = 0
    var failure: String?
    copy: while true {
        let n = buf.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; failure = "\(src): read failed: \(errText())"; break }
        if n == 0 { break }
        var off = 0
        while off < n {
            let w = buf.withUnsafeBytes { write(out, $0.baseAddress! + off, n - off) }
            if w < 0 { if errno == EINTR { continue }; failure = "\(tmp): write failed: \(errText())"; break copy }
            off += w
        }
        total += n
    }
    if failure == nil && fsync(out) != 0 { failure = "\(tmp): sync failed: \(errText())" }
    if close(out) != 0 && failure == nil { failure = "\(tmp): close failed: \(errText())" }
    if let f = failure { unlink(tmp); throw Failure(f) }
    if rename(tmp, dst) != 0 { let m = errText(); unlink(tmp); throw Failure("\(dst): cannot rename into place: \(m)") }
    return total
}

func fileSize(_ p: String) -> Int? {
    var st = stat()
    guard stat(p, &st) == 0 else { return nil }
    return Int(st.st_size)
}

func ensureDirectory(_ d: String) throws {
    if mkdir(d, 0o755) != 0 && errno != EEXIST { throw Failure("\(d): cannot create directory: \(errText())") }
    var st = stat()
    guard stat(d, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw Failure("\(d): not a directory") }
}

/// The trips of one log directory that will never change again: closed by the recorder, or
/// followed by a later trip (a trip continues only while it is the newest). The newest trip,
/// when not closed, may still be recording, and is never exported or deleted.
///
/// `unfinished`, when given, hears of files whose header was never completed (they hold no
/// record) instead of `say`.
func finishedTrips(in dir: String, say: (String) -> Void,
                   unfinished: ((String) -> Void)? = nil) throws -> [(TripRef, TripSummary)] {
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnLog
import CairnSystem

/// One explored cell at the asked precision, over all trips.
public struct ExploredCell: Sendable, Equatable {
    public var cell: UInt64
    public var trips: Int
    public var visit: CellVisit
}

/// `cairn cells`: the cells every trip touched, from each directory's index (`CellIndex`),
/// reading only the log files the index does not hold as they are now. Never writes a log file;
/// the index is derived data, replaced whole (temporary file, sync, rename) or not at all.
public enum ExploredCells {
    public struct Report {
        public var cells: [ExploredCell] = []
        /// Log files read this time, and taken from an index.
        public var filesRead = 0
        public var filesFromIndex = 0
        /// Files or directories that could not be read (each said through `problem`).
        public var problems = 0
    }

    /// The file being read and its walk, kept apart per file: a trip's files are joined when the
    /// cells are counted, so an index entry never depends on another file.
    struct FileCells {
        var entry: CellIndex.FileEntry
        var directory: String
        var path: String
        /// Kept out of the saved index: see `settleNs`; and a file whose walk was cut
        /// (`CellWalk.stepsCut`), read again each run so each run says so.
        var settling = false
    }

    /// A file modified this recently may be written again within the same timestamp tick (a
    /// recorder appending to its open trip syncs every few seconds, into space it reserved, so
    /// the size does not change either): it is answered from, but not saved, and read again the
    /// next run. Files of finished trips are older and are kept.
    public static let settleNs: Int64 = 10_000_000_000

    /// - Parameters:
    ///   - prefix: only cells whose geohash starts with it (already checked against the alphabet
    ///     and the precision by the caller).
    ///   - problem: a file or directory that cannot be read, named (counted in `problems`).
    ///   - note: what the reader should know but is no failure: an index rebuilt or not saved,
    ///     a trip without points, an unfinished file.
    ///   - settleNs: files modified more recently than this are not saved in the index (`settleNs`).
    ///   - hide: privacy zones: no point inside a zone's widest cut is walked, nor a line across
    ///     a left-out stretch; their index is one of its own, named by a keyed hash of the zones
    ///     (`PrivacyZones.cellIndexName`), so a zone added later is never answered from cells
    ///     walked without it.
    public static func collect(
        paths: [String], precision: Int, prefix: String?, saveIndex: Bool = true,
        settleNs: Int64 = ExploredCells.settleNs, hide: PrivacyZones = PrivacyZones(),
        problem: (String) -> Void, note: (String) -> Void
    ) -> Report {
        let cuts = hide
        let indexName = hide.isEmpty ? CellIndex.fileName : hide.cellIndexName
        var report = Report()
        var files: [FileCells] = []
        // Counted apart from `report`, which `directoryCells` holds while it reports.
        var problems = 0
        func fail(_ m: String) { problem(m); problems += 1 }
        // Each log once, however many of the paths lead to it (`d` and `d/`, a file in it).
        var seen = Set<FileIdentity>()
        for p in paths {
            if POSIX.isDirectory(p) {
                files += directoryCells(
                    p, save: saveIndex, settleNs: settleNs, cuts: cuts, indexName: indexName, report: &report, problem: fail, note: note
                )
                .filter { f in FileIdentity(path: f.path).map { seen.insert($0).inserted } ?? true }
            } else if let st = statFile(p) {
                guard seen.insert(FileIdentity(st)).inserted else { continue }
                if let e = readFile(p, name: basename(p), st: st, cuts: cuts, problem: fail, note: note) {
                    report.filesRead += 1
                    files.append(FileCells(entry: e.entry, directory: POSIX.parent(of: p), path: p))
                }
            } else {
                fail("\(p): cannot stat: \(Errno.current)")
            }
        }
        report.problems = problems
        var leftOut = 0
        report.cells = count(trips: group(files, note: note), precision: precision, prefix: prefix, leftOut: &leftOut)
        if leftOut > 0 {
            note(
                "\(leftOut) cell\(leftOut == 1 ? "" : "s") left out: more than the \(maxCells) a listing holds (a damaged or crafted log, or narrow it with a prefix)"
            )
        }
        return report
    }

    /// The index path for a log directory.
    public static func indexPath(_ dir: String, name: String = CellIndex.fileName) -> String {
        dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }

    static func directoryCells(
        _ dir: String, save: Bool, settleNs: Int64, cuts: PrivacyZones = PrivacyZones(), indexName: String = CellIndex.fileName,
        report: inout Report, problem: (String) -> Void, note: (String) -> Void
    ) -> [FileCells] {
        let logs: [(number: UInt32, path: String)]
        // The copies' names too (`NNNNNNNN-SALT.cairn`, a delivery's or an export's folder), as
        // `cairn list` reads them (`TripCatalog`).
        do { logs = try LogDirectory.logFiles(in: dir, copies: true) } catch { problem("\(error)"); return [] }
        // A folder of copies is the remote's or the stick's, not this board's: no index of ours
        // is read or written there (every run reads its logs), and that is said.
        let copies = logs.contains { LogDirectory.number(fromName: basename($0.path)) == nil }
        if copies && save {
            note("\(dir): a folder of delivered or exported copies; its cell index is not written there (its logs are read each run)")
        }
        let save = save && !copies
        let path = indexPath(dir, name: indexName)
        var old: [String: CellIndex.FileEntry] = [:]
        var loaded: CellIndex?
        var changed = false
        switch copies ? .missing : loadIndex(path, logs: logs.map(\.path)) {
        case .missing:
            changed = true
        case .damaged(let why):
            note("\(path): \(why); rebuilding the index from the logs")
            changed = true
        case .loaded(let index):
            for f in index.files { old[f.name] = f }
            loaded = index
        }
        var out: [FileCells] = []
        for log in logs {
            let name = basename(log.path)
            guard let st = statFile(log.path) else { problem("\(log.path): cannot stat: \(Errno.current)"); continue }
            if let e = old[name], e.size == Int64(st.st_size), e.mtimeNs == mtimeNs(st), e.inode == UInt64(st.st_ino) {
                report.filesFromIndex += 1
                old[name] = nil
                out.append(FileCells(entry: e, directory: dir, path: log.path))
                continue
            }
            changed = true
            old[name] = nil
            if let e = readFile(log.path, name: name, st: st, cuts: cuts, problem: problem, note: note) {
                report.filesRead += 1
                out.append(FileCells(entry: e.entry, directory: dir, path: log.path, settling: e.cut || nowNs() - e.entry.mtimeNs < settleNs))
            }
        }
        // What is left was removed (or is now unreadable): it leaves the index.
        if !old.isEmpty { changed = true }
        if changed && save {
            let index = CellIndex(files: out.filter { !$0.settling }.map(\.entry))
            if index != loaded {
                do throws(IndexSaveError) { try saveIndex(index, path) } catch {
                    note("\(error); answered without saving the index (the next run reads the logs again)")
                }
            }
        }
        return out
    }

    enum Loaded {
        case missing
        case damaged(String)
        case loaded(CellIndex)
    }

    /// Reads the index in a stream, never whole: its size is checked first against the most
    /// the logs beside it can produce (`CellIndex.maxBytes`), and entries of files no longer
    /// there are skipped unkept. A damaged index of any size costs one read, then a rebuild.
    /// - Parameter logs: the log files beside it (nil: those in its directory now).
    static func loadIndex(_ path: String, logs: [String]? = nil) -> Loaded {
        // Never followed: a link in the index's place (to a log, say) is no index.
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) } catch {
            if error.rawValue == ELOOP { return .damaged("the index is a symbolic link, not a regular file") }
            return error == .noSuchFile ? .missing : .damaged("cannot open the index: \(error)")
        }
        defer { POSIX.close(fd) }
        guard let st = try? POSIX.status(fd), (st.st_mode & S_IFMT) == S_IFREG else { return .damaged("the index is not a regular file") }
        var sizes: [String: Int64] = [:]
        let logs = logs ?? ((try? LogDirectory.logFiles(in: POSIX.parent(of: path)))?.map(\.path) ?? [])
        for p in logs { if let s = statFile(p) { sizes[basename(p)] = Int64(s.st_size) } }
        let bound = CellIndex.maxBytes(logSizes: Array(sizes.values))
        let size = Int64(st.st_size)
        if size < 0 || UInt64(size) > bound {
            return .damaged("the index is \(size) bytes, more than its \(sizes.count) log file\(sizes.count == 1 ? "" : "s") can produce (\(bound))")
        }
        var offset = 0
        var failure: Errno?
        let chunk = 1 << 16
        do {
            let index = try CellIndex.decode(
                length: Int(size), keeps: { sizes[$0] != nil },
                read: { buffer in
                    do {
                        let got = try buffer.withUnsafeMutableBytes { b throws(Errno) -> Int in
                            try POSIX.readFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[0..<min(chunk, b.count)]), at: offset)
                        }
                        offset += got
                        return got
                    } catch {
                        failure = (error as? Errno) ?? Errno(rawValue: EIO)
                        return 0
                    }
                })
            return .loaded(index)
        } catch {
            if let e = failure { return .damaged("cannot read the index: \(e)") }
            return .damaged("damaged index (\(error.description))")
        }
    }

    /// Why the index could not be saved: its file could not be created, or not written whole.
    enum IndexSaveError: Error, CustomStringConvertible {
        case create(ExportError)
        case write(OutputError)

        var description: String {
            switch self {
            case .create(let e): "cannot save the index: \(e.description)"
            case .write(let e): "cannot save the index \(e)"
            }
        }
    }

    /// Replaces the index at `path` with `index`, atomically.
    static func saveIndex(_ index: CellIndex, _ path: String) throws(IndexSaveError) {
        let sink: OutputSink
        do throws(ExportError) { sink = try OutputSink(replacing: path) } catch { throw .create(error) }
        sink.append(index.encode())
        do throws(OutputError) { try sink.finish() } catch { throw .write(error) }
    }

    /// Reads one log file's points into its cells; nil (said) when it cannot be read.
    static func readFile(
        _ path: String, name: String, st: stat, cuts: PrivacyZones = PrivacyZones(), problem: (String) -> Void, note: (String) -> Void
    ) -> (entry: CellIndex.FileEntry, cut: Bool)? {
        let header: FileHeader
        do {
            header = try LogReader(path: path).header
        } catch let e as LogError where e.kind == .truncatedHeader {
            note("\(e.path): \(e.message); it holds no records: skipped")
            return nil
        } catch {
            problem("\(error)")
            return nil
        }
        let ref = LogFileRef(path: path, header: header, directory: POSIX.parent(of: path))
        guard let trip = TripCatalog.trips([ref]).first else { return nil }
        var walk = CellWalk()
        // The trip's own cut (its visits to a disc cut along the path), as an export makes it.
        // And the rider's end press, as the exports end at it (`EndCut`).
        var zones: PrivacyFilter
        let summary: TripSummary
        do {
            let end = try TripMarks.read(trip).endMs
            zones = PrivacyFilter(
                window: cuts.isEmpty ? nil : cuts.window(for: trip), endPressMs: end, wheel: end == nil ? nil : try WheelTrack.read(trip))
            summary = try TripCatalog.read(trip) { e in
                zones.pass(e) { event in
                    switch event {
                    case .segment: walk.breakLine()
                    case .point(let f): walk.add(lat: f.lat, lon: f.lon, timeMs: f.timeMs)
                    case .raw: break  // not asked for
                    }
                }
            }
        } catch {
            problem("\(error)")
            return nil
        }
        let cut = walk.stepsCut > 0 || walk.cellsLeftOut > 0
        if cut {
            var what: [String] = []
            if walk.stepsCut > 0 { what.append("\(walk.stepsCut) step\(walk.stepsCut == 1 ? "" : "s") marked by their ends only") }
            if walk.cellsLeftOut > 0 { what.append("\(walk.cellsLeftOut) cell\(walk.cellsLeftOut == 1 ? "" : "s") left out") }
            note(
                "\(path): crosses more cells than its \(summary.stats.points) points can ride (a damaged or crafted log): "
                    + what.joined(separator: ", ") + "; not kept in the index")
        }
        let entry = CellIndex.FileEntry(
            name: name, size: Int64(st.st_size), mtimeNs: mtimeNs(st), inode: UInt64(st.st_ino),
            tripId: header.tripId, part: header.part, points: max(summary.stats.points, walk.points),
            cells: walk.cells.map { ($0.key, $0.value) })
        return (entry, cut)
    }

    /// Files into trips as `TripCatalog.trips` groups them: same directory and trip id, and a
    /// second file claiming a part already held is another recording of that id.
    static func group(_ files: [FileCells], note: (String) -> Void) -> [[FileCells]] {
        var order: [String] = []
        var chains: [String: [[FileCells]]] = [:]
        for f in files {
            let key = f.directory + "\u{0}" + String(f.entry.tripId)
            if chains[key] == nil { order.append(key) }
            var c = chains[key] ?? []
            if let i = c.firstIndex(where: { !$0.contains { $0.entry.part == f.entry.part } }) { c[i].append(f) } else { c.append([f]) }
            chains[key] = c
        }
        var trips: [[FileCells]] = []
        for key in order {
            for chain in chains[key]! {
                if chain.allSatisfy({ $0.entry.points == 0 }) {
                    note(
                        "trip \(chain[0].entry.tripId) (\(chain.map(\.path).joined(separator: ", "))): no points with a position to index (a trainer's ride, one its rider ended before the first fix, or an empty or unfinished trip); skipped"
                    )
                    continue
                }
                trips.append(chain)
            }
        }
        return trips
    }

    /// Each trip's cells at `precision`, counted once per trip, with the earliest and latest visit.
    /// The most cells one listing holds (500,000 lines of text, about 30 MB); more are
    /// counted in `leftOut` and said.
    public static let maxCells = 500_000

    static func count(trips: [[FileCells]], precision: Int, prefix: String?, leftOut: inout Int) -> [ExploredCell] {
        let shift = UInt64(5 * (Geohash.finest - precision))
        var prefixCell: UInt64 = 0, prefixShift: UInt64 = 0
        if let p = prefix, !p.isEmpty, let c = Geohash.cell(p) {
            prefixCell = c
            prefixShift = UInt64(5 * (Geohash.finest - p.utf8.count))
        }
        let filter = prefix.map { !$0.isEmpty } ?? false
        var all: [UInt64: ExploredCell] = [:]
        var mine: [UInt64: CellVisit] = [:]
        for trip in trips {
            mine.removeAll(keepingCapacity: true)
            for f in trip {
                for c in f.entry.cells {
                    if filter && c.cell >> prefixShift != prefixCell { continue }
                    let k = c.cell >> shift
                    if mine[k] == nil { mine[k] = c.visit } else { mine[k]!.merge(c.visit) }
                }
            }
            for (k, v) in mine {
                if all[k] == nil {
                    guard all.count < maxCells else {
                        leftOut += 1
                        continue
                    }
                    all[k] = ExploredCell(cell: k, trips: 1, visit: v)
                } else {
                    all[k]!.trips += 1
                    all[k]!.visit.merge(v)
                }
            }
        }
        return all.values.sorted { $0.cell < $1.cell }
    }

    static func statFile(_ p: String) -> stat? {
        try? POSIX.status(p)
    }

    static func nowNs() -> Int64 {
        let ts = POSIX.time(CLOCK_REALTIME)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }

    static func mtimeNs(_ st: stat) -> Int64 { Int64(st.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(st.st_mtim.tv_nsec) }

    static func basename(_ p: String) -> String { p.split(separator: "/").last.map(String.init) ?? p }
}

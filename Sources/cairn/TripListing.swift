#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnExport
import CairnLog
import CairnSystem

/// The trips of one log directory with their summaries, and for each trip that may still change
/// why (`TripFinish`): closed by the recorder, or no recorder appending to its last file. What
/// other files exist never matters (a log copied in from another board does not finish a trip).
///
/// `unfinished`, when given, hears of files whose header was never completed (they hold no
/// record) instead of `say`.
func catalogTrips(
    in dir: String, say: (String) -> Void,
    unfinished: ((String) -> Void)? = nil
) throws -> [(trip: TripRef, summary: TripSummary, openBecause: String?)] {
    let files = TripCatalog.files([dir], problem: { say($0) }, unfinished: unfinished)
    let trips = TripCatalog.trips(files)
    let recorder = DirectoryLock.recorder(in: dir)
    var out: [(trip: TripRef, summary: TripSummary, openBecause: String?)] = []
    for t in trips {
        let s: TripSummary
        do { s = try TripCatalog.read(t) } catch { say("trip \(t.id): \(error)"); continue }
        var modified: Int64? = Int64.min
        for f in t.files {
            let m = (try? POSIX.status(f.path)).map { Int64($0.st_mtim.tv_sec) * 1_000_000_000 + Int64($0.st_mtim.tv_nsec) }
            modified = m.flatMap { m in modified.map { max($0, m) } }
        }
        let why = TripFinish.openReason(
            closed: s.closed, files: t.files.map { DirectoryLock.FileKey(path: $0.path) }, lastModifiedNs: modified, recorder: recorder)
        out.append((t, s, why))
    }
    return out
}

/// The trips of `catalogTrips` that are finished.
func finishedTrips(
    in dir: String, say: (String) -> Void,
    unfinished: ((String) -> Void)? = nil
) throws -> [(TripRef, TripSummary)] {
    try catalogTrips(in: dir, say: say, unfinished: unfinished).filter { $0.openBecause == nil }.map { ($0.trip, $0.summary) }
}

/// Where `list` and `info` look when given no path: the working directory when it holds log
/// files, else the recorder's own directory when there is one (a rider on the board types
/// `cairn list` in their home directory).
func defaultLogDirectory() -> String {
    let here = (try? LogDirectory.logFiles(in: ".")) ?? []
    if here.isEmpty && POSIX.isDirectory(recorderLogDirectory) { return recorderLogDirectory }
    return "."
}

/// The recorder's log directory when none is given (`record --dir`, the service's).
let recorderLogDirectory = "/var/lib/cairn"

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// One trip for the page: its index entry (the figures of what was written) and what its
/// picture is drawn from, the trip and its privacy window (the export's: the same cut circles as
/// its conversions, so the picture shows exactly the points they hold).
public struct PageTrip {
    public var entry: TripIndex.Entry
    public var trip: TripRef
    public var window: PrivacyWindow?

    public init(entry: TripIndex.Entry, trip: TripRef, window: PrivacyWindow?) {
        self.entry = entry
        self.trip = trip
        self.window = window
    }
}

/// The page beside a destination's exports, kept up to date: `pictures/NAME.svg` for each trip
/// added (`TrackPicture`, the zones cut), the index `index.tsv` with the trips merged in by key,
/// and `index.html` made from the whole index. Each file is written under a temporary name,
/// synced and renamed (`AtomicFile`): a reader sees the old file or the new one. `cairn export`
/// and `cairn deliver` (for its local staging folder) call it.
public final class PageBuilder {
    public let folder: String
    public private(set) var index: TripIndex
    /// Whether an index was there to read (a new one is written either way).
    public let foundIndex: Bool
    public var title = "cairn trips"
    private var drewPictures = false

    public static let picturesFolder = "pictures"
    /// The picture is drawn compact (`TrackPicture.Options.compact`) at about the width it is
    /// shown on a 360 px phone (328 px), so its 11 px labels read 11 px there.
    public static let pictureWidth = 320.0
    /// Far above any real index (a line is about 300 bytes: 28,000 trips), and small enough for
    /// a 512 MB board to read whole; a bigger file is not read as one (a 40 MiB index cut and
    /// padded with zeros took 235 MB under the old 64 MiB limit: attack-r20).
    public static let maxIndexBytes = 8 << 20

    /// Reads `folder/index.tsv` when there is one; what it could not read goes to `say`, its
    /// lines kept. An index that cannot be read at all (permissions, a directory in its place,
    /// too large) is an error: writing a new one would lose the trips it lists.
    public init(folder: String, say: (String) -> Void) throws(ExportError) {
        self.folder = folder
        let path = POSIX.join(folder, TripIndex.fileName)
        let fd: Int32
        do throws(Errno) { fd = try POSIX.open(path, O_RDONLY | O_CLOEXEC) } catch {
            if error == .noSuchFile {
                index = TripIndex()
                foundIndex = false
                return
            }
            throw ExportError("\(path): cannot open: \(error); the page is not updated")
        }
        defer { POSIX.close(fd) }
        let bytes: [UInt8]
        do throws(Errno) { bytes = try POSIX.readToEnd(fd, limit: Self.maxIndexBytes) } catch {
            throw ExportError("\(path): cannot read: \(error); the page is not updated")
        }
        if bytes.count > Self.maxIndexBytes {
            throw ExportError("\(path): over \(Self.maxIndexBytes >> 20) MiB, not a cairn trip index; the page is not updated")
        }
        index = TripIndex(text: String(decoding: bytes, as: UTF8.self))
        foundIndex = true
        for p in index.problems { say("\(path): \(p)") }
    }

    /// The relative path of a trip's picture.
    public static func picturePath(name: String) -> String { picturesFolder + "/" + name + ".svg" }

    /// Whether the page already shows `key` with its picture in place: a trip exported before
    /// needs no new picture (unless an older cairn drew it).
    public func isCurrent(key: String) -> Bool {
        guard let e = index.entry(key: key) else { return false }
        guard let p = e.picture else { return e.points == 0 }
        // An older cairn's entry (no picture size): its picture is the wide one, with labels
        // too small on a phone, and it lacks the newer figures; drawn and counted again while
        // the trip is on the board.
        if e.pictureSize == nil { return false }
        return POSIX.exists(POSIX.join(folder, p))
    }

    /// Puts a row back as it was (kept by its caller; its files and picture are there already).
    public func keep(_ e: TripIndex.Entry) { index.merge(e) }

    /// Takes a trip off the page (its picture stays until the caller removes it).
    public func remove(key: String) { index.remove(key: key) }

    /// Shows the trip with `key` without its picture or files (`TripIndex.Entry.withheld`).
    public func withhold(key: String) { index.withhold(key: key) }

    /// Draws the trip's picture and merges its entry into the index; returns what went wrong
    /// with the picture (the entry goes in without one).
    @discardableResult
    public func add(_ t: PageTrip) -> String? {
        var entry = t.entry
        entry.picture = nil
        (entry.pictureWidth, entry.pictureHeight) = (nil, nil)
        var problem: String?
        if entry.points > 0 {
            let relative = Self.picturePath(name: entry.name)
            do {
                let drawn = try draw(t, to: POSIX.join(folder, relative))
                entry.picture = relative
                (entry.pictureWidth, entry.pictureHeight) = (drawn.width, drawn.height)
                // The sensors' figures over the points drawn: the written ones (zones cut).
                if let c = drawn.temperatureC {
                    entry.temperatureMinC = c.min
                    entry.temperatureMaxC = c.max
                }
            } catch {
                problem = "\(error)"
            }
            do {
                if let s = try SensorTrack.figures(t.trip, window: t.window) {
                    (entry.heartRateAvg, entry.heartRateMax) = (s.avgHeartRate, s.maxHeartRate)
                    entry.cadenceAvg = s.avgCadence
                    (entry.powerAvgW, entry.powerMaxW) = (s.avgPowerW, s.maxPowerW)
                }
            } catch {
                problem = (problem.map { $0 + "; " } ?? "") + "sensor figures not read: \(error)"
            }
        }
        // The entry an earlier cairn keyed without the log's salt, for this very trip (it
        // names the same files): replaced, not listed twice. One naming other files (another
        // card's trip of that id) stays.
        if let salt = t.trip.files.first?.header.salt, entry.key.hasSuffix("-" + TripIndex.hex8(salt)) {
            let legacy = String(entry.key.dropLast(9))
            if let old = index.entry(key: legacy), Set(old.files) == Set(entry.files) { index.remove(key: legacy) }
        }
        index.merge(entry)
        return problem
    }

    private func draw(_ t: PageTrip, to path: String) throws -> TrackPicture.Drawn {
        do throws(Errno) { try POSIX.makeDirectory(POSIX.join(folder, Self.picturesFolder)) } catch {
            throw ExportError("\(POSIX.join(folder, Self.picturesFolder)): cannot create directory: \(error)")
        }
        var options = TrackPicture.Options.defaults(activity: t.entry.activity ?? TripConversion.recordedActivity(of: t.trip))
        options.privacy = t.window
        options.width = Self.pictureWidth
        options.compact = true
        let out = try OutputSink(atomically: path, force: true)
        let drawn: TrackPicture.Drawn
        do {
            drawn = try TrackPicture.draw(t.trip, options: options, to: out)
        } catch {
            out.discard()
            throw error
        }
        try out.finish()
        drewPictures = true
        return drawn
    }

    /// Writes `index.tsv`, then `index.html` from it; a file that would not change is left as
    /// it is (a second export with nothing new changes nothing on the stick).
    public func write() throws(ExportError) {
        try Self.replace(POSIX.join(folder, TripIndex.fileName), index.text)
        try Self.replace(POSIX.join(folder, IndexPage.fileName), IndexPage.html(index.entries, title: title))
    }

    /// The file's bytes, nil when it cannot be read or is larger than `limit`.
    static func contents(_ path: String, limit: Int) -> [UInt8]? {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { POSIX.close(fd) }
        guard let bytes = try? POSIX.readToEnd(fd, limit: limit), bytes.count <= limit else { return nil }
        return bytes
    }

    /// The one call for a folder: reads its index, adds `trips` (pictures drawn), writes the
    /// index and the page. Problems with single pictures or index lines go to `say`; an index
    /// that cannot be read, or a file that cannot be written, is thrown.
    public static func update(folder: String, trips: [PageTrip], title: String? = nil, say: (String) -> Void) throws(ExportError) {
        let b = try PageBuilder(folder: folder, say: say)
        if let title { b.title = title }
        for t in trips {
            if let p = b.add(t) { say("trip \(t.entry.tripId): no picture on the page: \(p)") }
        }
        try b.write()
    }

    static func replace(_ path: String, _ text: String) throws(ExportError) {
        let bytes = Array(text.utf8)
        if contents(path, limit: bytes.count) == bytes { return }
        let tmp = OutputSink.temporaryName(for: path)
        do throws(AtomicFile.Failure) { try AtomicFile.write(bytes, to: path, temporaryPath: tmp) } catch {
            switch error {
            case .create(let e): throw ExportError("\(tmp): cannot create: \(e)")
            case .rename(let e): throw ExportError("\(path): cannot rename into place: \(e)")
            case .directory: throw ExportError("\(POSIX.parent(of: path)): sync failed: \(error.errno)")
            default: throw ExportError("\(tmp): write failed: \(error.errno)")
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnLog
import CairnSystem

/// A log file found on the card, with its header.
public struct LogFileRef: Sendable {
    public let path: String
    public let header: FileHeader
    /// The directory the file is in, so trips from two copied cards never merge.
    public let directory: String
}

/// One trip: the files that hold it, in order (a trip continues in a new file after a restart
/// or an I/O fault).
public struct TripRef: Sendable {
    public let id: UInt64
    public let files: [LogFileRef]
    /// What the grouping found that a reader should be told: other files claiming the same trip
    /// and part (two recorders on one directory, or a file left over), each read as its own trip.
    public var note: String? = nil
    /// 0 for the first recording of this id in its directory, 1, 2, … for the others.
    public var duplicate = 0

    /// What output names add to tell this trip from another recording of the same id
    /// (`-00000003`, its first file's number); empty for the first.
    public var nameSuffix: String {
        guard duplicate > 0, let f = files.first else { return "" }
        let name = f.path.split(separator: "/").last.map(String.init) ?? f.path
        return "-" + (name.hasSuffix(".cairn") ? String(name.dropLast(6)) : name)
    }
}

/// Which file a path leads to (device and inode): a log named twice on the command line (`d`
/// and `./d`, a directory and a file in it, a link) is read once, not counted as two trips.
public struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    public init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    public init?(path: String) {
        guard let st = try? POSIX.status(path) else { return nil }
        self.init(st)
    }
}

/// A trip read back from its files, with statistics rebuilt from the points.
public struct TripSummary: Sendable {
    public var id: UInt64
    public var files: [String]
    public var activity: String?
    /// The recorder's UTC offset at the trip's start (seconds east), when it recorded one.
    public var utcOffsetS: Int?
    /// The id of the board that recorded it (`BoardId`), when its log carries one.
    public var board: String?
    public var stats = TripStats()
    public var drops = DropCounts()
    /// A trip-end record was found.
    public var closed = false
    /// Bytes skipped as damaged, and bytes of torn tails, over all the trip's files.
    public var damagedBytes = 0
    public var tornTailBytes = 0
    public var sequenceGaps = 0
    /// Records skipped whole although their CRC verified: impossible times or positions
    /// (`PointBounds`), or a payload that does not decode.
    public var damagedRecords = 0
    public var notes = 0
    /// What `convert --smooth` and `--fill-gaps` did to the points the figures are from (false
    /// and nil: the points as recorded).
    public var smoothed = false
    public var filledGaps: Int?
    public var interpolatedPoints: Int?
    /// The rider's end press (a long press with a usable time, `TripMarks.endMs`): where the
    /// exports end. Read with the figures, so the summaries over what an export holds need no
    /// pass of their own for it.
    public var endPressMs: Int64?

    /// Metres of the distance the wheel sensor measured where the points have none (issue 40):
    /// a trainer's whole trip, or what tunnels (`wheelGaps` of them) added to their straight lines.
    public var wheelDistanceM = 0.0
    public var wheelGaps = 0

    /// A trip without a position (a trainer): its distance and time are the wheel's. GPX,
    /// GeoJSON and KML cannot hold it.
    public var hasNoPositions: Bool { stats.points == 0 && wheelDistanceM > 0 }
    /// The wheel's samples of a trip without positions (the records FIT and CSV write of it).
    public var wheelSamples = 0
    /// The segments of a trip without positions: one, and one more after each pause of the
    /// wheel (`WheelTrack.resumes`), as FIT's timer and CSV's segment column have them.
    public var wheelSegments = 0
    /// The wheel's ride before the first point (`WheelTrack.lead`: a trainer's trip that went
    /// outdoors, its indoor part): its metres, moving time, start and samples (FIT's and CSV's
    /// records without a position before the first point). In the figures; 0 without one.
    public var wheelLeadM = 0.0
    public var wheelLeadMovingMs: Int64 = 0
    public var wheelLeadFromMs: Int64?
    /// The first point's time, where the lead ends.
    public var wheelLeadToMs: Int64?
    public var wheelLeadSamples = 0
    public var wheelLeadTopMps: Double?
    /// The wheel's ride after the last point (`WheelTrack.trail`: back on the trainer after the
    /// ride outdoors, the trip still open): its metres, moving time, end and samples (FIT's and
    /// CSV's records without a position after the last point). In the figures; GPX, GeoJSON and
    /// KML end at the last point (`wheelTrailFromMs`). 0 without one.
    public var wheelTrailM = 0.0
    public var wheelTrailMovingMs: Int64 = 0
    public var wheelTrailFromMs: Int64?
    public var wheelTrailToMs: Int64?
    public var wheelTrailSamples = 0
    public var wheelTrailTopMps: Double?

    /// Counts the wheel's ride after the last point (at `afterMs`) in the figures.
    mutating func takeWheelTrail(_ trail: WheelTrack.Lead, afterMs: Int64) {
        guard let to = trail.samples.last?.timeMs else { return }
        (wheelTrailM, wheelTrailMovingMs, wheelTrailFromMs, wheelTrailToMs, wheelTrailSamples) =
            (trail.metres, trail.movingMs, afterMs, to, trail.samples.count)
        wheelTrailTopMps = trail.topMps
        stats.addWheelTrail(metres: trail.metres, movingMs: trail.movingMs, toMs: to, topMps: wheelTrailTopMps)
    }

    /// Takes the wheel's ride after the last point out of the summary (not its figures).
    mutating func dropWheelTrail() {
        (wheelTrailM, wheelTrailMovingMs, wheelTrailFromMs, wheelTrailToMs, wheelTrailSamples) = (0, 0, nil, nil, 0)
        wheelTrailTopMps = nil
    }
    /// A trip without positions whose times lie outside the years a point may have
    /// (`PointBounds`: 2000-2100): a trainer ride on a board whose clock was never set (it boots
    /// in 1970) and that never had a fix. Its figures stand; no export can date it, so none is
    /// written (FIT counts from 1989), with a line that says so, and the log keeps the ride.
    public var undatable: Bool {
        guard hasNoPositions, let a = stats.firstTimeMs, let b = stats.lastTimeMs else { return false }
        return a < PointBounds.earliestMs || b >= PointBounds.latestMs
    }
    /// What `convert` and `export` say of an `undatable` trip.
    public var undatableText: String {
        let km = TextFormat.fixed(stats.distanceM / 1000, 2) ?? "?"
        let at = stats.firstTimeMs.map { TextFormat.isoTime(ms: $0) } ?? "-"
        return "a trainer ride of \(km) km from the wheel on a clock that was never set (it starts \(at), and no fix came to set it): "
            + "no export can date it, so none is written; its log keeps it"
    }
    /// What a conversion writes of the trip: its points, or a trainer's wheel samples. A trip
    /// with neither is empty (skipped by `list`, nothing to convert).
    public var records: Int { stats.points > 0 ? stats.points + wheelLeadSamples + wheelTrailSamples : (hasNoPositions ? wheelSamples : 0) }

    /// `recovered` when any file was damaged or torn, or the trip was resumed in a new file after
    /// a crash or an I/O fault (it spans several files); otherwise `closed` when the recorder
    /// closed it, `open` when not (still recording, or cut off cleanly between syncs).
    public var status: TripStatus {
        if damagedBytes > 0 || sequenceGaps > 0 || tornTailBytes > 0 || damagedRecords > 0 || files.count > 1 { return .recovered }
        return closed ? .closed : .open
    }
}

/// A trip's state as `list` and `info` name it (`TripSummary.status`).
public enum TripStatus: String, Sendable {
    /// The recorder closed it.
    case closed
    /// Not closed: still recording, or cut off cleanly between syncs.
    case open
    /// A file was damaged or torn, or the trip spans several files (resumed after a crash).
    case recovered

    /// The word `list`, `info` and `list --json` print.
    public var name: String { rawValue }
}

/// What a trip's points look like to an exporter, in order.
public enum TripEvent {
    case segment(SegmentReason)
    case point(Fix)
    /// A raw fix (record type 8), in the order the log holds them; only when asked for
    /// (`TripCatalog.read(_:raw:visit:)`): they trail the points they judged.
    case raw(RawFix)
}

public enum TripCatalog {
    /// Expands `paths` (log files, or directories of them) into log files, each file once
    /// however many of the paths lead to it (`FileIdentity`). Files that are not
    /// readable cairn logs are reported through `problem` (naming the file) and skipped. A file
    /// whose header was never completed (empty or all zeros: what a power cut while the recorder
    /// created it leaves) holds no record; it goes to `unfinished` when given, else to `problem`.
    public static func files(
        _ paths: [String], problem: (String) -> Void,
        unfinished: ((String) -> Void)? = nil
    ) -> [LogFileRef] {
        var out: [LogFileRef] = []
        var seen = Set<FileIdentity>()
        func once(_ path: String) -> Bool { FileIdentity(path: path).map { seen.insert($0).inserted } ?? true }
        for p in paths {
            if POSIX.isDirectory(p) {
                do {
                    for f in try LogDirectory.logFiles(in: p, copies: true) where once(f.path) {
                        if let r = ref(f.path, directory: p, problem: problem, unfinished: unfinished) { out.append(r) }
                    }
                } catch {
                    problem("\(error)")
                }
            } else if once(p), let r = ref(p, directory: POSIX.parent(of: p), problem: problem, unfinished: unfinished) {
                out.append(r)
            }
        }
        return out
    }

    private static func ref(
        _ path: String, directory: String, problem: (String) -> Void,
        unfinished: ((String) -> Void)?
    ) -> LogFileRef? {
        do {
            let r = try LogReader(path: path)
            return LogFileRef(path: path, header: r.header, directory: directory)
        } catch let e as LogError where e.kind == .truncatedHeader && unfinished != nil {
            unfinished!("\(e.path): \(e.message); it holds no records: skipped")
            return nil
        } catch {
            problem("\(error)")
            return nil
        }
    }

    /// Groups files into trips (same directory, same trip id), ordered by the first file's
    /// number; files within a trip by part.
    ///
    /// Two files of one directory claiming the same trip and part are two recordings (a second
    /// recorder on the directory, or a file left over from another card), never one: merging
    /// them would drop one ride's points as "not after" the other's. Each file goes, in file
    /// order, into the first trip of that id that lacks its part, so each recording stays whole
    /// and is read, listed and exported as a trip of its own, with a `note` naming the files.
    public static func trips(_ files: [LogFileRef]) -> [TripRef] {
        var order: [String] = []
        var groups: [String: [[LogFileRef]]] = [:]
        var notes: [String: [String]] = [:]
        for f in files {
            let key = f.directory + "\u{0}" + String(f.header.tripId)
            if groups[key] == nil { order.append(key) }
            var chains = groups[key] ?? []
            if let i = chains.firstIndex(where: { !$0.contains { $0.header.part == f.header.part } }) {
                chains[i].append(f)
            } else {
                chains.append([f])
            }
            if chains.count > 1, let other = chains[0].first(where: { $0.header.part == f.header.part }), other.path != f.path {
                notes[key, default: []].append(
                    "two files claim trip \(f.header.tripId) part \(f.header.part): \(other.path) and \(f.path) "
                        + "(two recorders on one directory, or a file left over); each is read as a trip of its own")
            }
            groups[key] = chains
        }
        var out: [TripRef] = []
        for key in order {
            for (i, chain) in groups[key]!.enumerated() {
                let fs = chain.sorted { $0.header.part < $1.header.part }
                var t = TripRef(id: fs[0].header.tripId, files: fs)
                t.duplicate = i
                if i == 1 { t.note = notes[key]?.joined(separator: "; ") }
                out.append(t)
            }
        }
        return out
    }

    /// Streams one trip: calls `visit` for each segment start and point, in order (with `raw`, its
    /// raw fixes too, as they come), and returns the rebuilt summary. Memory is bounded by one
    /// record, whatever the trip's length.
    @discardableResult
    public static func read(_ trip: TripRef, raw: Bool = false, visit: (TripEvent) -> Void = { _ in }) throws -> TripSummary {
        var s = TripSummary(id: trip.id, files: trip.files.map(\.path))
        var lastTime: Int64?
        // Where the fixes stopped (`WheelTrack.gapMs`) the wheel may tell the distance: the gaps
        // and their straight lines, measured once the sensors' records are known.
        var gaps = WheelGaps()
        var sawSensors = false
        // A sensors record before the first point: the wheel may have ridden before it (`WheelTrack.lead`).
        var sensorsBeforePoints = false
        var sensorsAfterPoints = false
        for f in trip.files {
            let reader = try LogReader(path: f.path)
            var segmentOpenInFile = false
            // Drop counters are cumulative within one file (one recorder run): keep the last.
            var fileDrops = DropCounts()
            try reader.forEach { entry in
                switch entry.record {
                case .tripStart(let activity, _, let offset, let board):
                    s.activity = activity
                    // The activity bounds a top speed from positions; the start record comes first.
                    if s.stats.points == 0 && s.stats.offeredFixes == 0 { s.stats = TripStats(profile: ActivityProfile.named(activity)) }
                    if let o = offset { s.utcOffsetS = o }
                    if let b = board { s.board = b }
                case .segmentStart(let reason, _):
                    gaps.segment(reason)
                    s.stats.startSegment(reason)
                    visit(.segment(reason))
                    segmentOpenInFile = true
                case .points(let fixes):
                    for fix in fixes {
                        // Never hand an exporter a point that goes back in time.
                        if let t = lastTime, fix.timeMs <= t { continue }
                        if !segmentOpenInFile {
                            // A file whose segment-start record was lost: its points still form a segment.
                            s.stats.startSegment(.resume)
                            visit(.segment(.resume))
                            segmentOpenInFile = true
                        }
                        lastTime = fix.timeMs
                        gaps.point(fix)
                        s.stats.add(fix)
                        visit(.point(fix))
                    }
                case .dropped(let counts):
                    for c in counts { fileDrops.set(rule: c.rule, count: c.count) }
                case .note:
                    s.notes += 1
                case .tripEnd:
                    s.closed = true
                case .rawFixes(let batch):
                    for r in batch.fixes {
                        if r.countsForTopSpeed { s.stats.addOffered(r.fix) }
                        if r.countsForClimb { s.stats.addOfferedHeight(r.fix) }
                        if raw { visit(.raw(r)) }
                    }
                case .riderMark(let m):
                    if m.kind == .end && m.hasUsableTime { s.endPressMs = m.timeMs }
                case .sensors:
                    sawSensors = true
                    if s.stats.points == 0 { sensorsBeforePoints = true } else { sensorsAfterPoints = true }
                case .unknown:
                    break
                }
                return true
            }
            // Saturating: a crafted count must not trap.
            for c in fileDrops.nonzero {
                let (sum, overflow) = s.drops[rule: c.rule].addingReportingOverflow(c.count)
                s.drops.set(rule: c.rule, count: overflow ? .max : sum)
            }
            let scan = try reader.scan()
            s.damagedBytes += scan.damaged.reduce(0) { $0 + $1.count }
            s.tornTailBytes += scan.tornTailBytes
            s.sequenceGaps += scan.sequenceGaps
            s.damagedRecords += scan.implausibleRecords + scan.malformedRecords
        }
        if sawSensors && (s.stats.points == 0 || !gaps.gaps.isEmpty || sensorsBeforePoints || sensorsAfterPoints),
            let wheel = try WheelTrack.read(trip)
        {
            if s.stats.points == 0 {
                s.stats.addWheel(
                    extraM: wheel.distanceM, movingMs: wheel.movingMs - wheel.resumeStepsMs(), firstMs: wheel.firstMs, lastMs: wheel.lastMs,
                    topMps: wheel.topMps, stillM: wheel.resumeStepsM())
                s.wheelDistanceM = wheel.distanceM
                s.wheelSamples = wheel.samples.count
                s.wheelSegments = wheel.resumes.count + 1
            } else {
                let extra = gaps.extraMetres(wheel)
                s.stats.addWheel(extraM: extra.metres)
                (s.wheelDistanceM, s.wheelGaps) = (extra.metres, extra.gaps)
                if let first = s.stats.firstTimeMs, let lead = wheel.lead(before: first) {
                    s.wheelLeadM = lead.metres
                    s.wheelLeadMovingMs = lead.movingMs
                    s.wheelLeadFromMs = lead.firstMs
                    s.wheelLeadToMs = first
                    s.wheelLeadSamples = lead.samples.count
                    s.wheelLeadTopMps = lead.topMps
                    s.stats.addWheelLead(metres: lead.metres, movingMs: lead.movingMs, fromMs: lead.firstMs, topMps: lead.topMps)
                }
                // (attack-r23 case 1: back on the trainer after the last fix, 10 min and 4.8 km
                // were gone from every output, and nothing said so.)
                if let last = s.stats.lastTimeMs, let trail = wheel.trail(after: last) {
                    s.takeWheelTrail(trail, afterMs: last)
                }
            }
        }
        return s
    }

    /// The board a trip was recorded on: the id its log carries (the trip start record of its
    /// first file), else `fallback` (`--board`, config `board`: for logs from before the id, or
    /// from a recorder run without one). nil when neither is known. What every export and a
    /// delivery's folder name the trip by.
    public static func board(of trip: TripRef, fallback: String? = nil) -> String? {
        var found: String?
        if let first = trip.files.first, let reader = try? LogReader(path: first.path) {
            try? reader.forEach { e in
                switch e.record {
                case .tripStart(_, _, _, let b):
                    found = b
                    return false
                case .points: return false  // the start record comes first or not at all
                default: return true
                }
            }
        }
        return found ?? fallback
    }

    /// Whether the trip's climb comes from the barometer (`TripStats.climbFromBarometer`): true at
    /// its first kept point with a pressure, false when it has points and none has one, nil when
    /// it has no point. Stops reading at the first pressure.
    public static func climbsByBarometer(_ trip: TripRef) throws -> Bool? {
        var lastTime: Int64?
        var sawPoint = false
        for f in trip.files {
            var found = false
            try LogReader(path: f.path).forEach { entry in
                guard case .points(let fixes) = entry.record else { return true }
                for fix in fixes {
                    if let t = lastTime, fix.timeMs <= t { continue }
                    lastTime = fix.timeMs
                    sawPoint = true
                    if fix.pressurePa != nil { found = true; return false }
                }
                return true
            }
            if found { return true }
        }
        return sawPoint ? false : nil
    }
}

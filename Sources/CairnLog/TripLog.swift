#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnSystem

/// The recorder's side of the card: turns `RecorderAction`s into log files, keeps the sync
/// cadence (the stated loss window), and survives I/O faults.
///
/// - A file is created only when a trip opens (nothing is written while waiting or parked).
/// - Every `syncIntervalMs` with data pending, the pending records are written and `fdatasync`ed;
///   a power cut loses at most that window.
/// - A failed write or sync is never retried on the same file (fsyncgate): the file is abandoned,
///   and the records it had not acknowledged are written again into a new file of the same trip.
///   Until a new file can be created (a full card), records wait in a bounded ring; if it
///   overflows, the oldest waiting records are lost and a note says how many (`WaitingRecords`).
/// - Raw fixes are gathered and framed as one record at each sync (`RawFixSpool`).
///
/// TripLog itself keeps the files: their numbers, the trip's parts, and the faults.
public final class TripLog {
    public let directory: String
    public let activity: String
    public let software: String
    /// The zone's UTC offset (seconds east) to record with a new trip's start; nil: none known.
    public var utcOffsetAtTripStart: (() -> Int?)?
    /// The board id (`BoardId`) to record with each new trip's start; nil: none.
    public var board: String?
    /// The wheel's circumference (mm) to record with the sensors' notifications (issue 40).
    public var wheelCircumferenceMm: UInt32? {
        get { sensors.wheelCircumferenceMm }
        set { sensors.wheelCircumferenceMm = newValue }
    }
    public let syncIntervalMs: Int64
    private let say: (String) -> Void
    private let io: FileIO
    /// Sector padding for new files (see `LogWriter.padding`); 0 writes no padding.
    public let padding: Int
    /// Zeros kept ahead of the data in new files (see `LogWriter.preallocation`); 0 appends.
    public let preallocation: Int
    /// Pad to a sector where a file is written direct (see `LogWriter.init`'s `padDirect`).
    public let padDirect: Bool

    private var writer: LogWriter?
    private var nextNumber: UInt32
    private var tripId: UInt64 = 0
    /// The current file's place in its trip (FileHeader.part): 0, then +1 for each later file.
    private var part: UInt32 = 0
    private var lastSyncMono: Int64 = 0
    private var lastPointTimeMs: Int64?
    /// A new trip's id is the number of its first file: true until that file exists, so a
    /// name taken meanwhile moves the id along with the number (no two trips claim one id).
    private var tripIdFollowsFile = false
    /// The raw fixes on their way to the log (framed at each sync).
    private var raws: RawFixSpool
    /// The sensors' notifications on their way to the log (framed at each sync).
    private var sensors = SensorSpool()
    /// Records that could not be written yet (no file: the card is full or failing).
    private var waiting = WaitingRecords()
    private var lastAttemptMono: Int64 = Int64.min
    private var reportedOpenFailure = false
    /// Points of the open trip that never reached the card (the ring overflowed, or they were
    /// still waiting at the stop).
    private var tripPointsLost = 0
    private var recovering = false
    /// Whether the first file's way of writing (direct or through the page cache) was told.
    private var reportedWriteMode = false
    /// Whether the current file is written direct, so that falling back is told once.
    private var writerDirect = false
    public private(set) var faults = 0
    /// Highest sequence number made durable in the current file, and the file's path.
    public var lastSyncedSeq: UInt64 { writer?.lastSyncedSeq ?? 0 }
    public var currentPath: String? { writer?.path }
    /// Where a previous run's unclosed trip stands, so a restart can continue it.
    public private(set) var resumable: (tripId: UInt64, part: UInt32, last: Fix)?
    /// Where a previous run's unclosed wheel trip (no point, issue 40) stands: its boot and its
    /// wheel's last turn, for `WheelTripResume` to judge.
    public private(set) var resumableWheel: (tripId: UInt64, part: UInt32, unfinished: WheelTripResume.Unfinished)?
    /// Called after each successful sync with (file path, highest durable sequence number).
    public var onSync: ((String, UInt64) -> Void)?

    public convenience init(
        directory: String, activity: String, software: String, syncIntervalMs: Int64,
        padding: Int = 0, preallocation: Int = LogWriter.preallocationChunk,
        padDirect: Bool = false, say: @escaping (String) -> Void
    ) throws {
        try self.init(
            directory: directory, activity: activity, software: software, syncIntervalMs: syncIntervalMs,
            padding: padding, preallocation: preallocation, padDirect: padDirect, io: .system, say: say)
    }

    /// `io` replaces the writer's write and fdatasync calls (fault injection in tests).
    init(
        directory: String, activity: String, software: String, syncIntervalMs: Int64,
        padding: Int = 0, preallocation: Int = LogWriter.preallocationChunk, padDirect: Bool = false, io: FileIO,
        say: @escaping (String) -> Void
    ) throws {
        self.io = io
        self.padding = padding
        self.padDirect = padDirect
        self.preallocation = preallocation
        self.directory = directory
        self.activity = activity
        raws = RawFixSpool(activity: activity)
        self.software = software
        self.syncIntervalMs = syncIntervalMs
        self.say = say
        try Self.prepare(directory)
        let files = try LogDirectory.logFiles(in: directory)
        nextNumber = (files.last?.number ?? 0) + 1
        resumable = Self.findResumable(files)
        if resumable == nil { resumableWheel = Self.findResumableWheel(files) }
    }

    /// Creates the directory if missing and checks that it is writable, with a clear error.
    public static func prepare(_ dir: String) throws {
        if let st = try? POSIX.status(dir) {
            if (st.st_mode & S_IFMT) != S_IFDIR { throw LogError(path: dir, message: "not a directory") }
        } else {
            var path = ""
            for component in dir.split(separator: "/", omittingEmptySubsequences: false) {
                path += (path.isEmpty && dir.hasPrefix("/") ? "" : (path.isEmpty ? "" : "/")) + component
                if path.isEmpty { path = "/"; continue }
                do throws(Errno) { try POSIX.makeDirectory(path) } catch {
                    throw LogError(path: dir, message: "cannot create directory: \(error)")
                }
            }
        }
        do throws(Errno) { try POSIX.checkAccess(dir, W_OK | X_OK) } catch {
            throw LogError(path: dir, message: "directory is not writable: \(error)")
        }
    }

    /// The last file's trip, if it never got a trip end: a crash or power cut interrupted it.
    static func findResumable(_ files: [(number: UInt32, path: String)]) -> (UInt64, UInt32, Fix)? {
        guard let lastFile = files.last, let reader = try? LogReader(path: lastFile.path) else { return nil }
        var ended = false
        var last: Fix?
        try? reader.forEach { e in
            switch e.record {
            case .tripEnd: ended = true
            case .points(let p): if let f = p.last { last = f }
            default: break
            }
            return true
        }
        guard !ended, let fix = last else { return nil }
        return (reader.header.tripId, reader.header.part, fix)
    }

    /// The note that names the kernel's boot in each file of a trip the wheel opened: a later run
    /// of the same boot may resume the trip on the monotonic clock (`WheelTripResume`).
    public static func bootNote(_ bootId: String) -> String { bootNotePrefix + bootId }
    public static let bootNotePrefix = "boot "

    /// The last file's trip, if it is the wheel's (no point) and never got a trip end: the
    /// file's boot (its last boot note) and the last reading at which a wheel's revolutions grew.
    static func findResumableWheel(_ files: [(number: UInt32, path: String)]) -> (UInt64, UInt32, WheelTripResume.Unfinished)? {
        guard let lastFile = files.last, let reader = try? LogReader(path: lastFile.path) else { return nil }
        var ended = false
        var points = false
        var bootId: String?
        var lastTurn: Int64?
        var revolutions: [UInt64: UInt32] = [:]
        try? reader.forEach { e in
            switch e.record {
            case .tripEnd: ended = true
            case .points(let p): if !p.isEmpty { points = true }
            case .note(let text) where text.hasPrefix(bootNotePrefix): bootId = String(text.dropFirst(bootNotePrefix.count))
            case .sensors(let b):
                for n in b.notifications {
                    let wheel: RevolutionData?
                    switch try? SensorReading(decoding: n) {
                    case .speedCadence(let c)?: wheel = c.wheel
                    case .power(let p)?: wheel = p.wheel
                    default: wheel = nil
                    }
                    guard let w = wheel else { continue }
                    let source = n.address << 16 | UInt64(n.characteristic)
                    if let before = revolutions[source], before != w.revolutions { lastTurn = max(lastTurn ?? .min, n.arrivalMonoMs) }
                    revolutions[source] = w.revolutions
                }
            default: break
            }
            return true
        }
        guard !ended, !points, let turn = lastTurn else { return nil }
        return (reader.header.tripId, reader.header.part, WheelTripResume.Unfinished(bootId: bootId, lastTurnMonoMs: turn))
    }

    /// Applies one recorder action.
    public func apply(_ action: RecorderAction, monoMs: Int64) {
        switch action {
        case .openTrip(let resume):
            closeFile()
            if resume, let r = resumable.map({ ($0.tripId, $0.part) }) ?? resumableWheel.map({ ($0.tripId, $0.part) }) {
                tripId = r.0
                part = r.1 + 1
                tripIdFollowsFile = false
            } else {
                tripId = UInt64(nextNumber)
                part = 0
                tripIdFollowsFile = true
            }
            tripPointsLost = 0
            _ = openFile(monoMs: monoMs)
            if !(resume && (resumable != nil || resumableWheel != nil)) {
                put(
                    .tripStart(activity: activity, software: software, utcOffsetS: utcOffsetAtTripStart?(), board: board),
                    monoMs: monoMs)
            }
            resumable = nil
            resumableWheel = nil
            lastSyncMono = monoMs
        case .startSegment(let reason, let t):
            put(.segmentStart(reason, timeMs: t), monoMs: monoMs)
        case .keep(let fix):
            lastPointTimeMs = fix.timeMs
            put(.points([fix]), monoMs: monoMs)
        case .raw(let r):
            raws.add(r, tripOpen: tripId != 0) { put($0, monoMs: monoMs) }
        case .closeTrip(let totals):
            let s = totals.stats
            let lost = closeTrip(
                TripEnd(
                    reason: totals.atHome ? .home : .standstill, points: UInt64(s.points), distanceM: s.distanceM,
                    movingTimeMs: s.movingTimeMs, firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs),
                drops: totals.drops, monoMs: monoMs)
            if lost > 0 { say("log: trip closed at a standstill: \(s.points) points, \(lost) of them dropped for lack of room on the card") }
        }
    }

    /// Frames the gathered raw fixes as one record (into the open trip only).
    private func flushRaws(monoMs: Int64) {
        raws.flush(tripOpen: tripId != 0) { put($0, monoMs: monoMs) }
        sensors.flush(tripOpen: tripId != 0) { put($0, monoMs: monoMs) }
    }

    /// One sensor notification to record with the open trip (LOG_FORMAT.md section 7d);
    /// `clockMinusMonoMs`: the system clock minus the monotonic clock now.
    public func add(sensor n: SensorNotification, clockMinusMonoMs: Int64, monoMs: Int64) {
        sensors.add(n, clockMinusMonoMs: clockMinusMonoMs, tripOpen: tripId != 0) { put($0, monoMs: monoMs) }
    }

    /// Notifications the recorder did not pass on (a flood, a value too long): the next sensors
    /// record counts them.
    public func sensorsLeftOut(_ count: Int) { sensors.leftOut(count) }

    /// A fix with GPS time `timeMs` arrived at `arrivalMonoMs`: the sensors' time line.
    public func fixArrived(timeMs: Int64, arrivalMonoMs: Int64) {
        sensors.fixArrived(timeMs: timeMs, arrivalMonoMs: arrivalMonoMs)
    }

    /// Appends a non-point record (a note, drop counts).
    public func append(_ record: LogRecord, monoMs: Int64) {
        put(record, monoMs: monoMs)
    }

    /// Syncs when the loss window is due, or within `earlyMs` of it (a caller that is awake
    /// anyway syncs a little early rather than wake again for it).
    public func tick(monoMs: Int64, earlyMs: Int64 = 0) {
        if monoMs + earlyMs - lastSyncMono >= syncIntervalMs { sync(monoMs: monoMs) }
    }

    /// Milliseconds until `tick` will sync, so a caller can sleep until then; `.max` when
    /// nothing waits to be synced.
    public func msUntilSyncDue(monoMs: Int64) -> Int64 {
        guard (writer?.hasUnsynced ?? false) || !waiting.isEmpty || (tripId != 0 && (raws.hasPending || sensors.hasPending)) else {
            return .max
        }
        return max(0, lastSyncMono + syncIntervalMs - monoMs)
    }

    /// Writes and syncs everything pending now (pause, trip end, shutdown).
    public func sync(monoMs: Int64) {
        lastSyncMono = monoMs
        flushRaws(monoMs: monoMs)
        if writer == nil || !waiting.isEmpty {
            if tripId == 0 { return }
            if writer == nil && !openFile(monoMs: monoMs) { return }
            drainWaiting(monoMs: monoMs)
        }
        guard let w = writer else { return }
        do {
            let seq = try w.sync()
            if writerDirect && !w.writesDirect {
                writerDirect = false
                say("log: \(w.path): writing through the page cache from here (a direct write was refused, or the zeros ahead ran out)")
            }
            onSync?(w.path, seq)
        } catch {
            fault(error, monoMs: monoMs)
        }
    }

    /// Closes the trip: its drop counts and summary, synced. The summary counts the points on
    /// the card: those that never reached it (a card full for long) are named in a note. Returns
    /// how many points of the trip never reached the card.
    @discardableResult
    public func closeTrip(_ end: TripEnd, drops: DropCounts, monoMs: Int64) -> Int {
        guard tripId != 0 else { return 0 }
        flushRaws(monoMs: monoMs)
        let counts = drops.nonzero.map { DropCount(rule: $0.rule, count: $0.count) }
        if !counts.isEmpty { put(.dropped(counts), monoMs: monoMs) }
        var onCard = end
        if tripPointsLost > 0 {
            put(.note("\(tripPointsLost) of the trip's \(end.points) points were dropped for lack of room on the card"), monoMs: monoMs)
            onCard.points = end.points - min(end.points, UInt64(tripPointsLost))
        }
        put(.tripEnd(onCard), monoMs: monoMs)
        finalSync(monoMs: monoMs)
        reportUnwritten()
        closeFile()
        tripId = 0
        let lost = tripPointsLost
        tripPointsLost = 0
        return lost
    }

    /// At a stop there is no later sync to retry in: a failure in this one gets up to three more
    /// files at once (a new file after a write error usually works; a full card stays full).
    private func finalSync(monoMs: Int64) {
        sync(monoMs: monoMs)
        var tries = 0
        while tripId != 0 && (writer == nil || !waiting.isEmpty) && tries < 3 {
            lastAttemptMono = Int64.min
            sync(monoMs: monoMs)
            tries += 1
        }
    }

    /// At a stop: records that never reached a file (the card stayed full or failing) are lost; say so.
    private func reportUnwritten() {
        if !waiting.isEmpty {
            let records = waiting.count
            var points = 0
            while let r = waiting.popFirst() { points += WaitingRecords.pointCount(r) }
            tripPointsLost += points
            // With no trip open no file is made (by design): what waited are notes from between
            // trips, not a card that failed.
            say(
                tripId == 0
                    ? "log: \(records) record\(records == 1 ? "" : "s") from while no trip was open not written (a file is made only for a trip)"
                    : "log: \(records) records (\(points) points) could not be written before stopping (the card is full or failing)")
            waiting.reset()
        }
        waiting.endDropping(why: "stopping", say: say)
    }

    /// Records kept in memory because no file could take them (a full or failing card).
    public var waitingRecords: Int { waiting.count }

    /// Stops without a trip end (nothing was recorded, or the caller closes the trip itself).
    public func shutdown(monoMs: Int64) {
        finalSync(monoMs: monoMs)
        reportUnwritten()
        closeFile()
    }

    /// Hands a record to the current file, or keeps it waiting when there is none (or records
    /// are already waiting, so order is kept). A record the writer did not accept waits too,
    /// except an invalid fix, which no file would take.
    private func put(_ r: LogRecord, monoMs: Int64) {
        guard let w = writer, waiting.isEmpty, !w.failed else {
            wait(r)
            return
        }
        do {
            if case .points(let ps) = r, ps.count == 1 { try w.append(point: ps[0]) } else { try w.append(r) }
        } catch let e as LogError where e.kind == .invalidArgument {
            say("log: skipped a record the format cannot hold: \(e)")
            return
        } catch {
            wait(r)
            fault(error, monoMs: monoMs)
            return
        }
        // A background write inside append can fail without throwing: the writer is then failed.
        if w.failed { fault(LogError(path: w.path, message: "write failed"), monoMs: monoMs) }
    }

    private func wait(_ r: LogRecord) {
        tripPointsLost += waiting.keep(r, say: say)
    }

    private func drainWaiting(monoMs: Int64) {
        guard let w = writer else { return }
        let lost = waiting.overwritten
        if lost > 0 {
            let points = waiting.dropping.map { ", \($0.points) of them points" } ?? ""
            do { try w.append(.note("\(lost) records lost while the card could not be written\(points)")) } catch {}
            waiting.endDropping(why: "the card took records again", say: say)
        }
        while let r = waiting.first {
            do {
                if case .points(let ps) = r { for p in ps { try w.append(point: p) } } else { try w.append(r) }
            } catch let e as LogError where e.kind == .invalidArgument {
                say("log: skipped a record the format cannot hold: \(e)")
            } catch {
                fault(error, monoMs: monoMs)
                return
            }
            waiting.popFirst()
            if w.failed {
                fault(LogError(path: w.path, message: "write failed"), monoMs: monoMs)
                return
            }
        }
        waiting.reset()
    }

    private func openFile(monoMs: Int64) -> Bool {
        // After a failure, retry at most once per sync interval.
        if lastAttemptMono != Int64.min, monoMs - lastAttemptMono < syncIntervalMs, faults > 0 { return false }
        lastAttemptMono = monoMs
        // A name that exists (a leftover or copied file) is skipped, never overwritten: the next
        // free number after every file there is taken at once.
        var taken = 0
        var remade = false
        while true {
            if tripIdFollowsFile { tripId = UInt64(nextNumber) }
            let header = FileHeader(tripId: tripId, part: part, salt: LogDirectory.randomSalt())
            do {
                let w = try LogWriter(
                    directory: directory, number: nextNumber, header: header, padding: padding,
                    preallocation: preallocation, padDirect: padDirect, io: io)
                return opened(w)
            } catch let e as LogError where e.errno == EEXIST && taken < 3 {
                taken += 1
                let path = POSIX.join(directory, LogDirectory.fileName(number: nextNumber))
                let next = (try? LogDirectory.nextNumber(in: directory)) ?? nextNumber + 1
                say(
                    "log: \(path) exists already (not written by this recorder): left as it is, using \(LogDirectory.fileName(number: max(next, nextNumber + 1)))"
                )
                nextNumber = max(next, nextNumber + 1)
            } catch let e as LogError where e.errno == ENOENT && !remade {
                // The log directory was removed under the recorder: made again, as at the start.
                remade = true
                if (try? Self.prepare(directory)) != nil { say("log: \(directory) was gone: created it again") }
            } catch {
                return openFailed(error)
            }
        }
    }

    private func opened(_ w: LogWriter) -> Bool {
        nextNumber += 1
        tripIdFollowsFile = false
        writer = w
        writerDirect = w.writesDirect
        reportedOpenFailure = false
        if !reportedWriteMode && preallocation > 0 {
            reportedWriteMode = true
            say(
                w.writesDirect
                    ? "log: writing in \(LogWriter.directSectorSize)-byte sectors past the page cache (O_DIRECT)"
                        + (w.padding > padding ? ", each sync padded to a sector" : "")
                    : "log: writing through the page cache, not direct (O_DIRECT refused, or no room for zeros ahead)")
        }
        if recovering {
            recovering = false
            say("log: writing again, to \(w.path)" + (waiting.isEmpty ? "" : " (\(waiting.count) records were waiting)"))
        }
        return true
    }

    private func openFailed(_ error: Error) -> Bool {
        // A file the writer created but could not start was removed by it: its name is free.
        // One that is still there is skipped.
        let path = POSIX.join(directory, LogDirectory.fileName(number: nextNumber))
        if POSIX.exists(path) { nextNumber += 1 }
        // Report the first failure of an outage, not every retry.
        if !reportedOpenFailure { say("log: \(error); will retry every \(syncIntervalMs / 1000) s") }
        reportedOpenFailure = true
        return false
    }

    private func closeFile() {
        writer?.close()
        writer = nil
    }

    /// The current file failed: abandon it, keep what it had not acknowledged, and continue the
    /// trip in a new file (its next part), starting a new track segment there.
    private func fault(_ error: Error, monoMs: Int64) {
        faults += 1
        recovering = true
        say("log: \(error); continuing the trip in a new file")
        guard let w = writer else { return }
        let unacked = w.unacknowledged
        w.close()
        writer = nil
        part += 1
        var first: [LogRecord] = [.note("previous file abandoned after a write failure: \(error)")]
        // The new file starts a track segment, unless its first record does that already.
        if unacked.first.map(isSegmentStart) != true { first.append(.segmentStart(.resume, timeMs: lastPointTimeMs)) }
        waiting.putFirst(first + unacked)
    }

    private func isSegmentStart(_ r: LogRecord) -> Bool {
        if case .segmentStart = r { return true }
        return false
    }
}

import CairnSystem
import CairnCore
import CairnLog
import CairnExport

/// One run of `cairn export` (see ExportCommand): each finished trip's shipment (`TripShipment`)
/// written into the stick's folder (its log copies read back, its conversions, its page entry),
/// then the key, the folders synced, the state saved, and what the run says. The decisions are
/// `ShippingPlan`'s; this is their I/O.
struct ExportRun {
    let dir: String
    let dest: String
    let formats: [ExportFormat]
    let copyLogs: Bool
    /// `--logs` as given: said when the logs stay off the stick.
    let logsText: String?
    let page: Bool
    let stageOptions: ExportStageOptions
    let namePrefix: String

    var logsDir: String { POSIX.join(dest, TripShipment.logsFolder) }

    struct Counts {
        var copiedFiles = 0, copiedBytes = 0, wroteConversions = 0, exportedTrips = 0, alreadyThere = 0, failedTrips = 0, openTrips = 0
        var problems = 0
    }

    private var counts = Counts()
    private var state: ExportState
    private var pageBuilder: PageBuilder?
    /// The destination as the receipts name it (absolute).
    private let destination: String

    init(
        dir: String, dest: String, formats: [ExportFormat], copyLogs: Bool, logsText: String?, page: Bool, stageOptions: ExportStageOptions,
        namePrefix: String
    ) {
        self.dir = dir
        self.dest = dest
        self.formats = formats
        self.copyLogs = copyLogs
        self.logsText = logsText
        self.page = page
        self.stageOptions = stageOptions
        self.namePrefix = namePrefix
        state = ExportState(directory: dir)
        destination = ExportCommand.absolute(dest)
    }

    mutating func go() throws -> Int32 {
        try ensureDirectory(dest)
        if copyLogs { try ensureDirectory(logsDir) }
        for f in formats { try ensureDirectory(POSIX.join(dest, f.name)) }
        // A stick unmounted (or swapped) mid-export: the path then leads elsewhere.
        let destIdentity = DirectoryLock.FileKey(path: dest)
        var problems = 0
        let all = try catalogTrips(
            in: dir,
            say: {
                printErr("cairn: \($0)"); problems += 1
            },
            unfinished: { printErr("cairn: \($0)") })
        counts.problems = problems
        if let p = state.problem { printErr("cairn: \(p)") }
        // The page's index is read before any trip, so one that cannot be read stops no export.
        if page {
            do throws(ExportError) { pageBuilder = try PageBuilder(folder: dest, say: { printErr("cairn: \(terminalSafe($0))") }) } catch {
                printErr("cairn: \(error)")
                counts.problems += 1
            }
        }
        for (t, whole, openBecause) in all { ship(t, whole, openBecause: openBecause) }
        try finish(destIdentity)
        say(trips: all.count)
        return counts.problems > 0 ? ExitCode.failure : ExitCode.ok
    }

    /// One trip: its logs, its conversions, its page entry, its state line.
    private mutating func ship(_ t: TripRef, _ whole: TripSummary, openBecause: String?) {
        let label = "trip \(t.id) (\(t.files.map { baseName($0.path) }.joined(separator: ", ")))"
        // A stick keeps the plain names (`TripShipment.logName`), unless another card's log holds
        // one of them: then this trip goes beside it under salted names, as deliver's
        // (`ShippingPlan.stickNames`); what went there before keeps its names.
        let before = state.saltedBefore(t, destination: destination)
        let salted = ShippingPlan.stickNames(
            saltedBefore: before,
            otherCard: t.files.contains {
                FolderDestination.otherCardsLog(at: POSIX.join(dest, TripShipment.logPath(baseName($0.path))), salt: $0.header.salt)
            })
        let step = ShippingPlan.trip(openBecause: openBecause, points: whole.records, damagedBytes: whole.damagedBytes)
        if case .open(let why) = step {
            printErr("cairn: \(label): still open (\(why)); exported once it closes")
            counts.openTrips += 1
            return
        }
        if let n = t.note { printErr("cairn: \(n)") }
        let now: [ExportState.CopiedFile]
        do { now = try ExportState.current(t) } catch {
            printErr("cairn: \(label): \(error)")
            counts.problems += 1; counts.failedTrips += 1
            return
        }
        switch step {
        case .nothing:
            printErr("cairn: \(label): no points (an empty or unfinished trip); nothing to export")
            state.mark(t, files: now, logs: true, destination: destination, salted: salted)
            return
        case .logsOnly:
            printErr("cairn: \(label): no points (an empty or damaged trip); no conversion" + (copyLogs ? ", its log copied" : ""))
        case .open, .whole: break
        }
        // A trainer ride on a clock never set: no conversion can date it (`undatable`). Said,
        // not a failure (every later run would fail on it); its logs go when they are asked for,
        // and only then is it marked exported: with nothing of it on the stick, retention must
        // never take it for exported.
        if whole.undatable {
            printErr("cairn: \(label): " + whole.undatableText + (copyLogs ? " (and is copied)" : " (--logs yes copies it)"))
            guard copyLogs else { return }
        }
        // Another file at this trip's log names (not a log of another card, or under the salted
        // names too): nothing of the trip is written, the other files and rows untouched.
        let there = zip(t.files, now).map { f, c in
            let target = POSIX.join(dest, TripShipment.logPath(c, salted: salted))
            return (name: target, copy: FolderDestination.existingCopy(target, of: f.path, c.digest))
        }
        if let clash = ShippingPlan.refusesTrip(there) {
            printErr(
                "cairn: \(clash.name): exists and is another file (\(clash.why)); not replaced: export to another directory;"
                    + " nothing of \(label) is written to \(dest) (another card's export there under the same numbers?)")
            state.forget(t, destination: destination)
            counts.problems += 1
            counts.failedTrips += 1
            return
        }
        if salted && before == nil {
            printErr("cairn: \(label): another card's log holds its names on \(dest); exported beside it under names with its salt")
        }
        let existing = Dictionary(zip(now.map { TripShipment.logPath($0, salted: salted) }, there.map(\.copy)), uniquingKeysWith: { a, _ in a })
        var folder = FolderDestination(
            folder: dest, label: label, laps: stageOptions.laps, existing: existing,
            verified: state.isExported(t, to: destination, now: now, logs: copyLogs))
        // The page shows the trip too (its picture and figures): it is cut even with --format none.
        let order = TripShipping.Order(
            logs: copyLogs, placeLogs: copyLogs, formats: formats, page: pageBuilder != nil, options: stageOptions, prefix: namePrefix)
        var shipped: TripShipping.Shipped?
        var cutFailed: (any Error)?
        do { shipped = try TripShipping.ship(t, whole, now: now, salted: salted, order: order, to: &folder) } catch { cutFailed = error }
        counts.copiedFiles += folder.copiedFiles
        counts.copiedBytes += folder.copiedBytes
        counts.wroteConversions += folder.wroteConversions
        if folder.forget { state.forget(t, destination: destination) }
        guard let shipped else {
            // Never a conversion without its zones' cut.
            printErr("cairn: \(label): \(cutFailed.map { "\($0)" } ?? "")")
            counts.problems += 1
            counts.failedTrips += 1
            return
        }
        if folder.problem { counts.problems += 1; counts.failedTrips += 1; return }
        if shipped.wroteAny { counts.exportedTrips += 1 } else { counts.alreadyThere += 1 }
        if let pageBuilder, let shipment = shipped.shipment, let p = shipped.page,
            ShippingPlan.pageEntry(wroteAny: shipped.wroteAny, current: pageBuilder.isCurrent(key: shipment.key), links: p.entry.files.count),
            let why = pageBuilder.add(p)
        {
            printErr("cairn: \(label): no picture on the page: \(why)")
        }
        state.mark(t, files: now, logs: copyLogs, destination: destination, salted: salted)
    }

    /// The page, the key, then one directory sync per directory (covering every rename into
    /// it); the state is saved only after them, so a stick that fills or vanishes on the way
    /// marks nothing.
    private mutating func finish(_ destIdentity: DirectoryLock.FileKey?) throws {
        if let pageBuilder {
            do throws(ExportError) { try pageBuilder.write() } catch {
                printErr("cairn: \(error); the trips are exported")
                counts.problems += 1
            }
        }
        do {
            if ShippingPlan.keyGoes(logs: copyLogs, key: stageOptions.zones.key != nil), let key = stageOptions.zones.key {
                try writeFileAtomically(POSIX.join(dest, TripShipment.keyPath), key.bytes, mode: 0o600)
            }
            if copyLogs { try syncDirectory(logsDir) }
            for f in formats { try syncDirectory(POSIX.join(dest, f.name)) }
            try syncDirectory(dest)
            guard let current = DirectoryLock.FileKey(path: dest), current == destIdentity else {
                throw Failure("\(dest): is no longer the directory this export wrote to (the stick unmounted or replaced?)")
            }
            try state.save()
        } catch let e as Failure {
            printErr("cairn: \(e.message); no trip marked as exported")
            counts.problems += 1
        }
    }

    /// What the run says last: its counts, the logs left home, nothing to export, trips that failed.
    private func say(trips: Int) {
        let c = counts
        printErr(
            "cairn: exported \(c.exportedTrips) trip\(c.exportedTrips == 1 ? "" : "s") to \(dest) (\(c.copiedFiles) log file\(c.copiedFiles == 1 ? "" : "s"), \(c.copiedBytes) bytes; \(c.wroteConversions) conversion\(c.wroteConversions == 1 ? "" : "s")); \(c.alreadyThere) already there"
        )
        if !copyLogs {
            printErr(
                "cairn: log files left off the stick (--logs \(logsText ?? "no, the default with privacy zones")): retention keeps these trips until an export with --logs yes copies them"
            )
        }
        if trips == 0 || c.openTrips == trips {
            printErr("cairn: no finished trips in \(dir) (an open trip is exported once it closes)")
        }
        if c.failedTrips > 0 {
            printErr("cairn: \(c.failedTrips) trip\(c.failedTrips == 1 ? "" : "s") not exported (see above); run again once fixed")
        }
    }
}

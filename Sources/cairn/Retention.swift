#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// Retention: deletes the oldest finished trips of a log directory while the directory is over
/// its limits (`keepDays`: trips that ended longer ago; `maxBytes`: the log files' total size),
/// and never a trip that is not exported (see `ExportState.verdict`: every file unchanged since
/// its copy was verified, logs included) unless `force`. The newest file's trip is never touched
/// (its file number keeps the counter going), nor a trip still being recorded. Ages count from
/// the system clock, and only while it is not over a day behind the newest trip's end (a board
/// without a real-time clock at 1970, a clock set back: then nothing is old; `--max-mb` still
/// applies). A trip counted exported on the strength of a delivery is deleted only when its logs
/// are found whole on the remote in this run (`DeliveredCopies`); a copy found not whole voids its
/// receipt, and a remote out of reach keeps the trip.
/// The plan is `RetentionPlan`'s; every deletion is reported through `say`, naming the trip, its
/// files and why.
struct Retention {
    var keepDays: Double?
    var maxBytes: Int?
    var force = false
    var dryRun = false
    /// Today's privacy zones, with the board's key: a trip delivered cut by others is kept
    /// until a delivery cuts it again (`cutOwed`).
    var zones = PrivacyZones()

    var isActive: Bool { keepDays != nil || maxBytes != nil }

    struct Outcome {
        var deletedTrips = 0
        var deletedBytes = 0
        var keptUnexported = 0
        var problems = 0
    }

    /// `remoteTimeout`, `remoteDeadline`: rclone's for the listing of a delivered trip's remote
    /// (the recorder's retention keeps them short: its watchdog waits 30 s).
    func apply(
        directory dir: String, wallClockMs: Int64, remoteTimeout: Int = 30, remoteDeadline: Double? = nil, say: (String) -> Void
    ) -> Outcome {
        var out = Outcome()
        guard isActive else { return out }
        let all: [(trip: TripRef, summary: TripSummary, openBecause: String?)]
        do {
            all = try catalogTrips(in: dir) {
                say("retention: \($0)"); out.problems += 1
            }
        } catch {
            say("retention: \(error)")
            out.problems += 1
            return out
        }
        // The cuts today's zones want: the ones given (the config's), and the ones the last
        // delivery was asked for (LOGDIR/delivery, said before it reached the remote).
        var wantedCuts: [String] = []
        if !zones.isEmpty { wantedCuts.append(zones.fingerprint) }
        let lastDelivery = DeliveryStatus.read(directory: dir)
        if let w = lastDelivery?.zonesWanted, !w.isEmpty, !wantedCuts.contains(w) { wantedCuts.append(w) }
        // The page the last delivery owes (it is made from the trips' logs): a delivered trip
        // is not whole there before its picture went up with it (noted on its receipt,
        // `ExportState.notePicture`; attack-r22 c21, a remote that filled up between).
        let pagePending = lastDelivery?.pagePending == true
        // A trip delivered (`cairn deliver`) counts as one exported.
        var state = ExportState(directory: dir)
        var delivered = ExportState(directory: dir, fileName: ExportState.deliveredFileName)
        if let p = state.problem { say("retention: \(p)") }
        if let p = delivered.problem { say("retention: \(p)") }
        let files = (try? LogDirectory.logFiles(in: dir)) ?? []
        // The names of the copies: plain (cairn 0.3) and with their salts (`TripShipment.logName`).
        let salted = all.flatMap(\.trip.files).map { TripShipment.logName(baseName($0.path), salt: $0.header.salt, salted: true) }
        let copies = DeliveredCopies(
            directory: dir, timeoutSeconds: remoteTimeout, deadlineSeconds: remoteDeadline, names: Set(files.map { baseName($0.path) } + salted))
        // The one rclone of the run's remote checks, stopped however the run ends.
        defer { copies.finish() }
        var total = 0
        for f in files { total += fileSize(f.path) ?? 0 }
        // The newest file is always kept: it carries the counter that names the next file.
        let newestFile = files.last?.path
        let trips = all.map { e in
            RetentionPlan.Trip(
                id: e.trip.id, bytes: e.trip.files.reduce(0) { $0 + (fileSize($1.path) ?? 0) },
                endMs: e.summary.stats.lastTimeMs ?? e.summary.stats.firstTimeMs,
                open: e.openBecause != nil, holdsNewestFile: e.trip.files.contains { $0.path == newestFile })
        }
        var forgotReceipts = false
        let plan = RetentionPlan.plan(
            trips: trips, totalBytes: total, nowMs: wallClockMs,
            limits: RetentionPlan.Limits(keepDays: keepDays, maxBytes: maxBytes, force: force)
        ) { i in
            // Delivered cut by other zones than today's (or uncut, zones added since): the next
            // delivery takes that cut down and sends a new one, from the log.
            for fingerprint in wantedCuts {
                let suffix = " zones-" + fingerprint
                let sentTo = delivered.destinations(all[i].trip)
                let cutToday = Set(sentTo.filter { $0.hasSuffix(suffix) }.compactMap(ExportState.folder(ofDestination:)))
                let owed = sentTo.contains { d in !d.hasSuffix(suffix) && ExportState.folder(ofDestination: d).map { !cutToday.contains($0) } ?? false
                }
                if owed { return .cutOwed }
            }
            var exported = state.verdict(all[i].trip)
            // An export to a folder on this card (a stick's mount point, the stick not mounted)
            // is no copy off the board.
            if exported == .exported, let t = all[i].trip.files.first {
                let folders = state.exportedDestinations(all[i].trip)
                let trip = all[i].trip
                if !folders.isEmpty,
                    folders.allSatisfy({
                        OnThisCard.holds($0, file: TripShipment.logPath(t, salted: state.salted(trip, destination: $0)), logDirectory: dir)
                    })
                {
                    exported = .copyOnThisCard
                } else if state.destinationsHoldingCopies(all[i].trip).isEmpty {
                    // The receipt's copy is not where it went, whole, now.
                    exported = .exportCopyNotFound
                }
            }
            let sent = delivered.verdict(all[i].trip)
            // Nothing is deleted on the strength of a copy that was not found whole in this run;
            // a delivered copy found damaged in it outweighs an export's receipt (the stick is
            // not here to look at, and the delivery will send the copy again).
            if sent == .exported {
                let t = all[i].trip
                let pageOwed =
                    pagePending
                    && !delivered.exportedDestinations(t).contains { d in
                        // A trip without a conversion has no picture to wait for.
                        guard let first = delivered.sent(t, destination: d).first, let picture = DeliveryPlans.picture(of: first.path) else {
                            return true
                        }
                        return delivered.md5s(t, destination: d)[picture] != nil
                    }
                let found = copies.verdict(
                    t, destinations: delivered.exportedDestinations(t), salted: { delivered.salted(t, destination: $0) }, say: say)
                // A receipt whose copy is not whole there no longer holds: the next delivery
                // reads that copy back and sends it again (a damaged one too, unseen by its sizes).
                if !dryRun && !found.notWhole.isEmpty {
                    for d in found.notWhole { delivered.forget(t, destination: d) }
                    forgotReceipts = true
                }
                // The page's picture, by the remote's listing in this run (not only the receipt):
                // one deleted or changed there is drawn again from the log, so the log stays.
                var pictureGone = false
                // Only a picture its receipt says went up (its MD5 noted): `--page no` sends none.
                for d in delivered.exportedDestinations(t) where found.verdict == .exported {
                    guard let folder = ExportState.folder(ofDestination: d), let first = delivered.sent(t, destination: d).first,
                        let picture = DeliveryPlans.picture(of: first.path), let md5 = delivered.md5s(t, destination: d)[picture]
                    else { continue }
                    if copies.pictureThere(picture, in: folder, md5: md5, say: say) != true {
                        let p = terminalSafe(picture)
                        let f = terminalSafe(folder)
                        say("retention: trip \(t.id): its picture \(p) is not in \(f) as sent: kept until a delivery draws it again")
                        pictureGone = true
                    }
                }
                // The page's row, by the remote's index read in this run: a trip pruned without it
                // could never be shown there again (its row is made from its log).
                var rowMissing = false
                for d in delivered.exportedDestinations(t) where found.verdict == .exported && !delivered.hidesAll(t, destination: d) {
                    guard let folder = ExportState.folder(ofDestination: d), folder == lastDelivery?.pageFolder else { continue }
                    let expected = delivered.sent(t, destination: d).map(\.path)
                    if expected.isEmpty { continue }
                    let rows = copies.pageRows(in: folder, say: say)
                    if RetentionPlan.pageLacksRow(expected: expected, rowFiles: rows) {
                        if rows != nil {
                            let f = terminalSafe(folder)
                            say("retention: trip \(t.id): the page's index in \(f) has no row of it: kept until a delivery puts it back")
                        }
                        rowMissing = true
                    }
                }
                // Its raw logs went with privacy zones: cut again only with the board's key, which
                // must be found whole beside them in this run (renamed or deleted there, it goes again).
                var keyMissing = false
                let withKey = delivered.exportedDestinations(t).filter { d in
                    // Cut for privacy zones (its destination ends "zones-…"), its logs sent raw.
                    d.split(separator: " ").last?.hasPrefix("zones-") == true && delivered.sentLogs(t, destination: d)
                }
                for d in withKey where found.verdict == .exported {
                    guard let folder = ExportState.folder(ofDestination: d) else { continue }
                    guard let key = RetentionPlan.keySent(lastDelivery?.keySent ?? "", folder: folder) else {
                        say("retention: trip \(t.id): the board's privacy key never went up whole to \(terminalSafe(folder)) beside its logs: kept")
                        keyMissing = true
                        continue
                    }
                    if copies.keyThere(key.relative, md5: key.md5, in: folder, say: say) != true {
                        let at = terminalSafe(DeliverCommand.join(folder, key.relative))
                        say("retention: trip \(t.id): \(at), the key its logs there are cut with, is not there whole: kept until a delivery sends it")
                        keyMissing = true
                    }
                }
                let owed = pageOwed || pictureGone
                if found.verdict == .copyNotWhole || exported != .exported {
                    return RetentionPlan.delivered(found.verdict, pageOwed: owed, pageRowMissing: rowMissing, keyNotFound: keyMissing)
                }
                return RetentionPlan.delivered(exported, pageOwed: owed, pageRowMissing: rowMissing, keyNotFound: keyMissing)
            }
            if exported == .exported { return exported }
            return sent == .neverExported ? exported : sent
        }
        if let c = plan.clockBehind {
            say(
                "retention: the clock reads \(TextFormat.isoTime(ms: c.nowMs)), before the newest trip's end \(TextFormat.isoTime(ms: c.newestEndMs)): no trip counts as old until the clock is right (--keep-days deletes nothing)"
            )
        }
        var warned = Set<String>()
        var changed = forgotReceipts
        for step in plan.steps {
            let t = all[step.trip].trip
            let size = trips[step.trip].bytes
            let reason: String
            switch step.reason {
            case .age(let end, let days): reason = "ended \(TextFormat.isoTime(ms: end)), over \(TextFormat.trimmed(days, 2) ?? "?") days ago"
            case .size(let total, let limit): reason = "the log directory holds \(total) bytes, over the limit of \(limit)"
            }
            if let kept = step.kept {
                out.keptUnexported += 1
                // One line per kind of reason: a directory of 500 unexported trips says it once.
                if warned.insert(kept.keptBecause).inserted {
                    say(
                        "retention: trip \(t.id) (\(baseName(t.files[0].path))) is over the limit (\(reason)) but \(kept.keptBecause); kept (run 'cairn export' or 'cairn deliver'\(kept == .logsLeftOff ? " with --logs yes" : ""), or 'cairn prune --force')"
                    )
                }
                continue
            }
            let names = t.files.map { baseName($0.path) }.joined(separator: ", ")
            if dryRun {
                say("retention: would delete trip \(t.id) (\(names); \(size) bytes): \(reason)")
            } else {
                var failed = false
                for f in t.files {
                    guard let e = POSIX.unlink(f.path), e != .noSuchFile else { continue }
                    say("retention: \(f.path): cannot delete: \(e)")
                    failed = true
                }
                if failed { out.problems += 1; continue }
                state.forget(t)
                // What a delivery sent of it stays named: a zone changed later takes it down.
                delivered.retire(t)
                changed = true
                say(
                    "retention: deleted trip \(t.id) (\(names); \(size) bytes)"
                        + (step.verdict == .exported ? "" : " [--force: it \(step.verdict.keptBecause)]")
                        + ": \(reason)")
            }
            out.deletedTrips += 1
            out.deletedBytes += size
        }
        if changed {
            do {
                try syncDirectory(dir)
                try state.save()
                if !delivered.entries.isEmpty || pathExists(delivered.path) { try delivered.save() }
            } catch let e as Failure {
                say("retention: \(e.message)")
                out.problems += 1
            } catch {
                say("retention: \(error)")
                out.problems += 1
            }
        }
        return out
    }

    /// Parses `--keep-days` and `--max-mb` (nil when absent). `invalid` builds the error.
    static func from(keepDays: String?, maxMb: String?, invalid: (String, String) -> Error) throws -> Retention {
        var r = Retention()
        if let k = keepDays {
            guard let d = StrictNumber.decimal(k), d > 0, d.isFinite else {
                throw invalid("--keep-days", "The value '\(k)' is invalid for '--keep-days <days>': use a number of days above 0")
            }
            r.keepDays = d
        }
        if let m = maxMb {
            guard let v = StrictNumber.decimal(m), v > 0, v < 1e9 else {
                throw invalid("--max-mb", "The value '\(m)' is invalid for '--max-mb <mb>': use a number of megabytes above 0")
            }
            r.maxBytes = Int(v * 1_000_000)
        }
        return r
    }
}

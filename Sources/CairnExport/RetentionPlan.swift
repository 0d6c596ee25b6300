/// Retention as a plan: from the trips of a log directory (oldest first), what is known of their
/// export, the clock and the limits, which trips to delete and why, and which to keep and why.
/// No I/O: `cairn prune` and `record --keep-days/--max-mb` do the deleting.
public enum RetentionPlan {
    /// What the export state says of a trip, checked against its files now.
    public enum ExportVerdict: Equatable, Sendable {
        /// Every file matches the size and CRC-32C recorded when its copy was verified.
        case exported
        case neverExported
        /// Exported, but a file changed or was added since (a trip resumed in a new part).
        case changedSinceExport
        /// Marked by a cairn before 0.4, which kept no size or checksum: cannot be verified.
        case unverifiable
        /// Exported with `--logs no`: the stick holds conversions only, no copy of the log.
        case logsLeftOff
        /// Delivered, but the remote does not hold its logs whole now (missing, cut, changed).
        case copyNotWhole
        /// Delivered, but its remote could not be reached to find its logs whole in this run.
        case copyUnchecked
        /// Exported, but no destination holds its log copies whole in this run (the stick not
        /// mounted, emptied, or its copies changed): a receipt alone is no copy found.
        case exportCopyNotFound
        /// Copied only to a folder on the log directory's own card (a stick's mount point
        /// while the stick was not mounted): no copy off the board.
        case copyOnThisCard
        /// Delivered cut by other privacy zones than today's (or none): that cut stays published
        /// until a delivery cuts the trip again, which needs its log.
        case cutOwed
        /// Delivered whole, but the remote's page does not show it yet (the remote filled up
        /// after its files, before the page; the page failed): its entry and picture are made
        /// from its log, by the next delivery.
        case pageOwed
        /// Delivered whole, but the remote's page (its `index.tsv`, read in this run) has no
        /// row of it: deleted or edited there. The row is made from its log, by the next
        /// delivery; with the log gone it could never be (attack-r24 c05).
        case pageRowMissing
        /// Delivered with its raw logs and privacy zones, but the board's key (which the logs
        /// there are cut with again) was not found whole beside them in this run: renamed or
        /// deleted there (attack-r24 c03b/c19). The next delivery sends it again.
        case keyNotFound

        /// Why the trip is kept, for the message.
        public var keptBecause: String {
            switch self {
            case .exported: return "exported"
            case .neverExported: return "was never exported"
            case .changedSinceExport:
                return "changed since it was exported (a new part, or a file that is not the one copied)"
            case .unverifiable: return "was exported by an earlier cairn that kept no checksum, so the copy cannot be verified"
            case .logsLeftOff: return "was exported without its log files (--logs no), so no copy of the log is safe"
            case .copyNotWhole:
                return "was delivered, but its log copies were not found whole on the remote in this run"
                    + " (missing, cut or changed there; the next 'cairn deliver' sends them again)"
            case .copyUnchecked:
                return "was delivered, but its log copies could not be checked on the remote in this run (not reached);"
                    + " nothing is deleted on the strength of a copy not found whole"
            case .cutOwed:
                return "was delivered cut by other privacy zones than today's; the next 'cairn deliver' cuts it again and takes the old cut down"
            case .pageOwed:
                return "was delivered, but the remote's page does not show it yet (the remote was full, or the page failed);"
                    + " the next 'cairn deliver' puts it there, from its log"
            case .pageRowMissing:
                return "was delivered, but the remote's page (its index.tsv, read in this run) has no row of it (deleted or edited there,"
                    + " or not read); the next 'cairn deliver' puts the row back, from its log"
            case .keyNotFound:
                return "was delivered with its logs and privacy zones, but the board's privacy key (logs/privacy-key) was not found whole"
                    + " beside them on the remote in this run (renamed or deleted there); the next 'cairn deliver' sends it again"
            case .exportCopyNotFound:
                return "was exported, but its log copies were not found whole where they went in this run (the stick not mounted,"
                    + " emptied, or the copies changed); nothing is deleted on the strength of a copy not found whole"
            case .copyOnThisCard:
                return "has its only copies on the log directory's own card (a stick that was not mounted? another partition?), no copy off the board"
            }
        }
    }

    /// A delivered trip's verdict: `copies`, what its copies were found as in this run (or an
    /// export's, when that decides), unless the page is owed (`pageOwed`: the last delivery left
    /// the remote's page without the trips it receipted, the page on): a trip is delivered whole
    /// only with its page entry and picture there, which are made from its log.
    /// `pageRowMissing`: the remote's page, read in this run, has no row of it (or could not be
    /// read).
    /// `keyNotFound`: its logs went with privacy zones and the board's key was not found whole
    /// beside them in this run.
    public static func delivered(_ copies: ExportVerdict, pageOwed: Bool, pageRowMissing: Bool = false, keyNotFound: Bool = false) -> ExportVerdict {
        guard copies == .exported else { return copies }
        if keyNotFound { return .keyNotFound }
        return pageOwed ? .pageOwed : pageRowMissing ? .pageRowMissing : .exported
    }

    /// Where the board's key went up whole to the board folder `folder`, from the delivery
    /// status's `key_sent` ("MD5 FOLDER" for `logs/privacy-key`, "MD5 FOLDER/logs/privacy-key-…"
    /// under its own name): its MD5 and its path under the folder; nil when it never went up
    /// whole there (or the value does not read).
    public static func keySent(_ value: String, folder: String) -> (md5: String, relative: String)? {
        guard let space = value.firstIndex(of: " ") else { return nil }
        let md5 = String(value[..<space]), at = String(value[value.index(after: space)...])
        guard md5.utf8.count == 32, md5.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        if at == folder { return (md5, "logs/privacy-key") }
        guard at.hasPrefix(folder) else { return nil }
        var rest = at.dropFirst(folder.count)
        if !(folder.hasSuffix("/") || folder.hasSuffix(":")) {
            guard rest.first == "/" else { return nil }
            rest = rest.dropFirst()
        }
        guard rest.hasPrefix("logs/privacy-key-"), !rest.dropFirst(5).contains("/") else { return nil }
        return (md5, String(rest))
    }

    /// Whether the remote's page lacks the row of a trip whose delivery there sent `expected`
    /// (its conversions' paths under the board folder): no row there names one of them.
    /// `rowFiles`: the files each row of the page's index names, nil when it could not be read
    /// in this run (then the row is not found either). A trip that sent nothing has no row to
    /// look for.
    public static func pageLacksRow(expected: [String], rowFiles: [[String]]?) -> Bool {
        guard !expected.isEmpty else { return false }
        guard let rowFiles else { return true }
        let want = Set(expected)
        return !rowFiles.contains { !want.isDisjoint(with: $0) }
    }

    public struct Trip: Equatable, Sendable {
        public var id: UInt64
        public var bytes: Int
        /// The last point's time (ms since the epoch), or the first when there is no last.
        public var endMs: Int64?
        /// Still being recorded, or not known to be finished (`TripFinish`): never touched.
        public var open: Bool
        /// One of its files is the directory's newest, whose number names the next file: never
        /// deleted, so the numbering goes on.
        public var holdsNewestFile: Bool

        public init(id: UInt64, bytes: Int, endMs: Int64?, open: Bool = false, holdsNewestFile: Bool = false) {
            self.id = id
            self.bytes = bytes
            self.endMs = endMs
            self.open = open
            self.holdsNewestFile = holdsNewestFile
        }

        /// Whether retention may delete it at all, whatever the limits.
        public var deletable: Bool { !open && !holdsNewestFile }
    }

    public struct Limits: Equatable, Sendable {
        public var keepDays: Double?
        public var maxBytes: Int?
        /// Also delete trips that are not exported.
        public var force = false

        public init(keepDays: Double? = nil, maxBytes: Int? = nil, force: Bool = false) {
            self.keepDays = keepDays
            self.maxBytes = maxBytes
            self.force = force
        }
    }

    public enum Reason: Equatable, Sendable {
        case age(endMs: Int64, days: Double)
        case size(totalBytes: Int, limit: Int)
    }

    public struct Step: Equatable, Sendable {
        /// Index into the trips given.
        public var trip: Int
        public var reason: Reason
        /// Nil: delete. Otherwise the trip is over a limit but kept, and why.
        public var kept: ExportVerdict?
        /// The verdict on a trip deleted (`.exported`, or another with `force`).
        public var verdict: ExportVerdict
    }

    public struct Result: Equatable, Sendable {
        public var steps: [Step] = []
        /// Set when `--keep-days` was not applied because the clock reads earlier than the newest
        /// trip's end (a board without a real-time clock at 1970, a clock set back): ms of both.
        public var clockBehind: (nowMs: Int64, newestEndMs: Int64)?

        public static func == (a: Result, b: Result) -> Bool {
            a.steps == b.steps && a.clockBehind?.nowMs == b.clockBehind?.nowMs && a.clockBehind?.newestEndMs == b.clockBehind?.newestEndMs
        }
    }

    /// How far the clock may read behind the newest trip's end and still count ages: a clock a
    /// few seconds or minutes behind GPS time (no time sync yet) is not wrong enough to stop
    /// retention, and reading behind only makes trips younger.
    public static let clockSlackMs: Int64 = 86_400_000

    /// `trips` oldest first, `totalBytes` the log files' total (more than the trips' sum when other
    /// files count), `nowMs` the wall clock. Ages count only when the clock is not behind the newest
    /// trip's end (by more than `clockSlackMs`): a clock that reads earlier than a recorded ride is
    /// wrong, or the ride's time is, and neither may make a trip old. `verdict` is asked only for trips over a limit (checking a
    /// trip reads its files).
    public static func plan(
        trips: [Trip], totalBytes: Int, nowMs: Int64, limits: Limits, verdict: (Int) -> ExportVerdict
    ) -> Result {
        var out = Result()
        var total = totalBytes
        var ageUsable = limits.keepDays != nil
        if ageUsable, let newest = trips.compactMap(\.endMs).max(), nowMs < newest &- clockSlackMs {
            ageUsable = false
            out.clockBehind = (nowMs, newest)
        }
        for (i, t) in trips.enumerated() where t.deletable {
            var reason: Reason?
            if ageUsable, let days = limits.keepDays, let end = t.endMs, end <= nowMs,
                Double(nowMs - end) > days * 86_400_000
            {
                reason = .age(endMs: end, days: days)
            } else if let limit = limits.maxBytes, total > limit {
                reason = .size(totalBytes: total, limit: limit)
            }
            guard let r = reason else { continue }
            let v = verdict(i)
            if v != .exported && !limits.force {
                out.steps.append(Step(trip: i, reason: r, kept: v, verdict: v))
                continue
            }
            out.steps.append(Step(trip: i, reason: r, kept: nil, verdict: v))
            total -= t.bytes
        }
        return out
    }
}

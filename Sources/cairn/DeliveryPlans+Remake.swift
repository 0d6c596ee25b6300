import CairnExport

/// What a run does for a trip pruned on the board whose remote files are damaged (issue 38,
/// deliv-38f): its conversions and page row are made again from its remote log when that log
/// is there whole; otherwise the damage is only said (`damagedGone`). Nothing is deleted for it.
extension DeliveryPlans {
    /// What the receipts say went up of one pruned trip, at this board's folder.
    struct GoneTripCopies: Equatable {
        /// Its conversions (and picture): relative path -> the MD5 it read back with (nil for a
        /// receipt of before MD5s were kept).
        var sent: [String: String?] = [:]
        /// Its log copies: relative path -> size delivered and the MD5 it read back with. Empty
        /// when its logs stayed on the board (`logs = no`, or privacy zones without logs).
        var logs: [String: (size: Int, md5: String?)] = [:]
        /// Its picture on the page (relative path -> the MD5 it read back with), where the run
        /// keeps the page: drawn from its log, so made again like a conversion (deliv-38g).
        var pictures: [String: String] = [:]

        static func == (a: Self, b: Self) -> Bool {
            a.sent == b.sent && a.pictures == b.pictures
                && a.logs.mapValues { "\($0.size) \($0.md5 ?? "")" } == b.logs.mapValues { "\($0.size) \($0.md5 ?? "")" }
        }
    }

    enum GoneOutcome: Equatable {
        /// Nothing of it is damaged, or nothing it lacks can be made here.
        case none
        /// Damaged, and nothing can be made again: why (said beside `damagedGone`'s lines).
        case say(String)
        /// Its remote logs are listed whole: read them back, and make these conversions (and its
        /// page row) again from them.
        case remake([String])
    }

    /// `listed`: the run's listing. `rowOwed`: the page on the remote is not as this board last
    /// made it (an edited or lost row), so its row is made again from its log too. A conversion
    /// at other bytes (where both MD5s are known) or not listed at all is damaged; the trip's
    /// logs must be listed at their delivered sizes (and MD5s, where both are known) before they
    /// are read, and are checked against their receipts' sizes and CRC-32Cs after.
    /// `readWrong`: copies (conversions, logs) read back with other bytes (a backend that lists
    /// no hashes, WebDAV: `DeliveryRun.goneUnhashed`): a log among them is not whole.
    static func goneOutcome(
        _ c: GoneTripCopies, listed: [String: RemoteCopies.FileCheck], rowOwed: Bool, readWrong: Set<String> = []
    ) -> GoneOutcome {
        let conversions = c.sent.keys.sorted().filter { p in
            guard let l = listed[p] else { return true }
            if readWrong.contains(p) { return true }
            guard let was = c.sent[p] ?? nil, let now = l.md5 else { return false }
            return now != was
        }
        let pictures = c.pictures.keys.sorted().filter { p in
            guard let l = listed[p] else { return true }
            return readWrong.contains(p) || (l.md5 != nil && l.md5 != c.pictures[p])
        }
        let damaged = conversions + pictures
        if damaged.isEmpty && !rowOwed { return .none }
        if c.logs.isEmpty {
            // A row alone comes back from the board's kept copy of the page (`keptRows`).
            return damaged.isEmpty ? .none : .say("its log stayed on the board (not delivered), so nothing of it can be made again")
        }
        let whole = c.logs.allSatisfy { p, d in
            guard let l = listed[p], l.size == d.size, !readWrong.contains(p) else { return false }
            guard let was = d.md5, let now = l.md5 else { return true }
            return now == was
        }
        if !whole { return .say("its log there is not whole, so nothing of it can be made again") }
        return .remake(damaged)
    }
}

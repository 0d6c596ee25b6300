import CairnSystem

/// The copies of trips pruned on the board, checked by the run's listing (`DeliveryPlans.damagedGone`).
extension DeliveryRun {
    /// What the receipts of trips gone from the board name at this board's folder: relative
    /// path -> the MD5 each read back with (nil for a receipt of before they were kept), its
    /// size for a log copy, and the trip's first log's name and id.
    func goneCopies(_ receipts: ExportState) -> [String: (md5: String?, logSize: Int?, file: String, trip: UInt64)] {
        var out: [String: (md5: String?, logSize: Int?, file: String, trip: UInt64)] = [:]
        for g in receipts.gone() {
            for e in g.receipts where ExportState.folder(ofDestination: e.destination) == base {
                if e.logs {
                    for c in e.files ?? [] {
                        let p = TripShipment.logPath(c, salted: e.salted)
                        if out[p] == nil { out[p] = (e.md5[p], c.digest.size, g.file, g.trip) }
                    }
                }
                for (p, m) in e.md5 where out[p] == nil { out[p] = (m, nil, g.file, g.trip) }
            }
        }
        return out
    }

    /// Says each copy of a pruned trip the listing shows damaged (another MD5 than it read back
    /// with; a log at another size or gone); returns their paths for the status. Nothing of it
    /// is on the board to send again, and nothing more is deleted for it; `remaking`: what this
    /// run makes again from a remote log (`remakeGone`), returned but not said here.
    /// `readWrong`: copies listed without a hash that a read-back found damaged (`survey`).
    func damagedGoneCopies(
        _ receipts: ExportState, _ listing: Listing, stop: Stop?, remaking: Set<String> = [], readWrong: Set<String> = []
    ) -> [String] {
        guard stop == nil else { return [] }
        let gone = goneCopies(receipts)
        let damaged = DeliveryPlans.damagedGone(
            gone.compactMapValues(\.md5), logs: gone.compactMapValues(\.logSize), listed: listing.files, readWrong: readWrong)
        for p in damaged where !remaking.contains(p) {
            guard let g = gone[p] else { continue }
            let name = DeliverCommand.join(base, terminalSafe(p))
            let trip = "its trip \(g.trip) (\(g.file)) is no longer on the board"
            if let size = g.logSize, listing.files[p]?.size != size {
                let how =
                    listing.files[p].map { "damaged there (\($0.size) bytes, not the \(size) delivered)" }
                    ?? "missing there (deleted since its delivery)"
                printErr("cairn: \(name): \(how); \(trip): this log was its only known copy, and cannot be sent again")
            } else if g.logSize != nil {
                printErr(
                    "cairn: \(name): damaged there (other bytes than it went up with, at its size); \(trip): this log was its only known copy, and cannot be sent again"
                )
            } else {
                printErr("cairn: \(name): damaged there (other bytes than it went up with); \(trip), so it cannot be sent again")
            }
        }
        return damaged
    }
}

import CairnSystem

/// The copies of trips pruned on the board, checked by the run's listing (`DeliveryPlans.damagedGone`).
extension DeliveryRun {
    /// What the receipts of trips gone from the board name at this board's folder, with the MD5
    /// each read back with: relative path -> (MD5, the trip's first log's name and id).
    func goneCopies(_ receipts: ExportState) -> [String: (md5: String, file: String, trip: UInt64)] {
        var out: [String: (md5: String, file: String, trip: UInt64)] = [:]
        for g in receipts.gone() {
            for e in g.receipts where ExportState.folder(ofDestination: e.destination) == base {
                for (p, m) in e.md5 where out[p] == nil { out[p] = (m, g.file, g.trip) }
            }
        }
        return out
    }

    /// Says each copy of a pruned trip the listing shows damaged (another MD5 than it read back
    /// with); returns their paths for the status. Nothing of it is on the board to send again.
    func damagedGoneCopies(_ receipts: ExportState, _ listing: Listing, stop: Stop?) -> [String] {
        guard stop == nil else { return [] }
        let gone = goneCopies(receipts)
        let damaged = DeliveryPlans.damagedGone(gone.mapValues(\.md5), listed: listing.files)
        for p in damaged {
            guard let g = gone[p] else { continue }
            printErr(
                "cairn: \(DeliverCommand.join(base, terminalSafe(p))): damaged there (other bytes than it went up with); its trip \(g.trip)"
                    + " (\(g.file)) is no longer on the board, so it cannot be sent again")
        }
        return damaged
    }
}

import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// What the remote's page owes before anything is sent: made again when changed there, its
/// pictures drawn again when gone, what an outdated cut published taken down; and the trip as
/// the page shows it.
extension DeliveryRun {
    /// Whether the page must be made again: the page as this log directory last sent it, changed
    /// there since (damaged, or another card's page).
    /// `readWrong`: the page's files read back with other bytes (no hashes listed: `pageUnhashed`).
    func pageChangedThere(_ previous: DeliveryStatus?, _ listing: Listing, stop: Stop?, readWrong: Set<String> = []) -> Bool {
        // Made again with the run, its entries of this board's trips made anew.
        var pageRedo = false
        if page && stop == nil, let p = previous, p.pageFolder == base {
            let changed = DeliveryPlans.pageChanged(sent: p.pageSent, listed: listing.files, readWrong: readWrong)
            if !changed.isEmpty {
                pageRedo = true
                printErr(
                    "cairn: \(base): \(changed.joined(separator: ", ")) not as this board last sent it (damaged there, or another card's page since): made again"
                )
            }
        }
        return pageRedo
    }

    func picturesToRedraw(_ found: Survey, stop: Stop?) -> Set<String> {
        // Pictures of this card's delivered trips gone from the remote since (attack-r22 c22):
        // the page is made again with those trips' entries, their pictures drawn anew. A trip
        // without positions (a trainer) has none.
        var redraw: Set<String> = []
        if page && stop == nil {
            for f in found.finished where !f.summary.hasNoPositions {
                let sent = found.receipts.sent(f.trip, destination: receiptDestination).map(\.path)
                let md5 = found.receipts.md5s(f.trip, destination: receiptDestination)
                let gone = DeliveryPlans.picturesGone(sent: [sent], md5: [md5], listed: found.listing.files)
                if gone.isEmpty || exportsHoldNoPosition(f, found.receipts) { continue }
                redraw.formUnion(gone)
            }
            if let first = redraw.min() {
                printErr(
                    "cairn: \(base): \(first)\(redraw.count > 1 ? " and \(redraw.count - 1) more" : ""): missing or damaged there; drawn again")
            }
        }
        return redraw
    }

    /// Whether what the exports of a trip hold has no position, though its log has points (the
    /// long press on the trainer before its first fix ends them there): no picture is drawn of
    /// it, so none is missing (attack-r23-home). Read only for a trip whose picture looks gone.
    func exportsHoldNoPosition(_ f: (trip: TripRef, summary: TripSummary, openBecause: String?), _ receipts: ExportState) -> Bool {
        let salted = receipts.salted(f.trip, destination: receiptDestination)
        guard let s = try? TripShipment(f.trip, f.summary, zones: stageOptions.zones, board: stageOptions.board, salted: salted) else {
            return false
        }
        return s.summary.hasNoPositions
    }

    /// The trip as the page shows it, its zones cut: nil for one with no point to show.
    func pageTrip(_ t: TripRef, _ whole: TripSummary, salted: Bool) throws -> PageTrip? {
        if whole.records == 0 { return nil }
        let shipment = try TripShipment(t, whole, zones: stageOptions.zones, board: stageOptions.board, salted: salted)
        if shipment.hidesAll { return nil }
        return shipment.pageTrip(formats: shipment.holding(formats), logs: copyLogs) { _ in true }
    }

    /// The delivered trips deleted from the board since (`ExportState.gone`) whose conversions at
    /// this board's folder were cut for other privacy zones than today's (or for none): with
    /// their logs gone they cannot be cut again, and what shows the place must come down.
    func outdatedCuts(_ receipts: ExportState) -> [ExportState.GoneTrip] {
        guard !stageOptions.zones.isEmpty else { return [] }
        let today = " zones-" + stageOptions.zones.fingerprint
        return receipts.gone().compactMap { g in
            var g = g
            g.receipts = g.receipts.filter { ExportState.folder(ofDestination: $0.destination) == base }
            // Cut for today's zones already (its earlier cuts taken down then), or nothing sent.
            if g.receipts.contains(where: { $0.destination.hasSuffix(today) }) { return nil }
            return g.receipts.contains { !$0.sent.isEmpty } ? g : nil
        }
    }
}

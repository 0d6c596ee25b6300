import CairnSystem
import CairnLog
import CairnExport

/// A trip's shipment into the outbox a delivery's batch goes up from (`cairn deliver`), laid out
/// as under the board's folder: its logs linked (unless the remote holds them already), its
/// conversions made, each staged with its MD5 for the read-back. A trip that cannot go throws
/// (`Failure`, `DeliveryRun.Undeliverable`); what was staged is kept here for the trip's
/// `Waiting`.
struct OutboxDestination: ShipmentDestination {
    let run: DeliveryRun
    let trip: TripRef
    let receipts: ExportState
    let listing: DeliveryRun.Listing

    var staged: [DeliveryPlans.Staged] = []
    /// Its logs the listing did not show at the remote: they never replace a file there.
    var fresh: Set<String> = []
    var conversions: [ExportState.SentFile] = []
    /// Its page key, when every point is inside a zone (off the page).
    var hidden: String?

    let shipsUncut = false
    /// Every conversion is staged; the read-back of the batch drops those the remote holds.
    let verified = false
    func holds(_ relative: String) -> Bool { true }

    init(run: DeliveryRun, trip: TripRef, receipts: ExportState, listing: DeliveryRun.Listing) {
        self.run = run
        self.trip = trip
        self.receipts = receipts
        self.listing = listing
    }

    mutating func putLog(_ file: LogFileRef, _ copy: ExportState.CopiedFile, at relative: String) throws -> Bool {
        try run.refuseFolder(relative, listing)
        // One there at this size is read back with the batch (`copiesThere`).
        if let l = listing.files[relative], l.size != copy.digest.size, let there = try run.remoteFile(DeliverCommand.join(run.base, relative)) {
            let delivered = receipts.recorded(trip).contains { $0.contains(copy) }
            if try !run.replaces(there, with: file.path, copy, at: relative, delivered: delivered) { return false }
        }
        if listing.files[relative] == nil { fresh.insert(relative) }
        let path = try run.outboxPath(relative)
        do throws(Errno) { try POSIX.link(file.path, path) } catch { _ = try copyFileAtomically(file.path, path) }
        let s = try run.staged(relative, at: path)
        // The link is the log: bytes other than those counted are a log that changed.
        guard s.size == copy.digest.size else { throw Failure("\(file.path): changed while it was read; sent next time") }
        staged.append(s)
        return true
    }

    /// Not a failure (every later run would fail on it, the LED saying so for good): its logs
    /// go when they are asked for, with no conversion and no page entry; without them nothing
    /// goes, it is never receipted and stays on the board, waiting.
    func undatable(_ whole: TripSummary) throws -> Bool {
        guard run.copyLogs else { throw DeliveryRun.Undeliverable(message: whole.undatableText + " (`logs = yes` delivers its log)") }
        printErr("cairn: trip \(trip.id): " + whole.undatableText + " (its log is delivered)")
        return false
    }

    /// Off the page, with what an earlier delivery (before the zone) sent of it.
    mutating func hidesAll(_ shipment: TripShipment, formats: [ExportFormat]) -> Bool {
        printErr("cairn: trip \(trip.id): every point is inside a privacy zone; no conversion sent")
        hidden = shipment.key
        return false
    }

    func cannotHold(_ format: ExportFormat) {}

    mutating func putConversion(_ shipment: TripShipment, _ format: ExportFormat, at relative: String) throws -> Bool {
        try run.refuseFolder(relative, listing)
        let local = try run.outboxPath(relative)
        if let err = shipment.write(format, to: local, laps: run.stageOptions.laps) { throw Failure("\(format.name) not made: \(err)") }
        let file = try run.staged(relative, at: local)
        staged.append(file)
        conversions.append(ExportState.SentFile(path: relative, size: file.size))
        return true
    }

    /// Not delivered, so retention never takes it for one that was.
    func holdsNothing(beforeEndPress: Bool) throws {
        if beforeEndPress {
            throw Failure(
                "no positions before the rider's end press (on the trainer): GPX, GeoJSON and KML cannot hold it and its logs do not go; "
                    + "deliver fit or csv, or its logs")
        }
        throw Failure(
            "no positions (a trainer ride): GPX, GeoJSON and KML cannot hold it and its logs do not go; deliver fit or csv, or its logs")
    }
}

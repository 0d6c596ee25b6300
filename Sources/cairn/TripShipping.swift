import CairnCore
import CairnLog
import CairnExport

/// Where a trip's shipment is written: a folder on this machine (`cairn export`,
/// `FolderDestination`) or the outbox a remote's batch goes up from (`cairn deliver`,
/// `OutboxDestination`). `TripShipping.ship` decides what goes under which name; a destination
/// writes it, checks it there and says what befell it in its command's words.
protocol ShipmentDestination {
    /// Puts the copy of log `file` (its bytes `copy`) at `relative`; true when it wrote one.
    /// Throws to end the trip's shipment.
    mutating func putLog(_ file: LogFileRef, _ copy: ExportState.CopiedFile, at relative: String) throws -> Bool
    /// A trip no conversion can date (`TripSummary.undatable`): true when its shipment goes on
    /// without conversions (its page entry links its logs), false when it ends with its logs.
    mutating func undatable(_ whole: TripSummary) throws -> Bool
    /// Whether a trip that nothing cuts (`ShippingPlan.cuts` false: no point, or no conversion
    /// and no page) still takes a shipment (a page entry linking its logs).
    var shipsUncut: Bool { get }
    /// Every point is inside a zone: no conversion in `formats`. True when the shipment goes on
    /// (a page entry without figures), false when it ends here.
    mutating func hidesAll(_ shipment: TripShipment, formats: [ExportFormat]) throws -> Bool
    /// `format` cannot hold a trip without positions: none written.
    mutating func cannotHold(_ format: ExportFormat)
    /// The trip, as it is now, was verified here before: its conversions there stay.
    var verified: Bool { get }
    /// Whether the destination holds `relative` (a conversion verified there, a page link).
    func holds(_ relative: String) -> Bool
    /// Writes the shipment's conversion in `format` at `relative`; true when written.
    mutating func putConversion(_ shipment: TripShipment, _ format: ExportFormat, at relative: String) throws -> Bool
    /// A trip without positions (`beforeEndPress`: none before the rider's end press, though its
    /// log has some) that no format asked for holds, its logs not going: nothing of it arrives.
    mutating func holdsNothing(beforeEndPress: Bool) throws
}

/// A trip's shipment, written once for export and delivery: its log copies (under
/// `TripShipment.logPath`), its conversions through one zone window (`TripShipment`), what is
/// said of a trip no format holds, and its page entry. The choices are `ShippingPlan`'s; the
/// writing and checking is the destination's.
enum TripShipping {
    /// What a run ships of each trip.
    struct Order {
        /// Whether the trip's logs go (`ShippingPlan.logsGo`).
        var logs: Bool
        /// Whether they are placed by this shipment (a trip made again from its remote log: no).
        var placeLogs: Bool
        var formats: [ExportFormat]
        /// Whether the destination keeps a page (the trip is cut for its picture too).
        var page: Bool
        var options: ExportStageOptions
        /// In front of each conversion's name (`--name-prefix`).
        var prefix = ""
    }

    /// What a shipment wrote: whether anything, the trip cut (nil when it ended before), and
    /// its page entry (nil when it ended before).
    struct Shipped {
        var wroteAny = false
        var shipment: TripShipment?
        var page: PageTrip?
    }

    /// Ships trip `t` (its summary `whole`, its files now `now`, its names salted or not) to `d`.
    /// Throws what the destination throws, and a cut that fails (never a conversion without it).
    static func ship<D: ShipmentDestination>(
        _ t: TripRef, _ whole: TripSummary, now: [ExportState.CopiedFile], salted: Bool, order: Order, to d: inout D
    ) throws -> Shipped {
        var shipped = Shipped()
        if order.placeLogs {
            for (f, c) in zip(t.files, now) where try d.putLog(f, c, at: TripShipment.logPath(c, salted: salted)) { shipped.wroteAny = true }
        }
        if whole.undatable, try !d.undatable(whole) { return shipped }
        let cut = ShippingPlan.cuts(points: whole.records, formats: order.formats.count, page: order.page)
        if !cut && !d.shipsUncut {
            if holdsNothing(whole, order) { try d.holdsNothing(beforeEndPress: false) }
            return shipped
        }
        let shipment = try TripShipment(
            t, whole, zones: cut ? order.options.zones : PrivacyZones(), board: order.options.board, prefix: order.prefix, salted: salted)
        if shipment.hidesAll && !whole.undatable, try !d.hidesAll(shipment, formats: order.formats) { return shipped }
        shipped.shipment = shipment
        // A trainer's trip (no positions in what the exports hold) goes as FIT and CSV; GPX,
        // GeoJSON and KML cannot hold it.
        for format in order.formats where !whole.undatable {
            if shipment.summary.hasNoPositions && !format.holdsNoPositions {
                d.cannotHold(format)
                continue
            }
            let rel = shipment.path(format)
            switch ShippingPlan.conversion(
                points: whole.records, hidesAll: shipment.hidesAll, verified: d.verified, present: d.verified && d.holds(rel))
            {
            case .none, .there, .hidden: continue
            case .write: if try d.putConversion(shipment, format, at: rel) { shipped.wroteAny = true }
            }
        }
        if holdsNothing(shipment.summary, order) { try d.holdsNothing(beforeEndPress: !whole.hasNoPositions) }
        shipped.page = shipment.pageTrip(formats: shipment.holding(order.formats), logs: order.logs, present: d.holds)
        return shipped
    }

    /// A trip without positions in `s` that no format of the order holds, its logs not going.
    static func holdsNothing(_ s: TripSummary, _ order: Order) -> Bool {
        s.hasNoPositions && !order.logs && !order.formats.contains(where: \.holdsNoPositions)
    }
}

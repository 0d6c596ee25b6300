import CairnLog

/// The choices a trip's shipment makes the same way to a stick (`cairn export`) and to a remote
/// (`cairn deliver`): whether the raw logs go, whether the board's key goes with them, whether
/// the trip is cut through the zones, and what becomes of each conversion. Pure: table tests in
/// ShippingPlanTests; `TripShipping` runs them for each trip, `ExportRun` and `DeliveryRun` around it.
enum ShippingPlan {
    /// Where a shipment goes.
    enum Destination {
        /// A folder on this machine: a mounted card or stick (`cairn export`).
        case folder
        /// An rclone remote (`cairn deliver`).
        case remote
    }

    /// Whether the raw logs go: as asked (`--logs`), else only without privacy zones (they hold
    /// every point, home too). To a folder, conversions none (`--format none`) ask for the logs
    /// alone, zones or not; to a remote they do not: a config's `format = none` is no consent to
    /// send home's points off the board.
    static func logsGo(asked: Bool?, zones: Bool, formats: Int, to destination: Destination) -> Bool {
        if let asked { return asked }
        switch destination {
        case .folder: return !zones || formats == 0
        case .remote: return !zones
        }
    }

    /// Whether the board's privacy key goes: beside the logs, never without them (they hold every
    /// point anyway), so that a laptop's `convert` of the copies cuts the zones as the board
    /// does; a second key would give home away where two cuts' rings cross.
    static func keyGoes(logs: Bool, key: Bool) -> Bool { logs && key }

    /// Whether the trip is cut through the zones: when it has a point and something shows it
    /// (a conversion, or the page's picture and figures).
    static func cuts(points: Int, formats: Int, page: Bool) -> Bool { points > 0 && (formats > 0 || page) }

    /// What a stick does with a finished trip.
    enum TripStep: Equatable {
        /// Still being recorded: said, and exported once it closes.
        case open(String)
        /// No point and no damaged byte (a header alone): nothing to lose; marked done so that
        /// retention may delete its file.
        case nothing
        /// No point but damaged records: bytes someone may recover; its logs go (with the logs).
        case logsOnly
        /// Its logs, conversions and page entry.
        case whole
    }

    static func trip(openBecause: String?, points: Int, damagedBytes: Int) -> TripStep {
        if let why = openBecause { return .open(why) }
        if points > 0 { return .whole }
        return damagedBytes == 0 ? .nothing : .logsOnly
    }

    /// What becomes of one conversion of a trip.
    enum ConversionStep: Equatable {
        /// A trip without a point has none.
        case none
        /// Every point is inside a zone: none, and said.
        case hidden
        /// Verified at the destination before, and there still: kept.
        case there
        case write
    }

    /// `verified`: the trip, as it is now, was verified at the destination (a trip resumed since
    /// has more points than its earlier conversion); `present`: its file is there.
    static func conversion(points: Int, hidesAll: Bool, verified: Bool, present: Bool) -> ConversionStep {
        if points == 0 { return .none }
        if hidesAll { return .hidden }
        return verified && present ? .there : .write
    }

    /// Whether a stick's page takes the trip's entry (again): when something of it was written,
    /// or when the entry there is not its current one; never an entry that links nothing.
    static func pageEntry(wroteAny: Bool, current: Bool, links: Int) -> Bool { (wroteAny || !current) && links > 0 }

    /// Whether a trip goes to a stick at all, by what the stick holds at its logs' names
    /// (`existing`, one per log file, looked at before anything of the trip is written): one
    /// that is another log (another card's under the same number, attack-r24 c14c) refuses the
    /// whole trip, its conversions and page row too (written without their logs they were a
    /// half export, and a row under the same key took the other card's place); the first such
    /// name and why is returned. Checked whether or not the logs are copied.
    static func refusesTrip(_ existing: [(name: String, copy: ExistingCopy)]) -> (name: String, why: String)? {
        for e in existing { if case .other(let why) = e.copy { return (e.name, why) } }
        return nil
    }

    /// Whether a trip's copies on a stick carry its logs' salt in their names (as deliver's,
    /// `TripShipment.logName`): where it went before (`saltedBefore`, its receipt's; nil when
    /// none), as it went; else only when another card's log holds one of its plain names
    /// (`otherCard`), so that both cards' trips stand side by side and nothing of the other's
    /// is replaced (attack-r24: a second card's export to the first's stick was refused whole).
    static func stickNames(saltedBefore: Bool?, otherCard: Bool) -> Bool { saltedBefore ?? otherCard }

    /// What a stick holds at a log copy's name already.
    enum ExistingCopy: Equatable {
        case none
        /// The same bytes.
        case same
        /// An earlier copy of this log, which has grown since (a byte prefix of it): replaced.
        case earlierCopy
        case other(String)
    }

    /// The decision on a stick's copy: `found` (a file at its name), `theirs` (its digest, nil
    /// when it cannot be read), `ours` (the log's), `prefix` (the log's first `theirs.size`
    /// bytes, read only when shorter). Only a byte prefix of the log is replaced: anything else
    /// may be another board's log, or the only whole copy of this one.
    static func existingCopy(found: Bool, theirs: FileDigest?, ours: FileDigest, prefix: FileDigest?) -> ExistingCopy {
        guard found else { return .none }
        guard let theirs else { return .other("cannot be read") }
        if theirs == ours { return .same }
        if theirs.size < ours.size, let prefix, prefix == theirs { return .earlierCopy }
        return .other("\(theirs.size) bytes, not a copy of this log's \(ours.size); a log from another board?")
    }
}

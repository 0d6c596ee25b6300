#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport

/// What a trip ships, to a stick (`cairn export`) or a remote (`cairn deliver`), cut once through
/// its privacy zones' window: its conversions (named by the first point they hold) and its page
/// entry. Both commands make a trip's shipment here; they differ only in where its files go and
/// how each is checked there.
struct TripShipment {
    let trip: TripRef
    /// The trip as its conversions hold it (the zones cut), and the cut.
    let summary: TripSummary
    let window: PrivacyWindow?
    /// The board id in its names (the log's, else the options').
    let board: String?
    /// In front of each conversion's name (`--name-prefix`).
    let prefix: String
    /// Whether its names carry its logs' salts (`TripShipment.salted`): false only for a trip
    /// that went to this destination before under the plain names.
    let salted: Bool

    /// Cuts `t` (its summary `whole`) through `zones` and at the rider's end press (the exports
    /// end there: `ExportStages`); without either it ships whole.
    init(_ t: TripRef, _ whole: TripSummary, zones: PrivacyZones, board fallback: String?, prefix: String = "", salted: Bool) throws {
        trip = t
        board = TripCatalog.board(of: t, fallback: fallback)
        self.prefix = prefix
        self.salted = salted
        let end = whole.endPressMs
        guard whole.stats.points > 0, !zones.isEmpty else {
            summary = end == nil ? whole : try ExportStages.summary(t, window: nil, endPressMs: end)
            window = nil
            return
        }
        let w = try ExportStages.window(t, zones: zones)
        window = w
        summary = w.hidesAll ? whole : try ExportStages.summary(t, window: w, endPressMs: end)
    }

    /// The layout of a shipment under its destination (a stick's folder, a board's folder on a
    /// remote): the logs in `logs/` beside the board's key, each conversion in its format's
    /// folder, the page's pictures in `pictures/` (`PageBuilder`).
    static let logsFolder = "logs"
    /// Where a log copy goes ("logs/00000001.cairn").
    static func logPath(_ name: String) -> String { logsFolder + "/" + name }

    /// The names of a trip's copies, for export and delivery alike. Each log directory (a card)
    /// counts its files from 00000001 and its trips from 1 again, so a log's name and the trip's
    /// number tell nothing apart between two cards of one board: every name a trip takes on a
    /// stick or a remote carries the random salt of its logs' headers instead (a log copy its
    /// own, "logs/00000001-4a875be0.cairn"; the conversions, picture and page entry its first
    /// log's, "gpx/20250601-080000-bike-trip1-4a875be0.gpx"). `salted` false: the plain names
    /// of cairn 0.3, which a trip that went there under them keeps (`ExportState.plainNames`).
    static func logName(_ name: String, salt: UInt32, salted: Bool) -> String {
        guard salted else { return name }
        let ext = ".cairn"
        let stem = name.hasSuffix(ext) ? String(name.dropLast(ext.utf8.count)) : name
        return stem + "-" + TripIndex.hex8(salt) + (name.hasSuffix(ext) ? ext : "")
    }
    /// Where the copy of the log `c` goes.
    static func logPath(_ c: ExportState.CopiedFile, salted: Bool) -> String { logPath(logName(c.name, salt: c.salt, salted: salted)) }
    /// Where the copy of the log file `f` goes.
    static func logPath(_ f: LogFileRef, salted: Bool) -> String { logPath(logName(baseName(f.path), salt: f.header.salt, salted: salted)) }
    /// What a conversion's and picture's name adds after the trip's number (`ExportFormat.fileName`).
    static func suffix(_ t: TripRef, salted: Bool) -> String {
        t.nameSuffix + (salted ? "-" + TripIndex.hex8(t.files[0].header.salt) : "")
    }
    /// A conversion's name ("20250601-080000-bike-trip1-4a875be0.gpx"; no start: "bike-trip1-….gpx").
    static func conversionName(
        _ format: ExportFormat, _ t: TripRef, startMs: Int64?, prefix: String = "", board: String?, salted: Bool
    ) -> String {
        format.fileName(tripId: t.id, startMs: startMs, suffix: suffix(t, salted: salted), prefix: prefix, board: board)
    }
    /// Where the board's privacy key goes: beside the logs (`ShippingPlan.keyGoes`).
    static let keyPath = logPath(ExportStageOptions.keyFileName)
    /// Where a key goes when another key holds `keyPath` (an earlier card's of the board: the
    /// recorder makes a key on each new card; another board's in a shared folder): a name of its
    /// own, from its MD5 (`logs/privacy-key-0123456789abcdef`), so a later key never replaces an
    /// earlier one and anything else under this name is this key damaged.
    static func keyPath(md5 hex: String) -> String { logPath(ExportStageOptions.keyFileName + "-" + String(hex.prefix(16))) }
    /// The folders a shipment writes in.
    static let folders = [logsFolder, PageBuilder.picturesFolder] + ExportFormat.allCases.map(\.name)
    static func isLog(_ relative: String) -> Bool { relative.hasPrefix(logsFolder + "/") }

    /// Where the trip's log copies go, in its files' order.
    var logPaths: [String] { trip.files.map { Self.logPath($0, salted: salted) } }

    /// Every point is inside a zone: no conversion, no page entry.
    var hidesAll: Bool { window?.hidesAll == true }

    /// The page's key of the trip: its id and first log's salt.
    var key: String { TripIndex.key(tripId: trip.id, suffix: trip.nameSuffix, board: board, salt: trip.files[0].header.salt) }

    /// A conversion's name, and its path under the destination ("gpx/NAME").
    func name(_ format: ExportFormat) -> String {
        Self.conversionName(format, trip, startMs: summary.stats.firstTimeMs, prefix: prefix, board: board, salted: salted)
    }
    func path(_ format: ExportFormat) -> String { format.name + "/" + name(format) }

    /// Writes the conversion in `format` to `target`; an error text or nil (`convert`).
    func write(_ format: ExportFormat, to target: String, laps: LapRule) -> String? {
        Self.convert(trip, summary, window: window, format: format, to: target, laps: laps, board: board)
    }

    /// The formats of `formats` that can hold what the exports of this trip hold: a trip without
    /// positions there (a trainer's, or one ended by the long press before its first fix) goes as
    /// FIT and CSV only; GPX, GeoJSON and KML are neither made nor linked.
    func holding(_ formats: [ExportFormat]) -> [ExportFormat] {
        summary.hasNoPositions ? formats.filter(\.holdsNoPositions) : formats
    }

    /// The trip on the page: its entry links the conversions in `formats` and, when they go, its
    /// log copies (`logPaths`) that are `present` there.
    func pageTrip(formats: [ExportFormat], logs: Bool, present: (String) -> Bool) -> PageTrip {
        let entry = Self.pageEntry(
            trip, summary, key: key, present: present, formats: formats, prefix: prefix, board: board, salted: salted, hidden: hidesAll,
            logs: logs ? logPaths : [],
            leftOut: window?.leftOut ?? 0)
        return PageTrip(entry: entry, trip: trip, window: window)
    }

    /// The page's entry for a trip: the figures of what the conversions hold (`s`), the files
    /// they and the log copies are in (relative to the destination; those `present` there).
    static func pageEntry(
        _ t: TripRef, _ s: TripSummary, key: String, present: (String) -> Bool, formats: [ExportFormat], prefix: String, board: String?,
        salted: Bool, hidden: Bool, logs: [String], leftOut: Int = 0
    ) -> TripIndex.Entry {
        let stem = conversionName(.csv, t, startMs: s.stats.firstTimeMs, prefix: prefix, board: board, salted: salted)
        var e = TripIndex.Entry(key: key, tripId: t.id, name: String(stem.dropLast(ExportFormat.csv.fileExtension.utf8.count + 1)))
        if !hidden && s.records > 0 {
            e.startMs = s.stats.firstTimeMs
            e.utcOffsetS = s.utcOffsetS
            e.distanceM = s.stats.distanceM
            e.movingS = Double(s.stats.movingTimeMs) / 1000
            e.ascentM = s.stats.ascentM
            e.points = s.stats.points
            e.elapsedS = Double(s.stats.elapsedMs) / 1000
            e.maxSpeedMps = s.stats.maxSpeedMps
            if s.stats.ascentM != nil { e.climbSource = s.stats.climbFromBarometer ? "barometer" : "gps" }
            e.leftOut = leftOut
            for f in formats {
                let rel = f.name + "/" + conversionName(f, t, startMs: s.stats.firstTimeMs, prefix: prefix, board: board, salted: salted)
                if present(rel) { e.files.append(rel) }
            }
        }
        e.activity = s.activity
        e.files += logs.filter(present)
        return e
    }

    /// Converts one trip into `target` through a temporary name, then reads it back; returns an
    /// error text or nil. `s` is the trip's summary over what the export holds (`window`).
    static func convert(
        _ t: TripRef, _ s: TripSummary, window: PrivacyWindow?, format: ExportFormat, to target: String, laps lapRule: LapRule,
        board: String? = nil
    ) -> String? {
        let tmp = temporaryName(for: target)
        POSIX.unlink(tmp)
        var settings = ExportFormat.Settings(version: cairnVersion)
        settings.barometer = s.stats.climbFromBarometer
        settings.laps = lapRule
        settings.board = board
        let output: ExportFormat.Output
        var sink: OutputSink?
        if format == .fit {
            output = .fitFiles(.file(tmp), force: true, atomic: false)
        } else {
            let out: OutputSink
            do { out = try OutputSink(creating: tmp, force: true) } catch { return "\(error)" }
            sink = out
            output = .sink(out)
        }
        // The conversion's notes (a zone's cut, a damaged log) are export's to say, not each format's.
        var stages = TripConversion.Stages()
        stages.laps = lapRule
        stages.board = board
        let conversion = TripConversion(writer: format.makeWriter(output, settings), stages: stages) { _ in }
        let outcome = conversion.convert(t, window: window, summary: s)
        let readError = outcome.error
        // The summary counted points: a conversion that wrote none is not a file to keep.
        // A trainer ride on a clock never set: why nothing was (`TripSummary.undatable`).
        let endErr = conversion.begun ? nil : s.undatable ? s.undatableText : "\(tmp): nothing written"
        var err: String?
        do throws(OutputError) { try conversion.finish() } catch { err = "\(error)" }
        if let e = readError ?? endErr ?? err { POSIX.unlink(tmp); return e }
        // What was written: the sink's count, or for FIT the file's size.
        guard let written = sink?.bytesWritten ?? fileSize(tmp), written > 0 else { POSIX.unlink(tmp); return "\(tmp): nothing written" }
        do throws(AtomicFile.Failure) { try AtomicFile.commit(written: tmp, to: target) } catch {
            switch error {
            case .reopen(let e): return "\(tmp): cannot open to sync: \(e)"
            case .sync(let e): return "\(tmp): sync failed: \(e)"
            default: return "\(target): cannot rename into place: \(error.errno)"
            }
        }
        let back: FileDigest
        do { back = try FileDigest.of(target, fromMedium: true) } catch { return "\(error)" }
        if back.size != written {
            POSIX.unlink(target)
            return "\(target): reads back as \(back.size) bytes, not the \(written) written (a failing card?); removed"
        }
        return nil
    }
}

import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// The board's folder as listed: the names a run needs from it, one listing kept to them, and
/// what a delivered trip's copies lack there.
extension DeliveryRun {
    /// What delivery keeps of the board folder's listing: the files it may need by name (the
    /// trips' logs and conversions, the page's index, the key) and whether anything else of its
    /// own is there (temporaries of a cut run, logs).
    struct Listing {
        var files: [String: RemoteCopies.FileCheck] = [:]
        var folders = Set<String>()
        var temporaries = false
        var holdsLogs = false
        /// Where the listing showed the run's marker (the log directory's own storage).
        var marker: String?
    }

    /// Which listed paths matter to this run: exact names, and conversion names by their tail
    /// after the start time (with zones the start is the cut's, unknown without the trip read).
    struct Wanted {
        var exact = Set<String>()
        var tails = Set<String>()
    }

    /// Whether `t`'s copies on the board's folder are named with its logs' salts: all but those
    /// of a trip delivered there under cairn 0.3's plain names (`TripShipment.logName`).
    func salted(_ t: TripRef, _ receipts: ExportState) -> Bool { !receipts.plainNames(t, folder: base) }

    func wantedNames(_ trips: [(TripRef, TripSummary)], receipts: ExportState) -> Wanted {
        var w = Wanted()
        w.exact.insert(TripIndex.fileName)
        w.exact.insert(IndexPage.fileName)
        // The folders deliver writes in: a file under one of these names holds every file back.
        for f in TripShipment.folders { w.exact.insert(f) }
        w.exact.insert(TripShipment.keyPath)
        if let key = stageOptions.zones.key {
            var m = MD5()
            m.add(key.bytes)
            w.exact.insert(TripShipment.keyPath(md5: m.hex()))
        }
        // What went up of trips pruned since, checked against their receipts' MD5s (`damagedGoneCopies`).
        for p in goneCopies(receipts).keys { w.exact.insert(p) }
        // The rows of the board's copy of the page (`restoreKeptRows`).
        for name in keptPageNames(onBoard: Set(trips.map { pageKey($0.0) })) { w.exact.insert(name) }
        for (t, s) in trips {
            let salted = salted(t, receipts)
            for f in t.files { w.exact.insert(TripShipment.logPath(f, salted: salted)) }
            for c in receipts.sent(t, destination: receiptDestination) {
                w.exact.insert(c.path)
                // Its picture on the page (`DeliveryPlans.picturesGone`).
                if let p = DeliveryPlans.picture(of: c.path) { w.exact.insert(p) }
            }
            let tripBoard = TripCatalog.board(of: t, fallback: stageOptions.board)
            for format in formats {
                let plain = TripShipment.conversionName(format, t, startMs: nil, board: tripBoard, salted: salted)
                w.tails.insert(format.name + "/" + plain)
                if stageOptions.zones.isEmpty, s.records > 0 {
                    w.exact.insert(
                        format.name + "/" + TripShipment.conversionName(format, t, startMs: s.stats.firstTimeMs, board: tripBoard, salted: salted))
                }
            }
        }
        return w
    }

    /// A conversion's name without its start time ("20250601-080000-bike-trip3.gpx" -> "bike-trip3.gpx").
    static func tail(_ name: Substring) -> Substring {
        let u = Array(name.utf8.prefix(16))
        let dated = u.count == 16 && u[8] == UInt8(ascii: "-") && u[15] == UInt8(ascii: "-")
        return dated ? name.dropFirst(16) : name
    }

    /// The board's folder as the remote lists it now, kept to `wanted`; empty when it is not there yet.
    func list(wanted: Wanted, marker: String? = nil) throws -> Listing {
        var out = Listing()
        try attempt { () throws(Rclone.Failure) in
            out = Listing()
            do throws(Rclone.Failure) {
                // With each file's MD5 where the backend has one: a copy damaged at its size
                // is found (by the receipt's MD5s) and sent again.
                try transport.list(base, hashes: true) { e in
                    let name = e.path.split(separator: "/").last ?? ""
                    if name.hasPrefix(DeliverCommand.temporaryPrefix) { out.temporaries = true }
                    if let m = marker, name == m { out.marker = e.path }
                    if TripShipment.isLog(e.path) && e.path.hasSuffix(".cairn") { out.holdsLogs = true }
                    var keep = wanted.exact.contains(e.path)
                    if !keep, let slash = e.path.firstIndex(of: "/") {
                        keep = wanted.tails.contains(String(e.path[...slash]) + Self.tail(e.path[e.path.index(after: slash)...]))
                    }
                    guard keep else { return }
                    if e.isFolder {
                        out.folders.insert(e.path)
                    } else {
                        out.files[e.path] = RemoteCopies.FileCheck(name: e.path, size: e.size, md5: e.md5)
                    }
                }
            } catch {
                if !error.notFound { throw error }
            }
        }
        return out
    }

    /// What the listing lacks of a delivered trip's copies: its logs at the sizes of its receipt
    /// and its conversions (by name; with zones by the name's tail), each with the MD5 it read
    /// back with where the receipt and the listing both have one; nil when all are there.
    func lostCopies(_ t: TripRef, _ whole: TripSummary, receipts: ExportState, destination: String, listing: Listing) -> [String]? {
        var problems: [String] = []
        let md5 = receipts.md5s(t, destination: destination)
        var wanted: [RemoteCopies.FileCheck] = []
        if copyLogs, let files = receipts.files(t, destination: destination) {
            let salted = receipts.salted(t, destination: destination)
            wanted += files.map { f in
                let rel = TripShipment.logPath(f, salted: salted)
                return RemoteCopies.FileCheck(name: rel, size: f.digest.size, md5: md5[rel])
            }
        }
        let sent = receipts.sent(t, destination: destination)
        wanted += sent.map { RemoteCopies.FileCheck(name: $0.path, size: $0.size, md5: md5[$0.path]) }
        if case .notWhole(let p) = RemoteCopies.found(wanted, in: listing.files) { problems += p }
        // A receipt of before the conversions were recorded: by their names.
        if sent.isEmpty && whole.stats.points > 0 {
            let tripBoard = TripCatalog.board(of: t, fallback: stageOptions.board)
            let salted = salted(t, receipts)
            for format in formats {
                if stageOptions.zones.isEmpty {
                    let name =
                        format.name + "/" + TripShipment.conversionName(format, t, startMs: whole.stats.firstTimeMs, board: tripBoard, salted: salted)
                    if listing.files[name] == nil { problems.append("\(name): missing") }
                } else {
                    // A trip wholly inside a zone has no conversion; one that has shows under its tail.
                    let plain = format.name + "/" + TripShipment.conversionName(format, t, startMs: nil, board: tripBoard, salted: salted)
                    let any = listing.files.keys.contains { k in
                        guard let slash = k.firstIndex(of: "/") else { return false }
                        return String(k[...slash]) + Self.tail(k[k.index(after: slash)...]) == plain
                    }
                    if !any && !receipts.hidesAll(t, destination: destination) { problems.append("\(plain): missing") }
                }
            }
        }
        return problems.isEmpty ? nil : problems
    }
}

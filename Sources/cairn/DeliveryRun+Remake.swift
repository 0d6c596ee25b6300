#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnLog
import CairnExport

/// Trips pruned on the board whose remote conversions or page row are damaged, made again from
/// their remote logs (`DeliveryPlans.goneOutcome`): each log streamed to the staging folder (a
/// ride of any length in bounded memory), trusted only at its receipt's size and CRC-32C, and
/// the trip built there under its plain name, so its conversions and row get the names they had.
/// Only conversions and the row go up: no log, no new receipt, nothing deleted for it.
extension DeliveryRun {
    /// `staging/gone/<n>/<plain name>`: one folder a trip (two cards' trips may share a name).
    /// Kept by `prepareOutbox`, removed with the staging folder at the run's end.
    var goneStaging: String { POSIX.join(staging, Self.goneFolderName) }
    static let goneFolderName = "gone"

    /// The pruned trips to make again, staged from their logs as waiting trips (`remade`);
    /// `rowOwed`: the page on the remote is not as this board last made it. Says each that
    /// is damaged and cannot be made again. Nil work where the run stopped before.
    /// `readWrong`: copies read back with other bytes (no hashes listed). `keptRows`: the keys
    /// of pruned trips' rows that come back from the board's kept copy of the page instead of
    /// from their logs (`DeliveryPlans.keptRowOfGone`), edited there or not.
    func remakeGone(
        _ receipts: ExportState, _ listing: Listing, outdated: [ExportState.GoneTrip], rowOwed: Bool, readWrong: Set<String> = [], stop: Stop?
    ) -> (remade: [Waiting], keptRows: Set<String>) {
        guard stop == nil else { return ([], []) }
        let kept = rowOwed ? keptPage().entries : []
        var keptRows = Set<String>()
        // Cut for other zones than today's: taken down, never made again here.
        let down = Set(outdated.map { "\($0.file) \($0.trip) \($0.salt)" })
        removeStaging(goneStaging)
        var out: [Waiting] = []
        for (n, g) in receipts.gone().enumerated() where !down.contains("\(g.file) \(g.trip) \(g.salt)") {
            var copies = DeliveryPlans.GoneTripCopies()
            var files: [ExportState.CopiedFile] = []
            var salted = true
            var hidden = false
            for e in g.receipts where ExportState.folder(ofDestination: e.destination) == base {
                hidden = hidden || e.hidden
                for s in e.sent { copies.sent[s.path] = e.md5[s.path] }
                // Its picture, where the page is kept: drawn again with its row.
                if page {
                    for (p, m) in e.md5 where p.hasPrefix(PageBuilder.picturesFolder + "/") { copies.pictures[p] = m }
                }
                if e.logs, files.isEmpty, let fs = e.files, !fs.isEmpty {
                    files = fs
                    salted = e.salted
                    for c in fs {
                        let p = TripShipment.logPath(c, salted: e.salted)
                        copies.logs[p] = (c.digest.size, e.md5[p])
                    }
                }
            }
            if hidden || copies.sent.isEmpty { continue }
            let trip = "trip \(g.trip) (\(g.file)), no longer on the board,"
            // Its row owed: from the kept page where that has it, its log left unread.
            var owed = rowOwed
            if rowOwed,
                let key = DeliveryPlans.keptRowOfGone(
                    [Set(copies.sent.keys).union(copies.logs.keys)], kept: kept, listed: { listing.files[$0] != nil })[0]
            {
                keptRows.insert(key)
                owed = false
            }
            switch DeliveryPlans.goneOutcome(copies, listed: listing.files, rowOwed: owed, readWrong: readWrong) {
            case .none: continue
            case .say(let why):
                printErr("cairn: \(trip) has damaged copies on \(base): \(why)")
            case .remake:
                let folder = POSIX.join(goneStaging, String(n))
                do {
                    try ensureDirectory(goneStaging)
                    try ensureDirectory(folder)
                    for c in files {
                        try fetchGoneLog(TripShipment.logPath(c, salted: salted), to: POSIX.join(folder, c.name), expect: c.digest)
                    }
                    let found = try catalogTrips(in: folder, say: { printErr("cairn: \(trip) its log there: \($0)") })
                    guard let t = found.first(where: { baseName($0.trip.files[0].path) == g.file && $0.trip.id == g.trip }) else {
                        throw Failure("its log there holds no trip \(g.trip)")
                    }
                    var w = Waiting(trip: t.trip, summary: t.summary, now: try ExportState.current(t.trip))
                    w.remade = true
                    out.append(w)
                } catch {
                    removeStaging(folder)
                    let why = (error as? Failure)?.message ?? "\(error)"
                    printErr("cairn: \(trip) has damaged copies on \(base), and nothing of it can be made again: \(why)")
                }
            }
        }
        return (out, keptRows)
    }

    /// Streams the remote log `relative` to `path` (one byte past its delivered size is enough
    /// to tell it grew) and checks it against its receipt's size and CRC-32C.
    func fetchGoneLog(_ relative: String, to path: String, expect: FileDigest) throws {
        let fd: Int32
        do { fd = try POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) } catch { throw Failure("\(path): cannot create: \(error)") }
        let ok: Bool
        do {
            ok = try download(relative, into: fd, limit: expect.size + 1)
        } catch {
            _ = POSIX.close(fd)
            throw Failure("\(DeliverCommand.join(base, relative)): not read: \(error)")
        }
        _ = POSIX.close(fd)
        guard ok else { throw Failure("\(path): write failed") }
        let got = try? FileDigest.of(path)
        guard got == expect else {
            throw Failure(
                "\(DeliverCommand.join(base, terminalSafe(relative))) reads back as \(got?.text ?? "nothing"), not the \(expect.text) delivered")
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport

/// Staging: what a run sends, laid out in the outbox as under the board's folder (logs linked,
/// conversions made through the zone window, the page), each file with its MD5 for the read-back.
extension DeliveryRun {
    /// A clean staging folder with an empty outbox; the logs of pruned trips made again in this
    /// run (`goneStaging`) stay.
    func prepareOutbox() throws {
        for n in (try? POSIX.listDirectory(staging)) ?? [] where n != "." && n != ".." && n != Self.goneFolderName {
            let p = POSIX.join(staging, n)
            if (try? POSIX.status(p, followLinks: false)).map({ ($0.st_mode & S_IFMT) == S_IFDIR }) == true {
                removeStaging(p)
            } else {
                _ = POSIX.unlink(p)
            }
        }
        try ensureDirectory(staging)
        try ensureDirectory(outbox)
    }

    /// Removes the temporaries an earlier cairn left in the board's folder (one file at a time,
    /// each `.cairn-tmp-…` beside its final name).
    func removeTemporaries() throws {
        try attempt { () throws(Rclone.Failure) in
            do throws(Rclone.Failure) { try transport.deleteMatching(DeliverCommand.temporaryPrefix + "*", under: base) } catch {
                if !error.notFound { throw error }
            }
        }
    }

    /// Puts `local` in the outbox at `relative` (a link when it is a log on the same card, a
    /// file made there otherwise) and returns it staged.
    func staged(_ relative: String, at path: String) throws -> DeliveryPlans.Staged {
        guard let check = DeliveredCopies.local(path) else { throw Failure("\(path): cannot be read") }
        return DeliveryPlans.Staged(relative: relative, md5: check.md5 ?? "", size: check.size)
    }

    func outboxPath(_ relative: String) throws -> String {
        let path = POSIX.join(outbox, relative)
        try ensureDirectory(POSIX.parent(of: path))
        return path
    }

    /// Refuses a name the remote holds as a folder (rclone would move the file into it).
    func refuseFolder(_ relative: String, _ listing: Listing) throws {
        if listing.folders.contains(relative) {
            throw Failure("\(DeliverCommand.join(base, relative)): a folder on the remote has this file's name; move it away")
        }
    }

    /// A trip that cannot go and is no failure (said; it stays waiting on the board).
    struct Undeliverable: Error { let message: String }

    /// Stages one trip: its logs (unless the remote holds them already), then its conversions.
    /// Throws `Failure` for a trip that cannot go, `Stop` when the remote fails.
    func stage(_ w: inout Waiting, receipts: ExportState, listing: Listing) throws {
        let t = w.trip
        // A trip whose files lost bytes since a delivery (a tail torn off, a card's rot) is not
        // sent again: its copies there are whole, and neither its logs nor its conversions may
        // be replaced by what is left.
        for earlier in receipts.recorded(t) {
            let names = Set(earlier.map(\.name))
            var flaws: [String: String] = [:]
            for (f, c) in zip(t.files, w.now) where names.contains(c.name) && !earlier.contains(c) {
                if let flaw = Self.flaw(f.path) { flaws[c.name] = flaw }
            }
            if let why = RemoteCopies.shrank(delivered: earlier.map { ($0.name, $0.digest) }, now: w.now.map { ($0.name, $0.digest) }, flaws: flaws) {
                throw Failure("\(why); its delivered copies are kept")
            }
        }
        w.salted = salted(t, receipts)
        // A trip made again from its remote log (`remade`): its conversions and row only.
        let order = TripShipping.Order(logs: copyLogs, placeLogs: copyLogs && !w.remade, formats: formats, page: page, options: stageOptions)
        var outbox = OutboxDestination(run: self, trip: t, receipts: receipts, listing: listing)
        defer {
            w.staged = outbox.staged
            w.fresh.formUnion(outbox.fresh)
            w.conversions += outbox.conversions
            if let key = outbox.hidden { w.hidden = key }
        }
        let shipped = try TripShipping.ship(t, w.summary, now: w.now, salted: w.salted, order: order, to: &outbox)
        guard let shipment = shipped.shipment, let page = shipped.page else { return }
        for format in ExportFormat.allCases { w.names[format.name] = shipment.name(format) }
        w.shown = page
    }

    /// Whether the local log (`path`, `c`) goes over what the remote holds at `rel`. A log is never
    /// replaced by another, nor by a version of itself that is shorter, torn or damaged: the copy
    /// there may be the only whole one, its trip pruned on the strength of it. `delivered`: a
    /// receipt says these very bytes went up whole before (the log is whole, though a trip cut
    /// by a power loss has no end record).
    func replaces(
        _ there: (digest: FileDigest, head: [UInt8]), with path: String, _ c: ExportState.CopiedFile, at rel: String, delivered: Bool = false
    ) throws -> Bool {
        let prefix = there.digest.size < c.digest.size ? try? FileDigest.of(path, limit: there.digest.size) : nil
        let local = Self.read(path)
        let decision = RemoteCopies.log(
            local: c.digest, localSalt: c.salt, localFlaw: local.flaw, localWhole: local.ends || delivered, remote: there.digest,
            remoteSalt: FileHeader.salt(head: there.head), remoteIsPrefix: prefix == there.digest)
        switch decision {
        case .same: return false
        case .send, .grow: return true
        case .repair:
            let how =
                there.digest.size > c.digest.size
                ? "\(there.digest.size) bytes, more than the whole log's \(c.digest.size): bytes added there"
                : "\(there.digest.size) bytes, other bytes"
            printErr("cairn: \(DeliverCommand.join(base, rel)): a damaged copy (\(how)); sent again")
            return true
        case .keep(let why): throw Failure("\(DeliverCommand.join(base, rel)) is kept: \(why)")
        }
    }

    /// The MD5s of what the remote holds of `staged` at the same sizes (one read-back for all;
    /// relative path -> MD5).
    func copiesThere(_ staged: [DeliveryPlans.Staged], listing: Listing) throws -> [String: String] {
        let candidates = staged.filter { listing.files[$0.relative]?.size == $0.size }.map(\.relative)
        if candidates.isEmpty { return [:] }
        var out: [String: String] = [:]
        try attempt { () throws(Rclone.Failure) in
            out = [:]
            try transport.readBack(base, paths: candidates) { md5, path in out[path] = md5 }
        }
        return out
    }

    /// Takes out of a trip's batch what the remote holds already (`there`); a log there with
    /// other bytes at the same size is read and decided (`replaces`).
    func drop(_ there: [String: String], from w: inout Waiting) throws {
        var keep: [DeliveryPlans.Staged] = []
        for s in w.staged {
            if let m = there[s.relative] {
                if m == s.md5 {
                    w.there[s.relative] = m
                    _ = POSIX.unlink(POSIX.join(outbox, s.relative))
                    continue
                }
                if TripShipment.isLog(s.relative), let i = w.now.firstIndex(where: { TripShipment.logPath($0, salted: w.salted) == s.relative }),
                    let remote = try remoteFile(DeliverCommand.join(base, s.relative)),
                    try !replaces(remote, with: w.trip.files[i].path, w.now[i], at: s.relative)
                {
                    _ = POSIX.unlink(POSIX.join(outbox, s.relative))
                    continue
                }
            }
            keep.append(s)
        }
        w.staged = keep
    }

    /// Stages the card's privacy key beside the logs at `target` (`DeliveryPlans.keyThere`),
    /// unless the remote holds it there already. Another key under the plain name is never
    /// replaced (an earlier card's of the board, another board's, the key the logs there were
    /// cut with): this one goes under its own name beside it (found only now on a backend that
    /// lists no MD5s, at its size). This key damaged there (`damaged`, or other bytes under its
    /// own name, or under the plain name where it went whole before, `sentTo`) goes again.
    func stageKey(
        _ bytes: [UInt8], listing: Listing, target: String = TripShipment.keyPath, damaged: Bool = false, sentTo: String? = nil
    ) throws -> DeliveryPlans.Staged? {
        let rel = target
        try refuseFolder(rel, listing)
        let path = try outboxPath(rel)
        try writeFileAtomically(path, bytes, mode: 0o600)
        if !damaged, listing.files[rel] != nil, let there = try remoteFile(DeliverCommand.join(base, rel)) {
            if there.digest == (try FileDigest.of(path)) {
                _ = POSIX.unlink(path)
                return nil
            }
            if rel == TripShipment.keyPath && sentTo != rel {
                _ = POSIX.unlink(path)
                var m = MD5()
                m.add(bytes)
                return try stageKey(bytes, listing: listing, target: TripShipment.keyPath(md5: m.hex()), sentTo: sentTo)
            }
            printErr("cairn: \(DeliverCommand.join(base, rel)): this card's key, damaged there (other bytes than it went up with); sent again")
        }
        return try staged(rel, at: path)
    }

    /// The page's files in the outbox (made by `stagePage`), staged.
    func stagedPage() throws -> [DeliveryPlans.Staged] {
        var out: [DeliveryPlans.Staged] = []
        let pictures = POSIX.join(outbox, PageBuilder.picturesFolder)
        for name in ((try? POSIX.listDirectory(pictures)) ?? []).sorted() where !name.hasPrefix(".") {
            out.append(try staged(PageBuilder.picturesFolder + "/" + name, at: POSIX.join(pictures, name)))
        }
        for name in [TripIndex.fileName, IndexPage.fileName]
        where pathExists(POSIX.join(outbox, name)) && pathExists(POSIX.join(outbox, IndexPage.fileName)) {
            out.append(try staged(name, at: POSIX.join(outbox, name)))
        }
        return out
    }

    /// Removes every file of the outbox but `relative` (paths in it).
    func keepOnly(_ relative: Set<String>, folder: String = "") {
        let here = folder.isEmpty ? outbox : POSIX.join(outbox, folder)
        for n in (try? POSIX.listDirectory(here)) ?? [] where n != "." && n != ".." {
            let rel = folder.isEmpty ? n : folder + "/" + n
            if (try? POSIX.status(POSIX.join(outbox, rel), followLinks: false)).map({ ($0.st_mode & S_IFMT) == S_IFDIR }) == true {
                keepOnly(relative, folder: rel)
            } else if !relative.contains(rel) {
                _ = POSIX.unlink(POSIX.join(outbox, rel))
            }
        }
    }

    /// Removes a page that could not be made from the outbox (the remote's index read into it too).
    func removePage() {
        for name in [TripIndex.fileName, IndexPage.fileName] { _ = POSIX.unlink(POSIX.join(outbox, name)) }
        removeStaging(POSIX.join(outbox, PageBuilder.picturesFolder))
    }

    /// Makes the remote's page in the outbox with `shown`: its index read back from the remote
    /// (the trips of earlier runs and of other tools stay), the pictures drawn here. Returns what
    /// an earlier delivery sent that the page's reconciliation deletes (`DeliveryPlans.obsolete`).
    /// `receipted`: every trip delivered here (by any run) that is still on the board: one the
    /// remote's index lacks (a run cut before its page went up) is added too. `takeDown`: the
    /// conversions of trips that come down (`outdatedCuts`): their entries go, with their pictures.
    /// `redraw`: pictures gone from the remote, their trips' entries made anew. `own`: the keys
    /// of this card's trips; another card's rows that show a place in a zone are withheld
    /// (`withholdOtherCards`).
    func stagePage(
        _ shown: [PageTrip], hidden: [String], receipted: [(TripRef, TripSummary, salted: Bool)], reconcile: Bool, indexSize: Int?, listing: Listing,
        takeDown: Set<String> = [], redraw: Set<String> = [], keptGone: Set<String> = [], own: Set<String> = []
    ) throws -> [String] {
        // A folder under a name of the page is no page (and would hold every trip's receipt back).
        for name in [TripIndex.fileName, IndexPage.fileName] { try refuseFolder(name, listing) }
        let indexName = TripIndex.fileName
        let remoteIndex = DeliverCommand.join(base, indexName)
        // Never read whole into the board's memory: over the page's limit by the listing's size,
        // refused unread; else streamed to the outbox, and refused at its first bytes when they
        // are no cairn trip index (a file of zeros).
        if let size = indexSize, size > PageBuilder.maxIndexBytes {
            throw Failure("\(remoteIndex): over \(PageBuilder.maxIndexBytes >> 20) MiB, not a cairn trip index; the page is not updated")
        }
        let indexPath = POSIX.join(outbox, indexName)
        if indexSize != nil {
            let fd: Int32
            do { fd = try POSIX.open(indexPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } catch {
                throw Failure("\(indexPath): cannot create: \(error)")
            }
            var found = false, size = 0, head: [UInt8] = [], notIndex = false, writeFailed: Errno?
            defer { _ = POSIX.close(fd) }
            try attempt { () throws(Rclone.Failure) in
                found = false
                size = 0
                head = []
                notIndex = false
                writeFailed = nil
                // A retry starts the copy again from nothing.
                try? POSIX.truncate(fd, to: 0)
                _ = try? POSIX.seek(fd, to: 0)
                do throws(Rclone.Failure) {
                    // One byte past the page's limit is enough to tell the index is too large.
                    try transport.read(remoteIndex, limit: PageBuilder.maxIndexBytes + 1) { chunk in
                        size += chunk.count
                        if notIndex || writeFailed != nil || size > PageBuilder.maxIndexBytes { return }
                        if head.count < 32 {
                            head += chunk.prefix(32 - head.count)
                            if !Self.mayBeIndex(head) {
                                notIndex = true
                                return
                            }
                        }
                        do throws(Errno) { try POSIX.writeAll(fd, chunk) } catch { writeFailed = error }
                    }
                    found = true
                } catch {
                    if !error.notFound { throw error }
                    found = false
                }
            }
            if size > PageBuilder.maxIndexBytes {
                throw Failure("\(remoteIndex): over \(PageBuilder.maxIndexBytes >> 20) MiB, not a cairn trip index; the page is not updated")
            }
            if notIndex { throw Failure("\(remoteIndex): not a cairn trip index; the page is not updated") }
            if let e = writeFailed { throw Failure("\(indexPath): write failed: \(e)") }
            if !found { _ = POSIX.unlink(indexPath) }
        }
        let builder: PageBuilder
        do throws(ExportError) { builder = try PageBuilder(folder: outbox, say: { printErr("cairn: \(terminalSafe($0))") }) } catch {
            throw Failure("\(error)")
        }
        builder.title = "cairn trips: \(board)"
        // Rows of trips pruned on the board that the remote's index lost (deleted or edited by
        // hand) come back from the board's copy of the page, where their files are there.
        restoreKeptRows(builder, making: own.union(shown.map(\.entry.key)).union(hidden), keptGone: keptGone, listing: listing)
        var adding = shown
        var hiding = hidden
        for (t, whole, salted) in receipted {
            let key = TripIndex.key(
                tripId: t.id, suffix: t.nameSuffix, board: TripCatalog.board(of: t, fallback: stageOptions.board), salt: t.files[0].header.salt)
            if adding.contains(where: { $0.entry.key == key }) || hiding.contains(key) { continue }
            let listed = builder.index.entry(key: key)
            // A page an earlier run owed: every receipted trip as it shows now (a run cut between
            // deleting and sending the index left its entry stale). Otherwise only those missing.
            if listed != nil && !reconcile { continue }
            guard let p = try pageTrip(t, whole, salted: salted) else {
                if listed != nil { hiding.append(key) }
                continue
            }
            // Reconciled, a row whose figures are not those of the trip's log (edited or damaged
            // there at its size: attack-r24 c07) is made again too.
            let edited = reconcile && listed.map { !TripIndex.sameFigures($0, p.entry) } == true
            if listed?.files != p.entry.files || listed?.picture.map(redraw.contains) == true || edited { adding.append(p) }
        }
        // New entries in the trips' order on the board, however the run's batches and the
        // receipts of a run cut before sorted them: a page the same as one run's.
        adding.sort { baseName($0.trip.files[0].path) < baseName($1.trip.files[0].path) }
        var obsolete: [String] = []
        func sentFiles(_ e: TripIndex.Entry?) -> [String] { e.map { $0.files + ($0.picture.map { [$0] } ?? []) } ?? [] }
        let allFormats = ExportFormat.allCases.map(\.name)
        let sending = formats.map(\.name)
        for key in hiding {
            obsolete += DeliveryPlans.obsolete(
                before: sentFiles(builder.index.entry(key: key)), now: [], hidden: true, formatsSent: sending, allFormats: allFormats,
                picturesFolder: PageBuilder.picturesFolder, nameNow: { _ in nil })
            builder.remove(key: key)
        }
        for e in builder.index.entries where !takeDown.isDisjoint(with: e.files) && !adding.contains(where: { $0.entry.key == e.key }) {
            obsolete += DeliveryPlans.obsolete(
                before: sentFiles(e), now: [], hidden: true, formatsSent: sending, allFormats: allFormats,
                picturesFolder: PageBuilder.picturesFolder, nameNow: { _ in nil })
            builder.remove(key: e.key)
        }
        for t in adding where !t.entry.files.isEmpty {
            let before = sentFiles(builder.index.entry(key: t.entry.key))
            if let p = builder.add(t) { printErr("cairn: trip \(t.entry.tripId): no picture on the page: \(p)") }
            let now = sentFiles(builder.index.entry(key: t.entry.key))
            let stem = t.entry.name
            obsolete += DeliveryPlans.obsolete(
                before: before, now: now, hidden: false, formatsSent: sending, allFormats: allFormats, picturesFolder: PageBuilder.picturesFolder
            ) { name in
                // Every format's name is the entry's stem (`TripShipment.pageEntry`) and its extension.
                guard let f = ExportFormat.allCases.first(where: { $0.name == name }) else { return nil }
                return stem + "." + f.fileExtension
            }
        }
        obsolete += withholdOtherCards(builder, own: own)
        do throws(ExportError) { try builder.write() } catch { throw Failure("\(error)") }
        keepPage()
        return Array(Set(obsolete)).sorted()
    }
}

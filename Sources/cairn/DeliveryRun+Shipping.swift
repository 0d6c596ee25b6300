import CairnSystem
import CairnLog
import CairnExport

/// Shipping: the staged batch up in a few calls whatever its size (DeliverCommand's exactly-once
/// protocol): mirrored to the board's shipping folder beside its own, read back whole, what the
/// page no longer shows deleted, moved into place; the receipts follow (DeliveryRun.go).
extension DeliveryRun {
    /// Ships `batch` (in the outbox) and deletes `deleting` (paths under the board's folder);
    /// `keep`: files of the batch that never replace one there (`TripRemote.moveAll`);
    /// returns the files moved to their final names (read back there by the caller, once for
    /// the run) and what is wrong with the others (a file that does not read back as sent in
    /// the shipping folder never reaches a final name). Throws `Stop` when the remote fails or
    /// a trip starts before anything goes up, `Failure` (config) when the remote is the
    /// board's own storage. `local`: where a local remote's board folder was when the run's
    /// first batch went (`LocalDestination`): a batch that finds it moved onto the log
    /// directory's own file system since is refused (`Stop`), what it wrote there removed.
    func ship(
        _ batch: [DeliveryPlans.Staged], deleting: [String], keep: Set<String>, local: LocalDestination? = nil
    ) throws -> (going: [DeliveryPlans.Staged], wrong: [String]) {
        precondition(!shipping.isEmpty)
        var going = batch
        var wrong: [String] = []
        var floor: String?
        if !batch.isEmpty {
            if let why = recording() { throw Stop.recording(why) }
            try refuseMovedOnCard(local, wrote: [], floor: nil)
            // The folders that are there now stay whatever happens below.
            floor = local.flatMap { $0.plain ? Self.nearestFolder($0.folders[0].path) : nil }
            try attempt { () throws(Rclone.Failure) in try transport.mirror(outbox, to: shipping) }
            try refuseMovedOnCard(local, wrote: [], floor: floor)
            try refuseSameStorage(batch)
            var read: [String: String] = [:]
            try attempt { () throws(Rclone.Failure) in
                read = [:]
                try transport.readBack(shipping, paths: nil) { md5, path in read[path] = md5 }
            }
            // Once up, the batch goes on even if a ride starts now: the rest is the remote's work.
            let check = DeliveryPlans.verified(batch, readBack: read)
            if !check.wrong.isEmpty {
                wrong = check.wrong
                let bad = batch.map(\.relative).filter { !check.whole.contains($0) }
                try attempt { () throws(Rclone.Failure) in try transport.delete(bad, under: shipping) }
                going = batch.filter { check.whole.contains($0.relative) }
            }
        }
        // What showed the place goes first: privacy before a page whose links all resolve (a run
        // cut here leaves the page owed, and the next one makes it).
        if !deleting.isEmpty {
            try attempt { () throws(Rclone.Failure) in try transport.delete(deleting, under: base) }
        }
        if going.isEmpty { return ([], wrong) }
        do {
            try attempt { () throws(Rclone.Failure) in
                do throws(Rclone.Failure) { try transport.moveAll(shipping, into: base, keep: keep) } catch {
                    // A move tried again after one that went through with its answer lost finds
                    // nothing left to move.
                    if !error.notFound { throw error }
                }
            }
        } catch {
            // Then what the final names hold decides, just below.
        }
        try refuseMovedOnCard(local, wrote: going.map(\.relative), floor: floor)
        return (going, wrong)
    }

    /// Where a local remote's board folder keeps its files (`TripRemote.localFolders`: the
    /// folder itself, or the local folders a remote wrapping one writes in) as the run's first
    /// batch found them off the log directory's card: each path, and the device of its nearest
    /// folder that exists (where rclone would make it).
    struct LocalDestination {
        var folders: [(path: String, device: UInt64)]
        /// The board folder itself is the one local folder (a local remote, a plain path): what
        /// a refused batch wrote there can be named and removed.
        var plain: Bool
    }

    /// `path`, or its nearest folder above that exists; nil when none can be read.
    static func nearestFolder(_ path: String) -> String? {
        var p = path
        while !p.isEmpty {
            if (try? POSIX.status(p)) != nil { return p }
            if p == "/" { break }
            p = POSIX.parent(of: p)
        }
        return nil
    }

    /// The device of `path`, or of its nearest folder above that exists; nil when none can be read.
    static func nearestDevice(_ path: String) -> UInt64? {
        nearestFolder(path).flatMap { try? POSIX.status($0) }.map { UInt64($0.st_dev) }
    }

    /// Where the board folder keeps its files now, when the remote keeps them on this machine
    /// off the log directory's card (one rclone call; none for a plain path); nil otherwise (a
    /// remote elsewhere, or one that cannot be told: retention keeps its trips anyway).
    func localDestination() -> LocalDestination? {
        guard case .folders(let paths)? = try? transport.localFolders(base) else { return nil }
        let off = paths.compactMap { p in
            Self.nearestDevice(p).flatMap { OnThisCard.isOnIt(p, logDirectory: dir) ? nil : (path: p, device: $0) }
        }
        if off.isEmpty { return nil }
        return LocalDestination(folders: off, plain: paths.count == 1)
    }

    /// Refuses a batch whose board folder moved onto the log directory's own file system since
    /// the run began (a stick unmounted between two batches: rclone would write into its empty
    /// mount point on the card, copies hidden there once the stick is back, and no copy off the
    /// board). What the batch wrote there goes: its shipping folder (named by this run's id),
    /// the files it moved in (`wrote`, relative to the board folder) and the folders they leave
    /// empty below `floor` (the nearest folder that was there before the batch went up).
    func refuseMovedOnCard(_ local: LocalDestination?, wrote: [String], floor: String?) throws {
        guard let d = local,
            let moved = d.folders.first(where: { Self.nearestDevice($0.path) != $0.device && OnThisCard.isOnIt($0.path, logDirectory: dir) })
        else { return }
        let l = (path: moved.path, plain: d.plain)
        let name = String(shipping[shipping.index(after: shipping.lastIndex { $0 == "/" || $0 == ":" }!)...])
        let parent = POSIX.parent(of: l.path)
        var removed = 0
        if l.plain && POSIX.isDirectory(POSIX.join(parent, name)) {
            removeStaging(POSIX.join(parent, name))
            removed += 1
        }
        var folders = Set<String>()
        for rel in wrote where l.plain && !rel.split(separator: "/").contains("..") {
            let p = POSIX.join(l.path, rel)
            if POSIX.unlink(p) == nil { removed += 1 }
            folders.insert(POSIX.parent(of: p))
        }
        // The folders rclone made on the card for it, emptied (never one that was there before:
        // a mount point stays).
        if l.plain, let f = floor {
            for start in folders.sorted(by: { $0.count > $1.count }) + [l.path] {
                var d = start
                while d.hasPrefix(f + "/") && POSIX.removeDirectory(d) == nil { d = POSIX.parent(of: d) }
            }
        }
        throw Stop.remote(
            "\(terminalSafe(base)) is now on the log directory's own card (\(terminalSafe(l.path)); a stick unmounted since this run began?),"
                + " not where it was when the run began; this batch is not sent there"
                + (removed > 0 ? " and what it wrote there is removed" : ""))
    }

    /// Refuses a board folder that lies on the log directory's own card, however rclone names it
    /// (`DeliveryPlans.onCard`): said before anything goes up, exit 78 (`cairn prune` would keep
    /// the trips anyway, and the status would say delivered while the only copy is on the card).
    func refuseOnCard() throws {
        guard let why = onCardRefusal() else { return }
        throw Failure(why, status: ExitCode.config)
    }

    /// Why a delivery to the board's folder is refused (on the log directory's own card), or nil.
    func onCardRefusal() -> String? {
        guard case .folders(let paths)? = try? transport.localFolders(base),
            let p = DeliveryPlans.onCard(paths.map { ($0, OnThisCard.isOnIt($0, logDirectory: dir)) })
        else { return nil }
        return "--remote \(terminalSafe(remote)): its folder \(terminalSafe(base)) is \(terminalSafe(p)), on the log directory's own card"
            + " (a folder beside the logs, or a stick that is not mounted?): copies there are no copies off the board; deliver off the board's card"
    }

    /// Refuses a board folder on the log directory's own storage however rclone names it (a
    /// local remote of its config, an alias, a symlink; a plain path is refused before, by
    /// `DeliverCommand.refuseNesting`): the shipping folder just sent is looked for in the log
    /// directory, below it and above it. Copies on the board's card are no copies off the board,
    /// yet prune would delete the trips on their strength.
    func refuseSameStorage(_ batch: [DeliveryPlans.Staged]) throws {
        let name = String(shipping[shipping.index(after: shipping.lastIndex { $0 == "/" || $0 == ":" }!)...])
        guard let found = Self.find(name, around: dir) else { return }
        try? transport.removeFolder(shipping)
        throw Failure(
            "--remote \(terminalSafe(remote)): its folder \(terminalSafe(base)) is \(found) on this board's own storage;"
                + " deliver off the board's card", status: ExitCode.config)
    }

    /// The size and CRC-32C of what the remote holds at `path`, and its first 16 bytes (a log's
    /// header: magic, version, length, salt); nil when it holds nothing there.
    func remoteFile(_ path: String) throws -> (digest: FileDigest, head: [UInt8])? {
        var result: (digest: FileDigest, head: [UInt8])?
        try attempt { () throws(Rclone.Failure) in
            var acc = FileDigest.Accumulator()
            var head: [UInt8] = []
            do throws(Rclone.Failure) {
                try transport.read(path, limit: nil) {
                    acc.add($0)
                    if head.count < FileHeader.saltHeadLength { head += $0.prefix(FileHeader.saltHeadLength - head.count) }
                }
                result = (acc.digest, head)
            } catch {
                if error.notFound { result = nil } else { throw error }
            }
        }
        return result
    }

    /// Removes the shipping folders this board left beside its folder under other ids: a run
    /// cut on a card since replaced (a new log directory starts without the old id), which no
    /// later run would know to remove. True when the remote was listed (and each removal tried).
    func removeOtherShippingFolders() -> Bool {
        let names: [String]
        do throws(RemoteFailure) { names = try transport.listFolders(remote) } catch { return error.notFound }
        let prefix = DeliverCommand.temporaryPrefix + board + "-"
        let own = String(shipping[shipping.index(after: shipping.lastIndex { $0 == "/" || $0 == ":" }!)...])
        for n in names where n.hasPrefix(prefix) && n != own {
            let id = n.dropFirst(prefix.count)
            guard id.count == 16, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { continue }
            try? transport.removeFolder(DeliverCommand.join(remote, n))
        }
        return true
    }
}

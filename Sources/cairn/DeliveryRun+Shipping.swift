import CairnSystem
import CairnLog
import CairnExport

/// Shipping: the staged batch up in a few calls whatever its size (DeliverCommand's exactly-once
/// protocol): mirrored to the board's shipping folder beside its own, read back whole, what the
/// page no longer shows deleted, moved into place; the receipts follow (DeliveryRun.go).
extension DeliveryRun {
    /// Ships `batch` (in the outbox) and deletes `deleting` (paths under the board's folder);
    /// `keep`: files of the batch that never replace one there (`TripRemote.moveAll`);
    /// returns the files found whole under their final names. Throws `Stop` when the remote
    /// fails or a trip starts, `Failure` (config) when the remote is the board's own storage.
    /// Ships `batch` (in the outbox) and deletes `deleting` (paths under the board's folder);
    /// `keep`: files of the batch that never replace one there (`TripRemote.moveAll`);
    /// returns the files found whole under their final names and what is wrong with the others
    /// (a file that does not read back as sent never reaches a final name). Throws `Stop` when
    /// the remote fails or a trip starts before anything goes up, `Failure` (config) when the
    /// remote is the board's own storage.
    func ship(_ batch: [DeliveryPlans.Staged], deleting: [String], keep: Set<String>) throws -> (whole: Set<String>, wrong: [String]) {
        precondition(!shipping.isEmpty)
        var going = batch
        var wrong: [String] = []
        if !batch.isEmpty {
            if let why = recording() { throw Stop.recording(why) }
            try attempt { () throws(Rclone.Failure) in try transport.mirror(outbox, to: shipping) }
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
        var final: [String: String] = [:]
        try attempt { () throws(Rclone.Failure) in
            final = [:]
            try transport.readBack(base, paths: going.map(\.relative)) { md5, path in final[path] = md5 }
        }
        let check = DeliveryPlans.verified(going, readBack: final)
        return (check.whole, wrong + check.wrong)
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
                    if head.count < 16 { head += $0.prefix(16 - head.count) }
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

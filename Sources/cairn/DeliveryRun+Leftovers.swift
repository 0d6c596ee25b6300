import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// The shipping folders: this log directory's own, the same run after run, and what earlier runs
/// (a cut one, one on another card, one to the remote of before) left on the remote.
extension DeliveryRun {
    /// Names this run's shipping folder (`shipping`) and returns its id.
    mutating func chooseShippingFolder(_ previous: DeliveryStatus?) -> String {
        // The same shipping folder run after run (its name from this board and this log
        // directory's id, never read from anywhere else): a run cut mid-upload is resumed.
        let shippingId = previous.flatMap { $0.shippingId.count == 16 ? $0.shippingId : nil } ?? randomHex()
        shipping = DeliverCommand.join(remote, DeliverCommand.temporaryPrefix + board + "-" + shippingId)
        return shippingId
    }

    /// Whether the other shipping folders of this board are cleared (for the status).
    func clearOtherShippingFoldersOnce(_ previous: DeliveryStatus?, _ found: Survey) -> Bool {
        // What a run on a card before this one left in a shipping folder of this board goes,
        // once per log directory (`DeliveryPlans.clearOtherShipping`).
        let cleared = previous?.othersCleared == true
        if DeliveryPlans.clearOtherShipping(clearedBefore: cleared, stopped: found.stop != nil, sends: !found.waiting.isEmpty) {
            return removeOtherShippingFolders()
        }
        return cleared
    }

    func removeShippingOfOldRemote(_ previous: DeliveryStatus?, _ found: Survey) {
        // A shipping folder left on the remote of before (the rider changed `remote`): removed.
        if let p = previous, p.shippingLeft, p.remote != remote, p.shippingId.count == 16, !p.remote.isEmpty, found.stop == nil {
            let old = DeliverCommand.join(
                p.remote, DeliverCommand.temporaryPrefix + (p.boardFolder.isEmpty ? board : p.boardFolder) + "-" + p.shippingId)
            try? transport.removeFolder(old)
        }
    }

    /// A shipping folder a cut run left: resumed by a run that sends, else removed now (by the
    /// caller's rule); whether it is gone.
    func removeLeftoverShipping() -> Bool {
        do {
            try attempt { () throws(Rclone.Failure) in try transport.removeFolder(shipping) }
            return true
        } catch {  // tried again by the next run
            return false
        }
    }
}

/// 16 random hex digits: a name no other run picks.
func randomHex() -> String {
    var g = SystemRandomNumberGenerator()
    let v = g.next() as UInt64
    let h = String(v, radix: 16)
    return String(repeating: "0", count: 16 - h.count) + h
}

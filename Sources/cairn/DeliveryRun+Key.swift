import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// The board's key on the remote: whether this run owes it (`DeliveryPlans.keyThere`), and what
/// the status remembers of the key that went up.
extension DeliveryRun {
    struct KeyState {
        var owed = false
        var damaged = false
        /// The status's `keySent`: this key's MD5 and the folder it went up whole to.
        var sent: String
    }

    func keyOwed(_ previous: DeliveryStatus?, _ listing: Listing, stop: Stop?) -> KeyState {
        // The board's key goes with its logs: owed while the logs folder holds logs and not it
        // (a run cut after its receipts, before the key went up, leaves it so); sent again when
        // this key went up here whole before and shows damaged now (`DeliveryPlans.keyThere`).
        var k = KeyState(sent: previous?.keySent ?? "")
        if ShippingPlan.keyGoes(logs: copyLogs, key: stageOptions.zones.key != nil), let key = stageOptions.zones.key, stop == nil {
            var m = MD5()
            m.add(key.bytes)
            let ours = m.hex() + " " + base
            let listed = listing.files[TripShipment.keyPath]
            switch DeliveryPlans.keyThere(ours: (key.bytes.count, m.hex()), listed: listed, holdsLogs: listing.holdsLogs, sentHere: k.sent == ours) {
            case .fine: if listed?.md5 != nil { k.sent = ours }
            case .owed: k.owed = true
            case .damaged:
                k.owed = true
                k.damaged = true
                printErr(
                    "cairn: \(DeliverCommand.join(base, TripShipment.keyPath)): this board's key, damaged there (other bytes than it went up with); sent again"
                )
            case .another: k.owed = listing.holdsLogs
            }
        }
        return k
    }

    /// The status's `keySent` after the run: this key's, when its batches sent it.
    func keySent(after batches: DeliveryBatches, before: String) -> String {
        if batches.keyWentUp, let key = stageOptions.zones.key {
            var m = MD5()
            m.add(key.bytes)
            return m.hex() + " " + base
        }
        return before
    }
}

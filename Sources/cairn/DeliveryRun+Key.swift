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
        /// The status's `keySent`: this key's MD5 and the folder it went up whole to (with the
        /// key's own name after it when it went there, `TripShipment.keyPath(md5:)`).
        var sent: String
        /// Where it is or goes, under the board's folder (`DeliveryPlans.keyThere`).
        var target = TripShipment.keyPath
        /// Where it went up whole before, read from `sent`.
        var sentTo: String?
    }

    /// The status's `keySent` for this key at `relative` (the plain name: as before 0.4).
    func keySentValue(md5: String, at relative: String) -> String {
        md5 + " " + (relative == TripShipment.keyPath ? base : DeliverCommand.join(base, relative))
    }

    func keyOwed(_ previous: DeliveryStatus?, _ listing: Listing, stop: Stop?) -> KeyState {
        // The board's key goes with its logs: owed while the logs folder holds logs and not it
        // (a run cut after its receipts, before the key went up, leaves it so); sent again when
        // this key went up here whole before and shows damaged now (`DeliveryPlans.keyThere`).
        var k = KeyState(sent: previous?.keySent ?? "")
        if ShippingPlan.keyGoes(logs: copyLogs, key: stageOptions.zones.key != nil), let key = stageOptions.zones.key, stop == nil {
            var m = MD5()
            m.add(key.bytes)
            let hex = m.hex()
            let own = TripShipment.keyPath(md5: hex)
            k.sentTo = [TripShipment.keyPath, own].first { k.sent == keySentValue(md5: hex, at: $0) }
            let there = DeliveryPlans.keyThere(
                ours: (key.bytes.count, hex), plain: listing.files[TripShipment.keyPath], tagged: listing.files[own], holdsLogs: listing.holdsLogs,
                sentTo: k.sentTo)
            switch there {
            case .fine(let at):
                k.target = at
                if listing.files[at]?.md5 != nil { k.sent = keySentValue(md5: hex, at: at) }
            case .owed(let at):
                k.target = at
                k.owed = true
                // It went up whole here before: renamed or deleted there since (attack-r24 c19).
                if k.sentTo != nil {
                    let path = DeliverCommand.join(base, at)
                    printErr("cairn: \(path): this card's key is not there (renamed or deleted since it went up whole); sent again")
                }
            case .damaged(let at):
                k.target = at
                k.owed = true
                k.damaged = true
                printErr("cairn: \(DeliverCommand.join(base, at)): this card's key, damaged there (other bytes than it went up with); sent again")
            }
        }
        return k
    }

    /// The status's `keySent` after the run: this key's, when its batches sent it.
    func keySent(after batches: DeliveryBatches, before: String) -> String {
        if let at = batches.keyWentUpAt, let key = stageOptions.zones.key {
            var m = MD5()
            m.add(key.bytes)
            return keySentValue(md5: m.hex(), at: at)
        }
        return before
    }
}

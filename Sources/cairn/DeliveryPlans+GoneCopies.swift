import CairnExport

/// What the remote holds of trips no longer on the board (pruned after their delivery), against
/// the MD5s their receipts noted as the files read back (attack-r24 c11): such a file damaged
/// there at its size cannot be sent again, but no run may stay silent about it.
extension DeliveryPlans {
    /// The paths of `sent` (relative path -> the MD5 it read back with) that the listing shows
    /// with another MD5, sorted. A file listed without a hash (WebDAV), or not listed, is not
    /// called damaged here.
    static func damagedGone(_ sent: [String: String], listed: [String: RemoteCopies.FileCheck]) -> [String] {
        sent.keys.sorted().filter { p in
            guard let was = sent[p], let now = listed[p]?.md5 else { return false }
            return now != was
        }
    }
}

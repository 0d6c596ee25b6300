import CairnExport

/// What the remote holds of trips no longer on the board (pruned after their delivery), against
/// the MD5s their receipts noted as the files read back (attack-r24 c11): such a file damaged
/// there at its size cannot be sent again, but no run may stay silent about it.
extension DeliveryPlans {
    /// The paths of `sent` (relative path -> the MD5 it read back with) that the listing shows
    /// with another MD5, and of `logs` (a log copy's relative path -> its size delivered) that
    /// it shows at another size or not at all, sorted. A log of a pruned trip is never deleted
    /// or replaced by a delivery: one gone or cut there (attack-r24, issue 38 finding 2) may
    /// have been the ride's last copy, and is said as plainly as one with other bytes. A
    /// conversion listed without a hash (WebDAV), or not listed (a zone took it down), is not
    /// called damaged here.
    static func damagedGone(_ sent: [String: String], logs: [String: Int] = [:], listed: [String: RemoteCopies.FileCheck]) -> [String] {
        Set(sent.keys).union(logs.keys).sorted().filter { p in
            if let size = logs[p] {
                guard let l = listed[p] else { return true }
                if l.size != size { return true }
            }
            guard let was = sent[p], let now = listed[p]?.md5 else { return false }
            return now != was
        }
    }
}

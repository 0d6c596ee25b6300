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
    /// called damaged here, unless a read-back found it so (`readWrong`).
    static func damagedGone(
        _ sent: [String: String], logs: [String: Int] = [:], listed: [String: RemoteCopies.FileCheck], readWrong: Set<String> = []
    ) -> [String] {
        Set(sent.keys).union(logs.keys).sorted().filter { p in
            if readWrong.contains(p) && listed[p] != nil { return true }
            if let size = logs[p] {
                guard let l = listed[p] else { return true }
                if l.size != size { return true }
            }
            guard let was = sent[p], let now = listed[p]?.md5 else { return false }
            return now != was
        }
    }

    /// Which copies of pruned trips, listed without a hash, are damaged there (issue 38,
    /// deliv-38g): of `files` (each with the MD5 it went up with), those read back this run
    /// (`readNow`) with other bytes (`read`: path -> MD5), and those not read this run that an
    /// earlier run found damaged (`earlier`): said on every run until a read-back finds them
    /// whole again, not only in their turn. One listed but not read back (gone meanwhile) is
    /// not called damaged.
    static func readWrong(_ files: [RemoteCopies.FileCheck], read: [String: String], readNow: Set<String>, earlier: Set<String>) -> Set<String> {
        var out = Set<String>()
        for f in files {
            if readNow.contains(f.name) {
                if let got = read[f.name], got != f.md5 { out.insert(f.name) }
            } else if earlier.contains(f.name) {
                out.insert(f.name)
            }
        }
        return out
    }
}

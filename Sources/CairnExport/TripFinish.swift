import CairnLog

/// When a trip will not change again, so that `cairn export` may copy it: never decided by what
/// other files exist (a log copied in from another board is no sign the local trip is over).
///
/// - A trip with a trip-end record is finished.
/// - Otherwise (a battery pulled mid-ride, a recorder killed) it is finished once no recorder can
///   be appending to its last file: no process holds the directory's recorder lock, or the holder
///   does not have that file open. A recorder never appends to a file it did not create in its
///   own run (it creates each file exclusively); resuming a trip after a restart writes a new
///   part in a new file, which makes the trip "changed" for `ExportState`, so it is exported again.
/// - When the holder's open files cannot be read (a recorder of another user, no /proc): the
///   last file counts as written by the running recorder unless it was last modified before the
///   recorder took the lock. A clock set back at boot makes that answer "still open": a trip is
///   then exported later, never half.
public enum TripFinish {
    /// Why the trip is not finished yet (a sentence), or nil when it is.
    public static func openReason(
        closed: Bool, lastFile: DirectoryLock.FileKey?, lastModifiedNs: Int64?, recorder: DirectoryLock.Recorder
    ) -> String? {
        if closed { return nil }
        switch recorder {
        case .absent:
            return nil
        case .running(let pid, let files?, _):
            guard let f = lastFile, !files.contains(f) else { return "the recorder (PID \(pid)) is writing it" }
            return nil
        case .running(let pid, nil, let since):
            return modifiedBefore(lastModifiedNs, since)
                ? nil
                : "the recorder (PID \(pid)) may be writing it (its open files cannot be read: run export as root or as the recorder's user)"
        case .unknown(let since):
            return modifiedBefore(lastModifiedNs, since)
                ? nil : "a recorder may be writing it (the kernel's lock table /proc/locks cannot be read)"
        }
    }

    private static func modifiedBefore(_ modified: Int64?, _ since: Int64?) -> Bool {
        guard let m = modified, let s = since else { return false }
        return m < s
    }
}

import CairnLog

/// When a trip will not change again, so that `cairn export` may copy it: never decided by what
/// other files exist (a log copied in from another board is no sign the local trip is over).
///
/// - A trip one of whose files the running recorder has open is being written, whatever its files
///   hold (a part copied in from another board may carry a trip end of its own).
/// - Otherwise, once the holder's open files are known, a trip with a trip-end record is finished.
/// - Otherwise (a battery pulled mid-ride, a recorder killed) it is finished once no recorder can
///   be appending to any of its files: no process holds the directory's recorder lock, or the
///   holder has none of them open. A recorder never appends to a file it did not create in its
///   own run (it creates each file exclusively); resuming a trip after a restart writes a new
///   part in a new file, which makes the trip "changed" for `ExportState`: it is exported again.
/// - When the holder's open files cannot be read (a recorder of another user, no /proc): a trip,
///   closed or not (a copied-in part may carry a trip end), counts as being written unless all its
///   files were last modified before the recorder took the lock. A clock set back at boot makes that answer "still open": the
///   trip is then exported later, never half.
public enum TripFinish {
    /// Why the trip is not finished yet (a sentence), or nil when it is. `files`: the trip's files
    /// (nil for one that cannot be looked at); `lastModifiedNs`: the latest of their mtimes (nil:
    /// not known for one of them).
    public static func openReason(
        closed: Bool, files: [DirectoryLock.FileKey?], lastModifiedNs: Int64?, recorder: DirectoryLock.Recorder
    ) -> String? {
        switch recorder {
        case .absent:
            return nil
        case .running(let pid, let open?, _):
            // Before `closed`: a file the recorder has open is being written whatever the others
            // hold (a part copied in from another board may carry its own trip end).
            let writing = files.contains { f in f.map { open.contains($0) } ?? true }
            return writing ? "the recorder (PID \(pid)) is writing it" : nil
        default:
            break
        }
        // With the holder's open files unknown, a trip end proves nothing (a part copied in from
        // another board carries its own): only the files' times tell, closed or not.
        switch recorder {
        case .absent, .running(_, _?, _):
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

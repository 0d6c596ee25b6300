import CairnSystem

/// Whether copies in a local folder lie on the log directory's own card: a stick's mount point
/// while the stick is not mounted, a folder beside the logs, another partition of the card, a
/// btrfs subvolume beside the logs' one, an overlay whose upper layer is on the card
/// (`Disks.share`). They are no copies off the board (one card failure loses both), so
/// retention never deletes a trip on their strength.
enum OnThisCard {
    /// `folder` (absolute) holds `file` (a name below it) on the card of `logDirectory`.
    /// A folder that is not there, or holds no such file, says nothing (a stick unplugged after
    /// the export leaves its empty mount point behind).
    static func holds(_ folder: String, file: String, logDirectory: String) -> Bool {
        let copy = POSIX.join(folder, file)
        guard POSIX.exists(copy) else { return false }
        return Disks.share(copy, logDirectory)
    }

    /// `folder` (absolute), or the nearest folder above it that exists (where rclone would make
    /// it), is on the card of `logDirectory`.
    static func isOnIt(_ folder: String, logDirectory: String) -> Bool {
        Disks.share(folder, logDirectory)
    }
}

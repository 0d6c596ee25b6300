import CairnSystem

/// Whether copies in a local folder lie on the log directory's own card: a stick's mount point
/// while the stick is not mounted, a folder beside the logs, another partition of the card, a
/// btrfs subvolume beside the logs' one, an overlay whose upper layer is on the card
/// (`Disks.share`). They are no copies off the board (one card failure loses both), so
/// retention never deletes a trip on their strength.
enum OnThisCard {
    /// `file` (a name below `folder`, absolute), or where it would be, is on the card of
    /// `logDirectory`: a copy taken out of a folder on the card leaves its folder there (and
    /// that is no copy off the board); a stick's folder gone with the stick says where the
    /// nearest folder above it lies.
    static func holds(_ folder: String, file: String, logDirectory: String) -> Bool {
        Disks.share(POSIX.join(folder, file), logDirectory)
    }

    /// `folder` (absolute), or the nearest folder above it that exists (where rclone would make
    /// it), is on the card of `logDirectory`.
    static func isOnIt(_ folder: String, logDirectory: String) -> Bool {
        Disks.share(folder, logDirectory)
    }
}

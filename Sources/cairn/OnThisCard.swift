import CairnSystem

/// Whether copies in a local folder lie on the log directory's own file system: a stick's mount
/// point while the stick is not mounted, a folder beside the logs. They are no copies off the
/// board (one card failure loses both), so retention never deletes a trip on their strength.
enum OnThisCard {
    /// `folder` (absolute) holds `file` (a name below it) on the file system of `logDirectory`.
    /// A folder that is not there, or holds no such file, says nothing (a stick unplugged after
    /// the export leaves its empty mount point behind).
    static func holds(_ folder: String, file: String, logDirectory: String) -> Bool {
        guard let logs = try? POSIX.status(logDirectory), let copy = try? POSIX.status(POSIX.join(folder, file)) else { return false }
        return copy.st_dev == logs.st_dev
    }

    /// `folder` (absolute), or the nearest folder above it that exists (where rclone would make
    /// it), is on the file system of `logDirectory`.
    static func isOnIt(_ folder: String, logDirectory: String) -> Bool {
        guard let logs = try? POSIX.status(logDirectory) else { return false }
        var p = folder
        while !p.isEmpty {
            if let st = try? POSIX.status(p) { return st.st_dev == logs.st_dev }
            if p == "/" { break }
            p = POSIX.parent(of: p)
        }
        return false
    }
}

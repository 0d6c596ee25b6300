/// A place trips are shipped to, as a delivery uses it: a few calls that each carry a whole
/// batch, so that a run costs the same handful of calls whatever it sends. `Rclone` is the one
/// that ships (one rclone process a call); the tests hold one in memory that fails at any call.
/// Paths are the remote's ("nas:rides/bike/logs/00000001.cairn"); `RemoteFailure.notFound` says
/// the thing asked for is not there.
protocol TripRemote {
    /// Every file and folder under `folder`, every level, each to `entry` as it comes (paths
    /// relative to `folder`), with `hashes` each file's MD5 where the backend has one (S3, SFTP,
    /// a local folder; not WebDAV); notFound when there is no such folder.
    func list(_ folder: String, hashes: Bool, entry: (RemoteEntry) -> Void) throws(RemoteFailure)
    /// The bytes of the file `path`, at most `limit` of them, to `output` as they come.
    func read(_ path: String, limit: Int?, output: (UnsafeRawBufferPointer) -> Void) throws(RemoteFailure)
    /// Makes `folder` hold exactly the files of the local folder `local`, same relative paths
    /// (what was in it before, from a run cut short, goes).
    func mirror(_ local: String, to folder: String) throws(RemoteFailure)
    /// Reads back whole each file under `folder` (only `paths`, relative to it, when given) and
    /// gives its relative path and MD5 (lowercase hex) to `md5`.
    func readBack(_ folder: String, paths: [String]?, md5: (String, String) -> Void) throws(RemoteFailure)
    /// Moves every file under `source` to its relative path under `target`, replacing any file
    /// there, except those in `keep` (relative paths): one of those never replaces a file that is
    /// there by the time it moves (another board's log that came meanwhile, or that a listing did
    /// not show), it stays behind and the call fails. Each file appears whole under its name.
    func moveAll(_ source: String, into target: String, keep: Set<String>) throws(RemoteFailure)
    /// Deletes the files `paths` (relative to `folder`); one already gone is no failure.
    func delete(_ paths: [String], under folder: String) throws(RemoteFailure)
    /// Deletes `folder` and everything in it; one not there is no failure.
    func removeFolder(_ folder: String) throws(RemoteFailure)
    /// Deletes the files under `folder`, every level, whose names match `pattern` (a name with
    /// `*` for any run of characters).
    func deleteMatching(_ pattern: String, under folder: String) throws(RemoteFailure)
    /// The names of the folders directly in `folder` (one level); notFound when there is none.
    func listFolders(_ folder: String) throws(RemoteFailure) -> [String]
    /// The absolute local folders `folder`'s files lie in when the remote keeps them on this
    /// machine's file systems (a local folder, or a remote wrapping one: an alias, crypt,
    /// union, ...); [] for any other place.
    func localFolders(_ folder: String) throws(RemoteFailure) -> RcloneLocalRoots.Answer
}

extension TripRemote {
    /// The listing without hashes (names and sizes: nothing read on any backend).
    func list(_ folder: String, entry: (RemoteEntry) -> Void) throws(RemoteFailure) { try list(folder, hashes: false, entry: entry) }
}

/// One file or folder a remote lists.
struct RemoteEntry: Equatable, Sendable {
    var path: String
    var size: Int
    var isFolder: Bool
    /// Its MD5 (lowercase hex) when asked for and the backend has one.
    var md5: String? = nil
}

/// A remote's call that failed: what was asked, what the remote said, and whether the thing
/// asked for is missing.
struct RemoteFailure: Error, CustomStringConvertible, Sendable {
    let what: String
    let detail: String
    let notFound: Bool
    /// The call was stopped (a signal, or no answer in time): nothing said about the setup.
    var interrupted = false
    var description: String { detail.isEmpty ? what : "\(what): \(detail)" }
}

import CairnSystem

/// The live status file: replaced atomically (written to `FILE.tmp`, then renamed over `FILE`),
/// so a reader (`watch cat`, a display process, `cairn status`) sees either the old or the new
/// contents, never a torn mix. At most one write per `minIntervalMs` (1 s): a reader polling
/// faster sees the same file. Not fsynced: it is live state, rebuilt every few seconds, and a sync
/// each time would wear the card; it belongs on a tmpfs (`/run/cairn/status`) anyway.
public final class StatusFile {
    public let path: String
    public let minIntervalMs: Int64
    private let tempPath: String
    private var lastWriteMs: Int64 = .min
    /// Writes made so far (for tests and `--verbose`).
    public private(set) var writes = 0
    /// The last error, reported once per outage by the caller.
    public private(set) var lastError: String?

    public init(path: String, minIntervalMs: Int64 = 1000) {
        self.path = path
        self.minIntervalMs = minIntervalMs
        tempPath = path + ".tmp"
    }

    /// True when a write now would be allowed by the rate cap.
    public func isDue(monoMs: Int64) -> Bool {
        lastWriteMs == .min || monoMs - lastWriteMs >= minIntervalMs
    }

    /// Writes `contents` if the rate cap allows (or `force`: the final state at shutdown).
    /// Returns nil on success or when skipped; an error text when the write failed.
    @discardableResult
    public func write(_ contents: String, monoMs: Int64, force: Bool = false) -> String? {
        guard force || isDue(monoMs: monoMs) else { return nil }
        lastWriteMs = monoMs
        // Not synced (above); the rename alone keeps a reader from a torn file.
        do throws(AtomicFile.Failure) {
            let f = try AtomicFile(path: path, temporaryPath: tempPath, exclusive: false)
            var text = contents
            let written = text.withUTF8 { p in Result { () throws(AtomicFile.Failure) in try f.write(UnsafeRawBufferPointer(p)) } }
            try written.get()  // on failure `f` goes, and its temporary file with it
            try f.commit(sync: false, syncDirectory: false)
        } catch {
            switch error {
            case .create(let e): return fail("\(tempPath): cannot create: \(e)")
            case .rename(let e): return fail("\(path): cannot replace: \(e)")
            default: return fail("\(tempPath): write failed: \(error.errno)")
            }
        }
        writes += 1
        lastError = nil
        return nil
    }

    private func fail(_ message: String) -> String {
        lastError = message
        return message
    }
}

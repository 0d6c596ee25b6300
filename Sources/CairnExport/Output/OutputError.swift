import CairnSystem

/// Why an export's bytes did not all reach their file: the file it names (as the user gave it,
/// the directory synced, or the spool's temporary file) and what failed there. Thrown by
/// `OutputSink.finish` and every writer's `end`; its description is the line the CLI prints.
public struct OutputError: Error, CustomStringConvertible {
    /// What failed.
    public enum Problem: Sendable {
        case write(Errno)
        case rewriteHeader(Errno)
        case rewriteHeaderShort
        case close(Errno)
        case sync(Errno)
        /// Another file took the name while this one was written (no `--force`).
        case exists
        case openToSync(Errno)
        case rename(temporary: String, Errno)
        case createTemporary(Errno)
        case readBack(Errno)
        case readBackShort
        case truncate(Errno)
    }

    /// The file (or directory) the message names.
    public let file: String
    public let problem: Problem

    public init(_ file: String, _ problem: Problem) {
        self.file = file
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .write(let e): "\(file): write failed: \(e)"
        case .rewriteHeader(let e): "\(file): cannot rewrite the header: \(e)"
        case .rewriteHeaderShort: "\(file): cannot rewrite the header: short write"
        case .close(let e): "\(file): close failed: \(e)"
        case .sync(let e): "\(file): sync failed: \(e)"
        case .exists: "\(file): already exists (use --force to replace it)"
        case .openToSync(let e): "\(file): cannot open to sync: \(e)"
        case .rename(let tmp, let e): "\(file): cannot rename \(tmp) into place: \(e)"
        case .createTemporary(let e): "\(file): cannot create a temporary file: \(e)"
        case .readBack(let e): "\(file): cannot read back: \(e)"
        case .readBackShort: "\(file): cannot read back: short read"
        case .truncate(let e): "\(file): cannot truncate: \(e)"
        }
    }
}

import CairnSystem

/// One line of progress on standard error while long work runs, redrawn in place ("converting
/// trip 3 of 60"), for a rider watching a terminal; nothing at all when standard error is not a
/// terminal (a pipe, a file, the journal under systemd), and nothing for work of one step.
/// Cleared when the work ends, so what follows starts on a clean line.
struct TerminalProgress {
    private let write: (String) -> Void
    private let total: Int
    private let shows: Bool
    private var drawn = false

    /// `total`: the steps the work has; `terminal`: whether standard error is one.
    init(total: Int, terminal: Bool = POSIX.isTerminal(2), write: @escaping (String) -> Void = TerminalProgress.toStandardError) {
        self.total = total
        self.shows = terminal && total > 1
        self.write = write
    }

    /// Step `n` (from 1) begins: `what` says it ("trip 12").
    mutating func step(_ n: Int, _ what: String) {
        guard shows else { return }
        write("\r\u{1B}[Kcairn: converting \(what) (\(n) of \(total))...")
        drawn = true
    }

    /// The work ended (or is about to say something): the line goes.
    mutating func clear() {
        guard drawn else { return }
        write("\r\u{1B}[K")
        drawn = false
    }

    static func toStandardError(_ s: String) {
        var s = s
        s.withUTF8 { p in _ = try? POSIX.writeAll(2, UnsafeRawBufferPointer(p)) }
    }
}

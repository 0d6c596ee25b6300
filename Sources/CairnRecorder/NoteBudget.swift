/// How many of the sensors' messages go into the log as notes: a burst of `burst`, then one
/// every `everyMs` (the journal gets every one). A sensor that connects and drops all day must
/// not fill the trip with notes; the next note written says how many were not.
struct NoteBudget {
    static let burst = 6.0
    static let everyMs = 60_000.0

    private var tokens = NoteBudget.burst
    private var lastMs: Int64?
    private(set) var suppressed = 0

    /// The note to write for `text` at `monoMs`, or nil when over the budget (counted).
    mutating func note(_ text: String, monoMs: Int64) -> String? {
        if let last = lastMs, monoMs > last { tokens = min(Self.burst, tokens + Double(monoMs - last) / Self.everyMs) }
        lastMs = max(lastMs ?? monoMs, monoMs)
        guard tokens >= 1 else {
            suppressed += 1
            return nil
        }
        tokens -= 1
        defer { suppressed = 0 }
        return suppressed > 0 ? "\(text) (\(suppressed) earlier sensor messages not noted)" : text
    }
}

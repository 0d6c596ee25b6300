/// What the journal is told of one sensor's link going down and up, rate-limited, pure: a
/// token bucket of `burst` lines, one more every `refillMs`. A change after a quiet spell
/// always has a token, so it is said at once; a sensor flapping while the adapter stays up
/// uses the bucket up, and its changes are then held back: the state the journal shows is put
/// right (with how many changes were not said) as soon as the next token comes. Lines for
/// the adapter going down and coming back (`exempt`) are always said and cost no token: they
/// are not the sensor's doing, and come with the adapter's own events, not per try.
struct LinkLines: Sendable {
    static let burst: Int64 = 6
    static let refillMs: Int64 = 300_000

    /// Milliseconds of credit, up to `burst` lines' worth; a line costs `refillMs`.
    private var creditMs = burst * refillMs
    private var creditAtMs: Int64?
    /// The state the journal shows: up (connected) or down; nil before the first line.
    private var saidUp: Bool?
    private var heldBack: (up: Bool, text: String)?
    private var unsaid = 0

    /// A change to `up` at `monoMs`, in `text`: the line to say now, or nil when it is held back.
    mutating func change(up: Bool, _ text: String, monoMs: Int64, exempt: Bool = false) -> String? {
        refill(monoMs)
        if !exempt && creditMs < Self.refillMs {
            heldBack = (up, text)
            unsaid += 1
            return nil
        }
        if !exempt { creditMs -= Self.refillMs }
        return said(up, text, before: unsaid)
    }

    /// The held-back state, said once a token has come: nil when there is nothing to put right.
    mutating func due(monoMs: Int64) -> String? {
        guard let h = heldBack else { return nil }
        refill(monoMs)
        guard creditMs >= Self.refillMs else { return nil }
        creditMs -= Self.refillMs
        return said(h.up, h.text, before: unsaid - 1)
    }

    /// Milliseconds until `due` has a line to say.
    func msUntilDue(monoMs: Int64) -> Int64 {
        guard heldBack != nil else { return .max }
        let now = creditMs + (creditAtMs.map { monoMs - $0 } ?? 0)
        return max(0, Self.refillMs - now)
    }

    private mutating func refill(_ monoMs: Int64) {
        if let at = creditAtMs { creditMs = min(Self.burst * Self.refillMs, creditMs + max(0, monoMs - at)) }
        creditAtMs = monoMs
    }

    /// `text` as said, with the `before` changes held back since the last line.
    private mutating func said(_ up: Bool, _ text: String, before: Int) -> String {
        let wasUp = saidUp
        (heldBack, unsaid, saidUp) = (nil, 0, up)
        if before == 0 { return text }
        // Back where the journal last left it: the spell in one line.
        if wasUp == up { return text + " (\(up ? "down and up" : "up and down") again \((before + 1) / 2) times, not said one by one)" }
        return text + " (after \(before) changes not said one by one)"
    }
}

/// gpsd sends several TPV reports for one epoch (2-4 while it learns the receiver's cycle, up to
/// 19 with many NMEA talkers). This keeps one fix per timestamp: the most complete report, the
/// later one on a tie (gpsd's later reports of an epoch carry what the earlier ones lacked).
/// A fix is released when a report with another time arrives, or by `flush()` (a quiet period,
/// a disconnect, shutdown).
public struct EpochCollapser: Sendable {
    private var pending: Fix?
    /// Reports folded into an already pending epoch.
    public private(set) var collapsed: UInt64 = 0

    public init() {}

    /// Offer one report; returns the completed previous epoch, if this report closed it.
    public mutating func offer(_ fix: Fix) -> Fix? {
        guard let p = pending else {
            pending = fix
            return nil
        }
        if p.timeMs == fix.timeMs {
            collapsed += 1
            if fix.completeness >= p.completeness { pending = fix }
            return nil
        }
        pending = fix
        return p
    }

    /// Release the pending epoch, if any.
    public mutating func flush() -> Fix? {
        defer { pending = nil }
        return pending
    }

    public var hasPending: Bool { pending != nil }
}

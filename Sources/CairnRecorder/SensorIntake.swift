import CairnCore
import CairnLog

/// What the recorder does with each sensor notification before the log: a plan with no I/O.
/// A value too long to be a measurement, and a source's flood beyond `perSecond` sustained, are
/// left out (counted in the log's next sensors record); everything else is recorded, also what
/// no decoder takes or what holds values out of range (a later decoder may read it), but those
/// are counted and said: at a source's first problem, then at most once a minute with the
/// counts since. Never a fix or a trip: the intake only ever decides about notifications.
struct SensorIntake {
    enum Verdict: Equatable { case record, leftOut }

    /// Recorded per source, sustained: heart rate and power sensors send 1-4 a second.
    static let perSecond = 8.0
    /// A burst allowed above the rate (a sensor sending what it queued out of range).
    static let burst = 16.0
    /// Sources followed; notifications of further ones are left out (the transport connects
    /// only the configured sensors: this bounds memory whatever it hands over).
    static let maxSources = 16
    static let sayEveryMs: Int64 = 60_000

    struct Counts: Equatable {
        var received = 0
        var recorded = 0
        /// Recorded, but no decoder takes them (wrong flags, truncated, an unknown characteristic).
        var undecodable = 0
        /// Recorded; they decode to values no sensor or rider produces.
        var outOfRange = 0
        /// Left out: over the rate.
        var flooded = 0
        /// Left out: longer than a record keeps, or from a source beyond `maxSources`.
        var refused = 0
    }

    private struct Source {
        let address: UInt64
        let characteristic: UInt16
        var tokens = SensorIntake.burst
        var lastMs: Int64?
        var sinceSaid = Counts()
        var firstProblem: String?
        var saidAtMs: Int64?
    }

    private var sources: [Source] = []
    private(set) var totals = Counts()

    /// Decides about one notification arriving at `n.arrivalMonoMs`.
    mutating func take(_ n: SensorNotification) -> Verdict {
        totals.received += 1
        guard let i = sourceIndex(n) else {
            totals.refused += 1
            return .leftOut
        }
        sources[i].sinceSaid.received += 1
        if n.value.count > SensorBatchLimits.maxValueBytes {
            note(i, refused: "a value of \(n.value.count) bytes")
            return .leftOut
        }
        // The token bucket: refilled at `perSecond` from the arrival times (a clock going
        // backwards refills nothing).
        if let last = sources[i].lastMs, n.arrivalMonoMs > last {
            sources[i].tokens = min(Self.burst, sources[i].tokens + Double(n.arrivalMonoMs - last) * Self.perSecond / 1000)
        }
        sources[i].lastMs = max(sources[i].lastMs ?? n.arrivalMonoMs, n.arrivalMonoMs)
        guard sources[i].tokens >= 1 else {
            totals.flooded += 1
            sources[i].sinceSaid.flooded += 1
            return .leftOut
        }
        sources[i].tokens -= 1
        totals.recorded += 1
        sources[i].sinceSaid.recorded += 1
        do throws(SensorReading.Failure) {
            _ = try SensorReading(decoding: n)
        } catch {
            if error.isOutOfRange {
                totals.outOfRange += 1
                sources[i].sinceSaid.outOfRange += 1
            } else {
                totals.undecodable += 1
                sources[i].sinceSaid.undecodable += 1
            }
            if sources[i].firstProblem == nil { sources[i].firstProblem = error.description }
        }
        return .record
    }

    /// What to say now: each source with problems since it was last said, at its first
    /// problem and then once a minute at most.
    mutating func texts(monoMs: Int64) -> [String] {
        var out: [String] = []
        for i in sources.indices {
            let c = sources[i].sinceSaid
            guard c.undecodable + c.outOfRange + c.flooded + c.refused > 0 else { continue }
            if let at = sources[i].saidAtMs, monoMs - at < Self.sayEveryMs { continue }
            var parts: [String] = []
            if c.undecodable > 0 { parts.append("\(c.undecodable) no decoder takes") }
            if c.outOfRange > 0 { parts.append("\(c.outOfRange) out of range") }
            if c.flooded > 0 { parts.append("\(c.flooded) over \(Int(Self.perSecond)) a second left out") }
            if c.refused > 0 { parts.append("\(c.refused) too long to keep, left out") }
            let s = sources[i]
            out.append(
                "sensor \(SensorReading.addressText(s.address)) \(SensorReading.hex(s.characteristic)): of \(c.received) notifications "
                    + parts.joined(separator: ", ") + (s.firstProblem.map { " (\($0))" } ?? ""))
            sources[i].sinceSaid = Counts()
            sources[i].firstProblem = nil
            sources[i].saidAtMs = monoMs
        }
        return out
    }

    private mutating func note(_ i: Int, refused why: String) {
        totals.refused += 1
        sources[i].sinceSaid.refused += 1
        if sources[i].firstProblem == nil { sources[i].firstProblem = why }
    }

    private mutating func sourceIndex(_ n: SensorNotification) -> Int? {
        if let i = sources.firstIndex(where: { $0.address == n.address && $0.characteristic == n.characteristic }) { return i }
        guard sources.count < Self.maxSources else { return nil }
        sources.append(Source(address: n.address, characteristic: n.characteristic))
        return sources.count - 1
    }
}

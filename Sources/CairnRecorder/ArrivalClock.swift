/// When a report read in a batch arrived, on the monotonic clock. A batch holds the reports
/// that queued in the socket since the last one was taken, so their arrival times are unknown;
/// but a fix's time (GPS) and its arrival differ by a nearly constant offset (the clocks'
/// difference plus gpsd's latency), and the last report of a batch arrived just before the
/// batch was read. So: offset = the largest `fix time − read time` seen in the last batch (or
/// this one so far), arrival = fix time − offset, kept between the previous batch's read and
/// this one's (a replay faster than real time, or a jump of the GPS clock, then lands at an
/// end, in order). Read one by one, a report's arrival is its read time.
public struct ArrivalClock: Sendable {
    private var offset: Int64?
    private var running: Int64?
    private var previousBatchMs: Int64?

    public init() {}

    /// The arrival of a fix with time `fixTimeMs`, read at `readMonoMs` in the current batch.
    public mutating func arrival(fixTimeMs: Int64, readMonoMs: Int64) -> Int64 {
        let c = fixTimeMs &- readMonoMs
        let run = max(running ?? c, c)
        running = run
        let best = max(offset ?? run, run)
        var t = fixTimeMs &- best
        if let p = previousBatchMs { t = max(t, p) }
        return min(t, readMonoMs)
    }

    /// The current batch was read to its end at `monoMs`.
    public mutating func endBatch(monoMs: Int64) {
        if let r = running { offset = r }
        running = nil
        previousBatchMs = monoMs
    }
}

/// Batched reading (`--read-every`): gpsd's reports wait in the socket and are taken on a fixed
/// grid, a batch at a time, at most 1,000 reports before the loop's housekeeping runs between;
/// the moment each report of a batch arrived is placed by `ArrivalClock`. Apart from
/// `RecordLoop` so that the grid's arithmetic does not mix with the loop's other duties.
struct BatchReading {
    /// The grid's step; 0 reads each report as it comes.
    let everyMs: Int64
    /// Whether reports are taken in batches: from the loop's first housekeeping on, when
    /// `everyMs` > 0.
    var on = false
    /// Between a batch's first report and the read that found the socket empty.
    private(set) var inBatch = false
    /// Taking a batch: reads do not wait.
    private(set) var draining = false
    private var drained = 0
    /// When the next batch is due.
    private(set) var nextMono: Int64 = 0
    /// The grid time of the last batch taken.
    private(set) var gridMono: Int64 = 0
    private var arrival = ArrivalClock()

    init(everyMs: Int64) { self.everyMs = everyMs }

    /// The grid starts at `mono`.
    mutating func start(atMono mono: Int64) {
        nextMono = mono
        gridMono = mono
    }

    /// A report was taken: one more of the batch's 1,000.
    mutating func took() {
        guard on else { return }
        inBatch = true
        drained += 1
        draining = drained < 1000
        if !draining { drained = 0 }
    }

    /// A read found the socket empty: the batch, if one was being taken, is complete (its last
    /// report read at `lastReportMono`).
    mutating func foundEmpty(lastReportMono: Int64) {
        if inBatch {
            inBatch = false
            arrival.endBatch(monoMs: lastReportMono)
        }
        draining = false
        drained = 0
    }

    /// The next batch on the grid after `now` (a batch taken early, at 16 KiB, keeps it).
    mutating func advance(nowMono now: Int64) {
        if nextMono <= now { nextMono += ((now - nextMono) / everyMs + 1) * everyMs }
        gridMono = nextMono - everyMs
    }

    /// The connection closed: a batch being taken is over.
    mutating func closed() {
        draining = false
        drained = 0
    }

    /// When a fix of the batch arrived, from its time and when the batch was read.
    mutating func arrivalMono(fixTimeMs: Int64, readMonoMs: Int64) -> Int64 {
        arrival.arrival(fixTimeMs: fixTimeMs, readMonoMs: readMonoMs)
    }
}

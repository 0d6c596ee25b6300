import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// The run's end: its status file (what the next run, `cairn status` and retention read), what
/// it says (`DeliveryPlans.outcome`), `deliver --json`'s report and the exit status.
extension DeliveryRun {
    mutating func finish(
        previous: DeliveryStatus?, shippingId: String, leftover: Bool, othersCleared: Bool, found: Survey, batches: DeliveryBatches,
        keySent: String, stop: Stop?, counts: DeliveryPlans.Counts, damagedGone: [String] = []
    ) -> Int32 {
        var status = DeliveryStatus()
        status.remote = remote
        status.pagePending = batches.pagePending
        status.rclone = rcloneProgram
        status.rcloneConfig = rcloneConfig
        status.shippingId = shippingId
        status.shippingLeft = batches.shipped || leftover
        status.boardFolder = board
        status.othersCleared = othersCleared
        status.zonesWanted = stageOptions.zones.isEmpty ? "" : stageOptions.zones.fingerprint
        status.readBackFrom = found.readBackNext
        status.goneReadBackFrom = found.goneReadBackNext
        status.keySent = self.keySent(after: batches, before: keySent)
        // What the page's files read back with, where they are: the next run finds them changed.
        if let p = previous, p.pageFolder == base { status.pageSent = p.pageSent }
        status.pageFolder = base
        status.pageSent.merge(batches.pageSums) { $1 }
        if status.pageSent.isEmpty { status.pageFolder = "" }
        status.delivered = counts.delivered
        status.remade = counts.remade
        // A run that did not list the remote keeps what the last one found.
        status.damagedThere = stop == nil ? damagedGone : previous?.damagedThere ?? []
        status.waiting = counts.left
        status.atMs = SystemClock.wallClockMs()
        let o = DeliveryPlans.outcome(
            stop: stop, counts: counts, remote: remote, base: base, previous: previous, quietFailures: quietFailures, nowMs: status.atMs)
        status.result = o.result
        status.reason = o.reason
        status.failures = o.failures
        status.failingSinceMs = o.failingSinceMs
        status.tryLater = o.tryLater
        for l in o.lines { printErr("cairn: \(l)") }
        do { try status.write(directory: dir) } catch { printErr("cairn: \(error)") }
        var r = status.json
        r.add("already_there", counts.alreadyThere)
        r.add("not_delivered", counts.failedTrips)
        r.add("sent_files", counts.sentFiles)
        r.add("sent_bytes", counts.sentBytes)
        r.add("problems", counts.problems)
        report = r
        return o.exitCode
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// One run of `cairn deliver` (see DeliverCommand): which trips wait, each staged (logs linked,
/// conversions made, the page), the whole batch shipped (DeliveryRun+Shipping), the receipts,
/// and what the run says (`DeliveryPlans.outcome`).
struct DeliveryRun {
    let dir: String
    let remote: String
    /// The remote folder of this board (`DeliverCommand.boardFolder`).
    let board: String
    let transport: TripRemote
    let retries: Int
    let formats: [ExportFormat]
    let copyLogs: Bool
    let stageOptions: ExportStageOptions
    /// Under systemd (standard error not a terminal): a failure that goes on is not said again.
    let quietFailures: Bool
    /// Keep the remote's page (index.html, index.tsv, pictures/) up to date.
    let page: Bool
    /// What the run did, for `deliver --json` (the status it wrote, its counts); nil when it
    /// ended before (the log directory unreadable, the remote the board's own storage).
    var report: JSONObject?
    /// The rclone program and config, kept in the status for retention.
    var rcloneProgram = ""
    var rcloneConfig = ""

    typealias Stop = DeliveryPlans.Stop

    var base: String { DeliverCommand.join(remote, board) }
    /// Where this run's batch goes up before it moves into the board's folder: beside that folder
    /// (rclone moves nothing into a folder from inside it), named for the board and the run (an
    /// rclone left running by a killed run writes only in its own).
    var shipping = ""
    /// What a receipt names as its destination: the board's folder on the remote (where
    /// retention looks for the copies), the formats sent there and, with privacy zones, their
    /// keyed hash: a folder, a format or a zone changed later sends every trip again.
    var receiptDestination: String {
        base + " " + (formats.isEmpty ? "none" : formats.map(\.name).joined(separator: ","))
            + (stageOptions.zones.isEmpty ? "" : " zones-" + stageOptions.zones.fingerprint)
    }
    var staging: String { POSIX.join(dir, DeliverCommand.stagingName) }
    /// The folder mirrored to `shipping`: the batch, laid out as under the board's folder.
    var outbox: String { POSIX.join(staging, "out") }

    /// A trip waiting: its files now, and what was staged for it.
    struct Waiting {
        var trip: TripRef
        var summary: TripSummary
        var now: [ExportState.CopiedFile]
        var staged: [DeliveryPlans.Staged] = []
        /// Its conversions, whether sent by this run or there already, and each format's name
        /// for it now.
        var conversions: [ExportState.SentFile] = []
        var names: [String: String] = [:]
        /// Its logs the listing did not show at the remote: they never replace a file there.
        var fresh: Set<String> = []
        /// Its files found there already, byte for byte, and their MD5s (for the receipt).
        var there: [String: String] = [:]
        var shown: PageTrip?
        var hidden: String?
        var failed = false
        /// Its names carry its logs' salts (`DeliveryRun.salted`; set as it is staged).
        var salted = true
        /// A trip pruned on the board, made again from its remote log (`remakeGone`): its
        /// conversions and row only; no log, no receipt, nothing deleted for it.
        var remade = false
    }

    /// The run, as a page: each step named here, its rule beside it (DeliveryRun+Survey,
    /// +Leftovers, +Key, +PageOwed, +Batches, +Status).
    mutating func go() -> Int32 {
        let previous = DeliveryStatus.read(directory: dir)
        let shippingId = chooseShippingFolder(previous)
        var leftover = previous?.shippingLeft == true
        var counts = DeliveryPlans.Counts()
        func problem(_ line: String) {
            printErr("cairn: \(line)")
            if counts.problems == 0 { counts.firstProblem = line }
            counts.problems += 1
        }
        let found: Survey
        switch surveyWithMarker(&counts, problem) {
        case .found(let f): found = f
        case .end(let code): return code
        }
        let othersCleared = clearOtherShippingFoldersOnce(previous, found)
        removeShippingOfOldRemote(previous, found)
        var stop = found.stop
        let outdated = stop == nil ? outdatedCuts(found.receipts) : []
        if stop == nil && leftover && found.waiting.isEmpty && removeLeftoverShipping() { leftover = false }
        let key = keyOwed(previous, found.listing, stop: stop)
        let pageChanged = pageChangedThere(previous, found.listing, stop: stop, readWrong: found.pageReadWrong)
        let redraw = picturesToRedraw(found, stop: stop)
        let (remade, keptGoneRows) = remakeGone(
            found.receipts, found.listing, outdated: outdated, rowOwed: page && pageChanged, readWrong: found.goneReadWrong, stop: stop)
        // What this run makes again is said as it goes up, not as lost.
        let remaking = Set(remade.flatMap { found.receipts.sent($0.trip, folder: base).map(\.path) })
        let damagedGone = damagedGoneCopies(found.receipts, found.listing, stop: stop, remaking: remaking, readWrong: found.goneReadWrong)
        let pageRedo = pageChanged || !redraw.isEmpty
        // A file under the name of a folder deliver writes in would hold every file back, run
        // after run: said, and nothing sent until it is moved away.
        let blocking = TripShipment.folders.filter { found.listing.files[$0] != nil }
        if stop == nil && !blocking.isEmpty && !found.waiting.isEmpty {
            problem("\(base): \(blocking.joined(separator: ", ")): a file where deliver keeps a folder; move it away")
            counts.failedTrips += found.waiting.count
        }
        // A page owed by an earlier run (cut, or its page failed) is made whatever this run sends.
        var batches = DeliveryBatches(
            run: self, previous: previous, shippingId: shippingId, survey: found, outdated: outdated, keyOwed: key.owed,
            keyDamaged: key.damaged, pagePending: page && (previous?.pagePending == true || !outdated.isEmpty || pageRedo), pageRedo: pageRedo,
            redraw: redraw, counts: counts)
        batches.keyTarget = key.target
        batches.keySentTo = key.sentTo
        batches.waiting += remade
        batches.keptGoneRows = keptGoneRows.subtracting(remade.map { pageKey($0.trip) })
        if stop == nil && blocking.isEmpty && batches.hasWork {
            switch send(&batches) {
            case .sent: break
            case .stopped(let e): stop = e
            case .refused(let code): return code
            }
        }
        if batches.shippingRemoved { leftover = false }
        removeStaging(staging)
        counts = batches.counts
        counts.left = found.waiting.count - counts.delivered - batches.gone + found.unreadable
        return finish(
            previous: previous, shippingId: shippingId, leftover: leftover, othersCleared: othersCleared, found: found, batches: batches,
            keySent: key.sent, stop: stop, counts: counts, damagedGone: damagedGone.filter { !batches.remadeFiles.contains($0) })
    }
}

import CairnExport
import CairnSystem

/// The last delivery's outcome, kept in the log directory as `delivery` (`key = value` lines)
/// for `cairn status` and for the next run: a failure is said once per outage, so a board out
/// of reach for a week does not fill the journal. Replaced atomically after each run.
struct DeliveryStatus: Equatable {
    static let fileName = "delivery"

    enum Result: String {
        case ok, failed, deferred
    }

    var result: Result = .ok
    /// When the run ended, wall clock (ms since the epoch).
    var atMs: Int64 = 0
    var remote = ""
    /// Trips delivered by this run.
    var delivered = 0
    /// Trips pruned on the board whose conversions or row this run made again from their
    /// remote logs (not delivered: their receipts stand).
    var remade = 0
    /// Finished trips not delivered after it.
    var waiting = 0
    /// Runs in a row that failed, and when the first of them ended.
    var failures = 0
    var failingSinceMs: Int64?
    /// What went wrong (failed) or why it waited (deferred).
    var reason = ""
    /// Trips were delivered but the remote's page does not show them yet.
    var pagePending = false
    /// The rclone program and config file the run used (empty: rclone's own): how retention
    /// reaches the remote its receipts name, to find the copies whole before it deletes.
    var rclone = ""
    var rcloneConfig = ""
    /// This log directory's shipping folder's name part (kept across runs, so that a run cut
    /// mid-upload is resumed by the next: what went up stays up), and whether a run left it.
    var shippingId = ""
    var shippingLeft = false
    /// The board's folder the last run delivered to (`DeliverCommand.boardFolder` keeps it).
    var boardFolder = ""
    /// The shipping folders of this board under other ids (a card before this one) were looked
    /// for and removed, once per log directory.
    var othersCleared = false
    /// The privacy zones' fingerprint the last run was asked to cut with, written before it
    /// reaches the remote ("" without zones): retention keeps a trip delivered cut otherwise.
    var zonesWanted = ""
    /// The run ended "try later" (75): a remote out of reach, not its setup refused (the LED
    /// shows the rides waiting, not delivery failing).
    var tryLater = false
    /// Where the next run's read-back of delivered copies starts, on a backend that lists no
    /// hashes (`DeliveryPlans.readBackTurn`).
    var readBackFrom = 0
    /// The same for the copies of trips pruned on the board (their own turn: `survey`).
    var goneReadBackFrom = 0
    /// The board's key as it last went up whole (or was found whole), and where: its MD5 and the
    /// board's folder ("" when never): a key there that differs from it later is this key
    /// damaged, sent again, not another board's (`DeliveryPlans.keyThere`).
    var keySent = ""
    /// The page's files as the last run that sent (or found) them read them back: name -> MD5
    /// (`DeliveryPlans.pageChanged`), and the board's folder they are in.
    var pageSent: [String: String] = [:]
    var pageFolder = ""
    /// Copies of trips no longer on the board found damaged on the remote by the last run's
    /// listing (relative paths under the board folder; `DeliveryPlans.damagedGone`): they cannot
    /// be sent again, and `cairn status` says so.
    var damagedThere: [String] = []

    static func read(directory: String) -> DeliveryStatus? {
        guard let text = readSmallFile(POSIX.join(directory, fileName), limit: 65536) else { return nil }
        var s = DeliveryStatus()
        // Without a result line it is no delivery's file (damaged, or another program's): not
        // shown, rather than read as a success.
        var any = false
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingSpaces, value = String(line[line.index(after: eq)...].trimmingSpaces)
            switch key {
            case "result":
                s.result = Result(rawValue: value) ?? .failed
                any = true
            case "at_ms": s.atMs = Int64(value) ?? 0
            case "remote": s.remote = value
            case "delivered": s.delivered = Int(value) ?? 0
            case "remade": s.remade = max(0, Int(value) ?? 0)
            case "waiting": s.waiting = Int(value) ?? 0
            case "failures": s.failures = Int(value) ?? 0
            case "failing_since_ms": s.failingSinceMs = Int64(value)
            case "reason": s.reason = value
            case "page": s.pagePending = value == "pending"
            case "rclone": s.rclone = value
            case "rclone_config": s.rcloneConfig = value
            case "shipping_id": s.shippingId = value.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } ? value : ""
            case "shipping": s.shippingLeft = value == "left"
            case "board_folder": s.boardFolder = value
            case "shipping_others": s.othersCleared = value == "cleared"
            case "zones": s.zonesWanted = value == "none" ? "" : value
            case "try_later": s.tryLater = value == "yes"
            case "read_back_from": s.readBackFrom = max(0, Int(value) ?? 0)
            case "gone_read_back_from": s.goneReadBackFrom = max(0, Int(value) ?? 0)
            case "key_sent": s.keySent = value
            case "page_folder": s.pageFolder = value
            case "damaged_there": s.damagedThere = value.split(separator: " ").map(String.init)
            case "page_md5":
                for item in value.split(separator: ",") {
                    let p = item.split(separator: ":")
                    if p.count == 2, p[1].utf8.count == 32 { s.pageSent[String(p[0])] = String(p[1]) }
                }
            default: continue
            }
        }
        return any ? s : nil
    }

    func write(directory: String) throws {
        var text = "# the last 'cairn deliver' (read by 'cairn status')\n"
        text += "result = \(result.rawValue)\nat_ms = \(atMs)\nat = \(TextFormat.isoTime(ms: atMs))\nremote = \(remote)\n"
        text += "delivered = \(delivered)\nwaiting = \(waiting)\nfailures = \(failures)\n"
        if remade > 0 { text += "remade = \(remade)\n" }
        if let f = failingSinceMs { text += "failing_since_ms = \(f)\n" }
        text += "page = \(pagePending ? "pending" : "ok")\n"
        if !rclone.isEmpty { text += "rclone = \(rclone)\nrclone_config = \(rcloneConfig)\n" }
        if !shippingId.isEmpty { text += "shipping_id = \(shippingId)\nshipping = \(shippingLeft ? "left" : "none")\n" }
        if !boardFolder.isEmpty { text += "board_folder = \(boardFolder)\n" }
        if othersCleared { text += "shipping_others = cleared\n" }
        text += "zones = \(zonesWanted.isEmpty ? "none" : zonesWanted)\n"
        if tryLater { text += "try_later = yes\n" }
        if readBackFrom > 0 { text += "read_back_from = \(readBackFrom)\n" }
        if goneReadBackFrom > 0 { text += "gone_read_back_from = \(goneReadBackFrom)\n" }
        if !keySent.isEmpty { text += "key_sent = \(keySent)\n" }
        if !pageSent.isEmpty {
            text +=
                "page_folder = \(pageFolder)\npage_md5 = \(pageSent.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))\n"
        }
        // Names cairn made (no spaces), one line; a few said, the count kept.
        if !damagedThere.isEmpty { text += "damaged_there = \(damagedThere.prefix(Self.damagedKept).joined(separator: " "))\n" }
        // One line: a reason from rclone may hold several.
        text += "reason = \(reason.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " "))\n"
        try writeFileAtomically(POSIX.join(directory, Self.fileName), Array(text.utf8))
    }

    /// The most damaged copies the file names.
    static let damagedKept = 20

    /// One line for `cairn status`.
    var summary: String {
        guard let first = damagedThere.first else { return resultSummary }
        let more = damagedThere.count > 1 ? " and \(damagedThere.count - 1) more" : ""
        return resultSummary + "; \(first)\(more) damaged on the remote (their trips are no longer on the board: not sent again)"
    }

    private var resultSummary: String {
        let when = TextFormat.isoTime(ms: atMs)
        switch result {
        case .ok:
            let again = remade > 0 ? " (and made \(remade) pruned trip\(remade == 1 ? "'s" : "s'") files again)" : ""
            return "delivered \(delivered) trip\(delivered == 1 ? "" : "s")\(again) to \(remote) at \(when); \(waiting) waiting"
        case .deferred:
            return "deferred at \(when) (\(reason)); \(waiting) waiting"
        case .failed:
            let since = failingSinceMs.map { " since \(TextFormat.isoTime(ms: $0))" } ?? ""
            return "failing\(since) (\(failures) run\(failures == 1 ? "" : "s")): \(reason); \(waiting) waiting"
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}

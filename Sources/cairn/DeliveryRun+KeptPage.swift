#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnLog
import CairnExport

/// A copy of the page's index as the last run made it, kept in the log directory (one per board
/// folder): the rows of trips pruned on the board outlive the remote's `index.tsv` deleted or
/// edited by hand (`DeliveryPlans.keptRows`).
extension DeliveryRun {
    /// LOGDIR/delivered-page-<the board folder's MD5, 16 hex>: another remote's rows never come in.
    var keptPagePath: String {
        var m = MD5()
        m.add(Array(base.utf8))
        return POSIX.join(dir, "delivered-page-" + String(m.hex().prefix(16)))
    }

    /// The kept index; empty when there is none or it cannot be read (read in bounded memory).
    func keptPage() -> TripIndex {
        guard let fd = try? POSIX.open(keptPagePath, O_RDONLY | O_CLOEXEC) else { return TripIndex() }
        defer { _ = POSIX.close(fd) }
        guard let bytes = try? POSIX.readToEnd(fd, limit: PageBuilder.maxIndexBytes), bytes.count <= PageBuilder.maxIndexBytes else {
            return TripIndex()
        }
        return TripIndex(text: String(decoding: bytes, as: UTF8.self))
    }

    /// Keeps the outbox's index (the page just made) as the kept copy. A row kept whose files
    /// never reached the remote is never shown from it (its files are not listed).
    func keepPage() {
        let made = POSIX.join(outbox, TripIndex.fileName)
        guard pathExists(made) else { return }
        do { _ = try copyFileAtomically(made, keptPagePath) } catch { printErr("cairn: \(keptPagePath): not kept: \(error)") }
    }

    /// The files and pictures of the kept rows of trips not on the board (`onBoard`: their
    /// keys; those rows are made from their logs), for the run's listing (`wantedNames`).
    func keptPageNames(onBoard: Set<String>) -> [String] {
        keptPage().entries.filter { !onBoard.contains($0.key) }.flatMap { $0.files + ($0.picture.map { [$0] } ?? []) }
    }

    /// The page's key of a trip on the board.
    func pageKey(_ t: TripRef) -> String {
        TripIndex.key(
            tripId: t.id, suffix: t.nameSuffix, board: TripCatalog.board(of: t, fallback: stageOptions.board), salt: t.files[0].header.salt)
    }

    /// Puts the kept rows the remote's index lacks back into `builder` (said); `making`: the keys
    /// this run makes from logs on the board; `keptGone`: pruned trips' rows the kept copy
    /// gives back where the remote's index has them otherwise (`remakeGone`).
    func restoreKeptRows(_ builder: PageBuilder, making: Set<String>, keptGone: Set<String> = [], listing: Listing) {
        let listedKeys = Set(builder.index.entries.map(\.key))
        let kept = keptPage().entries
        let edited = Set(kept.filter { k in keptGone.contains(k.key) && builder.index.entry(key: k.key).map { $0 != k } == true }.map(\.key))
        let rows = DeliveryPlans.keptRows(kept, listedKeys: listedKeys, making: making, edited: edited) { listing.files[$0] != nil }
        if rows.isEmpty { return }
        for r in rows { builder.keep(r) }
        let named = rows.prefix(3).map { "trip \($0.tripId) (\(terminalSafe($0.key)))" }.joined(separator: ", ")
        printErr(
            "cairn: \(base)/\(TripIndex.fileName) lacks \(rows.count) row\(rows.count == 1 ? "" : "s")\(edited.isEmpty ? "" : " (or has them edited)") of trips whose files are there"
                + " (\(named)\(rows.count > 3 ? " and \(rows.count - 3) more" : "")): kept on the page from the board's copy of it")
    }
}

import CairnExport

/// The page's rows as this log directory last made them (kept on the board, `DeliveryRun.keptPage`),
/// against the remote's index read in the same run (attack-r24 c16): the remote's `index.tsv` is
/// the only record of a trip the board pruned, so one deleted or edited there by hand would take
/// those trips off the page for good, though their files are still there.
extension DeliveryPlans {
    /// The kept rows the page gets back: each one the remote's index lacks (`listedKeys`), that
    /// this run does not make from a log on the board (`making`), and whose files are all listed
    /// on the remote in this run (`listed`); its picture only where that is listed too. A row
    /// whose files are gone is not made up. `edited`: keys of pruned trips' rows the remote's
    /// index has otherwise than the kept copy (edited there): put back too (deliv-38g).
    static func keptRows(
        _ kept: [TripIndex.Entry], listedKeys: Set<String>, making: Set<String>, edited: Set<String> = [], listed: (String) -> Bool
    ) -> [TripIndex.Entry] {
        var out: [TripIndex.Entry] = []
        for e in kept
        where (!listedKeys.contains(e.key) || edited.contains(e.key)) && !making.contains(e.key) && !e.files.isEmpty && e.files.allSatisfy(listed) {
            var row = e
            if let p = row.picture, !listed(p) {
                row.picture = nil
                row.pictureWidth = nil
                row.pictureHeight = nil
            }
            out.append(row)
        }
        return out
    }

    /// When the page changed there, which trips pruned on the board need their remote logs read
    /// to make their rows again (issue 38, deliv-38g: not all of them): `gone` each one's copies
    /// at the board's folder (logs and conversions); a trip whose row the kept copy of the page
    /// has, every file of it listed (`listed`), gets that row back instead (`keptRows`). Returns,
    /// per trip, its kept row's key or nil (its log is read).
    static func keptRowOfGone(_ gone: [Set<String>], kept: [TripIndex.Entry], listed: (String) -> Bool) -> [String?] {
        gone.map { paths in
            kept.first { e in !e.files.isEmpty && e.files.allSatisfy { paths.contains($0) && listed($0) } }?.key
        }
    }
}

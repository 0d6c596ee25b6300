import CairnExport

/// The page's rows as this log directory last made them (kept on the board, `DeliveryRun.keptPage`),
/// against the remote's index read in the same run (attack-r24 c16): the remote's `index.tsv` is
/// the only record of a trip the board pruned, so one deleted or edited there by hand would take
/// those trips off the page for good, though their files are still there.
extension DeliveryPlans {
    /// The kept rows the page gets back: each one the remote's index lacks (`listedKeys`), that
    /// this run does not make from a log on the board (`making`), and whose files are all listed
    /// on the remote in this run (`listed`); its picture only where that is listed too. A row
    /// whose files are gone is not made up.
    static func keptRows(_ kept: [TripIndex.Entry], listedKeys: Set<String>, making: Set<String>, listed: (String) -> Bool) -> [TripIndex.Entry] {
        var out: [TripIndex.Entry] = []
        for e in kept where !listedKeys.contains(e.key) && !making.contains(e.key) && !e.files.isEmpty && e.files.allSatisfy(listed) {
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
}

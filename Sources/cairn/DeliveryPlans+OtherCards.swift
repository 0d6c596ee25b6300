import CairnExport

/// What a run with privacy zones does about the page rows another card of the board delivered
/// (attack-r22 c29): a zone added on a new card must not leave the old card's uncut ride showing
/// the place, yet nothing is deleted on the strength of a copy not found whole in the same run,
/// and no ride another card delivered is lost.
extension DeliveryPlans {
    /// A page row another card of the board delivered (its key's salt is none of this card's
    /// logs'), as this run finds it.
    struct OtherRow: Equatable {
        var key: String
        /// Its conversions and picture, paths under the board's folder (its log copies apart:
        /// never deleted here).
        var shown: [String]
        /// Whether the row says a privacy zone cut it (the index's `left_out` 1).
        var cut: Bool
        /// Whether its points fall inside one of this run's zones; nil when no copy of its points
        /// was read this run.
        var inZone: Bool?
        /// Whether its log copy was read back whole from the remote in this run.
        var logWhole: Bool
    }

    enum OtherRowAction: Equatable {
        /// Shown as it is.
        case keep
        /// Its conversions and picture are deleted (the log stays, whole, beside them); the row
        /// stays on the page saying the ride awaits its card to be cut again.
        case withdraw([String])
        /// Nothing deleted (no whole copy of its log there to make it again from): the page
        /// shows the row without its picture or links, saying the ride awaits its card, and the
        /// run says which card must deliver with the zone.
        case veil
    }

    /// The action on one such row when the run has zones (`zones`: any).
    /// A row known to stay out of every zone is kept; one inside a zone is withdrawn where its
    /// log was read back whole this run, else veiled; one whose points were not read is kept when
    /// a zone cut it (its card delivered with zones) and veiled when not (uncut, it may show the
    /// place).
    static func otherCardRow(_ r: OtherRow, zones: Bool) -> OtherRowAction {
        guard zones else { return .keep }
        switch r.inZone {
        case false?: return .keep
        case true?: return r.logWhole ? .withdraw(safeShown(r.shown)) : .veil
        case nil: return r.cut ? .keep : .veil
        }
    }

    /// The paths of `shown` a withdrawal may delete: a conversion or picture one folder deep,
    /// never a log copy, nor a path with `..` or a NUL (the index may have been edited by anyone).
    static func safeShown(_ shown: [String]) -> [String] {
        let folders = Set(ExportFormat.allCases.map(\.name) + [PageBuilder.picturesFolder])
        return shown.filter { rel in
            let parts = rel.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 2 && folders.contains(String(parts[0])) && !parts[1].isEmpty && parts[1] != ".."
                && parts[1] != "." && !rel.utf8.contains(0)
        }
    }
}

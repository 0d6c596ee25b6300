import CairnCore
import CairnLog

/// A trip's raw fixes (record type 8): every fix the rules were offered, with the verdict on it,
/// streamed from the trip's files in order. Memory is bounded by one record.
public enum TripRaw {
    /// The trip has no raw fixes: recorded by a cairn before them, or with `record --raw off`;
    /// or they were in the records that could not be read (said when there are such).
    public static func missing(_ trip: TripRef) -> ExportError {
        let why = whyMissing(trip)
        return ExportError(
            "no raw fixes in \(trip.files.map(\.path).joined(separator: ", ")) (\(why)): the trip cannot be re-filtered, "
                + "nor its fixes shown one by one")
    }

    /// Why a trip holds no raw fix, for a message: recorded by an older cairn or with `record
    /// --raw off`, or (when its files have records that cannot be read) lost in those.
    public static func whyMissing(_ trip: TripRef) -> String {
        var unreadable = 0
        for f in trip.files {
            if let r = try? LogReader(path: f.path).scan() { unreadable += r.damaged.count + r.implausibleRecords + r.malformedRecords }
        }
        return unreadable > 0
            ? "recorded by an older cairn or with 'record --raw off', or lost in the \(unreadable) damaged record\(unreadable == 1 ? "" : "s") 'cairn verify' reports"
            : "recorded by an older cairn or with 'record --raw off'"
    }

    /// Whether the trip holds any raw fix (reads up to the first raw fixes record).
    public static func has(_ trip: TripRef) throws -> Bool {
        for f in trip.files {
            var found = false
            try LogReader(path: f.path).forEach { entry in
                if case .rawFixes(let b) = entry.record, !b.fixes.isEmpty { found = true }
                return !found
            }
            if found { return true }
        }
        return false
    }

    /// Calls `visit` with each raw fix of the trip and the batch it came in, oldest first; returns
    /// how many there were. Throws `missing` for a trip with none.
    @discardableResult
    public static func read(_ trip: TripRef, visit: (RawFix, RawBatch) throws -> Void) throws -> Int {
        var n = 0
        for f in trip.files {
            try LogReader(path: f.path).forEach { entry in
                guard case .rawFixes(let batch) = entry.record else { return true }
                for r in batch.fixes {
                    n += 1
                    try visit(r, batch)
                }
                return true
            }
        }
        if n == 0 { throw missing(trip) }
        return n
    }
}

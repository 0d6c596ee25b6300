import CairnCore
import CairnExport

/// The values several commands take, each read by one parser with one message naming the
/// option: `record` and `convert --refilter` (`--activity`, `--close-after`), `convert --to` and
/// `export --format`.
enum SharedOptions {
    /// `--activity <activity>`: ride, run, walk or drive (hike is a walk).
    static func activity(_ text: String) throws(UsageError) -> ActivityProfile {
        guard let p = ActivityProfile.named(text) else {
            throw UsageError("The value '\(text)' is invalid for '--activity <activity>': use ride, run, walk or drive")
        }
        return p
    }

    /// `--close-after <minutes>`: whole minutes from 5 to 1440, in ms.
    static func closeAfterMs(_ text: String) throws(UsageError) -> Int64 {
        guard let m = StrictNumber.whole(text), m >= 5, m <= 24 * 60 else {
            throw UsageError("The value '\(text)' is invalid for '--close-after <minutes>': use whole minutes from 5 to 1440")
        }
        return Int64(m) * 60_000
    }

    /// `--format <formats>`: formats, comma-separated, each once in the order given; `none` for
    /// no conversion.
    static func formats(_ text: String) throws(UsageError) -> [ExportFormat] {
        var formats: [ExportFormat] = []
        guard text != "none" else { return formats }
        for name in text.split(separator: ",").map(String.init) {
            guard let f = ExportFormat.named(name) else {
                throw UsageError("The value '\(name)' is invalid for '--format <formats>': use gpx, fit, geojson, kml, csv or none")
            }
            if !formats.contains(f) { formats.append(f) }
        }
        return formats
    }
}

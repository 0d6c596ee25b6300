import CairnCore
import CairnExport

/// The values several commands take, each read by one parser with one message naming the
/// option: `record` and `convert --refilter` (`--activity`, `--close-after`), `convert --to` and
/// `export --format`, `convert` and `export` (`--name-prefix`).
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

    /// `--name-prefix <text>` of `convert` and `export`: one spec, so both commands' help says
    /// the same.
    static let namePrefixOption = OptionSpec(
        name: "--name-prefix", valueName: "TEXT",
        help:
            "Put this text in front of each file name cairn makes (export's conversions; convert --to fit into a directory): up to 32 letters, digits, - and _. bike- gives bike-20250601-080000-trip1.gpx. (default: none)"
    )

    /// `--board <id>` of `convert`, `export` (and `deliver`): the board's name for trips whose
    /// log carries none (the log's own id wins).
    static let boardOption = OptionSpec(
        name: "--board", valueName: "ID",
        help:
            "The board's name for trips whose log carries none (recorded before ids, or without --board): file names, GPX, FIT, GeoJSON, CSV, KML. A log's own id wins. (default: board from --config, else none)"
    )

    /// `--board <id>` (record, convert, export, deliver): a `BoardId`.
    static func board(_ text: String) throws(UsageError) -> String {
        do {
            return try BoardId(parsing: text).text
        } catch {
            throw UsageError("The value '\(text)' is invalid for '--board <id>': \(error.reason)")
        }
    }

    /// The longest `--name-prefix`: the whole name stays far below the 255 bytes a file system allows.
    static let namePrefixMaxLength = 32

    /// `--name-prefix <text>`: 1 to 32 ASCII letters, digits, '-' and '_', so the names are the
    /// same on every file system and need no quoting in a shell.
    static func namePrefix(_ text: String) throws(UsageError) -> String {
        let u = Array(text.utf8)
        func allowed(_ c: UInt8) -> Bool {
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95
        }
        guard !u.isEmpty, u.count <= namePrefixMaxLength, u.allSatisfy(allowed) else {
            throw UsageError(
                "The value '\(text)' is invalid for '--name-prefix <text>': use 1 to \(namePrefixMaxLength) letters, digits, '-' or '_'")
        }
        return text
    }
}

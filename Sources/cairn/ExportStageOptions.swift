#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnExport

/// `--laps`, `--privacy-zone`, `--config` and `--privacy-key` of the commands that write or show
/// positions: what `ExportStages` does between the log and the writers, and the key that places
/// each zone's cut (`PrivacyCut`).
struct ExportStageOptions {
    var laps: LapRule = .marksElsePause
    /// The zones, with the board's key once there is a zone.
    var zones = PrivacyZones()
    /// The board id for trips whose log carries none (`board`).
    var board: String?

    static let options =
        [
            OptionSpec(
                name: "--laps", valueName: "LAPS",
                help:
                    "Laps: marks (one from each press of the rider's button), pause (one per part between pauses), a distance (1km, 5km, 10km, 1mi, 5mi: a lap ends at the first point at or past each mark) or none (one lap). FIT lap messages; the lap number in GPX cairn:lap, GeoJSON coordinateProperties.laps, CSV lap. (default: marks where the trip has presses, else pause)"
            )
        ] + zoneOptions

    /// The options of the commands that show positions without laps (render, cells, info).
    static let zoneOptions = [
        OptionSpec(
            name: "--privacy-zone", valueName: "LAT,LON,RADIUS_M",
            help:
                "Leave out every point near this place (home): inside a circle that covers it, moved off it by a secret offset from the privacy key, anywhere in a trip (the log keeps them); repeatable. The figures count what is written.",
            repeatable: true),
        OptionSpec(
            name: "--config", valueName: "FILE",
            help:
                "Read privacy-zone lines from this file (the recorder's; convert and export also its board line; its other keys are checked and ignored); with --privacy-zone, both count. none: no file. (default: \(defaultConfig) when it exists)"
        ),
        OptionSpec(
            name: "--privacy-key", valueName: "FILE",
            help:
                "The secret that places the zones' cuts (16 random bytes; this file must exist). (default: privacy-key in the log directory, which the recorder makes; for convert, beside the first input)"
        )
    ]

    /// The recorder's config file (deploy/cairn.service runs `record --config /etc/cairn.conf`):
    /// its privacy zones apply to every command that shows positions unless `--config` names
    /// another file or `none`.
    static let defaultConfig = "/etc/cairn.conf"

    /// The name of the key file in a log directory.
    static let keyFileName = "privacy-key"

    /// - Parameters:
    ///   - logDirectory: where the board keeps its key (`--dir` of export, render); nil for
    ///     `convert` and `cells`, which look beside their `inputs` (the first's key, the same in
    ///     every input's directory that holds one).
    ///   - defaultConfig: the config read when `--config` is not given, if it exists.
    static func parse(
        _ a: ParsedArguments, logDirectory: String? = nil, inputs: [String] = [], defaultConfig: String = defaultConfig
    ) throws -> ExportStageOptions {
        var o = ExportStageOptions()
        if let l = a.value("--laps") {
            guard let rule = LapRule.parse(l) else {
                throw UsageError(
                    "The value '\(l)' is invalid for '--laps <laps>': use marks, pause, none, or a distance from 0.01 to 1000 km or mi such as 1km, 5km, 10km, 1mi or 5mi"
                )
            }
            o.laps = rule
        }
        o.zones = try zones(a, logDirectory: logDirectory, inputs: inputs, defaultConfig: defaultConfig)
        o.board = try board(a, defaultConfig: defaultConfig)
        return o
    }

    /// The board id for trips whose log carries none: `--board`, else the `board` line of the
    /// config file (`configPath`), else nil. A bad id is an error naming the option or the line.
    static func board(_ a: ParsedArguments, defaultConfig: String = defaultConfig) throws -> String? {
        if let b = a.value("--board") { return try SharedOptions.board(b) }
        guard let path = try configPath(a, defaultConfig: defaultConfig) else { return nil }
        return try ConfigFile.load(path, options: RecordCommand.options).board()
    }

    /// The config file whose zones apply: `--config FILE`, none for `--config none`, else
    /// `defaultConfig` when it exists (the recorder's: its zones are what the rider asked to hide).
    static func configPath(_ a: ParsedArguments, defaultConfig: String) throws -> String? {
        switch a.value("--config") {
        case "none": return nil
        case "": throw UsageError("The value '' is invalid for '--config <file|none>'")
        case let path?: return path
        case nil: return pathExists(defaultConfig) ? defaultConfig : nil
        }
    }

    /// The zones of `--config` (or the default config) and `--privacy-zone`, and when there is
    /// one, the key.
    static func zones(
        _ a: ParsedArguments, logDirectory: String?, inputs: [String] = [], defaultConfig: String = defaultConfig
    ) throws -> PrivacyZones {
        var given: [(zone: PrivacyZone, source: String)] = []
        if let path = try configPath(a, defaultConfig: defaultConfig) {
            given += try ConfigFile.load(path, options: RecordCommand.options).privacyZoneLines()
        }
        for z in a.all("--privacy-zone") {
            switch PrivacyZone.parse(z) {
            case .success(let zone): given.append((zone, "--privacy-zone \(z)"))
            case .failure(let why): throw UsageError("The value '\(z)' is invalid for '--privacy-zone <lat,lon,radius_m>': \(why)")
            }
        }
        // A zone smaller than any cut: said, so that the rider knows what it hides (attack-r24).
        for g in given { if let note = PrivacyCut.smallZoneNote(g.zone, source: g.source) { printErr("cairn: note: " + note) } }
        let zones = given.map(\.zone)
        if a.value("--privacy-key")?.isEmpty == true { throw UsageError("The value '' is invalid for '--privacy-key <file>'") }
        guard !zones.isEmpty else { return PrivacyZones() }
        return PrivacyZones(zones, key: try key(a, logDirectory: logDirectory, inputs: inputs))
    }

    /// The key's file: `--privacy-key` (which must exist: a mistyped path never makes a second
    /// key), else the log directory's, else (convert, cells) the one beside the first input, which
    /// every other input's directory that holds a key must hold too: logs of two boards or cards
    /// given together would otherwise be cut with one's key, and the other's rides, published
    /// with their own, become a second cut of their home (attack-r20). No command that cuts
    /// makes a key: only the recorder does, in its own log directory, at start (`ensureKey`). A
    /// key made anywhere else (a card copied without it, a laptop) would cut the same rides a
    /// second way, and two cuts of one place give it away (issue 38); so without the board's
    /// key, zones are an error saying how to bring it.
    static func key(_ a: ParsedArguments, logDirectory: String?, inputs: [String]) throws -> PrivacyKey {
        let hint = "; give --privacy-key FILE"
        if let p = a.value("--privacy-key") {
            do throws(SecretFile.Failure) { return try load(p) } catch { throw Failure(error.description) }
        }
        var paths: [String] = []
        if let d = logDirectory {
            paths = [POSIX.join(d, keyFileName)]
        } else {
            for input in inputs.isEmpty ? ["."] : inputs {
                let p = POSIX.join(POSIX.isDirectory(input) ? input : POSIX.parent(of: input), keyFileName)
                if !paths.contains(p) { paths.append(p) }
            }
        }
        let path = paths[0]
        guard pathExists(path) else { throw Failure(missingKey(path)) }
        let key: PrivacyKey
        do throws(SecretFile.Failure) { key = try load(path) } catch { throw Failure(error.description + hint) }
        // A delivery's logs folder holds each card's key (`privacy-key-<16 hex>` beside the
        // first card's): which key cut which log is not written there, so none is guessed.
        if logDirectory == nil {
            let folder = POSIX.parent(of: path)
            let names = ((try? POSIX.listDirectory(folder)) ?? []).filter { n in
                n.hasPrefix(keyFileName + "-") && n.utf8.count == keyFileName.utf8.count + 17
            }.sorted()
            for n in names {
                guard let k = try? load(POSIX.join(folder, n)), k != key else { continue }
                throw Failure(
                    "\(folder) holds the privacy keys of several cards (\(keyFileName), \(n)): each card's logs are cut with its own,"
                        + " and which key goes with which log is not recorded there; convert each card's logs with --privacy-key FILE"
                        + " (its card's key), since cutting one card's rides with another's key makes a second cut of the zones")
            }
        }
        for other in paths.dropFirst() where pathExists(other) {
            let k: PrivacyKey
            do throws(SecretFile.Failure) { k = try load(other) } catch { throw Failure(error.description + hint) }
            if k != key {
                throw Failure(
                    "\(path) and \(other) are two different privacy keys: these logs come from two boards or cards, and cutting"
                        + " one's rides with the other's key makes a second cut of the zones, and two cuts of one place give it away;"
                        + " give each directory's logs on their own (each cut with the key beside it), or --privacy-key FILE")
            }
        }
        return key
    }

    /// What a command with zones says when the board's key is not at `path`.
    static func missingKey(_ path: String) -> String {
        "privacy zones need the board's privacy key, and there is none at \(path): "
            + "the recorder makes it in its log directory (`cairn record --dir DIR`, such as /var/lib/cairn/\(keyFileName)); "
            + "copy the board's \(keyFileName) there (`cairn export --logs yes` puts it beside the logs on the stick), or give --privacy-key FILE. "
            + "No new key is made: another key would cut the zones elsewhere, and two cuts of one place give it away"
    }

    /// The recorder's part: the board's key in its own log directory, made when missing (said
    /// once on stderr). Never a failure: a recorder records without it, and says why.
    static func ensureKey(directory: String, say: (String) -> Void) {
        let path = POSIX.join(directory, keyFileName)
        do throws(SecretFile.Failure) {
            if try SecretFile.readChecked(path, count: PrivacyKey.byteCount) != nil { return }
            let made = try SecretFile.create(path, count: PrivacyKey.byteCount)
            if made.created { say("made a new privacy key \(path) (keep it: it places the zones' cuts; one board, one key)") }
        } catch {
            say("\(error.description); privacy zones cannot be cut with this board's key until it is fixed (recording goes on)")
        }
    }

    /// Reads the key at `path`. A key its group or others may read is used, with a warning
    /// naming it.
    static func load(_ path: String) throws(SecretFile.Failure) -> PrivacyKey {
        if let read = try SecretFile.readChecked(path, count: PrivacyKey.byteCount), let k = PrivacyKey(bytes: read.bytes) {
            if read.othersMayRead {
                printErr("cairn: warning: the privacy key \(path) can be read by others; chmod 600 \(path)")
            }
            return k
        }
        throw SecretFile.Failure(
            description: "\(path): no such privacy key (--privacy-key names an existing key file, such as a copy of the board's privacy-key)")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnExport
import CairnLog
import CairnSystem

/// Which trips have been exported, kept in the log directory as `exported` (a small text file;
/// the log files themselves are never touched). One line per trip and destination:
///
///     <first log file name> <trip id> <salt> v2 <logs|nologs> <name/salt/size/crc,...> <destination>
///
/// The first file's name, the trip id and that file's random salt (from its header) name a trip
/// for good, even if a counter were ever reused. The list after `v2` is every file of the trip
/// as its copy was verified on the destination: name, header salt, size and CRC-32C. A trip
/// counts as exported only while its files are exactly those (a file that grew or changed, or a
/// new part of a resumed trip, makes it unexported until the next export), and only when the
/// logs themselves went to the stick (`nologs`: conversions only, no copy of the log).
///
/// Lines of cairn 0.3 and earlier (`<first> <trip> <salt> <destination>`, no sizes or checksums)
/// are kept and read as "exported, unverifiable": retention keeps such a trip, and the next
/// export checks the copies it finds on the stick byte for byte and records them in full.
/// Replaced atomically (temp, fsync, rename, directory fsync) whenever it changes.
///
/// `cairn deliver` keeps its receipts the same way in `delivered` (the destination is the remote);
/// after `logs`/`nologs` it adds `+hidden` (the trip was wholly inside a zone: no conversion) and
/// `+sent=gpx/NAME/SIZE,...` (the conversions sent, for the next run's listing to find whole),
/// then `+md5=logs/NAME:HEX,gpx/NAME:HEX,...`: each file's MD5 as it read back from the remote,
/// which a listing with hashes checks (a copy damaged at its size is found).
/// `+salted` (export's and delivery's): the trip's copies there carry its logs' salts in their
/// names (`TripShipment.logName`); a line without it names copies under cairn 0.3's plain names,
/// which that trip keeps there (`plainNames`), so that an upgrade sends nothing again.
/// Retention keeps a deleted trip's delivery receipts that name conversions (`retire`): a
/// delivery with other zones takes those down (`gone`), its log being no longer there to cut.
struct ExportState {
    static let fileName = "exported"
    static let deliveredFileName = "delivered"
    static let version = "v2"

    struct CopiedFile: Equatable {
        var name: String
        var salt: UInt32
        var digest: FileDigest
    }

    struct Entry {
        var file: String
        var trip: UInt64
        var salt: UInt32
        var destination: String
        /// Nil for a line written before files were recorded.
        var files: [CopiedFile]?
        var logs: Bool
        /// The trip was wholly inside a privacy zone when it was delivered: no conversion went.
        var hidden = false
        /// What a delivery sent beside the logs (conversions: path under the board's folder and
        /// size), for the next run's listing to find whole.
        var sent: [SentFile] = []
        /// The MD5 (lowercase hex) each file read back with, by its path under the board's folder.
        var md5: [String: String] = [:]
        /// Its copies there are named with their logs' salts (`TripShipment.logName`).
        var salted = false
    }

    struct SentFile: Equatable {
        var path: String
        var size: Int
    }

    let directory: String
    let fileName: String
    private(set) var entries: [Entry] = []
    /// What was wrong with the file as read (said by the commands), or nil.
    private(set) var problem: String?

    init(directory: String, fileName: String = Self.fileName) {
        self.directory = directory
        self.fileName = fileName
        // Up to 64 MiB: tens of thousands of trips; a longer file is not this state file.
        guard let text = readSmallFile(path, limit: 64 << 20) else {
            if pathExists(path) {
                problem = "\(path): cannot be read (or is over 64 MiB): every trip counts as never exported; the next export rewrites it"
            }
            return
        }
        var ignored = 0
        defer {
            if ignored > 0 {
                problem = "\(path): \(ignored) line\(ignored == 1 ? "" : "s") not understood, ignored (those trips count as never exported)"
            }
        }
        for l in text.split(separator: "\n") where !l.hasPrefix("#") {
            let parts = l.split(separator: " ", maxSplits: 3)
            guard parts.count >= 3, let id = UInt64(parts[1]), let salt = UInt32(parts[2], radix: 16) else { ignored += 1; continue }
            let rest = parts.count > 3 ? parts[3] : "-"
            let v2 = rest.split(separator: " ", maxSplits: 3)
            // "logs", "nologs", then "+hidden" and "+sent=gpx/NAME/SIZE,..." (a delivery's).
            let kind = v2.count == 4 ? v2[1].split(separator: "+") : []
            if v2.count == 4, v2[0] == Self.version, kind.first == "logs" || kind.first == "nologs", let files = Self.parseFiles(v2[2]),
                let extra = Self.parseExtra(kind.dropFirst())
            {
                entries.append(
                    Entry(
                        file: String(parts[0]), trip: id, salt: salt, destination: String(v2[3]), files: files, logs: kind.first == "logs",
                        hidden: extra.hidden, sent: extra.sent, md5: extra.md5, salted: extra.salted))
            } else {
                entries.append(Entry(file: String(parts[0]), trip: id, salt: salt, destination: String(rest), files: nil, logs: true))
            }
        }
    }

    private static func parseExtra(_ parts: ArraySlice<Substring>) -> (hidden: Bool, sent: [SentFile], md5: [String: String], salted: Bool)? {
        var hidden = false
        var salted = false
        var sent: [SentFile] = []
        var md5: [String: String] = [:]
        for p in parts {
            if p == "hidden" {
                hidden = true
            } else if p == "salted" {
                salted = true
            } else if p.hasPrefix("md5=") {
                for item in p.dropFirst(4).split(separator: ",") {
                    guard let colon = item.lastIndex(of: ":") else { return nil }
                    let hex = item[item.index(after: colon)...]
                    guard hex.utf8.count == 32, hex.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
                    md5[String(item[..<colon])] = String(hex)
                }
            } else if p.hasPrefix("sent=") {
                for item in p.dropFirst(5).split(separator: ",") {
                    guard let slash = item.lastIndex(of: "/"), let size = Int(item[item.index(after: slash)...]) else { return nil }
                    sent.append(SentFile(path: String(item[..<slash]), size: size))
                }
            } else {
                return nil
            }
        }
        return (hidden, sent, md5, salted)
    }

    private static func parseFiles(_ text: Substring) -> [CopiedFile]? {
        var out: [CopiedFile] = []
        for item in text.split(separator: ",") {
            let p = item.split(separator: "/", maxSplits: 2)
            guard p.count == 3, let salt = UInt32(p[1], radix: 16), let d = FileDigest(text: p[2]) else { return nil }
            out.append(CopiedFile(name: String(p[0]), salt: salt, digest: d))
        }
        return out.isEmpty ? nil : out
    }

    var path: String { POSIX.join(directory, fileName) }

    private static func same(_ e: Entry, _ t: TripRef) -> Bool {
        e.file == baseName(t.files[0].path) && e.trip == t.id && e.salt == t.files[0].header.salt
    }

    /// The trip's files now, as `CopiedFile`s (reads each file whole).
    static func current(_ t: TripRef) throws -> [CopiedFile] {
        try t.files.map { f in CopiedFile(name: baseName(f.path), salt: f.header.salt, digest: try FileDigest.of(f.path)) }
    }

    /// The files recorded for this trip's verified export to `destination`, when they are still
    /// the trip's files (`now`).
    func isExported(_ t: TripRef, to destination: String, now: [CopiedFile], logs: Bool) -> Bool {
        entries.contains { Self.same($0, t) && $0.destination == destination && $0.files == now && ($0.logs || !logs) }
    }

    /// What retention may rely on. Sizes are compared first, so that a trip that changed is
    /// told without reading its files.
    func verdict(_ t: TripRef) -> RetentionPlan.ExportVerdict {
        let mine = entries.filter { Self.same($0, t) }
        if mine.isEmpty { return .neverExported }
        let full = mine.filter { $0.files != nil }
        if full.isEmpty { return .unverifiable }
        let sizes = t.files.map { fileSize($0.path) }
        let candidates = full.filter { e in
            e.files!.count == t.files.count
                && zip(e.files!, zip(t.files, sizes)).allSatisfy { c, f in
                    c.name == baseName(f.0.path) && c.salt == f.0.header.salt && c.digest.size == f.1
                }
        }
        if candidates.isEmpty { return .changedSinceExport }
        guard let now = try? Self.current(t) else { return .changedSinceExport }
        let matching = candidates.filter { $0.files! == now }
        if matching.contains(where: { $0.logs }) { return .exported }
        return matching.isEmpty ? .changedSinceExport : .logsLeftOff
    }

    /// Records a verified export of `t` (its files as `files`) to `destination`, replacing what
    /// was recorded for that trip and destination before.
    /// `hidden`: the trip was wholly inside a privacy zone, so no conversion went.
    /// `sent`: the conversions a delivery sent (names without spaces, commas or '+'); `md5`: what
    /// its files read back with on the remote (path under the board's folder -> MD5).
    /// `salted`: the names its copies took there (`TripShipment.logName`).
    mutating func mark(
        _ t: TripRef, files: [CopiedFile], logs: Bool, destination: String, salted: Bool, hidden: Bool = false, sent: [SentFile] = [],
        md5: [String: String] = [:]
    ) {
        // The page's picture of it stays noted (`notePicture`): sending its files again leaves
        // the picture there as it was until the page is made again.
        var md5 = md5
        for e in entries where Self.same(e, t) && e.destination == destination {
            for (p, m) in e.md5 where p.hasPrefix(PageBuilder.picturesFolder + "/") && md5[p] == nil { md5[p] = m }
        }
        entries.removeAll { Self.same($0, t) && $0.destination == destination }
        let plain = { (p: String) in !p.contains { $0 == " " || $0 == "," || $0 == "+" || $0 == "\n" } }
        entries.append(
            Entry(
                file: baseName(t.files[0].path), trip: t.id, salt: t.files[0].header.salt, destination: destination, files: files, logs: logs,
                hidden: hidden, sent: sent.filter { plain($0.path) }, md5: md5.filter { plain($0.key) && $0.value.utf8.count == 32 },
                salted: salted))
    }

    /// Whether `t` keeps cairn 0.3's plain names at a remote folder (`folder`) or a stick
    /// (`destination`): a receipt of it there names copies sent under them (a line without
    /// `+salted`, or of before lines held files). A trip never sent there takes salted names.
    func plainNames(_ t: TripRef, folder: String) -> Bool {
        entries.contains { Self.same($0, t) && !$0.salted && Self.folder(ofDestination: $0.destination) == folder }
    }
    func plainNames(_ t: TripRef, destination: String) -> Bool {
        entries.contains { Self.same($0, t) && !$0.salted && $0.destination == destination }
    }
    /// Whether `t`'s copies at `destination` carry salted names, by its receipt there; nil when none.
    func saltedBefore(_ t: TripRef, destination: String) -> Bool? {
        entries.first { Self.same($0, t) && $0.destination == destination }?.salted
    }
    /// Whether the copies of `t` at `destination` (a receipt's) carry salted names.
    func salted(_ t: TripRef, destination: String) -> Bool {
        entries.first { Self.same($0, t) && $0.destination == destination }?.salted ?? true
    }

    /// The MD5s the files of `t`'s delivery to `destination` read back with (empty for a receipt
    /// of before they were kept).
    func md5s(_ t: TripRef, destination: String) -> [String: String] {
        entries.first { Self.same($0, t) && $0.destination == destination }?.md5 ?? [:]
    }

    /// Notes the MD5 the page's picture `path` read back with on the receipt at `destination`
    /// of the trip it shows (the one whose conversions name it, `DeliveryPlans.picture`): the
    /// next runs' listings find it damaged at its size where the backend has hashes.
    mutating func notePicture(_ path: String, md5: String, destination: String) {
        guard md5.utf8.count == 32, !path.contains(where: { $0 == " " || $0 == "," || $0 == "+" || $0 == "\n" }) else { return }
        for i in entries.indices where entries[i].destination == destination {
            if entries[i].sent.contains(where: { DeliveryPlans.picture(of: $0.path) == path }) { entries[i].md5[path] = md5 }
        }
    }

    mutating func forget(_ t: TripRef) { entries.removeAll { Self.same($0, t) } }

    /// Retention's deletion of `t`: forgets its receipts but those that name conversions sent
    /// (a delivery's): they stay, for a later delivery to find what was published of a trip it
    /// can no longer cut again (`gone`).
    mutating func retire(_ t: TripRef) { entries.removeAll { Self.same($0, t) && $0.sent.isEmpty } }

    /// A trip of the receipts whose first log is no longer in the log directory (deleted by
    /// retention after its delivery), with its receipts.
    struct GoneTrip {
        var file: String
        var trip: UInt64
        var salt: UInt32
        var receipts: [Entry]
    }

    /// The receipts of trips whose first log is gone from the directory, one per trip.
    func gone() -> [GoneTrip] {
        var out: [GoneTrip] = []
        for e in entries where !POSIX.exists(POSIX.join(directory, e.file)) {
            if let i = out.firstIndex(where: { $0.file == e.file && $0.trip == e.trip && $0.salt == e.salt }) {
                out[i].receipts.append(e)
            } else {
                out.append(GoneTrip(file: e.file, trip: e.trip, salt: e.salt, receipts: [e]))
            }
        }
        return out
    }

    /// Forgets the receipts of a trip that is gone (`gone`) at the remote folder `folder`.
    mutating func forget(_ g: GoneTrip, folder: String) {
        entries.removeAll { $0.file == g.file && $0.trip == g.trip && $0.salt == g.salt && Self.folder(ofDestination: $0.destination) == folder }
    }

    /// Whether the files recorded for `t` at `destination` are its files now by name, salt and
    /// size: what a timer's run checks, so that a board with months of logs is not read whole
    /// every quarter hour. A log only grows; one changed in place (a card's bit rot) must not be
    /// sent over its good copy anyway.
    func isExportedBySize(_ t: TripRef, to destination: String, logs: Bool) -> Bool {
        entries.contains { e in
            guard Self.same(e, t), e.destination == destination, e.logs || !logs, let files = e.files, files.count == t.files.count else {
                return false
            }
            return zip(files, t.files).allSatisfy { c, f in c.name == baseName(f.path) && c.salt == f.header.salt && c.digest.size == fileSize(f.path)
            }
        }
    }

    /// The destinations whose verified copies of `t` are its files now, logs included: where
    /// retention may look for them (reads the trip's files).
    func exportedDestinations(_ t: TripRef) -> [String] {
        guard let now = try? Self.current(t) else { return [] }
        return entries.filter { Self.same($0, t) && $0.logs && $0.files == now }.map(\.destination)
    }

    /// The destinations among `exportedDestinations(t)` where the log copies are there whole in
    /// this run (`DEST/logs/NAME`, the size and CRC-32C the receipt holds): an export's receipt
    /// alone is no copy found (the stick emptied, lost, not mounted), and nothing is deleted on
    /// the strength of a copy not found whole in the same run.
    func destinationsHoldingCopies(_ t: TripRef) -> [String] {
        guard let now = try? Self.current(t) else { return [] }
        return entries.filter { Self.same($0, t) && $0.logs && $0.files == now }.filter { e in
            now.allSatisfy { c in (try? FileDigest.of(POSIX.join(e.destination, TripShipment.logPath(c, salted: e.salted)))) == c.digest }
        }.map(\.destination)
    }

    /// Every destination a receipt names for `t`, whatever its files now.
    func destinations(_ t: TripRef) -> [String] { entries.filter { Self.same($0, t) }.map(\.destination) }

    /// The remote folder a delivery receipt's destination names ("nas:rides/bike gpx,fit
    /// zones-…" -> "nas:rides/bike"; the folder may hold spaces, the formats and zones do not).
    static func folder(ofDestination d: String) -> String? {
        var parts = d.split(separator: " ", omittingEmptySubsequences: false)
        if parts.last?.hasPrefix("zones-") == true { parts.removeLast() }
        guard parts.count >= 2 else { return nil }
        parts.removeLast()
        return parts.joined(separator: " ")
    }

    /// The files recorded for `t`'s copy at `destination`, nil when there is none.
    func files(_ t: TripRef, destination: String) -> [CopiedFile]? {
        entries.first { Self.same($0, t) && $0.destination == destination }?.files
    }

    /// The files of every verified copy of `t` recorded here (at any destination).
    func recorded(_ t: TripRef) -> [[CopiedFile]] { entries.filter { Self.same($0, t) }.compactMap(\.files) }

    /// The conversions a delivery of `t` to `destination` sent (empty for a receipt of before).
    func sent(_ t: TripRef, destination: String) -> [SentFile] {
        entries.first { Self.same($0, t) && $0.destination == destination }?.sent ?? []
    }

    /// The conversions every delivery of `t` to the remote folder `folder` sent (whatever its
    /// formats and zones were then).
    func sent(_ t: TripRef, folder: String) -> [SentFile] {
        entries.filter { Self.same($0, t) && Self.folder(ofDestination: $0.destination) == folder }.flatMap(\.sent)
    }

    /// Whether the receipt of `t` at `destination` says its logs went there.
    func sentLogs(_ t: TripRef, destination: String) -> Bool {
        entries.contains { Self.same($0, t) && $0.destination == destination && $0.logs }
    }

    /// Whether `t` went to `destination` wholly inside a privacy zone (no conversion).
    func hidesAll(_ t: TripRef, destination: String) -> Bool {
        entries.contains { Self.same($0, t) && $0.destination == destination && $0.hidden }
    }

    /// Whether a line names `t` at `destination` (its files as they were then, whatever now).
    func names(_ t: TripRef, destination: String) -> Bool { entries.contains { Self.same($0, t) && $0.destination == destination } }

    /// Forgets the export of `t` to `destination` only (its copy there no longer matches).
    /// Takes back what `t`'s receipts at `folder` say of its logs (as if sent without them), and
    /// keeps what they name as sent: retention keeps the trip, and the next run still finds the
    /// files it sent there.
    mutating func withholdLogs(_ t: TripRef, folder: String) {
        for i in entries.indices where Self.same(entries[i], t) && Self.folder(ofDestination: entries[i].destination) == folder {
            entries[i].logs = false
        }
    }

    mutating func forget(_ t: TripRef, destination: String) {
        entries.removeAll { Self.same($0, t) && $0.destination == destination }
    }

    func save() throws {
        let command = fileName == Self.deliveredFileName ? "cairn deliver" : "cairn export"
        var text =
            "# trips copied off this directory by '\(command)': first-file trip-id salt v2 logs|nologs name/salt/size/crc32c,... destination\n"
        for e in entries {
            text += "\(e.file) \(e.trip) \(String(e.salt, radix: 16)) "
            if let files = e.files {
                let list = files.map { "\($0.name)/\(String($0.salt, radix: 16))/\($0.digest.text)" }.joined(separator: ",")
                let sent = e.sent.isEmpty ? "" : "+sent=" + e.sent.map { "\($0.path)/\($0.size)" }.joined(separator: ",")
                let md5 = e.md5.isEmpty ? "" : "+md5=" + e.md5.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
                text += "\(Self.version) \(e.logs ? "logs" : "nologs")\(e.hidden ? "+hidden" : "")\(e.salted ? "+salted" : "")\(sent)\(md5) \(list) "
            }
            text += "\(e.destination)\n"
        }
        try writeFileAtomically(path, Array(text.utf8))
    }
}

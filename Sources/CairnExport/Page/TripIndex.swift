/// The ledger of the trips at one destination (`index.tsv` beside the exports), from which the
/// page (`IndexPage`) is made each time: a trip exported in an earlier run, and since deleted on
/// the board by retention, stays on the page.
///
/// The file is tab-separated text: a version line, a header line naming the columns, one line per
/// trip. Values escape `\` `\t` `\n` `\r` with a backslash; the `files` column lists relative
/// paths separated by spaces (a space in a path is `\s`). Reading never fails: a line it cannot
/// read (a column count that differs from the header's, a number that is not one, an unknown
/// escape) is kept verbatim and written back, and said in `problems` (one with NUL bytes, no
/// text at all, is dropped and said); columns it does not know (a
/// newer cairn's) are kept with their entries. Pure: no I/O.
public struct TripIndex: Sendable, Equatable {
    public static let fileName = "index.tsv"
    public static let version = 1
    static let versionPrefix = "# cairn trip index, version "
    /// The columns this version writes, in order. Those after `files` came later (issue 42): an
    /// older cairn keeps them as a newer version's columns, and an older file without them reads
    /// them as unknown (the page shows "–").
    public static let columns = [
        "key", "trip", "start_ms", "utc_offset_s", "activity", "distance_m", "moving_s", "ascent_m", "points", "name", "picture", "files",
        "elapsed_s", "max_speed_mps", "climb_source", "temp_min_c", "temp_max_c", "left_out", "picture_px", "hr_avg", "hr_max",
        "cadence_avg", "power_avg_w", "power_max_w", "withheld"
    ]

    /// One trip as the page shows it: the figures of what was written (privacy zones applied).
    public struct Entry: Sendable, Equatable {
        /// What identifies the trip at this destination (`TripIndex.key`): a re-export replaces it.
        public var key: String
        public var tripId: UInt64
        /// The first written point's time (UTC), and the recorder's UTC offset then.
        public var startMs: Int64?
        public var utcOffsetS: Int?
        public var activity: String?
        public var distanceM = 0.0
        public var movingS = 0.0
        public var ascentM: Double?
        public var points = 0
        /// The conversions' name without its extension (`bike-20250601-080000-trip3`).
        public var name: String
        /// The picture, relative to the index (`pictures/NAME.svg`); nil when none was drawn.
        public var picture: String?
        /// The written files, relative to the index: conversions, then log copies.
        public var files: [String] = []
        /// First to last written point, in seconds; nil when the index predates the column.
        public var elapsedS: Double?
        /// The top speed over the written points (`TripStats.maxSpeedMps`).
        public var maxSpeedMps: Double?
        /// Where the climb came from: "barometer" or "gps"; nil when unknown or no climb.
        public var climbSource: String?
        /// The barometer's temperature over the written points, lowest and highest (°C).
        public var temperatureMinC: Double?
        public var temperatureMaxC: Double?
        /// Whether a privacy zone left points out (more than 0) or not (0); nil: unknown. The
        /// file says only 1 or 0: the index lies beside the public page, and a count of the
        /// points left out is the time hidden near home (an older cairn's counts are rewritten).
        public var leftOut: Int?
        /// The picture's size in pixels ("320x486" in the file), so the page lays it out before
        /// it loads; nil when unknown.
        public var pictureWidth: Int?
        public var pictureHeight: Int?
        /// The Bluetooth sensors' figures over the written points, as the FIT session counts them
        /// (`SensorFigures`): heart rate (bpm), cadence (rpm, cranks turning), power (W); nil
        /// without that sensor or in an older index.
        public var heartRateAvg: Int?
        public var heartRateMax: Int?
        public var cadenceAvg: Int?
        public var powerAvgW: Int?
        public var powerMaxW: Int?
        public var pictureSize: (Int, Int)? {
            guard let w = pictureWidth, let h = pictureHeight, w > 0, h > 0 else { return nil }
            return (w, h)
        }
        /// Another card's ride that shows a place inside a privacy zone this board's page now
        /// has (attack-r22 c29): the page shows its figures without its picture or files until
        /// its card delivers it again, cut (a new entry of its key replaces this one).
        public var withheld = false
        /// Values of columns this version does not know, by column name.
        public var extra: [String: String] = [:]

        public init(key: String, tripId: UInt64, name: String) {
            self.key = key
            self.tripId = tripId
            self.name = name
        }
    }

    /// The trips, in the order they were first added (a re-export keeps its place).
    public private(set) var entries: [Entry] = []
    /// Lines that could not be read, kept verbatim (written back after the entries).
    public private(set) var kept: [String] = []
    /// What reading found wrong: "line N: why".
    public private(set) var problems: [String] = []
    /// The version the file said it was (this one's for a new index).
    public private(set) var fileVersion = TripIndex.version
    /// Columns of a newer version, in the order the file named them.
    private var extraColumns: [String] = []

    public init() {}

    /// The key of a trip at a destination: its id, the name suffix that tells a second recording
    /// of that id from the first (`TripRef.nameSuffix`), the board when known, and the salt of
    /// its first log (`-0000a1b2`) when given: trip 1 of a new card, or of another board in the
    /// same folder, is another trip than the trip 1 listed, and must never take its place (the
    /// page step deletes what a trip's entry no longer names).
    public static func key(tripId: UInt64, suffix: String = "", board: String? = nil, salt: UInt32? = nil) -> String {
        (board.map { $0 + "/" } ?? "") + "trip\(tripId)\(suffix)" + (salt.map { "-" + hex8($0) } ?? "")
    }

    /// `v` in 8 lowercase hex digits.
    public static func hex8(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: 8 - h.count) + h
    }

    /// Reads an index's text; never fails (see the type's comment).
    public init(text: String) {
        // Split on the byte: "\r\n" is one Character, which a split on "\n" would not see.
        var lines = text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if lines.last == "" { lines.removeLast() }
        var columns = Self.columns
        var lineNo = 0
        var sawHeader = false
        for raw in lines {
            lineNo += 1
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
            if lineNo == 1 {
                if line.hasPrefix(Self.versionPrefix), let v = Int(line.dropFirst(Self.versionPrefix.count)), v >= 1 {
                    fileVersion = v
                    if v > Self.version {
                        problems.append("line 1: version \(v), newer than this cairn's \(Self.version); read the columns it knows")
                    }
                    continue
                }
                problems.append("line 1: not a cairn trip index version line; read as version \(Self.version)")
            }
            if line.isEmpty { continue }
            // NUL bytes are no text an index holds (a file cut and padded with zeros, a disk's
            // garbage): such a line is dropped, not kept to be written back (attack-r20).
            if line.utf8.contains(0) {
                problems.append("line \(lineNo): not text (NUL bytes); dropped")
                continue
            }
            if !sawHeader && line.hasPrefix("key\t") {
                sawHeader = true
                let named = Self.fields(line)
                if Set(named).count != named.count || !named.contains("trip") {
                    problems.append("line \(lineNo): a header without 'trip' or with a column named twice; read as version \(Self.version)'s columns")
                    kept.append(raw)
                } else {
                    columns = named
                    extraColumns = named.filter { !Self.columns.contains($0) }
                }
                continue
            }
            if line.hasPrefix("#") {
                kept.append(raw)
                continue
            }
            switch Self.entry(line, columns: columns) {
            case .success(let e): merge(e)
            case .failure(let why):
                problems.append("line \(lineNo): \(why); kept as it is")
                kept.append(raw)
            }
        }
    }

    private struct Bad: Error, CustomStringConvertible {
        let why: String
        var description: String { why }
    }

    /// The tab-separated fields, split on the byte: a tab followed by a combining mark is one
    /// Character, which a split on "\t" would not see.
    static func fields(_ line: String) -> [String] {
        line.utf8.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func entry(_ line: String, columns: [String]) -> Result<Entry, Bad> {
        let fields = Self.fields(line)
        guard fields.count == columns.count else {
            return .failure(Bad(why: "\(fields.count) field\(fields.count == 1 ? "" : "s"), the header names \(columns.count)"))
        }
        var values: [String: String] = [:]
        for (c, f) in zip(columns, fields) {
            guard let v = unescaped(f) else { return .failure(Bad(why: "column \(c): a backslash not followed by \\, t, n, r or s")) }
            values[c] = v
        }
        guard let key = values["key"], !key.isEmpty else { return .failure(Bad(why: "column key: empty")) }
        guard let idText = values["trip"], let id = UInt64(idText) else {
            return .failure(Bad(why: "column trip: '\(values["trip"] ?? "")' is not a trip id"))
        }
        var e = Entry(key: key, tripId: id, name: values["name"] ?? "")
        func number<T>(_ c: String, _ parse: (String) -> T?) -> Result<T?, Bad> {
            guard let text = values[c], !text.isEmpty else { return .success(nil) }
            guard let v = parse(text) else { return .failure(Bad(why: "column \(c): '\(text)' is not a number")) }
            return .success(v)
        }
        func finite(_ s: String) -> Double? { Double(s).flatMap { $0.isFinite ? $0 : nil } }
        do throws(Bad) {
            e.startMs = try number("start_ms") { Int64($0) }.get()
            e.utcOffsetS = try number("utc_offset_s") { Int($0) }.get()
            e.distanceM = try number("distance_m", finite).get() ?? 0
            e.movingS = try number("moving_s", finite).get() ?? 0
            e.ascentM = try number("ascent_m", finite).get()
            e.points = try number("points") { Int($0) }.get() ?? 0
            e.elapsedS = try number("elapsed_s", finite).get()
            e.maxSpeedMps = try number("max_speed_mps", finite).get()
            e.temperatureMinC = try number("temp_min_c", finite).get()
            e.temperatureMaxC = try number("temp_max_c", finite).get()
            e.leftOut = try number("left_out") { Int($0) }.get()
            e.heartRateAvg = try number("hr_avg") { Int($0) }.get()
            e.heartRateMax = try number("hr_max") { Int($0) }.get()
            e.cadenceAvg = try number("cadence_avg") { Int($0) }.get()
            e.powerAvgW = try number("power_avg_w") { Int($0) }.get()
            e.powerMaxW = try number("power_max_w") { Int($0) }.get()
        } catch {
            return .failure(error)
        }
        if let a = values["activity"], !a.isEmpty { e.activity = a }
        if let p = values["picture"], !p.isEmpty { e.picture = p }
        if let c = values["climb_source"], !c.isEmpty { e.climbSource = c }
        e.withheld = values["withheld"] == "1"
        // A size that does not read is no size: the page only loses its placeholder.
        if let px = values["picture_px"] {
            let wh = px.split(separator: "x").compactMap { Int($0) }
            if wh.count == 2, wh.allSatisfy({ $0 > 0 && $0 < 100_000 }) { (e.pictureWidth, e.pictureHeight) = (wh[0], wh[1]) }
        }
        if let f = fields[safe: columns.firstIndex(of: "files")] {
            e.files = f.utf8.split(separator: 32).compactMap { unescaped(String(decoding: $0, as: UTF8.self)) }
        }
        for c in columns where !Self.columns.contains(c) { e.extra[c] = values[c] }
        return .success(e)
    }

    /// Adds a trip, or replaces the one with its key (keeping its place).
    public mutating func merge(_ e: Entry) {
        if let i = entries.firstIndex(where: { $0.key == e.key }) { entries[i] = e } else { entries.append(e) }
    }

    public func entry(key: String) -> Entry? { entries.first { $0.key == key } }

    /// Whether two entries say the same of their trip as the file writes it (figures to its
    /// precision): the picture, drawn when the entry goes, and columns of newer versions aside.
    /// A row edited or damaged at the destination differs from the one made from the trip's log.
    public static func sameFigures(_ a: Entry, _ b: Entry) -> Bool {
        func written(_ e: Entry) -> String {
            var e = e
            e.picture = nil
            e.pictureWidth = nil
            e.pictureHeight = nil
            e.extra = [:]
            var one = TripIndex()
            one.merge(e)
            return one.text
        }
        return written(a) == written(b)
    }

    /// Takes the trip with `key` off the index (a trip now wholly inside a privacy zone).
    public mutating func remove(key: String) { entries.removeAll { $0.key == key } }

    /// Marks the trip with `key` withheld (`Entry.withheld`).
    public mutating func withhold(key: String) {
        for i in entries.indices where entries[i].key == key { entries[i].withheld = true }
    }

    /// The index as text: version line, header, entries, then the lines kept verbatim.
    public var text: String {
        let cols = Self.columns + extraColumns
        var out = Self.versionPrefix + "\(max(fileVersion, Self.version))\n" + cols.joined(separator: "\t") + "\n"
        func n(_ v: Double) -> String { TextFormat.trimmed(v, 3) ?? "" }
        for e in entries {
            var f: [String] = [
                Self.escaped(e.key), "\(e.tripId)", e.startMs.map { "\($0)" } ?? "", e.utcOffsetS.map { "\($0)" } ?? "",
                Self.escaped(e.activity ?? ""), n(e.distanceM), n(e.movingS), e.ascentM.map(n) ?? "", "\(e.points)",
                Self.escaped(e.name), Self.escaped(e.picture ?? ""), e.files.map { Self.escaped($0, space: true) }.joined(separator: " ")
            ]
            let later: [String?] = [
                e.elapsedS.map(n), e.maxSpeedMps.map(n), e.climbSource.map { Self.escaped($0) }, e.temperatureMinC.map(n),
                e.temperatureMaxC.map(n), e.leftOut.map { $0 > 0 ? "1" : "0" }, e.pictureSize.map { "\($0.0)x\($0.1)" },
                e.heartRateAvg.map { "\($0)" }, e.heartRateMax.map { "\($0)" }, e.cadenceAvg.map { "\($0)" }, e.powerAvgW.map { "\($0)" },
                e.powerMaxW.map { "\($0)" }, e.withheld ? "1" : nil
            ]
            f += later.map { $0 ?? "" }
            for c in extraColumns { f.append(Self.escaped(e.extra[c] ?? "")) }
            out += f.joined(separator: "\t") + "\n"
        }
        for k in kept { out += k + "\n" }
        return out
    }

    static func escaped(_ s: String, space: Bool = false) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case " " where space: out += "\\s"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func unescaped(_ s: String) -> String? {
        guard s.contains("\\") else { return s }
        var out = ""
        var escape = false
        for c in s.unicodeScalars {
            if escape {
                switch c {
                case "\\": out += "\\"
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                case "s": out += " "
                default: return nil
                }
                escape = false
            } else if c == "\\" {
                escape = true
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return escape ? nil : out
    }
}

extension Array {
    fileprivate subscript(safe i: Int?) -> Element? {
        guard let i, i >= 0, i < count else { return nil }
        return self[i]
    }
}

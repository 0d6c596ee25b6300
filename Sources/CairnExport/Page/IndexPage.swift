/// The page beside the exports (`index.html`): each activity's totals, all time and per ISO week
/// and month (a drive never added to a ride), then every trip of the index, newest first, with
/// its date (local time when the log has the recorder's UTC offset), its figures (distance,
/// moving and elapsed time, average and top speed, climb, the temperature when known), a line
/// when a privacy zone left part of it out, its picture (loaded lazily) and links to its files. One self-contained file: inline CSS, no script, nothing
/// fetched from elsewhere, so it works opened from a folder (file://) and from any web server;
/// laid out for a phone first (no horizontal scrolling at 360 px). Every text from the index is
/// HTML-escaped and every link percent-encoded: names come from user prefixes, and an index file
/// may have been edited. Pure: no I/O.
public enum IndexPage {
    public static let fileName = "index.html"

    /// The page for `entries` (in any order), headed `title`.
    public static func html(_ entries: [TripIndex.Entry], title: String = "cairn trips") -> String {
        let trips = entries.sorted { a, b in
            let x = a.startMs ?? .min, y = b.startMs ?? .min
            return x != y ? x > y : a.key > b.key
        }
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="cairn">
            <title>\(escaped(title))</title>
            <style>
            \(css)</style>
            </head>
            <body>
            <header>
            <h1>\(escaped(title))</h1>

            """
        out += headline(trips)
        out += "</header>\n<main>\n"
        out += totalsSection(trips)
        if trips.isEmpty { out += "<p class=\"none\">No trips exported yet.</p>\n" }
        for e in trips { out += article(e) }
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    /// One line per activity, all time: "ride: 2 trips · 82.73 km · 2:34:25 moving"; a drive is
    /// never added to a ride.
    static func headline(_ trips: [TripIndex.Entry]) -> String {
        if trips.isEmpty { return "<p>0 trips</p>\n" }
        var out = "<ul class=\"sum\">\n"
        for t in Totals.byActivity(trips) {
            out +=
                "<li><b>\(escaped(t.activity))</b>: \(t.trips) trip\(t.trips == 1 ? "" : "s") · \(distance(t.distanceM)) · \(duration(t.movingS)) moving</li>\n"
        }
        return out + "</ul>\n"
    }

    /// The weeks' and months' totals, newest first: the latest few shown, the rest folded.
    static func totalsSection(_ trips: [TripIndex.Entry]) -> String {
        let weeks = Totals.by(.week, trips), months = Totals.by(.month, trips)
        if weeks.isEmpty { return "" }
        var out = "<section class=\"totals\">\n"
        out += totalsTable("Weeks", weeks, shown: 4)
        out += totalsTable("Months", months, shown: 3)
        return out + "</section>\n"
    }

    static func totalsTable(_ caption: String, _ rows: [Totals], shown: Int) -> String {
        func table(_ rs: ArraySlice<Totals>, caption: String?) -> String {
            var out = "<table>\n"
            if let caption { out += "<caption>\(caption)</caption>\n" }
            out += "<thead><tr><th></th><th></th><th>trips</th><th>distance</th><th>moving</th><th>climb</th></tr></thead>\n<tbody>\n"
            for r in rs {
                out += "<tr><td>\(escaped(r.period))</td><td>\(escaped(r.activity))</td><td>\(r.trips)</td><td>\(distance(r.distanceM))</td>"
                out += "<td>\(duration(r.movingS))</td><td>\(r.ascentM.map { "+" + (TextFormat.fixed($0, 0) ?? "?") + " m" } ?? "–")</td></tr>\n"
            }
            return out + "</tbody>\n</table>\n"
        }
        // The latest periods: every row of the `shown` newest periods.
        let periods = rows.map(\.period)
        var distinct: [String] = []
        for p in periods where distinct.last != p { distinct.append(p) }
        let cut = distinct.count > shown ? (periods.firstIndex(of: distinct[shown]) ?? rows.count) : rows.count
        var out = "<div class=\"period\">\n" + table(rows[..<cut], caption: caption)
        if cut < rows.count {
            out += "<details><summary>\(distinct.count - shown) earlier \(caption.lowercased())</summary>\n"
            out += table(rows[cut...], caption: nil) + "</details>\n"
        }
        return out + "</div>\n"
    }

    /// Totals over a period (or all time) for one activity.
    struct Totals: Equatable {
        enum Period { case week, month }
        var period = ""
        var activity: String
        var trips = 0
        var distanceM = 0.0
        var movingS = 0.0
        var ascentM: Double?

        mutating func add(_ e: TripIndex.Entry) {
            trips += 1
            distanceM += e.distanceM
            movingS += e.movingS
            if let a = e.ascentM { ascentM = (ascentM ?? 0) + a }
        }

        /// An entry's activity as the page names it.
        static func activity(_ e: TripIndex.Entry) -> String { e.activity ?? "other" }

        /// All time, one per activity, in the order first seen (newest trip first).
        static func byActivity(_ trips: [TripIndex.Entry]) -> [Totals] {
            var out: [Totals] = []
            for e in trips {
                let a = activity(e)
                if let i = out.firstIndex(where: { $0.activity == a }) {
                    out[i].add(e)
                } else {
                    var t = Totals(activity: a)
                    t.add(e)
                    out.append(t)
                }
            }
            return out
        }

        /// Per ISO week ("2025-W22") or month ("Jun 2025") of the trip's local start, and per
        /// activity: newest period first, activities by name. Trips without a date are left out.
        static func by(_ period: Period, _ trips: [TripIndex.Entry]) -> [Totals] {
            var keyed: [String: (sort: Int, t: Totals)] = [:]
            for e in trips {
                guard let ms = e.startMs else { continue }
                let day = IndexPage.localDay(ms, offsetS: e.utcOffsetS)
                let (label, sort) = period == .week ? IndexPage.isoWeek(day) : IndexPage.month(day)
                let a = activity(e)
                let k = label + "\t" + a
                var v = keyed[k] ?? (sort, Totals(period: label, activity: a))
                v.t.add(e)
                keyed[k] = v
            }
            return keyed.values.sorted { x, y in x.sort != y.sort ? x.sort > y.sort : x.t.activity < y.t.activity }.map(\.t)
        }
    }

    /// Days since 1970-01-01 of the local date at `ms` (the recorder's offset, else UTC).
    static func localDay(_ ms: Int64, offsetS: Int?) -> Int64 {
        let local = ms + Int64(offsetS ?? 0) * 1000
        return local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
    }

    /// The civil date of a day number (NumberText's, which the ISO times use).
    static func civil(_ day: Int64) -> (year: Int64, month: Int, day: Int) {
        let (y, m, d) = NumberText.civil(fromDays: day)
        return (y, Int(m), Int(d))
    }

    /// The day number of 1 January of `year`.
    static func firstOfYear(_ year: Int64) -> Int64 {
        let y = year - 1
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + 306  // 1 March of `year - 1` + 306 days
        return era * 146_097 + doe - 719_468
    }

    /// The ISO 8601 week of a day ("2025-W01": weeks start on Monday; week 1 holds the year's
    /// first Thursday) and a number that sorts weeks in time.
    static func isoWeek(_ day: Int64) -> (String, Int) {
        let weekday = Int((((day + 3) % 7) + 7) % 7)  // Monday 0; 1970-01-01 was a Thursday
        let thursday = day - Int64(weekday) + 3
        let year = civil(thursday).year
        let week = Int((thursday - firstOfYear(year)) / 7) + 1
        return ("\(year)-W" + (week < 10 ? "0" : "") + "\(week)", Int(year) * 100 + week)
    }

    /// "Jun 2025", and a number that sorts months in time.
    static func month(_ day: Int64) -> (String, Int) {
        let c = civil(day)
        return ("\(months[c.month - 1]) \(c.year)", Int(c.year) * 100 + c.month)
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static let css = """
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:#f3f1ec;color:#222;font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        header{padding:12px 12px 0;max-width:1040px;margin:0 auto}
        h1{font-size:1.4rem;margin:0}
        .sum{margin:4px 0 0;padding:0;list-style:none;color:#444;font-size:.95rem}
        .sum li{display:inline;margin-right:14px}
        main{padding:4px 8px 8px;max-width:1040px;margin:0 auto}
        .totals{display:flex;flex-wrap:wrap;gap:4px 24px;margin:4px 4px 8px}
        .period{flex:1 1 300px;min-width:0}
        table{border-collapse:collapse;font-size:.85rem;width:100%}
        caption{text-align:left;font-weight:600;color:#444;padding:2px 0}
        th{font-weight:normal;color:#666;text-align:right;padding:0 4px;font-size:.75rem}
        td{text-align:right;padding:1px 4px;border-top:1px solid #ddd7ca;white-space:nowrap}
        td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}
        details summary{font-size:.85rem;color:#1f4e79;cursor:pointer;padding:2px 0}
        .trip{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.12);margin:8px 0 12px;padding:10px 12px;display:grid;grid-template-columns:minmax(0,1fr);grid-template-areas:"head" "figs" "pic" "files"}
        .head{grid-area:head;min-width:0}
        .trip h2{font-size:1.1rem;margin:0}
        .trip h2 small{font-weight:normal;color:#666;font-size:.85rem}
        .what{margin:0;color:#555;font-size:.9rem;overflow-wrap:anywhere}
        .zone{margin:4px 0 0;padding:3px 8px;background:#f4efe2;border-left:3px solid #b08d3c;font-size:.85rem;color:#4a3d1c}
        .picture{grid-area:pic;display:block;margin:4px -4px 8px;max-width:336px}
        .picture img{display:block;width:100%;height:auto;border-radius:6px}
        .figures{grid-area:figs;display:grid;grid-template-columns:repeat(auto-fill,minmax(96px,1fr));gap:2px 10px;margin:8px 0}
        .figures div{min-width:0}
        .figures dt{font-size:.72rem;color:#666;text-transform:uppercase;letter-spacing:.03em}
        .figures dd{margin:0;font-size:1.05rem;font-weight:600;white-space:nowrap}
        .files{grid-area:files;display:flex;flex-wrap:wrap;gap:6px;margin:0;padding:0;list-style:none;align-self:start}
        .files a{display:inline-block;padding:5px 9px;border:1px solid #c9c3b6;border-radius:6px;color:#1f4e79;text-decoration:none;font-size:.85rem;overflow-wrap:anywhere}
        .files a:hover{background:#eef3f8}
        .none{padding:16px}
        @media (min-width:700px){.trip{padding:14px 16px;column-gap:20px;grid-template-columns:1fr 360px;grid-template-rows:auto auto 1fr;grid-template-areas:"head pic" "figs pic" "files pic"}.trip .picture{margin:0;max-width:360px}.figures{grid-template-columns:repeat(4,1fr);align-self:start}}

        """

    static func article(_ e: TripIndex.Entry) -> String {
        var out = "<article class=\"trip\" id=\"\(escaped(anchor(e.key)))\">\n<div class=\"head\">\n"
        out += "<h2>\(when(e))</h2>\n"
        var what: [String] = []
        if let a = e.activity { what.append(escaped(a)) }
        what.append("trip \(e.tripId)")
        what.append("\(e.points) point\(e.points == 1 ? "" : "s")")
        if !e.name.isEmpty { what.append(escaped(e.name)) }
        out += "<p class=\"what\">\(what.joined(separator: " · "))</p>\n"
        if let n = e.leftOut, n > 0 {
            out +=
                "<p class=\"zone\">The part near home is left out (a privacy zone): these figures and the picture count only the points shown.</p>\n"
        }
        if e.withheld {
            out +=
                "<p class=\"zone\">This ride passes a place inside a privacy zone: its map and files wait for the card that recorded it to deliver it again, cut.</p>\n"
        }
        out += "</div>\n"
        out += "<dl class=\"figures\">\n"
        for (name, value) in figures(e) { out += "<div><dt>\(name)</dt><dd>\(value)</dd></div>\n" }
        out += "</dl>\n"
        if let p = e.picture, staysInside(p), !e.withheld {
            let alt = "map and height profile of trip \(e.tripId)"
            var size = ""
            if let wh = e.pictureSize { size = " width=\"\(wh.0)\" height=\"\(wh.1)\"" }
            out += "<a class=\"picture\" href=\"\(href(p))\"><img src=\"\(href(p))\"\(size) loading=\"lazy\" alt=\"\(escaped(alt))\"></a>\n"
        }
        let files = e.withheld ? [] : e.files.filter(staysInside)
        if !files.isEmpty {
            out += "<ul class=\"files\">\n"
            for f in files { out += "<li><a href=\"\(href(f))\">\(escaped(label(f)))</a></li>\n" }
            out += "</ul>\n"
        }
        return out + "</article>\n"
    }

    /// The figures of a trip, as (name, HTML): every one from what was written; "–" for what the
    /// index does not know (an older cairn's line) or what cannot be said (no moving time).
    static func figures(_ e: TripIndex.Entry) -> [(String, String)] {
        let dash = "–"
        var out: [(String, String)] = [
            ("distance", distance(e.distanceM)),
            ("moving time", duration(e.movingS)),
            ("elapsed time", e.elapsedS.map(duration) ?? dash),
            ("average", average(e).map(speed) ?? dash),
            ("top speed", e.maxSpeedMps.map(speed) ?? dash),
            (e.climbSource == "barometer" ? "climb (barometer)" : "climb", e.ascentM.map { "+" + (TextFormat.fixed($0, 0) ?? "?") + " m" } ?? dash)
        ]
        if let lo = e.temperatureMinC, let hi = e.temperatureMaxC {
            let a = TextFormat.fixed(lo, 0) ?? "?", b = TextFormat.fixed(hi, 0) ?? "?"
            out.append(("temperature", (a == b ? a : a + "–" + b) + " °C"))
        }
        // The sensors' figures, each its own short cell (a phone's column is 96 px): only for a
        // sensor the ride had.
        let sensors: [(String, Int?, String)] = [
            ("avg heart rate", e.heartRateAvg, "bpm"), ("max heart rate", e.heartRateMax, "bpm"), ("avg cadence", e.cadenceAvg, "rpm"),
            ("avg power", e.powerAvgW, "W"), ("max power", e.powerMaxW, "W")
        ]
        for (name, value, unit) in sensors { if let v = value { out.append((name, "\(v) \(unit)")) } }
        return out
    }

    /// Distance over moving time (m/s); nil without moving time.
    static func average(_ e: TripIndex.Entry) -> Double? {
        guard e.movingS > 0, e.distanceM.isFinite, e.movingS.isFinite else { return nil }
        return e.distanceM / e.movingS
    }

    /// "24.3 km/h".
    static func speed(_ mps: Double) -> String {
        guard mps.isFinite, mps >= 0 else { return "–" }
        return (TextFormat.fixed(mps * 3.6, 1) ?? "?") + " km/h"
    }

    /// "Sun 1 Jun 2025, 10:00 <small>UTC+02:00</small>": the recorder's local time when the log
    /// has its offset, else UTC.
    static func when(_ e: TripIndex.Entry) -> String {
        guard let ms = e.startMs else { return "date unknown" }
        let offset = e.utcOffsetS ?? 0
        let local = ms + Int64(offset) * 1000
        let iso = TextFormat.isoTime(ms: local)  // 2025-06-01T10:00:00Z
        let u = Array(iso.utf8)
        guard u.count >= 16, let y = Int(String(decoding: u[0..<4], as: UTF8.self)),
            let m = Int(String(decoding: u[5..<7], as: UTF8.self)), let d = Int(String(decoding: u[8..<10], as: UTF8.self)),
            (1...12).contains(m)
        else { return escaped(iso) }
        let days = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let time = String(decoding: u[11..<16], as: UTF8.self)
        let zone = e.utcOffsetS == nil ? "UTC" : "UTC" + offsetText(offset)
        return "\(weekday) \(d) \(months[m - 1]) \(y), \(time) <small>\(zone)</small>"
    }

    /// "+02:00", "-03:30"; "" for zero.
    static func offsetText(_ s: Int) -> String {
        if s == 0 { return "" }
        let a = abs(s) / 60
        let h = a / 60, m = a % 60
        return (s < 0 ? "-" : "+") + (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    static func distance(_ m: Double) -> String {
        m >= 1000 ? (TextFormat.fixed(m / 1000, 2) ?? "?") + " km" : (TextFormat.fixed(m, 0) ?? "?") + " m"
    }

    /// As `list`, `info` and the picture's line say it (`TextFormat.clock`).
    static func duration(_ s: Double) -> String { TextFormat.clock(seconds: s) ?? "–" }

    /// A file's link text: its format (the folder it is in), or "log NAME" for a log copy.
    static func label(_ path: String) -> String {
        let parts = path.split(separator: "/")
        guard parts.count >= 2, let last = parts.last else { return path }
        let folder = parts[parts.count - 2]
        if folder == "logs" { return "log " + last }
        return folder.uppercased()
    }

    /// An element id from a key: letters, digits, '-' and '_' kept, the rest '_'.
    static func anchor(_ key: String) -> String {
        "t-"
            + String(
                key.unicodeScalars.map { c -> Character in
                    c.isASCII && (("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" || c == "_")
                        ? Character(c) : "_"
                })
    }

    /// Whether `path` names something in the page's folder or below it: no ".." part (an edited
    /// index could otherwise link or show any file beside or above the folder, such as a home
    /// directory's from a page opened as file://). Percent-encoding is no help: a browser reads
    /// "%2E%2E" as "..".
    static func staysInside(_ path: String) -> Bool {
        !path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains { $0.elementsEqual("..".utf8) }
    }

    /// A relative path as a URL: every byte outside the unreserved set and '/' percent-encoded,
    /// so no name can make a scheme (`javascript:`), a query or a fragment of it; a path that
    /// starts with '/' gets "./" before it, so none leads to another host (`//host/x`).
    static func href(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "./" : ""
        for b in path.utf8 {
            let c = Unicode.Scalar(b)
            if c.isASCII && (("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || "-._~/".unicodeScalars.contains(c)) {
                out.unicodeScalars.append(c)
            } else {
                let h = String(b, radix: 16, uppercase: true)
                out += "%" + (h.count == 1 ? "0" : "") + h
            }
        }
        return escaped(out)
    }

    /// Text safe in HTML content and in quoted attribute values.
    public static func escaped(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab and newline are not allowed in HTML text.
                if c.value < 0x20 && c != "\t" && c != "\n" || c.value == 0x7F { out += "\u{FFFD}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}

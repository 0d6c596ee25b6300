/// The page beside the exports (`index.html`): every trip of the index, newest first, with its
/// date (local time when the log has the recorder's UTC offset), distance, moving time, climb,
/// picture and links to its files. One self-contained file: inline CSS, no script, nothing
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
        let total = trips.reduce(0.0) { $0 + $1.distanceM }
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
            <p>\(trips.count) trip\(trips.count == 1 ? "" : "s") · \(distance(total))</p>
            </header>
            <main>

            """
        if trips.isEmpty { out += "<p class=\"none\">No trips exported yet.</p>\n" }
        for e in trips { out += article(e) }
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    static let css = """
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:#f3f1ec;color:#222;font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        header{padding:16px 16px 4px;max-width:960px;margin:0 auto}
        h1{font-size:1.5rem;margin:0}
        header p{margin:4px 0 0;color:#555}
        main{padding:8px;max-width:960px;margin:0 auto}
        .trip{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.12);margin:8px 0 16px;padding:12px;overflow:hidden}
        .trip h2{font-size:1.15rem;margin:0}
        .trip h2 small{font-weight:normal;color:#666;font-size:.85rem}
        .what{margin:2px 0 8px;color:#555;font-size:.9rem;overflow-wrap:anywhere}
        .picture{display:block;margin:0 -4px}
        .picture img{display:block;width:100%;height:auto;border-radius:6px}
        .figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:4px 12px;margin:10px 0}
        .figures div{min-width:0}
        .figures dt{font-size:.75rem;color:#666;text-transform:uppercase;letter-spacing:.04em}
        .figures dd{margin:0;font-size:1.2rem;font-weight:600}
        .files{display:flex;flex-wrap:wrap;gap:6px;margin:0;padding:0;list-style:none}
        .files a{display:inline-block;padding:6px 10px;border:1px solid #c9c3b6;border-radius:6px;color:#1f4e79;text-decoration:none;font-size:.9rem;overflow-wrap:anywhere}
        .files a:hover{background:#eef3f8}
        .none{padding:16px}
        @media (min-width:700px){.trip{padding:16px}.figures{grid-template-columns:repeat(4,1fr)}}

        """

    static func article(_ e: TripIndex.Entry) -> String {
        var out = "<article class=\"trip\" id=\"\(escaped(anchor(e.key)))\">\n"
        out += "<h2>\(when(e))</h2>\n"
        var what: [String] = []
        if let a = e.activity { what.append(escaped(a)) }
        what.append("trip \(e.tripId)")
        if !e.name.isEmpty { what.append(escaped(e.name)) }
        out += "<p class=\"what\">\(what.joined(separator: " · "))</p>\n"
        if let p = e.picture, staysInside(p) {
            let alt = "map and height profile of trip \(e.tripId)"
            out += "<a class=\"picture\" href=\"\(href(p))\"><img src=\"\(href(p))\" alt=\"\(escaped(alt))\"></a>\n"
        }
        out += "<dl class=\"figures\">\n"
        out += "<div><dt>distance</dt><dd>\(distance(e.distanceM))</dd></div>\n"
        out += "<div><dt>moving time</dt><dd>\(duration(e.movingS))</dd></div>\n"
        out += "<div><dt>climb</dt><dd>\(e.ascentM.map { "+" + (TextFormat.fixed($0, 0) ?? "?") + " m" } ?? "–")</dd></div>\n"
        out += "<div><dt>points</dt><dd>\(e.points)</dd></div>\n"
        out += "</dl>\n"
        let files = e.files.filter(staysInside)
        if !files.isEmpty {
            out += "<ul class=\"files\">\n"
            for f in files { out += "<li><a href=\"\(href(f))\">\(escaped(label(f)))</a></li>\n" }
            out += "</ul>\n"
        }
        return out + "</article>\n"
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

    static func duration(_ s: Double) -> String {
        guard s.isFinite, s >= 0 else { return "–" }
        let t = Int64(s.rounded())
        let h = t / 3600, m = t / 60 % 60, sec = t % 60
        return "\(h):" + (m < 10 ? "0" : "") + "\(m):" + (sec < 10 ? "0" : "") + "\(sec)"
    }

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

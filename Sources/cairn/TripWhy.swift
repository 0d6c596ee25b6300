import CairnCore
import CairnLog
import CairnExport

/// `cairn info --why`: a trip's timeline (`TripTimeline`), as text or JSON, printed as it is read.
enum TripWhy {
    static func run(_ sel: TripSelection, json: Bool, zones: PrivacyZones = PrivacyZones()) throws -> Int32 {
        var problems = sel.problems
        var first = true
        if json && sel.trips.count != 1 { printOut("[") }
        for t in sel.trips {
            do {
                guard try TripRaw.has(t) else { throw TripRaw.missing(t) }
                let activity = TripConversion.recordedActivity(of: t)
                if json {
                    try print(t, activity: activity, separator: first ? "" : ",", hidden: try hiddenStretches(t, zones))
                } else {
                    if !first { printOut("") }
                    try text(t, activity: activity, hidden: try hiddenStretches(t, zones))
                }
                first = false
            } catch {
                printErr("cairn: trip \(t.id): \(error)")
                problems += 1
            }
        }
        if json && sel.trips.count != 1 { printOut("]") }
        return try checkedStdout(problems > 0 ? ExitCode.failure : ExitCode.ok)
    }

    /// What each rule's drop means, for the text.
    static func meaning(_ r: DropReason?) -> String {
        guard let r else { return "written before the rules decided (they held it longer than the recorder keeps fixes waiting)" }
        switch r {
        case .invalid: return "values out of range, or a date before 2000"
        case .rough: return "worse than 50 m"
        case .timeNotAfter: return "a time not after the previous fix's"
        case .stale: return "older than 60 s when it arrived"
        case .firstFix: return "waiting for a good first fix (within 20 m, 50 m after 30 s, moving, confirmed by the next)"
        case .jump: return "farther than the activity's speed allows"
        case .spike: return "out to the side and straight back"
        case .standing: return "standing still"
        case .noSpeedNear: return "no speed, and within its own uncertainty of the last point"
        case .tooClose: return "closer than the distance filter"
        case .converging: return "after an outage, the position not yet moving as the doppler says"
        case .timeJump: return "a time off the time line that the next fixes did not confirm"
        case .noFix, .noTime, .duplicate, .noHeight: return r.name
        }
    }

    static func segmentText(_ r: SegmentReason) -> String {
        switch r {
        case .start: return "start (the recorder started a new file)"
        case .gap: return "gap (a silence crossed faster than the activity goes: no line across)"
        case .pause: return "pause (stood longer than the pause limit: no line across)"
        case .reconnect: return "reconnect (gpsd came back)"
        case .resume: return "resume (the trip goes on in a new file after a restart or a write failure)"
        case .reset: return "reset (five impossible jumps in a row: the last point was the bad one)"
        case .hidden: return "hidden (points in a privacy zone left out: no line across)"
        case .other: return "other"
        }
    }

    static func time(_ ms: Int64?) -> String { ms.map { TextFormat.isoTime(ms: $0) } ?? "-" }

    /// The stretches of the trip inside a zone's cut (time spans only: the timeline prints no
    /// position), at most `maxStretches` listed; nil without zones.
    static func hiddenStretches(_ t: TripRef, _ zones: PrivacyZones) throws -> Hidden? {
        guard !zones.isEmpty else { return nil }
        let w = zones.window(for: t)
        var h = Hidden()
        var open: (from: Int64, to: Int64, n: Int)?
        func close() {
            guard let o = open else { return }
            h.stretches += 1
            if h.listed.count < maxStretches { h.listed.append(o) }
            open = nil
        }
        try TripCatalog.read(t) { e in
            guard case .point(let f) = e else { return }
            if w.keeps(f) { return close() }
            h.points += 1
            open = (open?.from ?? f.timeMs, f.timeMs, (open?.n ?? 0) + 1)
        }
        close()
        return h
    }

    struct Hidden {
        var points = 0, stretches = 0
        var listed: [(from: Int64, to: Int64, n: Int)] = []
    }

    static let maxStretches = 100

    static func text(_ t: TripRef, activity: String?, hidden: Hidden? = nil) throws {
        printOut("Trip \(t.id) (\(activity.map(terminalSafe) ?? "unknown activity")): the decisions that shaped it")
        // The distance filter's thinning between kept points is counted per segment, not listed
        // (`--json` lists every run).
        var thinned = 0, thinnedRuns = 0
        func flushThinned() {
            guard thinned > 0 else { return }
            printOut(
                "  \(pad("", 46))and, in this stretch, \(thinned) fix\(thinned == 1 ? "" : "es") in \(thinnedRuns) run\(thinnedRuns == 1 ? "" : "s") dropped: too_close (thinned by the distance filter)"
            )
            thinned = 0
            thinnedRuns = 0
        }
        func line(_ when: String, _ what: String, breaks: Bool = false) {
            if breaks { flushThinned() }
            printOut("  \(pad(when, 46))\(what)")
        }
        try TripTimeline.read(t) { e in
            switch e {
            case .recorderStarted(let at): line(time(at), "recorder started", breaks: true)
            case .gpsdLost(let at): line(time(at), "gpsd was lost before this fix: the rules released what they held")
            case .closedWithoutFix(let at): line(time(at), "no fix for too long before this fix: the trip was closed")
            case .notLogged(let n, let before):
                line(
                    time(before), "\(n) earlier fix\(n == 1 ? "" : "es") not in the log (a long wait before the trip, or values the log cannot hold)")
            case .dropped(let r, let n, let from, let to, let beforeStart):
                if r == .tooClose && !beforeStart {
                    thinned += n
                    thinnedRuns += 1
                    return
                }
                let span = n == 1 ? time(from) : time(from) + " - " + String(time(to).dropFirst(11))
                line(
                    span, "\(n) fix\(n == 1 ? "" : "es") dropped\(beforeStart ? " before the start" : ""): \(r?.name ?? "undecided") (\(meaning(r)))")
            case .riderMark(let k, let at):
                let what = k == .end ? "the trip ends here (a long press)" : k == .lap ? "a lap (a short press)" : "a mark"
                let untimed = at == nil ? ", at no usable time (the clock was not set): placed nowhere" : ""
                line(time(at), "the rider's button: " + what + untimed, breaks: true)
            case .started(let at): line(time(at), "trip started: its first point", breaks: true)
            case .segment(let r, let at): line(time(at), "new segment: " + segmentText(r), breaks: true)
            case .ended(let r, let at):
                let why: String
                switch r {
                case .shutdown: why = "the recorder stopped"
                case .standstill: why = "a standstill longer than the close limit"
                case .home: why = "home: standing there longer than home's stand (--home-stand)"
                case .fault: why = "a write failure"
                case .rider: why = "the rider's button (a long press)"
                case .other: why = "other"
                }
                line(time(at), "trip ended: \(why)", breaks: true)
            }
        }
        flushThinned()
        if let h = hidden {
            printOut(
                "  privacy zones: \(h.points) point\(h.points == 1 ? "" : "s") in \(h.stretches) stretch\(h.stretches == 1 ? "" : "es") left out of every export"
                    + (h.stretches > h.listed.count ? "; the first \(h.listed.count):" : (h.listed.isEmpty ? "" : ":")))
            for s in h.listed {
                line(
                    time(s.from) + (s.n == 1 ? "" : " - " + String(time(s.to).dropFirst(11))), "\(s.n) point\(s.n == 1 ? "" : "s") in a privacy zone")
            }
        }
    }

    static func print(_ t: TripRef, activity: String?, separator: String, hidden: Hidden? = nil) throws {
        if !separator.isEmpty { printOut(separator) }
        printOut(
            "{\"trip\": \(t.id), \"activity\": \(activity.map(TextFormat.jsonString) ?? "null"), \"files\": ["
                + t.files.map { TextFormat.jsonString($0.path) }.joined(separator: ", ") + "], \"events\": [")
        var firstEvent = true
        func emit(_ fields: [(String, String)]) {
            let obj = "{" + fields.map { "\(TextFormat.jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
            printOut((firstEvent ? "  " : "  ,") + obj)
            firstEvent = false
        }
        func q(_ s: String) -> String { TextFormat.jsonString(s) }
        func tm(_ ms: Int64?) -> String { ms.map { q(TextFormat.isoTime(ms: $0)) } ?? "null" }
        try TripTimeline.read(t) { e in
            switch e {
            case .recorderStarted(let at): emit([("event", q("recorder_started")), ("time", tm(at))])
            case .gpsdLost(let at): emit([("event", q("gpsd_lost")), ("time", tm(at))])
            case .closedWithoutFix(let at): emit([("event", q("closed_without_fix")), ("time", tm(at))])
            case .notLogged(let n, let before): emit([("event", q("not_logged")), ("count", String(n)), ("time", tm(before))])
            case .dropped(let r, let n, let from, let to, let beforeStart):
                emit([
                    ("event", q("dropped")), ("rule", q(r?.name ?? "undecided")), ("count", String(n)),
                    ("from", tm(from)), ("to", tm(to)), ("before_start", beforeStart ? "true" : "false")
                ])
            case .riderMark(let k, let at):
                emit([("event", q("rider_mark")), ("kind", q(k == .end ? "end" : k == .lap ? "lap" : "other")), ("time", tm(at))])
            case .started(let at): emit([("event", q("started")), ("time", tm(at))])
            case .segment(let r, let at): emit([("event", q("segment")), ("reason", q(segmentName(r))), ("time", tm(at))])
            case .ended(let r, let at): emit([("event", q("ended")), ("reason", q(endName(r))), ("time", tm(at))])
            }
        }
        if let h = hidden {
            printOut(
                "], \"privacy\": {\"points\": \(h.points), \"stretches\": \(h.stretches), \"listed\": ["
                    + h.listed.map { "{\"from\": \(tm($0.from)), \"to\": \(tm($0.to)), \"points\": \($0.n)}" }.joined(separator: ", ") + "]}}")
        } else {
            printOut("]}")
        }
    }

    static func segmentName(_ r: SegmentReason) -> String {
        switch r {
        case .start: return "start"
        case .gap: return "gap"
        case .pause: return "pause"
        case .reconnect: return "reconnect"
        case .resume: return "resume"
        case .reset: return "reset"
        case .hidden: return "hidden"
        case .other: return "other"
        }
    }

    static func endName(_ r: TripEndReason) -> String {
        switch r {
        case .shutdown: return "shutdown"
        case .standstill: return "standstill"
        case .home: return "home"
        case .fault: return "fault"
        case .rider: return "rider"
        case .other: return "other"
        }
    }

    static func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count) }
}

import CairnCore
import CairnExport
import CairnLog

/// What `info` says of a trip's laps (the rider's button, issue 41): the laps every export
/// writes by default (`ButtonLaps`, through the same privacy zones: FIT's `num_laps`), and
/// whether a long press ended the trip, and the presses without a usable time (a clock not yet
/// set: kept and told, no lap). No line for a trip of one lap, which no long press ended and
/// with no press without a time: a press the exports leave out is not told.
struct InfoLaps: Equatable {
    var made: ButtonLaps
    var endedByButton: Bool
    /// Presses without a usable time (made before the clock was set): kept, said, no lap.
    var untimed = 0
    /// The long press had no usable time: placed nowhere, the exports keep the whole trip.
    var endUntimed = false

    /// A trip of one lap, the whole trip (FIT's one lap message): what `info --json` gives when
    /// `read` has nothing to say, so `laps` is always there (attack F10); the text says nothing.
    static let whole = InfoLaps(made: ButtonLaps(), endedByButton: false)

    /// The trip's laps as its default export makes them; nil when there is nothing to say.
    /// Without presses, the pause laps FIT writes (a stand that broke the line: attack c08,
    /// FIT had 2 laps where `info` said none); `summary` spares the second pass over a trip of
    /// one segment, which no pause split.
    static func read(_ t: TripRef, zones: PrivacyZones, summary: TripSummary? = nil) throws -> InfoLaps? {
        let marks = try TripMarks.read(t)
        let pressed = !marks.lapTimesMs.isEmpty || marks.endedByRider || marks.untimed > 0
        if !pressed, let s = summary, s.stats.segments <= 1, s.wheelSegments <= 1 { return nil }
        let made = try ButtonLaps.count(t, marks: marks, window: zones.isEmpty ? nil : zones.window(for: t))
        guard !made.startsMs.isEmpty || made.pauseLaps > 1 || pressed else { return nil }
        return InfoLaps(made: made, endedByButton: marks.endedByRider, untimed: marks.untimed, endUntimed: marks.endedByRider && marks.endMs == nil)
    }

    /// `info --json`'s `laps`: the count, the rule, each lap's start after the first (none with
    /// privacy zones, as the text), the end press (where the exports end, and the points after
    /// it they leave out) and the presses without a usable time.
    func json(published: Bool) -> String {
        var fields = ["\"count\": \(made.count)", "\"by\": \(made.startsMs.isEmpty ? "\"pause\"" : "\"button\"")"]
        if !published && !made.startsMs.isEmpty {
            fields.append("\"starts\": [" + made.startsMs.map { TextFormat.jsonString(TextFormat.isoTime(ms: $0)) }.joined(separator: ", ") + "]")
        }
        fields.append("\"ended_by_button\": \(endedByButton)")
        // A press before the first point places nothing: the exports keep the whole trip.
        if made.endBeforeStart { fields.append("\"end_press_before_start\": true") }
        if endUntimed { fields.append("\"end_press_without_time\": true") }
        // Where the exports end (the last point at or before the end press; no time with zones)
        // and the points after it they leave out.
        if let end = made.endMs {
            if !published { fields.append("\"end\": " + TextFormat.jsonString(TextFormat.isoTime(ms: end))) }
            fields.append("\"points_after_end\": \(made.afterEnd)")
            if made.recordsAfterEnd > 0 { fields.append("\"records_after_end\": \(made.recordsAfterEnd)") }
        }
        if untimed > 0 { fields.append("\"presses_without_time\": \(untimed)") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}

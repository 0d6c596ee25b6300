import CairnCore
import CairnExport
import CairnLog

/// What `info` says of a trip's laps (the rider's button, issue 41): the laps every export
/// writes by default (`ButtonLaps`, through the same privacy zones: FIT's `num_laps`), and
/// whether a long press ended the trip. No line for a trip whose presses make no lap and which
/// no long press ended: a press the exports leave out is not told.
struct InfoLaps: Equatable {
    var made: ButtonLaps
    var endedByButton: Bool

    /// The trip's laps as its default export makes them; nil when there is nothing to say.
    static func read(_ t: TripRef, zones: PrivacyZones) throws -> InfoLaps? {
        let marks = try TripMarks.read(t)
        guard !marks.lapTimesMs.isEmpty || marks.endMs != nil else { return nil }
        let made = try ButtonLaps.count(t, marks: marks, window: zones.isEmpty ? nil : zones.window(for: t))
        guard !made.startsMs.isEmpty || marks.endMs != nil else { return nil }
        return InfoLaps(made: made, endedByButton: marks.endMs != nil)
    }

    /// `info --json`'s `laps`: the count, the rule, each lap's start after the first (none with
    /// privacy zones, as the text), and the end press.
    func json(published: Bool) -> String {
        var fields = ["\"count\": \(made.count)", "\"by\": \(made.startsMs.isEmpty ? "\"pause\"" : "\"button\"")"]
        if !published && !made.startsMs.isEmpty {
            fields.append("\"starts\": [" + made.startsMs.map { TextFormat.jsonString(TextFormat.isoTime(ms: $0)) }.joined(separator: ", ") + "]")
        }
        fields.append("\"ended_by_button\": \(endedByButton)")
        return "{" + fields.joined(separator: ", ") + "}"
    }
}

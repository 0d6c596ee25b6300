import CairnCore

/// How `convert --laps` cuts a trip into laps.
public enum LapRule: Sendable, Equatable {
    /// One lap: the whole trip.
    case none
    /// One lap per part between pauses (`SegmentReason.pause`).
    case pause
    /// A lap every so many metres of the export's distance.
    case distance(Double)
    /// The rider's laps: a lap from each press of the button (`TripMarks`); a trip without
    /// presses is one lap.
    case marks
    /// The default: the rider's laps where the trip has presses, else pause laps
    /// (`forTrip(_:)` decides per trip).
    case marksElsePause

    /// "pause", "none", or a distance in km or mi ("1km", "5km", "10km", "1mi", "2.5mi"):
    /// plain decimal digits, from 0.01 to 1000 of its unit (Sources/CairnExport/Writers/UPLOADS.md: "any distance from
    /// 0.01 to 1000 km or mi"). nil for anything else.
    public static func parse(_ text: String) -> LapRule? {
        switch text {
        case "pause": return .pause
        case "none": return LapRule.none
        case "marks": return .marks
        default: break
        }
        let unit: Double
        let digits: Substring
        if text.hasSuffix("km") {
            unit = 1000; digits = text.dropLast(2)
        } else if text.hasSuffix("mi") {
            unit = 1609.344; digits = text.dropLast(2)
        } else {
            return nil
        }
        let u = Array(digits.utf8)
        guard !u.isEmpty, u.count <= 12, u.filter({ $0 == 46 }).count <= 1,
            u.contains(where: { $0 >= 48 && $0 <= 57 }),
            u.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }),
            let n = Double(String(digits)), n >= 0.01, n <= 1000
        else { return nil }
        return .distance(n * unit)
    }

    /// The rule for one trip: `marksElsePause` is the rider's laps when the trip has any, else
    /// pause laps; any other rule is itself (an explicit `--laps` wins over the presses).
    public func forTrip(_ marks: TripMarks) -> LapRule {
        guard self == .marksElsePause else { return self }
        return marks.lapTimesMs.isEmpty ? .pause : .marks
    }

    /// Whether the rule reads the trip's presses (`TripMarks`).
    public var usesMarks: Bool { self == .marks || self == .marksElsePause }

    /// FIT `lap_trigger` for a lap this rule ends (the trip's last lap is `session_end`).
    var fitTrigger: UInt8 {
        switch self {
        case .none: return 7  // session_end
        // time: the profile has no trigger for a pause (manual, time, distance, position_*,
        // session_end, fitness_equipment); the lap ends when a stand outlasts the pause's
        // time, by the clock and not the rider's hand (manual said a button was pressed).
        case .pause: return 1
        case .distance: return 2  // distance
        case .marks, .marksElsePause: return 0  // manual: the rider pressed the lap button
        }
    }
}

/// Numbers the points of one trip's export by lap, streamed (constant memory).
///
/// Distance laps end at the first point at or past each mark (1 km, 2 km, … of the distance the
/// export counts: the same steps `TripStats` counts, and across a tunnel the wheel's metres, so
/// FIT's record `distance` reaches the mark at that point). No point is invented at the exact mark (every record stays a measured one):
/// the distance at the end of lap k is k lengths plus less than the step that crossed the mark,
/// so a lap is its nominal length within one step either way, and the marks never drift. A step
/// that crosses two marks (a long tunnel chord) ends one lap. The point that reaches a mark is
/// the last point of its lap; the next lap starts there (its start time and position).
///
/// Pause laps: the first point after a pause starts the next lap; the pause's time belongs to the
/// lap it ends (elapsed time, as a device's lap counts a paused timer).
///
/// The rider's laps: a press ends its lap at the last point at or before it, and the next lap
/// starts there, as a distance lap does at the point that reaches its mark; the first point
/// after the press is the next lap's first own point (`startedAtMarkMs` says the press's time).
/// So a lap's timer and its distance run over the same steps, point to point, and the laps add
/// up to the session exactly (a press between seconds would otherwise take its fraction out of
/// the timer, and two presses around one point make a lap of a step's distance in less than the
/// step's time). Presses at or before the first point, before the second (a lap of one point,
/// no time), or after the last start none, and several presses between two points start one.
public struct LapSplitter: Sendable {
    /// The most laps a trip gets: a FIT lap's `message_index` holds its number in 12 bits (mask
    /// 0x0FFF, the bits above are flags; readers print 4095 itself as "mask"), so laps 0...4094.
    /// A 100 km ride in 10 m laps would have wrapped them. The last lap holds the rest.
    public static let maxLaps = 4_095

    public let rule: LapRule
    private var lap = 1
    private var distanceM = 0.0
    private var nextMarkM = 0.0
    private var last: Fix?
    private var segmentPending = false
    private var bridgeNext = false
    /// The last segment reason was a pause (`TripStats.countsDistance(pauseFrom:to:)`).
    private var pauseNext = false
    private var pausePending = false
    private var lapEndedAtLast = false
    /// The last point was the first: a lap ending there would hold no step.
    private var lastIsFirst = false
    /// The presses not yet reached (`LapRule.marks`), oldest first.
    private var pressesMs: [Int64]
    private var nextPress = 0
    /// The press whose lap the last point started (nil: it started none, or not by a press).
    public private(set) var startedAtMarkMs: Int64?

    /// `marks`: the trip's presses, for `LapRule.marks` (`marksElsePause` is taken as
    /// `rule.forTrip(marks)`).
    public init(_ rule: LapRule, marks: TripMarks = .none) {
        self.rule = rule.forTrip(marks)
        pressesMs = self.rule == .marks ? marks.lapTimesMs : []
        if case .distance(let d) = rule { nextMarkM = d }
    }

    /// Distance laps go on from `metres` already ridden before the next point (a trainer's
    /// indoor part written before the first point, whose own laps end at its last whole mark):
    /// the next mark is the next whole lap length past it, not a full length from the point
    /// (attack-r22 case 17: the 5 km mark was lost at the door). Other rules: nothing.
    public mutating func goOn(fromM metres: Double) {
        guard case .distance(let length) = rule, metres > 0 else { return }
        distanceM = metres
        nextMarkM = ((metres / length).rounded(.down) + 1) * length
    }

    /// The next point starts a segment for `reason` (several in a row: the last decides the
    /// distance, as for `TripStats`; any pause among them starts a lap).
    public mutating func segment(_ reason: SegmentReason) {
        segmentPending = true
        bridgeNext = TripStats.bridges(reason)
        pauseNext = reason == .pause
        if reason == .pause { pausePending = true }
    }

    /// The lap (from 1) of the next point of the export; nil for `LapRule.none`. `stepM`: the
    /// metres from the point before, where no position tells them (a trainer's wheel);
    /// `extraM`: what the wheel adds to the straight line across a gap (a tunnel), which the
    /// export's distance counts too.
    public mutating func lap(of fix: Fix, stepM: Double? = nil, extraM: Double = 0) -> Int? {
        defer {
            last = fix
            segmentPending = false
            bridgeNext = false
            pauseNext = false
            pausePending = false
        }
        startedAtMarkMs = nil
        switch rule {
        case .none:
            return nil
        case .marks, .marksElsePause:
            var pressed: Int64?
            // At the first point, a press at its own time too: the lap it ended would be empty.
            while nextPress < pressesMs.count, pressesMs[nextPress] < fix.timeMs || last == nil && pressesMs[nextPress] == fix.timeMs {
                pressed = pressesMs[nextPress]
                nextPress += 1
            }
            if let p = pressed, last != nil, !lastIsFirst, lap < Self.maxLaps {
                lap += 1
                startedAtMarkMs = p
            }
            lastIsFirst = last == nil
            return lap
        case .pause:
            if pausePending && last != nil && lap < Self.maxLaps { lap += 1 }
            return lap
        case .distance(let length):
            if lapEndedAtLast {
                if lap < Self.maxLaps { lap += 1 }
                lapEndedAtLast = false
            }
            // The distance `TripStats` counts: across a pause too, into a point without a speed.
            if let prev = last, !segmentPending || bridgeNext || (pauseNext && TripStats.countsDistance(pauseFrom: prev, to: fix)) {
                distanceM += (stepM ?? Geodesy.distance(prev, fix)) + extraM
            }
            if distanceM >= nextMarkM {
                lapEndedAtLast = true
                nextMarkM = ((distanceM / length).rounded(.down) + 1) * length
            }
            return lap
        }
    }
}

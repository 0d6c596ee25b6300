import CairnCore
import CairnLog

/// Trip-level facts an exporter may name.
public struct TripHeading: Sendable {
    public var id: UInt64
    public var activity: String?
    /// The trip's rebuilt figures, read before its points for writers that put them first
    /// (`TrackExporter.wantsSummaryFirst`); nil otherwise.
    public var summary: TripSummary?
    /// Added to file names made from the trip (`TripRef.nameSuffix`).
    public var nameSuffix = ""
    /// The board that recorded it (`TripCatalog.board(of:fallback:)`), nil when unknown.
    public var board: String?
    /// The trip's log holds sensor values (`SensorTrack`): writers whose layout is fixed per
    /// trip (FIT's laps and session) add the sensors' fields only then.
    public var hasSensors = false
    /// The lap rule for this trip (`LapRule.forTrip`), nil when the writer's own applies.
    public var laps: LapRule?
    /// The long press that ended the trip (`TripMarks.endMs`; the exports end at it).
    public var endPressMs: Int64?
    /// A long press ended the trip, with or without a usable time (`TripMarks.endedByRider`):
    /// FIT's last timer stop, at the last point written, is then the rider's (timer_trigger
    /// manual).
    public var endedByRider = false
    /// The trip has no position (a trainer, issue 40): its records are the wheel's.
    public var noPositions = false
    public init(id: UInt64, activity: String?, summary: TripSummary? = nil, nameSuffix: String = "", board: String? = nil) {
        self.id = id
        self.activity = activity
        self.summary = summary
        self.nameSuffix = nameSuffix
        self.board = board
    }
}

/// What travels with a point but is not part of the GPS fix: the barometer's measurements (stored
/// with the points), which writers write only when present and never invent; the lap the export
/// puts it in; and where the point's position comes from.
public struct PointExtras: Sendable, Equatable {
    /// Absolute (station) pressure, pascals: FIT `absolute_pressure`, GPX `cairn:pressure` and the
    /// CSV `pressure` column (both hPa).
    public var pressurePa: Double?
    /// Air temperature, degrees Celsius: FIT `temperature`, GPX `gpxtpx:atemp`, CSV `temp`.
    public var temperatureC: Double?
    /// The point's lap in the export (from 1; `LapSplitter`), nil without laps: FIT starts a lap
    /// message where it changes; GPX `cairn:lap`, GeoJSON `coordinateProperties.laps`, CSV `lap`.
    public var lap: Int?
    /// On the first point of a lap the rider's button started (`LapSplitter.startedAtMarkMs`):
    /// the press's time; FIT puts the lap's boundary and its lap event at the point before this
    /// one (the last at or before the press). nil on every other point. Where the press lies in a
    /// stretch a privacy zone left out, the zone's edge (the last point written before it): the
    /// lap and its event start there, and no time inside the zone is written.
    public var lapMarkMs: Int64?
    /// Measured, smoothed (`convert --smooth`: GPX `<src>`, CSV `origin`) or interpolated
    /// (`convert --fill-gaps`: GPX `cairn:interpolated`, GeoJSON `coordinateProperties.interpolated`,
    /// CSV `origin`).
    public var origin: PointOrigin
    /// The rules' verdict on a raw fix (`convert --raw`): GPX `cairn:verdict`, CSV `verdict`.
    public var verdict: Verdict?
    /// The sensors' values at the point's time (`SensorTrack`): beats per minute (FIT
    /// `heart_rate`, GPX `gpxtpx:hr`, CSV `heartrate`), crank revolutions per minute (FIT `cadence`,
    /// GPX `gpxtpx:cad`, CSV `cadence`), watts (FIT `power`, GPX `gpxpx:PowerInWatts`, CSV `power`).
    public var heartRate: Int?
    public var cadence: Int?
    public var powerW: Int?
    /// A record of a trip without positions (a trainer, `TripHeading.noPositions`): the fix's
    /// position is none; FIT writes it invalid, CSV leaves lat and lon empty.
    public var noPosition = false
    /// The metres the wheel measured beyond the straight line from the point before (a
    /// tunnel's gap; on a trainer every step's metres): added to FIT's distance.
    public var wheelExtraM: Double?
    /// On a trainer, the wheel's moving time over the step (`WheelTrack.Sample.movingMs`): FIT's
    /// timer is the moving time `list` and `info` give, not one derived from the top speed.
    public var wheelMovingMs: Int64?
    public init(
        pressurePa: Double? = nil, temperatureC: Double? = nil, lap: Int? = nil, origin: PointOrigin = .measured,
        verdict: Verdict? = nil
    ) {
        self.pressurePa = pressurePa
        self.temperatureC = temperatureC
        self.lap = lap
        self.origin = origin
        self.verdict = verdict
    }
    public static let none = PointExtras()

    /// What the log stored with a point (the barometer's pressure and temperature), and where
    /// the export-side stages say its position comes from.
    public init(_ fix: Fix, origin: PointOrigin = .measured) {
        self.init(pressurePa: fix.pressurePa, temperatureC: fix.temperatureC, origin: origin)
    }

    /// A raw fix's barometer values and verdict.
    public init(_ raw: RawFix) {
        self.init(pressurePa: raw.fix.pressurePa, temperatureC: raw.fix.temperatureC, verdict: raw.verdict)
    }
}

/// A streaming writer for one output format: it sees the trips' events in order and never holds
/// a trip in memory (whatever a format needs out of order goes through a `Spool`, a temporary
/// file, never the heap).
public protocol TrackExporter: AnyObject {
    /// True when `beginTrip` needs `TripHeading.summary` (costs the caller one extra read of the
    /// trip's log, still streamed).
    var wantsSummaryFirst: Bool { get }
    /// True when the format can hold a trip without positions (`PointExtras.noPosition`): FIT's
    /// indoor records, CSV's rows; GPX, GeoJSON and KML are tracks of positions.
    var holdsNoPositions: Bool { get }
    func begin()
    /// Throws when the trip's output cannot be opened (FIT's one file per trip).
    func beginTrip(_ heading: TripHeading) throws(ExportError)
    /// The next point starts a new segment (a GPX `<trkseg>`, a FIT timer stop/start).
    func beginSegment(_ reason: SegmentReason)
    func point(_ fix: Fix, _ extras: PointExtras)
    /// Ends the trip; throws if writing its output failed (FIT's one file per trip).
    func endTrip() throws(OutputError)
    /// Finishes the document; throws if writing failed.
    func end() throws(OutputError)
}

extension TrackExporter {
    public var wantsSummaryFirst: Bool { false }
    public var holdsNoPositions: Bool { false }
    public func beginSegment() { beginSegment(.other) }
    public func point(_ fix: Fix) { point(fix, .none) }
}

/// The exporters' shared view of one point: the values every format writes the same way.
enum PointValues {
    /// Whether a point can be written at all: a finite, in-range position and a time within
    /// `PointBounds`. The reader never hands over another (it skips such records as damaged);
    /// writers check anyway, so that no caller can make a number print as nothing.
    @inline(__always)
    static func isWritable(_ fix: Fix) -> Bool { PointBounds.hasValidTimeAndPosition(fix) }

    /// The height to export, or nil when it is not trusted (see `Accuracy.heightIsTrusted`).
    @inline(__always)
    static func height(_ fix: Fix) -> Double? {
        guard Accuracy.heightIsTrusted(fix), let h = fix.height, h.isFinite else { return nil }
        return h
    }

    /// Vertical speed only where the height itself is trusted: gpsd derives it from the heights.
    @inline(__always)
    static func climb(_ fix: Fix) -> Double? {
        guard let c = fix.climb, c.isFinite, Accuracy.heightIsTrusted(fix) else { return nil }
        return c
    }

    @inline(__always)
    static func finite(_ v: Double?) -> Double? {
        guard let v, v.isFinite else { return nil }
        return v
    }
}

import CairnCore

/// CSV, one row per point, streamed: a header row, commas, `.` decimals, UTF-8, times in ISO 8601
/// UTC with `Z`, SI units except pressure (hPa, as weather tools expect):
///
///     time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board
///
/// Empty cells where a value was not measured (`ele` where the height is not trusted). `segment`
/// counts from 1 within each trip; `board` is the board that recorded it (`BoardId`), empty when
/// unknown (the column is always there, so one table holds every board's rows). With laps (`convert --laps`), a column `lap`: the point's lap,
/// from 1 within each trip. gpsbabel's `unicsv` reads the columns by name (by substring: no
/// column name here contains another's keyword; "interpolated" would, as latitude).
///
/// With `origins` (`convert --smooth` or `--fill-gaps`) a column `origin` says `measured`,
/// `smoothed` or `interpolated` for each row; with `verdicts` (`convert --raw`) a last column
/// `verdict` holds the rules' verdict on each fix (`Verdict.name`).
public final class CSVWriter: TrackExporter {
    public static let header = "time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board\n"
    private let out: OutputSink
    private let laps: Bool
    private let origins: Bool
    private var trip: UInt64 = 0
    /// The trip's board id: letters, digits, '.', '_' and '-', so a cell that needs no quoting.
    private var board = ""
    private var segment = 0
    private var segmentRequested = false
    private var inTrip = false

    private let verdicts: Bool

    /// `laps`: write the `lap` column (the points' `PointExtras.lap`); `origins`: the `origin`
    /// column; `verdicts`: the `verdict` column.
    /// `sensorColumns`: the sensor columns or not whatever the first trip has (a document of
    /// several trips, any of which has sensor values); nil: the first trip's.
    public init(
        sink: OutputSink, laps: Bool = false, origins: Bool = false, verdicts: Bool = false, sensorColumns: Bool? = nil
    ) {
        out = sink
        documentSensors = sensorColumns
        self.laps = laps
        self.origins = origins
        self.verdicts = verdicts
    }

    /// The header line for these columns.
    public static func header(laps: Bool, origins: Bool, verdicts: Bool = false) -> String {
        String(header.dropLast()) + (laps ? ",lap" : "") + (origins ? ",origin" : "") + (verdicts ? ",verdict" : "") + "\n"
    }

    /// The header waits for the first trip: its sensor columns (`heartrate,cadence,power`, last) are
    /// there when that trip's log holds sensor values, or, given `sensorColumns` (`convert` of
    /// several trips), when any trip's does: every trip's values are then in the document.
    public var holdsNoPositions: Bool { true }
    public func begin() { headerPending = true }
    private var headerPending = false
    private var sensorColumns = false
    private let documentSensors: Bool?

    private func writeHeader(sensors: Bool) {
        headerPending = false
        sensorColumns = sensors
        let h = Self.header(laps: laps, origins: origins, verdicts: verdicts)
        out.write(sensors ? String(h.dropLast()) + ",heartrate,cadence,power\n" : h)
    }

    public func beginTrip(_ heading: TripHeading) {
        if headerPending { writeHeader(sensors: documentSensors ?? heading.hasSensors) }
        trip = heading.id
        board = heading.board.flatMap(BoardId.init)?.text ?? ""
        segment = 0
        segmentRequested = true
        inTrip = true
    }

    public func beginSegment(_ reason: SegmentReason) { segmentRequested = true }

    public func point(_ fix: Fix, _ extras: PointExtras) {
        guard PointValues.isWritable(fix) else { return }
        guard inTrip else { return }
        if segmentRequested {
            segment += 1
            segmentRequested = false
        }
        let comma = UInt8(ascii: ",")
        out.isoTime(ms: fix.timeMs)
        out.byte(comma)
        // A trainer's rows (no position): lat and lon empty.
        if !extras.noPosition { out.decimal(TextFormat.latitude(fix.lat), 7) }
        out.byte(comma)
        if !extras.noPosition { out.decimal(TextFormat.longitude(fix.lon, decimals: 7), 7) }
        out.byte(comma)
        if let h = PointValues.height(fix) { out.decimal(h, 2) }
        out.byte(comma)
        if let s = PointValues.finite(fix.speed) { out.decimal(s, 3) }
        out.byte(comma)
        if let c = PointValues.finite(fix.track) { out.decimal(c, 2) }
        out.byte(comma)
        if let t = PointValues.finite(extras.temperatureC) { out.decimal(t, 1) }
        out.byte(comma)
        if let p = PointValues.finite(extras.pressurePa) { out.decimal(p / 100, 2) }
        out.byte(comma)
        if let c = PointValues.climb(fix) { out.decimal(c, 3) }
        out.byte(comma)
        out.int(Int64(segment))
        out.byte(comma)
        out.int(Int64(bitPattern: trip))
        out.byte(comma)
        out.write(board)
        if laps {
            out.byte(comma)
            if let l = extras.lap { out.int(Int64(l)) }
        }
        if origins {
            switch extras.origin {
            case .measured: out.put(",measured")
            case .smoothed: out.put(",smoothed")
            case .interpolated: out.put(",interpolated")
            }
        }
        if verdicts {
            out.byte(comma)
            if let v = extras.verdict { out.write(v.name) }
        }
        if sensorColumns {
            for v in [extras.heartRate, extras.cadence, extras.powerW] {
                out.byte(comma)
                if let v { out.int(Int64(v)) }
            }
        }
        out.byte(UInt8(ascii: "\n"))
    }

    public func endTrip() {
        inTrip = false
        return
    }

    public func end() throws(OutputError) {
        if headerPending { writeHeader(sensors: false) }  // a document without a trip
        try out.finish()
    }
}

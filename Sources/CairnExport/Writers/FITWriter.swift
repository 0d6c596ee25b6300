#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore

/// CRC-16 as FIT uses it (CRC-16/ARC: reflected polynomial 0xA001, initial value 0, no final XOR).
public enum FITCRC {
    static let table: [UInt16] = (0..<256).map { i -> UInt16 in
        var c = UInt16(i)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xA001 : c >> 1 }
        return c
    }

    @inline(__always)
    public static func update(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        (crc >> 8) ^ table[Int((crc ^ UInt16(byte)) & 0xFF)]
    }

    public static func update(_ crc: UInt16, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var c = crc
        for b in bytes { c = (c >> 8) ^ table[Int((c ^ UInt16(b)) & 0xFF)] }
        return c
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt16 {
        bytes.withUnsafeBufferPointer { update(0, $0) }
    }

    /// a·b mod P in the reflected representation (bit 15 is x^0), as zlib's `multmodp`.
    static func multModP(_ a: UInt16, _ b0: UInt16) -> UInt16 {
        guard a != 0 else { return 0 }
        var m: UInt16 = 1 << 15
        var p: UInt16 = 0
        var b = b0
        while true {
            if a & m != 0 {
                p ^= b
                if a & (m &- 1) == 0 { break }
            }
            m >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ 0xA001 : b >> 1
        }
        return p
    }

    /// x^(2^k) mod P for k = 0..<64.
    static let x2n: [UInt16] = {
        var t = [UInt16](repeating: 0, count: 64)
        t[0] = 1 << 14  // x^1
        for k in 1..<64 { t[k] = multModP(t[k - 1], t[k - 1]) }
        return t
    }()

    /// The CRC of `a ++ b` from the CRC of `a`, the CRC of `b` and `b`'s length: FIT's file CRC
    /// covers the header, which is only known once the data is written, so the data's CRC is
    /// computed as it streams out and combined with the header's at the end (zlib's
    /// `crc32_combine`, for this 16-bit CRC with no pre- or post-inversion).
    public static func combine(_ crcA: UInt16, _ crcB: UInt16, lengthB: Int) -> UInt16 {
        var p: UInt16 = 1 << 15  // x^0
        var n = UInt64(lengthB)
        var k = 3  // x^(8n): n bytes are 8n bits
        while n != 0 {
            if n & 1 != 0 { p = multModP(x2n[k], p) }
            n >>= 1
            k += 1
        }
        return multModP(p, crcA) ^ crcB
    }
}

/// FIT activity files, one per trip, streamed: the records go out as the points come, the
/// summary messages (lap, session, activity) last, as devices write them, and the header's data
/// size and CRC are written over the placeholder header at the end. The file CRC is computed as
/// the bytes stream out, so nothing is read back and memory does not depend on the trip's length.
///
/// Message order (passes Garmin's FIT SDK, fitdecode and fit-tool): file_id, device_info (cairn;
/// a second, the barometer, when the trip's climb is barometric), timer
/// start, records (a timer stop and start between segments: pauses, gaps, reconnects; and over
/// a stand inside a segment, as a device's auto pause, so the timer runs for the moving time; a
/// lap after the records of each lap but the last, as devices write them), timer stop_all, the
/// last lap, session, activity.
///
/// Laps (`PointExtras.lap`: a new number starts a lap) and the session are counted from the
/// records written, as cumulative figures at each lap's end: a lap's distance, timer (moving)
/// time, ascent and descent are the differences between its ends, in the file's own units
/// (centimetres, milliseconds, metres), so the laps add up to the session exactly. With a
/// barometer, the climb is counted on every fix kept or thinned out (`offeredHeight`), as `info`
/// counts it; a log without raw fixes, on the records. Laps are
/// contiguous in time: a lap ends where the next starts, so their elapsed times add up to the
/// session's too.
public final class FITWriter: TrackExporter {
    public enum Target {
        /// One file per trip in this directory, named `YYYYMMDD-HHMMSS-tripID.fit` (UTC start).
        case directory(String)
        /// One file (a single trip).
        case file(String)
    }

    public static let epochOffset: Int64 = 631_065_600  // 1989-12-31T00:00:00Z in Unix seconds
    static let headerSize = 14
    static let profileVersion: UInt16 = 2100
    static let manufacturerDevelopment: UInt16 = 255
    static let product: UInt16 = 1
    static let serial: UInt32 = 0xCA1E
    static let localDeviceBarometer: UInt8 = 4  // local_device_type.barometer
    static let sourceLocal: UInt8 = 5  // source_type.local  // constant: convert does not know the recorder's board

    private let target: Target
    private let force: Bool
    private let atomic: Bool
    private let softwareVersion: UInt16
    /// The UTC offset for `local_timestamp` that overrides the one the trip recorded.
    private let utcOffsetS: Int?
    /// Put in front of each file name made in a directory (`--name-prefix`).
    private let namePrefix: String
    /// Paths of the files written so far.
    public private(set) var written: [String] = []

    // Per trip.
    private var sink: OutputSink?
    private var crc: UInt16 = 0
    private var msg: [UInt8] = []
    private var heading = TripHeading(id: 0, activity: nil)
    private var stats = TripStats()
    private var recordLocal: [UInt16: UInt8] = [:]  // field mask -> local type
    /// The data message being written and its next field (`data(local:_:)`).
    private var writing: FITMessage?
    private var nextField = 0
    private var nextRecordLocal: UInt8 = 3
    private var started = false
    private var segmentPending = false
    /// Whether the file's timer runs: stopped between segments and over a stand inside one (a
    /// step that added no moving time), so the running spans add up to the moving time.
    private var timerRunning = false
    /// The moving time the records' steps do not count, still to run into the breaks
    /// (`stopLater`), whole seconds.
    private var runOnMs: Int64 = 0
    /// The pending segment's step is counted as distance (a gap, reconnect or resume: the last
    /// reason decides, as for `TripStats`).
    private var bridgePending = false
    private var firstMs: Int64 = 0
    private var lastMs: Int64 = 0
    private var firstPos: (Int32, Int32) = (0x7FFF_FFFF, 0x7FFF_FFFF)
    private var lastPos: (Int32, Int32) = (0x7FFF_FFFF, 0x7FFF_FFFF)
    // Laps.
    private let laps: LapRule
    private var lap: Int?
    private var lapCount: UInt16 = 0
    private var lapDefined = false
    private var lapStartMs: Int64 = 0
    private var lapStartPos: (Int32, Int32) = (0x7FFF_FFFF, 0x7FFF_FFFF)
    /// The trip's figures at the end of the last lap written (what the laps so far add up to).
    private var counted = Totals()
    /// This lap's own points, for its top speed.
    private var lapStats = TripStats()
    /// Heart rate, cadence and power, for the laps and the session (trips with sensors).
    private var lapSensors = SensorFigures()
    private var sessionSensors = SensorFigures()
    /// The fastest lap's top speed (pause and distance laps: the session's is never below it).
    private var topSpeedMps: Double?
    /// The trip's figures as `info` gives them (`TripHeading.summary`): the session's top speed,
    /// and what every lap's timer is cut from, so no lap's average is above it (issue 40/41).
    private var plan: Plan?
    /// The laps' fastest average (the session's top speed is never below it).
    private var lapsAverageTop: Double?
    struct Plan {
        var topMps: Double
        var timerMs: UInt32
        var distanceCm: UInt32
    }

    /// Cumulative figures in the file's units; each only ever grows, so no lap is negative.
    struct Totals {
        var elapsedMs: UInt32 = 0
        var distanceCm: UInt32 = 0
        var timerMs: UInt32 = 0
        var ascentM: UInt16 = 0
        var descentM: UInt16 = 0
    }

    /// `atomic`: each file is written under a temporary name and renamed into place when
    /// complete (`OutputSink(atomically:)`); a caller that does its own renaming passes false.
    /// `utcOffsetS`: the rider's zone for FIT's `local_timestamp` (seconds east), instead of the
    /// one the trip recorded; with neither, `local_timestamp` is left out (readers then take the
    /// zone from the start position).
    /// `laps`: the rule that numbered the points (`PointExtras.lap`), for each lap's `lap_trigger`.
    /// `namePrefix`: put in front of each file name made for a `.directory` target.
    public init(
        target: Target, force: Bool, softwareVersion: String, atomic: Bool = true, utcOffsetS: Int? = nil,
        laps: LapRule = .none, namePrefix: String = ""
    ) {
        self.target = target
        self.namePrefix = namePrefix
        self.laps = laps
        self.utcOffsetS = utcOffsetS
        self.force = force
        self.atomic = atomic
        // "0.2.0" -> 20 (software_version has scale 100: 0.20).
        let parts = softwareVersion.split(separator: ".").compactMap { Int($0) }
        let v = (parts.count > 0 ? parts[0] * 100 : 0) + (parts.count > 1 ? parts[1] * 10 : 0) + (parts.count > 2 ? parts[2] : 0)
        self.softwareVersion = UInt16(clamping: v)
        msg.reserveCapacity(256)
    }

    public var wantsSummaryFirst: Bool { true }
    public var holdsNoPositions: Bool { true }

    public func begin() {}

    public func beginTrip(_ heading: TripHeading) throws(ExportError) {
        try? endTrip()  // a trip left open (the conversion always ends one first)
        let path: String
        switch target {
        case .file(let p): path = p
        case .directory(let d):
            let name = ExportFormat.fit.fileName(
                tripId: heading.id, startMs: heading.summary?.stats.firstTimeMs, suffix: heading.nameSuffix, prefix: namePrefix,
                board: heading.board)
            path = d.hasSuffix("/") ? d + name : d + "/" + name
        }
        let s = atomic ? try OutputSink(atomically: path, force: force) : try OutputSink(creating: path, force: force)
        sink = s
        self.heading = heading
        crc = 0
        stats = TripStats()
        offered.removeAll()
        // The session's top speed from positions is the trip's (judged on every offered fix).
        if let known = heading.summary?.stats { stats.takePositionTop(from: known) }
        recordLocal = [:]
        nextRecordLocal = 3
        started = false
        segmentPending = false
        timerRunning = false
        bridgePending = false
        lap = nil
        lapCount = 0
        lapDefined = false
        counted = Totals()
        lapStats = TripStats()
        lapSensors = SensorFigures()
        sessionSensors = SensorFigures()
        topSpeedMps = nil
        lapsAverageTop = nil
        plan = heading.summary.flatMap { s in
            s.stats.maxSpeedMps.flatMap { v in
                v.isFinite && v > 0
                    ? Plan(
                        topMps: v, timerMs: UInt32(clamping: Self.tenths(s.stats.movingTimeMs)),
                        distanceCm: Self.scaled((s.stats.distanceM * 10).rounded() / 10, 100, max: 0xFFFF_FFFE)) : nil
            }
        }
        // The moving time the steps do not count: what the session's timer has above them.
        let uncounted = plan.flatMap { p in heading.summary.map { Int64(p.timerMs) - $0.stats.countedMovingMs } } ?? 0
        runOnMs = max(0, uncounted + 500) / 1000 * 1000
        // Placeholder header: completed (data size, CRC) at the end.
        s.append([UInt8](repeating: 0, count: Self.headerSize))
        let created = fitTime(heading.summary?.stats.firstTimeMs ?? 0)

        // file_id: type 4 (activity), first.
        define(local: 0, .fileId)
        data(local: 0, .fileId)
        u8(4); u16(Self.manufacturerDevelopment); u16(Self.product); u32(Self.serial); u32(created)
        emit()
        // device_info: the creator (device_index 0), with the board's id as its descriptor.
        let board = heading.board.flatMap(BoardId.init)
        let creator: FITMessage = board == nil ? .creator : .creatorWithBoard
        define(local: 1, creator)
        data(local: 1, creator)
        u32(created); u8(0); u16(Self.manufacturerDevelopment); u32(Self.serial); u16(Self.product); u16(softwareVersion)
        if let b = board { string(b.text) }
        emit()
        if heading.summary?.stats.climbFromBarometer == true {
            // device_info for the altitude's source: a local barometer (device_index 1). No
            // manufacturer or product: FIT has no ID for the sensor's maker that would be true.
            define(local: 1, .barometer)
            data(local: 1, .barometer)
            u32(created); u8(1); u8(Self.localDeviceBarometer); u8(Self.sourceLocal)
            emit()
        }
        // event: timer start/stop.
        define(local: 2, .event)
    }

    public func beginSegment(_ reason: SegmentReason) {
        stats.startSegment(reason)
        lapStats.startSegment(reason)
        if started { segmentPending = true }
        bridgePending = TripStats.bridges(reason)
    }

    /// A stand inside a segment, as a device's auto pause writes it: the timer stops at the
    /// point a step with no moving time starts from and starts again where moving time goes on
    /// (a step that counted part of its time: that part before its end). A step that counted
    /// part of its time while the timer ran (the fixes standing were dropped: one long step)
    /// stops it after that part and starts it at the step's end, once a second or more is left
    /// out (FIT's events are whole seconds), so the running spans add up to the moving time
    /// (attack-r24-ride c01: 691 s of timer against 602 s).
    private func standEvents(movingMs m: Int64, toMs: Int64) {
        if timerRunning, m <= 0 {
            if let at = stopLater(lastMs, before: toMs) { timerEvent(at, start: false) }
        } else if timerRunning, toMs - lastMs - m >= 1000 {
            if let at = stopLater(lastMs + m, before: toMs) {
                timerEvent(at, start: false)
                timerEvent(toMs, start: true)
            }
        } else if !timerRunning, m > 0 {
            timerEvent(max(lastMs, toMs - m), start: true)
        }
    }

    /// Where the timer stops for a break from `stopMs` to `resumeMs`, with the moving time the
    /// records do not count (`runOnMs`) run into it first, in whole seconds; nil when the break
    /// is all run (no stop). The session's timer is `info`'s moving time, never less than the
    /// distance at the top speed (`TripStats.movingTimeMs`); the steps count less when the
    /// positions wander (attack F5: a noisy walk's events 794 s against the session's 907 s).
    /// The timer runs that much longer before the first stops, so the events add up to it.
    private func stopLater(_ stopMs: Int64, before resumeMs: Int64) -> Int64? {
        let room = (resumeMs - stopMs) / 1000 * 1000
        guard runOnMs > 0, room > 0 else { return stopMs }
        let run = min(runOnMs, room)
        runOnMs -= run
        return run == room ? nil : stopMs + run
    }

    private func timerEvent(_ ms: Int64, start: Bool) {
        timerRunning = start
        data(local: 2, .event)
        u32(fitTime(ms)); u8(0); u8(start ? 0 : 4); u8(0)
        emit()
    }

    /// The rider's lap press: event lap, marker, at the press's time.
    private func lapPressEvent(_ ms: Int64) {
        data(local: 2, .event)
        u32(fitTime(ms)); u8(9); u8(3); u8(0)
        emit()
    }

    /// The last timer stop when the rider's long press ended the trip: timer stop_all with
    /// `timer_trigger` manual (the event's `data`), as a device writes its stop button. The last
    /// event of the file, so local type 2 is redefined for it alone.
    private func riderStopEvent(_ ms: Int64) {
        timerRunning = false
        define(local: 2, .eventWithData)
        data(local: 2, .eventWithData)
        u32(fitTime(ms)); u8(0); u8(4); u32(0); u8(0)
        emit()
    }

    /// A fix the rules kept or thinned out as too close, inside the export's window and up to
    /// its end press, in time order between the records (`TripConversion` holds the records
    /// until the log's raw fixes catch up): the barometer's climb counts on every such fix, as
    /// `cairn info` does (`TripStats.addOfferedHeight`), so the session says the same climb and
    /// the laps, cumulative differences of it, still add up to the session.
    /// Each waits for the first record after it (`--smooth` holds records back), so each lap
    /// gets the heights between its own records.
    public func offeredHeight(_ fix: Fix) {
        guard sink != nil else { return }
        if started && fix.timeMs <= lastMs {
            stats.addOfferedHeight(fix)
        } else {
            offered.append(fix)
            if offered.count > Self.offeredLimit, let f = offered.popFirst() { stats.addOfferedHeight(f) }
        }
    }
    private var offered = HeldQueue<Fix>()
    static let offeredLimit = 8192

    /// Counts the waiting offered heights earlier than `ms`.
    private func takeOffered(before ms: Int64) {
        while let f = offered.first, f.timeMs < ms {
            stats.addOfferedHeight(f)
            offered.popFirst()
        }
    }

    // Record field mask bits (`FITMessage.recordFields`).
    static let hasAltitude: UInt8 = 1, hasSpeed: UInt8 = 2, hasVerticalSpeed: UInt8 = 4
    static let hasAccuracy: UInt8 = 8, hasPressure: UInt8 = 16, hasTemperature: UInt8 = 32
    /// The sensors' fields, above the eight bits of the others (`FITMessage.records`).
    static let hasHeartRate: UInt16 = 64, hasCadence: UInt16 = 128, hasPower: UInt16 = 256

    public func point(_ fix: Fix, _ extras: PointExtras) {
        guard PointValues.isWritable(fix) else { return }
        guard sink != nil else { return }
        // Indoors (a trainer): FIT's invalid position, which Strava and Garmin Connect take as none.
        let lat = extras.noPosition ? 0x7FFF_FFFF : Self.semicircles(fix.lat)
        let lon = extras.noPosition ? 0x7FFF_FFFF : Self.semicircles(Self.wrapLon(fix.lon))
        if !offered.isEmpty { takeOffered(before: fix.timeMs) }
        let isFirst = !started
        // The step into this record is timed as a step inside a segment: none began, or one
        // bridged with the timer running (its moving time counted as the step's).
        let continuous = !segmentPending || (bridgePending && timerRunning)
        if !started {
            started = true
            firstMs = fix.timeMs
            firstPos = (lat, lon)
            lap = extras.lap
            lapStartMs = fix.timeMs
            lapStartPos = firstPos
            timerEvent(fix.timeMs, start: true)
        } else {
            let newLap = extras.lap != lap
            if segmentPending, timerRunning, !bridgePending {
                // A pause, gap or reconnect: the timer stops at the last point and restarts here.
                // A step counted as moving across the break (a dropout or a restart while moving,
                // `TripStats.bridges`) keeps it running (attack-r24-ride c03: the events 462 s
                // against the session's 481 s).
                if let at = stopLater(lastMs, before: fix.timeMs) { timerEvent(at, start: false) }
            }
            if newLap {
                // A pause lap ends when the rider sets off again (the pause is its elapsed
                // time); a distance lap at its last point, where the next one starts (a step
                // across a gap from there, counted as distance, is the next lap's), and so does
                // a pause lap whose pause a gap followed: the lap's figures stop at its last
                // point, so the chord's time and distance are the next lap's.
                // A press's lap at the last point at or before the press (`LapSplitter`: its
                // timer and distance over the same steps), with its lap event there.
                let rule = heading.laps ?? laps
                let setOff = segmentPending && !bridgePending && rule == .pause && extras.lapMarkMs == nil
                let endMs = setOff ? fix.timeMs : lastMs
                if extras.lapMarkMs != nil { lapPressEvent(endMs) }
                writeLap(endMs: endMs, trigger: extras.lapMarkMs != nil ? 0 : rule.fitTrigger)
                lap = extras.lap
                lapStartMs = endMs
                lapStartPos = setOff ? (lat, lon) : lastPos
                lapStats = TripStats()
                lapSensors = SensorFigures()
            }
            if segmentPending, !timerRunning { timerEvent(fix.timeMs, start: true) }
        }
        let segmentStarted = segmentPending
        segmentPending = false
        bridgePending = false
        // A record without a position (the wheel's: a trainer, or before the first fix or after
        // the last): its moving time and distance are the wheel's (`wheelMovingMs`), and its
        // speed counts only toward the top speed (`WheelTrack.topMps`), never as a step's moving
        // time too (attack r23: FIT's timer 0:19:59 against info's 0:19:50).
        var counted = fix
        if extras.noPosition { counted.speed = nil }
        let movingBefore = stats.countedMovingMs
        stats.add(counted)
        lapStats.add(counted)
        if let w = extras.wheelExtraM {
            let top = extras.noPosition ? fix.speed : nil
            // The step into a resume (no moving time: the timer was stopped) is no moving distance.
            let still = extras.noPosition && segmentStarted && extras.wheelMovingMs == 0 ? w : 0
            stats.addWheel(extraM: w, movingMs: extras.wheelMovingMs ?? 0, topMps: top, stillM: still)
            lapStats.addWheel(extraM: w, movingMs: extras.wheelMovingMs ?? 0, topMps: top, stillM: still)
        } else if extras.noPosition, let v = fix.speed {
            stats.addWheel(extraM: 0, topMps: v)
            lapStats.addWheel(extraM: 0, topMps: v)
        }
        if !isFirst, continuous {
            standEvents(movingMs: stats.countedMovingMs - movingBefore, toMs: fix.timeMs)
        }
        lastMs = fix.timeMs
        lastPos = (lat, lon)

        let height = PointValues.height(fix).flatMap { $0.isFinite ? $0 : nil }
        // A measured speed above the trip's top speed (a doppler glitch the positions do not
        // follow, which `info`'s top leaves out) is not written: no record is faster than the
        // session, whose top is never below `info`'s. Readers take such a record's speed from
        // its distance.
        let speed = PointValues.finite(fix.speed).map { max($0, 0) }.flatMap { v in plan.map { v <= $0.topMps } ?? true ? v : nil }
        let vspeed = PointValues.climb(fix)
        let accuracy = Accuracy.horizontal68(fix).flatMap { $0.isFinite ? $0 : nil }
        let pressure = PointValues.finite(extras.pressurePa).flatMap { $0 >= 0 ? $0 : nil }
        let temperature = PointValues.finite(extras.temperatureC)
        var mask: UInt8 = 0
        if height != nil { mask |= Self.hasAltitude }
        if speed != nil { mask |= Self.hasSpeed }
        if vspeed != nil { mask |= Self.hasVerticalSpeed }
        if accuracy != nil { mask |= Self.hasAccuracy }
        if pressure != nil { mask |= Self.hasPressure }
        if temperature != nil { mask |= Self.hasTemperature }
        // uint8 bpm and rpm, uint16 W; 0xFF and 0xFFFF are FIT's invalid values.
        let heartRate = extras.heartRate.map { UInt8($0.clamped(0, 254)) }
        let cadence = extras.cadence.map { UInt8($0.clamped(0, 254)) }
        let power = extras.powerW.map { UInt16($0.clamped(0, 65534)) }
        var fullMask = UInt16(mask)
        if heartRate != nil { fullMask |= Self.hasHeartRate }
        if cadence != nil { fullMask |= Self.hasCadence }
        if power != nil { fullMask |= Self.hasPower }
        lapSensors.add(heartRate: heartRate.map(Int.init), cadence: cadence.map(Int.init), powerW: power.map(Int.init))
        sessionSensors.add(heartRate: heartRate.map(Int.init), cadence: cadence.map(Int.init), powerW: power.map(Int.init))
        let local = recordType(fullMask)

        data(local: local, FITMessage.records[Int(fullMask)])
        u32(fitTime(fix.timeMs))
        s32(lat); s32(lon)
        u32(Self.scaled(stats.distanceM, 100, max: 0xFFFF_FFFE))
        if let h = height {
            u32(Self.scaled(h + 500, 5, max: 0xFFFF_FFFE))
            u16(h + 500 >= 0 && (h + 500) * 5 < 65534.5 ? UInt16(Self.scaled(h + 500, 5, max: 0xFFFE)) : 0xFFFF)
        }
        if let v = speed {
            u32(Self.scaled(v, 1000, max: 0xFFFF_FFFE))
            u16(v * 1000 < 65534.5 ? UInt16(Self.scaled(v, 1000, max: 0xFFFE)) : 0xFFFF)
        }
        if let v = vspeed { s16(Int16((v * 1000).rounded().clamped(-32767, 32766))) }
        if let a = accuracy { u8(UInt8(a.rounded().clamped(0, 254))) }
        if let p = pressure { u32(Self.scaled(p, 1, max: 0xFFFF_FFFE)) }
        if let t = temperature { s8(Int8(t.rounded().clamped(-127, 126))) }
        if let h = heartRate { u8(h) }
        if let c = cadence { u8(c) }
        if let p = power { u16(p) }
        emit()
    }

    /// The local message type for records with this field mask, defining it when it is new
    /// (local types 3-14 hold the most recent masks; 15 is left for the summary messages).
    private func recordType(_ mask: UInt16) -> UInt8 {
        if let l = recordLocal[mask] { return l }
        let local = nextRecordLocal
        nextRecordLocal = local == 14 ? 3 : local + 1
        if let old = recordLocal.first(where: { $0.value == local })?.key { recordLocal[old] = nil }
        recordLocal[mask] = local
        define(local: local, FITMessage.records[Int(mask)])
        return local
    }

    public func endTrip() throws(OutputError) {
        guard let s = sink else { return }
        if started {
            takeOffered(before: .max)
            if heading.endedByRider {
                // At the last point, where the figures end: the press comes at most a second
                // or so after it. Stopped over a last stand, the press still says so (a timer
                // that runs no time before it).
                if !timerRunning { timerEvent(lastMs, start: true) }
                riderStopEvent(lastMs)
            } else if timerRunning {
                timerEvent(lastMs, start: false)
            }
            writeLap(endMs: lastMs, trigger: 7)  // session_end
            writeSummary()
        }
        sink = nil
        // Header: size, protocol 2.0, profile, data size, ".FIT", header CRC; then the file CRC.
        let dataSize = s.bytesWritten - Self.headerSize
        var h: [UInt8] = [UInt8(Self.headerSize), 0x20, UInt8(Self.profileVersion & 0xFF), UInt8(Self.profileVersion >> 8)]
        let ds = UInt32(clamping: dataSize)
        h += [UInt8(ds & 0xFF), UInt8((ds >> 8) & 0xFF), UInt8((ds >> 16) & 0xFF), UInt8(ds >> 24)]
        h += Array(".FIT".utf8)
        let hc = FITCRC.checksum(h)
        h += [UInt8(hc & 0xFF), UInt8(hc >> 8)]
        let fileCRC = FITCRC.combine(FITCRC.checksum(h), crc, lengthB: dataSize)
        s.append([UInt8(fileCRC & 0xFF), UInt8(fileCRC >> 8)])
        s.overwrite(at: 0, h)
        try s.finish()
        written.append(s.path)
    }

    /// Drops the trip being written (its reading failed): no file for it, and the file already
    /// under its name, if any, is untouched (atomic writers only).
    public func abandonTrip() {
        sink?.discard()
        sink = nil
    }

    /// The trip's figures so far, in the file's units: times and distance at the resolution
    /// `cairn list --json` prints (0.1 s, 0.1 m), so a trip of one lap shows the same numbers as
    /// `list`; heights to whole metres, as FIT stores them.
    private func totalsNow(endMs: Int64) -> Totals {
        var t = Totals()
        t.elapsedMs = UInt32(clamping: Self.tenths(Self.span(firstMs, endMs)))
        t.distanceCm = Self.scaled((stats.distanceM * 10).rounded() / 10, 100, max: 0xFFFF_FFFE)
        t.timerMs = UInt32(clamping: Self.tenths(stats.movingTimeMs))
        t.ascentM = Self.metres16(stats.ascentM) ?? 0
        t.descentM = Self.metres16(stats.descentM) ?? 0
        return t
    }

    /// A lap's end on the timer when the trip's figures are known (`Plan`): at least its
    /// distance at the trip's top speed after the last lap's (so its average is never above
    /// it), never past the trip's timer, never longer than the lap's elapsed time. Tenths of a
    /// second, as every timer in the file.
    static func lapTimer(_ upTo: Totals, counted: Totals, plan p: Plan) -> UInt32 {
        let metres = Double(upTo.distanceCm &- counted.distanceCm) / 100
        let need = UInt32(clamping: Int64((metres / p.topMps * 10).rounded(.up)) * 100)
        let t = min(max(upTo.timerMs, counted.timerMs &+ need), max(p.timerMs, upTo.timerMs))
        return max(counted.timerMs, min(t, counted.timerMs &+ (upTo.elapsedMs - counted.elapsedMs)))
    }

    static func metres16(_ v: Double?) -> UInt16? { v.flatMap { $0.isFinite ? UInt16($0.rounded().clamped(0, 65534)) : nil } }

    /// A speed beyond the field (a hostile trip's jump over a timer of a second) is no speed: a
    /// saturated value would not be distance / timer.
    static func speed32(_ v: Double?) -> UInt32 {
        v.flatMap { $0 * 1000 < 4_294_967_294.5 ? Self.scaled($0, 1000, max: 0xFFFF_FFFE) : nil } ?? 0xFFFF_FFFF
    }
    private func speed32(_ v: Double?) -> UInt32 { Self.speed32(v) }
    private func speed16(_ v: Double?) -> UInt16 { v.flatMap { $0 * 1000 < 65534.5 ? UInt16(Self.scaled($0, 1000, max: 0xFFFE)) : nil } ?? 0xFFFF }

    /// A lap message for the records since the last one, ending at `endMs`.
    private func writeLap(endMs: Int64, trigger: UInt8) {
        let now = totalsNow(endMs: endMs)
        var upTo = counted
        upTo.elapsedMs = max(upTo.elapsedMs, now.elapsedMs)
        upTo.distanceCm = max(upTo.distanceCm, now.distanceCm)
        // The timer never runs longer than the lap (so never longer than the trip either).
        upTo.timerMs = max(upTo.timerMs, min(now.timerMs, counted.timerMs + (upTo.elapsedMs - counted.elapsedMs)))
        upTo.ascentM = max(upTo.ascentM, now.ascentM)
        upTo.descentM = max(upTo.descentM, now.descentM)
        if let p = plan { upTo.timerMs = Self.lapTimer(upTo, counted: counted, plan: p) }
        let distanceCm = upTo.distanceCm - counted.distanceCm
        let timer = upTo.timerMs - counted.timerMs
        let avgMps: Double? = timer > 0 ? Double(distanceCm) / 100 / (Double(timer) / 1000) : nil
        // The top speed is never below the average (as `TripStats.maxSpeedMps`).
        // A lap's points alone cannot tell a position excursion from a speed: never above the
        // trip's top speed from positions (issue 39).
        let lapTop = lapStats.maxSpeedMps.map { v in heading.summary?.stats.positionTopMps.map { min(v, max($0, stats.maxSpeedMps ?? 0)) } ?? v }
        var maxMps = lapTop.map { max($0, avgMps ?? 0) } ?? avgMps
        // Never above the trip's top speed (`info`'s), unless its average is: a lap that covered
        // its distance faster than that over its whole elapsed time (a receiver's wander).
        if let p = plan { maxMps = maxMps.map { min($0, max(p.topMps, avgMps ?? 0)) } }
        if let m = maxMps { topSpeedMps = max(topSpeedMps ?? 0, m) }
        if let a = avgMps { lapsAverageTop = max(lapsAverageTop ?? 0, a) }
        let elapsed = upTo.elapsedMs - counted.elapsedMs
        let (sport, subSport) = heading.noPositions ? Self.indoorCycling : Self.sport(heading.activity)
        let lapMessage: FITMessage = heading.hasSensors ? .lapWithSensors : .lap
        if !lapDefined {
            define(local: 15, lapMessage)
            lapDefined = true
        }
        data(local: 15, lapMessage)
        u16(lapCount); u32(fitTime(endMs)); u8(9); u8(1); u32(fitTime(lapStartMs))
        s32(lapStartPos.0); s32(lapStartPos.1); s32(lastPos.0); s32(lastPos.1)
        u32(elapsed); u32(timer); u32(distanceCm); u32(timer)
        u16(speed16(avgMps)); u16(speed16(maxMps)); u32(speed32(avgMps)); u32(speed32(maxMps))
        u16(stats.ascentM == nil ? 0xFFFF : upTo.ascentM - counted.ascentM)
        u16(stats.descentM == nil ? 0xFFFF : upTo.descentM - counted.descentM)
        u8(trigger); u8(sport); u8(subSport)
        if heading.hasSensors { sensorFigures(lapSensors) }
        emit()
        counted = upTo
        lapCount &+= 1
    }

    private func writeSummary() {
        // The session is the sum of its laps: the figures of the records written (for a whole
        // trip, the same as `cairn list --json`: the same points through the same `TripStats`).
        let start = fitTime(firstMs), end = fitTime(lastMs)
        let elapsed = counted.elapsedMs
        // Garmin's timer, paused between segments, is the moving time here: what Strava and
        // Garmin Connect show as moving time and what `list` reports.
        let timer = counted.timerMs
        let distance = counted.distanceCm
        let avgMps: Double? = timer > 0 ? Double(distance) / 100 / (Double(timer) / 1000) : nil
        // The rider's laps never raise the top speed: it is the records' (never below the
        // average), as `list` and `--laps none` say. Pause and distance laps raise it to their
        // fastest lap's, as before the button (their files stay byte for byte the same).
        let lapsTop = (heading.laps ?? laps) == .marks ? nil : topSpeedMps
        // No lap's average is above it, whatever the laps (issue 40/41: a receiver's wander).
        let maxMps = (stats.maxSpeedMps.map { max($0, lapsTop ?? 0, avgMps ?? 0) } ?? lapsTop).map { max($0, lapsAverageTop ?? 0) }

        let (sport, subSport) = heading.noPositions ? Self.indoorCycling : Self.sport(heading.activity)

        // session: one.
        let sessionMessage: FITMessage = heading.hasSensors ? .sessionWithSensors : .session
        define(local: 15, sessionMessage)
        data(local: 15, sessionMessage)
        u16(0); u32(end); u8(8); u8(1); u32(start)
        s32(firstPos.0); s32(firstPos.1); s32(lastPos.0); s32(lastPos.1)
        u8(sport); u8(subSport)
        u32(elapsed); u32(timer); u32(distance); u32(timer)
        u16(speed16(avgMps)); u16(speed16(maxMps)); u32(speed32(avgMps)); u32(speed32(maxMps))
        u16(stats.ascentM == nil ? 0xFFFF : counted.ascentM); u16(stats.descentM == nil ? 0xFFFF : counted.descentM)
        u16(0); u16(lapCount); u8(0)
        if heading.hasSensors { sensorFigures(sessionSensors) }
        emit()

        // activity: exactly one.
        define(local: 15, .activity)
        data(local: 15, .activity)
        u32(end); u32(timer); u16(1); u8(0); u8(26); u8(1)
        if let o = utcOffsetS ?? heading.summary?.utcOffsetS, abs(o) <= UTCOffset.limitS {
            u32(UInt32(clamping: Int64(end) + Int64(o)))
        } else {
            u32(0xFFFF_FFFF)  // invalid: no zone known (never the converting machine's)
        }
        emit()
    }

    public func end() throws(OutputError) { try endTrip() }

    /// The six fields `FITMessage.sensorFigures` names, invalid where nothing was measured.
    private func sensorFigures(_ f: SensorFigures) {
        for v in [f.avgHeartRate, f.maxHeartRate, f.avgCadence, f.maxCadence] { u8(v.map { UInt8($0.clamped(0, 254)) } ?? 0xFF) }
        for v in [f.avgPowerW, f.maxPowerW] { u16(v.map { UInt16($0.clamped(0, 65534)) } ?? 0xFFFF) }
    }

    // MARK: Encoding

    /// The FIT sport and sub-sport for a recorder activity profile.
    /// cycling, indoor_cycling: a trainer's trip (Strava and Garmin Connect take it as indoor).
    static let indoorCycling: (UInt8, UInt8) = (2, 6)

    static func sport(_ activity: String?) -> (UInt8, UInt8) {
        switch Activity(name: activity) {
        case .ride: return (2, 0)  // cycling, generic
        case .run: return (1, 0)  // running
        case .walk: return (11, 0)  // walking
        case .drive: return (24, 0)  // driving
        case nil: return (0, 0)  // generic
        }
    }

    private func fitTime(_ unixMs: Int64) -> UInt32 {
        let s = TextFormat.floorDivMod(unixMs, 1000).0 - Self.epochOffset
        return UInt32(clamping: s.clamped(0x1000_0000, 0xFFFF_FFFE))
    }

    static func wrapLon(_ lon: Double) -> Double { lon >= 180 ? lon - 360 : lon }

    /// Degrees to FIT semicircles; clamped as a Double first, so no magnitude can trap.
    static func semicircles(_ deg: Double) -> Int32 {
        guard deg.isFinite else { return 0x7FFF_FFFF }
        let v = (deg * 2_147_483_648.0 / 180.0).rounded()
        return Int32(v.clamped(-2_147_483_647, 2_147_483_646))
    }

    /// `to − from` in ms, never negative, saturating instead of trapping.
    static func span(_ from: Int64, _ to: Int64) -> Int64 {
        let (d, overflow) = to.subtractingReportingOverflow(from)
        return overflow ? (to > from ? Int64.max : 0) : max(0, d)
    }

    /// ms rounded to whole tenths of a second, as `list --json` prints seconds.
    static func tenths(_ ms: Int64) -> Int64 {
        let t = max(0, ms)
        return t > Int64.max - 50 ? t : (t + 50) / 100 * 100
    }

    static func scaled(_ v: Double, _ scale: Double, max: UInt32) -> UInt32 {
        guard v.isFinite else { return 0xFFFF_FFFF }
        let x = (v * scale).rounded()
        if x <= 0 { return 0 }
        if x >= Double(max) { return max }
        return UInt32(x)  // 0 < x < max ≤ UInt32.max
    }

    /// Writes `message`'s definition for local type `local`.
    private func define(local: UInt8, _ message: FITMessage) {
        msg += message.definition(local: local)
        emit()
    }

    /// Starts a data message of local type `local`, laid out as `message`: the values that
    /// follow (`u8` … `s32`) must be its fields' types, in its order, and all of them (checked in
    /// debug builds, which the tests run).
    @inline(__always) private func data(local: UInt8, _ message: FITMessage) {
        msg.append(local & 0x0F)
        writing = message
        nextField = 0
    }

    /// Checks that the next field of the data message being written has a type `accepts`.
    @inline(__always) private func field(_ accepts: (FITBaseType) -> Bool) {
        assert(
            writing.map { nextField < $0.fields.count && accepts($0.fields[nextField].type) } ?? false,
            "FIT: a value that is not the next field of \(writing.map { "\($0.name)" } ?? "a data message")")
        nextField += 1
    }

    @inline(__always) private func u8(_ v: UInt8) {
        field { $0 == .uint8 || $0 == .enumeration }
        msg.append(v)
    }
    @inline(__always) private func s8(_ v: Int8) {
        field { $0 == .sint8 }
        msg.append(UInt8(bitPattern: v))
    }
    @inline(__always) private func u16(_ v: UInt16) {
        field { $0 == .uint16 }
        le16(v)
    }
    @inline(__always) private func s16(_ v: Int16) {
        field { $0 == .sint16 }
        le16(UInt16(bitPattern: v))
    }
    @inline(__always) private func u32(_ v: UInt32) {
        field { $0 == .uint32 || $0 == .uint32z }
        le32(v)
    }
    @inline(__always) private func s32(_ v: Int32) {
        field { $0 == .sint32 }
        le32(UInt32(bitPattern: v))
    }
    /// A string field: UTF-8, NUL-padded to the field's fixed size (a `BoardId` always fits).
    private func string(_ s: String) {
        field { $0 == .string }
        let bytes = Array(s.utf8.prefix(Int(FITBaseType.string.size) - 1))
        msg += bytes
        msg += [UInt8](repeating: 0, count: Int(FITBaseType.string.size) - bytes.count)
    }
    @inline(__always) private func le16(_ v: UInt16) { msg.append(UInt8(v & 0xFF)); msg.append(UInt8(v >> 8)) }
    @inline(__always) private func le32(_ v: UInt32) {
        msg.append(UInt8(v & 0xFF)); msg.append(UInt8((v >> 8) & 0xFF)); msg.append(UInt8((v >> 16) & 0xFF)); msg.append(UInt8(v >> 24))
    }

    /// Sends the message built so far to the file, through the running CRC.
    private func emit() {
        if let m = writing {
            assert(nextField == m.fields.count, "FIT: \(m.name) written with \(nextField) of its \(m.fields.count) fields")
            writing = nil
        }
        guard !msg.isEmpty else { return }
        msg.withUnsafeBufferPointer { b in
            crc = FITCRC.update(crc, b)
            sink?.append(b)
        }
        msg.removeAll(keepingCapacity: true)
    }
}

extension Comparable {
    func clamped(_ lo: Self, _ hi: Self) -> Self { min(max(self, lo), hi) }
}

extension StringProtocol {
    func replacingOccurrences(_ a: Character, _ b: Character) -> String { String(map { $0 == a ? b : $0 }) }
}

import CairnCore

/// The payload encodings (the part after the sequence number).
enum RecordCodec {
    typealias T = FrameFormat.RecordType

    /// The frame type of a record.
    static func type(of record: LogRecord) -> UInt8 {
        switch record {
        case .tripStart: return T.tripStart
        case .segmentStart: return T.segmentStart
        case .points: return T.compactPoints
        case .dropped: return T.dropped
        case .note: return T.note
        case .tripEnd: return T.tripEnd
        case .rawFixes: return T.rawFixes
        case .sensors: return T.sensors
        case .riderMark: return T.riderMark
        case .unknown(let type, _): return type
        }
    }

    /// Appends the body of a non-points record to `out`.
    static func encodeBody(_ record: LogRecord, into out: inout [UInt8]) {
        switch record {
        case .tripStart(let activity, let software, let offset, let board):
            out.appendVarint(UInt64(activity.utf8.count))
            out.append(contentsOf: activity.utf8)
            out.appendVarint(UInt64(software.utf8.count))
            out.append(contentsOf: software.utf8)
            // Appended fields (readers before them ignore them); no flags byte when neither is
            // known, so a trip without a board is written byte for byte as before.
            if offset != nil || board != nil {
                out.append((offset != nil ? 1 : 0) | (board != nil ? 2 : 0))
                if let o = offset { out.appendZigzag(Int64(o)) }
                if let b = board {
                    out.appendVarint(UInt64(b.utf8.count))
                    out.append(contentsOf: b.utf8)
                }
            }
        case .segmentStart(let reason, let timeMs):
            out.append(reason.rawValue)
            if let t = timeMs {
                out.append(1)
                out.appendZigzag(t)
            } else {
                out.append(0)
            }
        case .points(let fixes):
            var e = CompactPointsEncoder()
            e.encode(fixes[...], into: &out)
        case .dropped(let counts):
            out.appendVarint(UInt64(counts.count))
            for c in counts {
                out.append(c.rule)
                out.appendVarint(c.count)
            }
        case .note(let text):
            out.append(contentsOf: text.utf8)
        case .tripEnd(let end):
            out.append(end.reason.rawValue)
            out.appendVarint(end.points)
            out.appendVarint(centimetres(end.distanceM))
            out.appendVarint(UInt64(max(0, end.movingTimeMs)))
            var flags: UInt8 = 0
            if end.firstTimeMs != nil { flags |= 1 }
            if end.lastTimeMs != nil { flags |= 2 }
            out.append(flags)
            if let t = end.firstTimeMs { out.appendZigzag(t) }
            if let t = end.lastTimeMs { out.appendZigzag(t) }
        case .rawFixes(let batch):
            RawFixesCodec.encode(batch, into: &out)
        case .sensors(let batch):
            SensorBatchCodec.encode(batch, into: &out)
        case .riderMark(let mark):
            out.append(mark.kind.rawValue)
            out.appendZigzag(mark.timeMs)
        case .unknown(_, let payload):
            out.append(contentsOf: payload)
        }
    }

    /// Distance for the trip end: metres to whole centimetres; negative or non-finite as 0.
    static func centimetres(_ m: Double) -> UInt64 {
        guard m.isFinite, m > 0 else { return 0 }
        let cm = (m * 100).rounded(.toNearestOrAwayFromZero)
        return cm >= 0x1p53 ? 1 << 53 : UInt64(cm)
    }

    /// Decodes the body (after the sequence number) of a frame of `type`. Unknown types become
    /// `.unknown`; a known type whose body does not decode throws `Malformed`.
    /// Bytes after the fields defined here are ignored (room for additions).
    static func decodeBody(type: UInt8, _ r: inout ByteReader) throws(Malformed) -> LogRecord {
        switch type {
        case T.tripStart:
            let activity = try r.string()
            let software = try r.string()
            var offset: Int?
            var board: String?
            if r.remaining > 0 {
                let flags = try r.u8()
                if flags & 1 != 0 {
                    let o = try r.zigzag()
                    // Zones lie within ±18 h (RFC 9557); anything else is no offset.
                    if abs(o) <= 18 * 3600 { offset = Int(o) }
                }
                // An id that does not read or is no `BoardId` (a crafted file: it would name
                // export files and folders) is no id; the trip's other fields still count.
                if flags & 2 != 0, let b = try? r.string(), BoardId(b) != nil { board = b }
            }
            return .tripStart(activity: activity, software: software, utcOffsetS: offset, board: board)
        case T.segmentStart:
            let reason = SegmentReason(rawValue: try r.u8()) ?? .other
            let flags = try r.u8()
            let t: Int64? = flags & 1 != 0 ? try r.zigzag() : nil
            return .segmentStart(reason, timeMs: t)
        case T.points:
            return .points(try PointsDecoder.decode(&r))
        case T.compactPoints:
            return .points(try CompactPointsDecoder.decode(&r))
        case T.dropped:
            let n = try r.varint()
            guard n <= UInt64(r.remaining / 2) else { throw Malformed() }
            var counts: [DropCount] = []
            counts.reserveCapacity(Int(n))
            for _ in 0..<n {
                let rule = try r.u8()
                counts.append(DropCount(rule: rule, count: try r.varint()))
            }
            return .dropped(counts)
        case T.note:
            return .note(String(decoding: r.rest(), as: UTF8.self))
        case T.tripEnd:
            let reason = TripEndReason(rawValue: try r.u8()) ?? .other
            let points = try r.varint()
            let cm = try r.varint()
            let moving = try r.varint()
            let flags = try r.u8()
            let first: Int64? = flags & 1 != 0 ? try r.zigzag() : nil
            let last: Int64? = flags & 2 != 0 ? try r.zigzag() : nil
            return .tripEnd(
                TripEnd(
                    reason: reason, points: points, distanceM: Double(cm) / 100,
                    movingTimeMs: Int64(clamping: moving), firstTimeMs: first, lastTimeMs: last))
        case T.rawFixes:
            return .rawFixes(try RawFixesCodec.decode(&r))
        case T.sensors:
            return .sensors(try SensorBatchCodec.decode(&r))
        case T.riderMark:
            let kind = RiderMark.Kind(rawValue: try r.u8()) ?? .other
            return .riderMark(RiderMark(kind: kind, timeMs: try r.zigzag()))
        default:
            return .unknown(type: type, payload: Array(r.rest()))
        }
    }
}

// MARK: - Points

/// The values a point may hold: what any receiver or barometer can report, with a wide margin
/// (LOG_FORMAT.md section 9). The codec itself carries any 64-bit value; the reader applies
/// these bounds to every points record it delivers, so nothing downstream (statistics,
/// exporters, file names) ever sees an impossible number:
/// - a time or position outside (the writer refuses such a fix) makes the record damaged: it is
///   counted, reported and skipped, like a record whose CRC failed;
/// - an optional value outside (a speed of 10^12 m/s: the recorder writes what the receiver
///   said) is left out of its point, as a value the receiver did not give, and counted: one
///   absurd reading never costs the record's other points.
public enum PointBounds {
    /// The numbers themselves are `FixBounds`' (the recorder's raw fixes obey them too).
    public static let earliestMs = FixBounds.earliestMs
    public static let latestMs = FixBounds.latestMs
    public static let height = FixBounds.height
    public static let accuracy = FixBounds.accuracy
    public static let speed = FixBounds.speed
    public static let climb = FixBounds.climb
    public static let track = FixBounds.track
    public static let pressure = FixBounds.pressure
    public static let temperature = FixBounds.temperature

    /// A raw fix's arrival (the recorder's system clock, ms since 1970), as far as any clock may
    /// be off (±35,000 years): the rules take differences of arrival times, which a crafted
    /// record's arrival beyond this would overflow. Outside, the record is damaged.
    public static let arrival: ClosedRange<Int64> = -(1 << 50)...(1 << 50)

    /// Whether a fix's time and position are possible (finite, |lat| ≤ 90, |lon| ≤ 180, a time
    /// in [2000, 2100)).
    @inline(__always)
    public static func hasValidTimeAndPosition(_ f: Fix) -> Bool {
        f.lat.isFinite && f.lon.isFinite && abs(f.lat) <= 90 && abs(f.lon) <= 180
            && f.timeMs >= earliestMs && f.timeMs < latestMs
    }

    /// The range optional field `bit` (4 and up) must lie in.
    @inline(__always)
    static func range(_ bit: Int) -> ClosedRange<Double> {
        switch bit {
        case PointField.altHAE, PointField.altMSL: return height
        case PointField.eph, PointField.epx, PointField.epy, PointField.epv: return accuracy
        case PointField.speed: return speed
        case PointField.track: return track
        case PointField.climb: return climb
        case PointField.temperature: return temperature
        default: return pressure
        }
    }

    /// What makes `f`'s time or position impossible, or nil.
    public static func positionProblem(_ f: Fix) -> String? {
        if !(f.lat.isFinite && abs(f.lat) <= 90) { return "latitude \(f.lat) out of range" }
        if !(f.lon.isFinite && abs(f.lon) <= 180) { return "longitude \(f.lon) out of range" }
        if f.timeMs < earliestMs || f.timeMs >= latestMs {
            return "time \(f.timeMs) ms since 1970 out of range (2000 to 2100)"
        }
        return nil
    }

    /// Applies the bounds to a decoded record's points: returns what makes the record damaged
    /// (nil when its times and positions are all possible), and otherwise leaves out every
    /// optional value outside, counting them in `leftOut` and naming the first in `firstLeftOut`.
    static func screen(_ fixes: inout [Fix], leftOut: inout Int, firstLeftOut: inout String?) -> String? {
        for f in fixes {
            if let p = positionProblem(f) { return p }
        }
        for i in fixes.indices {
            for bit in PointField.optionals {
                guard let v = PointField.stored(fixes[i], bit), !(v.isFinite && range(bit).contains(v)) else { continue }
                leftOut += 1
                if firstLeftOut == nil { firstLeftOut = "\(PointField.names[bit]) \(v)" }
                PointsDecoder.clear(&fixes[i], bit)
            }
        }
        return nil
    }
}

/// A fix as a points record gives it back (section 7's units; speed to whole cm/s, as the
/// writer stores it): what a point re-made from raw fixes looks like once recorded.
public enum PointResolution {
    public static func stored(_ f: Fix) -> Fix {
        @inline(__always) func q(_ v: Double?, _ bit: Int, step: Int64 = 1) -> Double? {
            guard let v, v.isFinite else { return nil }
            return PointField.value(PointField.quantise(v, bit, step: step), bit)
        }
        var g = f
        g.lat = PointField.value(PointField.quantise(f.lat, PointField.lat), PointField.lat)
        g.lon = PointField.value(PointField.quantise(f.lon, PointField.lon), PointField.lon)
        g.altHAE = q(f.altHAE, PointField.altHAE)
        g.altMSL = q(f.altMSL, PointField.altMSL)
        g.eph = q(f.eph, PointField.eph)
        g.epx = q(f.epx, PointField.epx)
        g.epy = q(f.epy, PointField.epy)
        g.epv = q(f.epv, PointField.epv)
        g.speed = q(f.speed, PointField.speed, step: 10)
        g.track = q(f.track, PointField.track)
        g.climb = q(f.climb, PointField.climb)
        g.pressurePa = q(f.pressurePa, PointField.pressure)
        g.temperatureC = q(f.temperatureC, PointField.temperature)
        return g
    }
}

/// Field numbers (mask bits) and their integer units.
enum PointField {
    static let count = 15
    static let time = 0, lat = 1, lon = 2, mode = 3
    static let altHAE = 4, altMSL = 5, eph = 6, epx = 7, epy = 8, epv = 9
    static let speed = 10, track = 11, climb = 12
    /// Added in format 1 without a version change: readers that predate it skip the field.
    static let pressure = 13
    /// Added the same way: the barometer's temperature.
    static let temperature = 14
    /// Bits every point must carry (time, lat, lon).
    static let required: UInt64 = 0b111
    /// Units per SI unit for the Double fields (index = bit); time and mode are integers.
    static let scale: [Double] = [1, 1e7, 1e7, 1, 100, 100, 100, 100, 100, 100, 1000, 100, 1000, 10, 100]
    /// Quantised magnitudes are clamped to ±2^50, far beyond any real reading, so that the
    /// conversion is exact both ways.
    static let limit: Double = 0x1p50

    @inline(__always)
    static func quantise(_ v: Double, _ bit: Int) -> Int64 {
        let q = (v * scale[bit]).rounded(.toNearestOrAwayFromZero)
        return Int64(Swift.min(Swift.max(q, -limit), limit))
    }

    /// Quantised to a multiple of `step` units (a writer's coarser resolution for a field).
    @inline(__always)
    static func quantise(_ v: Double, _ bit: Int, step: Int64) -> Int64 {
        let q = (v * scale[bit] / Double(step)).rounded(.toNearestOrAwayFromZero)
        return Int64(Swift.min(Swift.max(q, -limit / Double(step)), limit / Double(step))) * step
    }

    @inline(__always)
    static func value(_ q: Int64, _ bit: Int) -> Double { Double(q) / scale[bit] }

    /// The optional fields (bits 4 and up), in bit order: what both point encoders write.
    static let optionals = altHAE..<count
    /// Field names for messages (index = bit).
    static let names = [
        "time", "latitude", "longitude", "mode", "ellipsoid height", "sea-level height",
        "eph", "epx", "epy", "epv", "speed", "course", "vertical speed", "pressure", "temperature"
    ]

    /// A fix's value of optional field `bit`, when present and finite.
    @inline(__always)
    static func optional(_ f: Fix, _ bit: Int) -> Double? {
        guard let v = stored(f, bit), v.isFinite else { return nil }
        return v
    }

    /// A fix's value of optional field `bit` as it is (nil when absent).
    @inline(__always)
    static func stored(_ f: Fix, _ bit: Int) -> Double? {
        let v: Double?
        switch bit {
        case altHAE: v = f.altHAE
        case altMSL: v = f.altMSL
        case eph: v = f.eph
        case epx: v = f.epx
        case epy: v = f.epy
        case epv: v = f.epv
        case speed: v = f.speed
        case track: v = f.track
        case climb: v = f.climb
        case temperature: v = f.temperatureC
        default: v = f.pressurePa
        }
        return v
    }
}

/// Builds the body of a format-1 points record (type 3) one fix at a time. The writer no longer
/// writes type 3 (it writes the compact type 7); this stays to test that old logs still read.
struct PointsEncoder {
    /// Encoded points (without the leading count).
    private(set) var body: [UInt8] = []
    private(set) var count = 0
    private var previousMask: UInt64? = nil
    private var seen = [UInt8](repeating: 0, count: PointField.count)
    private var last = [Int64](repeating: 0, count: PointField.count)
    private var before = [Int64](repeating: 0, count: PointField.count)
    private var values = [Int64](repeating: 0, count: PointField.count)

    init() { body.reserveCapacity(4096) }

    mutating func reset() {
        body.removeAll(keepingCapacity: true)
        count = 0
        previousMask = nil
        for i in 0..<PointField.count { seen[i] = 0 }
    }

    /// Whether `fix` can be written: finite latitude in [-90, 90] and longitude in [-180, 180],
    /// and a time within `PointBounds` (a reader would take anything else as damage).
    static func isValid(_ fix: Fix) -> Bool {
        PointBounds.hasValidTimeAndPosition(fix)
    }

    /// Adds a fix that passed `isValid`.
    mutating func add(_ fix: Fix) {
        var mask: UInt64 = PointField.required | (1 << 3)
        values[PointField.time] = fix.timeMs
        values[PointField.lat] = PointField.quantise(fix.lat, PointField.lat)
        values[PointField.lon] = PointField.quantise(fix.lon, PointField.lon)
        values[PointField.mode] = Int64(fix.mode)
        for bit in PointField.optionals {
            if let v = PointField.optional(fix, bit) {
                mask |= 1 << UInt64(bit)
                values[bit] = PointField.quantise(v, bit)
            }
        }

        body.appendVarint(mask == previousMask ? 0 : mask + 1)
        previousMask = mask
        for bit in 0..<PointField.count where mask & (1 << UInt64(bit)) != 0 {
            let v = values[bit]
            let prediction: Int64
            switch seen[bit] {
            case 0: prediction = 0
            case 1: prediction = last[bit]
            default: prediction = 2 &* last[bit] &- before[bit]
            }
            body.appendZigzag(v &- prediction)
            before[bit] = last[bit]
            last[bit] = v
            if seen[bit] < 2 { seen[bit] += 1 }
        }
        count += 1
    }
}

enum PointsDecoder {
    static func decode(_ r: inout ByteReader) throws(Malformed) -> [Fix] {
        let n = try r.varint()
        // Each point takes at least 4 bytes (head, time, lat, lon).
        guard n <= UInt64(r.remaining / 4) else { throw Malformed() }
        var fixes: [Fix] = []
        fixes.reserveCapacity(Int(n))
        var mask: UInt64 = 0
        var haveMask = false
        var seen = (0 as UInt16, 0 as UInt16)  // bit sets: seen once / seen twice or more
        var last = [Int64](repeating: 0, count: PointField.count)
        var before = [Int64](repeating: 0, count: PointField.count)
        for _ in 0..<n {
            let head = try r.varint()
            if head == 0 {
                guard haveMask else { throw Malformed() }
            } else {
                mask = head - 1
                haveMask = true
            }
            guard mask & PointField.required == PointField.required else { throw Malformed() }
            var fix = Fix(timeMs: 0, lat: 0, lon: 0, mode: 0)
            var bits = mask
            var bit = 0
            while bits != 0 {
                if bits & 1 != 0 {
                    let residual = try r.zigzag()
                    if bit < PointField.count {
                        let b = UInt16(1) << UInt16(bit)
                        let prediction: Int64 =
                            seen.1 & b != 0
                            ? 2 &* last[bit] &- before[bit]
                            : seen.0 & b != 0 ? last[bit] : 0
                        let v = prediction &+ residual
                        before[bit] = last[bit]
                        last[bit] = v
                        if seen.0 & b != 0 { seen.1 |= b } else { seen.0 |= b }
                        set(&fix, bit, v)
                    }  // else: a field from a newer writer, skipped
                }
                bits >>= 1
                bit += 1
            }
            fixes.append(fix)
        }
        return fixes
    }

    /// Makes optional field `bit` absent.
    static func clear(_ f: inout Fix, _ bit: Int) {
        switch bit {
        case PointField.altHAE: f.altHAE = nil
        case PointField.altMSL: f.altMSL = nil
        case PointField.eph: f.eph = nil
        case PointField.epx: f.epx = nil
        case PointField.epy: f.epy = nil
        case PointField.epv: f.epv = nil
        case PointField.speed: f.speed = nil
        case PointField.track: f.track = nil
        case PointField.climb: f.climb = nil
        case PointField.temperature: f.temperatureC = nil
        default: f.pressurePa = nil
        }
    }

    @inline(__always)
    static func set(_ f: inout Fix, _ bit: Int, _ v: Int64) {
        switch bit {
        case PointField.time: f.timeMs = v
        case PointField.lat: f.lat = PointField.value(v, bit)
        case PointField.lon: f.lon = PointField.value(v, bit)
        case PointField.mode: f.mode = Int(truncatingIfNeeded: v)
        case PointField.altHAE: f.altHAE = PointField.value(v, bit)
        case PointField.altMSL: f.altMSL = PointField.value(v, bit)
        case PointField.eph: f.eph = PointField.value(v, bit)
        case PointField.epx: f.epx = PointField.value(v, bit)
        case PointField.epy: f.epy = PointField.value(v, bit)
        case PointField.epv: f.epv = PointField.value(v, bit)
        case PointField.speed: f.speed = PointField.value(v, bit)
        case PointField.track: f.track = PointField.value(v, bit)
        case PointField.climb: f.climb = PointField.value(v, bit)
        case PointField.temperature: f.temperatureC = PointField.value(v, bit)
        default: f.pressurePa = PointField.value(v, bit)
        }
    }
}

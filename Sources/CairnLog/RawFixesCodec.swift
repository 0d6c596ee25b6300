import CairnCore

/// The raw fixes record (type 8, LOG_FORMAT.md section 7c): the settings the rules ran with,
/// one verdict byte per fix, the rare events, the arrival lags, then the fixes as a points
/// body of section 7 (second-order prediction, one fix at a time) of its own length.
enum RawFixesCodec {
    static let undecided: UInt8 = 255
    static let kept: UInt8 = 0

    static func verdictByte(_ v: Verdict) -> UInt8 {
        switch v {
        case .kept: return kept
        case .dropped(let reason): return reason.rawValue
        case .undecided: return undecided
        }
    }

    static func encode(_ batch: RawBatch, into out: inout [UInt8]) {
        if let e = batch.encoded {
            out.append(contentsOf: e)
            return
        }
        // A fix the format cannot hold (see `PointsEncoder.isValid`) is counted as left out.
        let b = RawBatchEncoder(capacity: batch.fixes.count, activity: batch.activity)
        var leftOut = batch.leftOutBefore
        for var r in batch.fixes {
            guard PointsEncoder.isValid(r.fix) else { leftOut &+= 1; continue }
            r.fix = r.fix.atLogResolution
            b.add(r)
        }
        b.finish(leftOutBefore: leftOut, into: &out)
    }

    static func decode(_ r: inout ByteReader) throws(Malformed) -> RawBatch {
        let count = try r.varint()
        guard count <= UInt64(r.remaining) else { throw Malformed() }
        let n = Int(count)
        let flags = try r.u8()
        let activity = try r.string()
        let closeAfter = try r.varint()
        let leftOut = try r.varint()
        let settings = RawSettings(clockIsFix: flags & 1 != 0, closeAfterMs: Int64(clamping: closeAfter))
        var verdicts: [Verdict] = []
        verdicts.reserveCapacity(n)
        for _ in 0..<n {
            let v = try r.u8()
            switch v {
            case kept: verdicts.append(.kept)
            case undecided: verdicts.append(.undecided)
            default:
                // A rule this version does not know: undecided, as far as this reader can say.
                verdicts.append(DropReason(rawValue: v).map { .dropped($0) } ?? .undecided)
            }
        }
        var events = [RawEvents](repeating: [], count: n)
        let k = try r.varint()
        guard k <= UInt64(n) else { throw Malformed() }
        for _ in 0..<k {
            let i = try r.varint()
            guard i < UInt64(n) else { throw Malformed() }
            events[Int(i)] = RawEvents(rawValue: try r.u8())
        }
        var lags: [Int64] = []
        lags.reserveCapacity(n)
        var lag: Int64 = 0
        for _ in 0..<n {
            lag = lag &+ (try r.zigzag())
            lags.append(lag)
        }
        let length = try r.varint()
        guard length <= UInt64(r.remaining) else { throw Malformed() }
        var body = ByteReader(try r.take(Int(length)))
        let fixes = try PointsDecoder.decode(&body)
        guard fixes.count == n else { throw Malformed() }
        var raws: [RawFix] = []
        raws.reserveCapacity(n)
        for i in 0..<n {
            raws.append(
                RawFix(
                    fix: fixes[i], arrivalMs: fixes[i].timeMs &+ lags[i], verdict: verdicts[i],
                    events: events[i], settings: settings))
        }
        return RawBatch(activity: activity, fixes: raws, leftOutBefore: leftOut)
    }
}

/// Builds a raw fixes record one fix at a time, so that framing it at a sync costs no pass over
/// the batch (the recorder frames one every few seconds). Its buffers are allocated once, for
/// `RawBatchLimits.batch` fixes: the record path runs on plain memory, without a check of
/// uniqueness or capacity per byte.
final class RawBatchEncoder {
    /// The points body of section 7 (without its count), the verdict bytes, the lag varints
    /// and the event pairs.
    private let body: UnsafeMutablePointer<UInt8>
    private var bodyCount = 0
    private let verdicts: UnsafeMutablePointer<UInt8>
    private let lags: UnsafeMutablePointer<UInt8>
    private var lagsCount = 0
    private var events: [UInt8] = []
    private var eventCount = 0
    private var lastLag: Int64 = 0
    private var settings: RawSettings?
    /// Per field: the last two values (section 7's prediction).
    private let history: UnsafeMutablePointer<Int64>
    /// Where `finish` puts the record together, large enough for a full batch: the record
    /// reaches its buffer in one copy.
    private let record: UnsafeMutablePointer<UInt8>
    private let recordCapacity: Int
    /// Bit `field` set: the field has a value in this batch.
    private var seen: UInt64 = 0
    private var previousMask: UInt64 = .max
    private(set) var count = 0

    /// A fix takes at most 10 bytes of head and 10 per field.
    private static let maxFixBytes = 10 + 10 * PointField.count

    let capacity: Int
    /// The `--activity` profile's name, as the record stores it.
    private let activity: [UInt8]

    init(capacity: Int = RawBatchLimits.batch, activity: String) {
        let n = max(1, capacity)
        self.capacity = n
        self.activity = Array(activity.utf8)
        // The head's eight varints and flags, the name, then per fix its verdict, lag, event
        // pair and point.
        recordCapacity = 8 * 10 + 1 + self.activity.count + n * (1 + 10 + 11 + Self.maxFixBytes)
        record = .allocate(capacity: recordCapacity)
        record.initialize(repeating: 0, count: recordCapacity)
        body = .allocate(capacity: n * Self.maxFixBytes)
        verdicts = .allocate(capacity: n)
        lags = .allocate(capacity: n * 10)
        history = .allocate(capacity: 2 * PointField.count)
        history.initialize(repeating: 0, count: 2 * PointField.count)
    }

    deinit {
        body.deallocate()
        verdicts.deallocate()
        lags.deallocate()
        history.deallocate()
        record.deallocate()
    }

    @inline(__always)
    private static func putVarint(_ v: UInt64, _ p: UnsafeMutablePointer<UInt8>, _ n: inout Int) {
        var v = v
        while v >= 0x80 {
            p[n] = UInt8(truncatingIfNeeded: v) | 0x80
            n &+= 1
            v >>= 7
        }
        p[n] = UInt8(truncatingIfNeeded: v)
        n &+= 1
    }

    /// 1.5 * 2^52: a double between 2^52 and 2^53 holds an integer in its low mantissa bits.
    private static let integerBias = 0x1.8p52
    private static let integerBiasBits = Int64(bitPattern: integerBias.bitPattern)

    /// The fixes come from `Fix.atLogResolution` (on the grid, within ±2^50 units): any rounding
    /// to the nearest gives their integers back, so the cheapest one is taken, the FPU's own
    /// (adding the bias rounds `v * scale` to an integer held in the low bits), with no check
    /// of range.
    @inline(__always)
    private static func quantise(_ v: Double, _ scale: Double) -> Int64 {
        Int64(bitPattern: (v * scale + integerBias).bitPattern) &- integerBiasBits
    }

    /// Adds a fix that passed `PointsEncoder.isValid`, at the log's resolution
    /// (`Fix.atLogResolution`, as `TripRecorder` hands raw fixes out); at most `capacity` per
    /// batch. The batch takes its settings from its first fix.
    func add(_ r: RawFix) {
        precondition(count < capacity)
        if settings == nil { settings = r.settings }
        if !r.events.isEmpty {
            events.appendVarint(UInt64(count))
            events.append(r.events.rawValue)
            eventCount += 1
        }
        verdicts[count] = RawFixesCodec.verdictByte(r.verdict)
        let lag = r.arrivalMs &- r.fix.timeMs
        Self.putVarint(Varint.zigzag(lag &- lastLag), lags, &lagsCount)
        lastLag = lag

        add(r.fix)
        count &+= 1
    }

    /// Section 7's point: the mask of present fields, then one residual per present field, in
    /// bit order.
    @inline(__always)
    private func add(_ f: Fix) {
        var mask: UInt64 = PointField.required | (1 << 3)
        @inline(__always) func has(_ x: Double?, _ bit: Int) { if let x, x.isFinite { mask |= 1 << UInt64(bit) } }
        has(f.altHAE, PointField.altHAE)
        has(f.altMSL, PointField.altMSL)
        has(f.eph, PointField.eph)
        has(f.epx, PointField.epx)
        has(f.epy, PointField.epy)
        has(f.epv, PointField.epv)
        has(f.speed, PointField.speed)
        has(f.track, PointField.track)
        has(f.climb, PointField.climb)
        has(f.pressurePa, PointField.pressure)
        has(f.temperatureC, PointField.temperature)
        Self.putVarint(mask == previousMask ? 0 : mask + 1, body, &bodyCount)
        previousMask = mask
        let body = self.body, history = self.history
        var seen = self.seen
        var n = bodyCount
        // Section 7's prediction (0, then the last value, then 2 * last - before) as one
        // formula: before any value both are 0, and the first value is stored as both.
        @inline(__always) func put(_ bit: Int, _ q: Int64) {
            let last = history[2 &* bit], before = history[2 &* bit &+ 1]
            Self.putVarint(Varint.zigzag(q &- (2 &* last &- before)), body, &n)
            history[2 &* bit &+ 1] = seen & (1 &<< UInt64(bit)) == 0 ? q : last
            history[2 &* bit] = q
            seen |= 1 &<< UInt64(bit)
        }
        @inline(__always) func put(_ x: Double?, _ bit: Int, _ scale: Double) {
            if let x, x.isFinite { put(bit, Self.quantise(x, scale)) }
        }
        put(PointField.time, f.timeMs)
        put(PointField.lat, Self.quantise(f.lat, 1e7))
        put(PointField.lon, Self.quantise(f.lon, 1e7))
        put(PointField.mode, Int64(f.mode))
        put(f.altHAE, PointField.altHAE, 100)
        put(f.altMSL, PointField.altMSL, 100)
        put(f.eph, PointField.eph, 100)
        put(f.epx, PointField.epx, 100)
        put(f.epy, PointField.epy, 100)
        put(f.epv, PointField.epv, 100)
        put(f.speed, PointField.speed, 1000)
        put(f.track, PointField.track, 100)
        put(f.climb, PointField.climb, 1000)
        put(f.pressurePa, PointField.pressure, 10)
        put(f.temperatureC, PointField.temperature, 100)
        bodyCount = n
        self.seen = seen
    }

    /// Appends the record body and starts a new batch.
    func finish(leftOutBefore: UInt64, into out: inout [UInt8]) {
        out.append(contentsOf: finish(leftOutBefore: leftOutBefore))
    }

    /// The record body (valid until the next `add`), and a new batch started.
    func finish(leftOutBefore: UInt64) -> UnsafeBufferPointer<UInt8> {
        let s = settings ?? RawSettings(clockIsFix: false, closeAfterMs: 0)
        let name = activity
        let closeAfter = UInt64(max(0, s.closeAfterMs))
        let bodyLength = UInt64(Varint.length(UInt64(count)) + bodyCount)
        let size =
            Varint.length(UInt64(count)) + 1 + Varint.length(UInt64(name.count)) + name.count
            + Varint.length(closeAfter) + Varint.length(leftOutBefore) + count
            + Varint.length(UInt64(eventCount)) + events.count + lagsCount + Varint.length(bodyLength) + Int(bodyLength)
        precondition(size <= recordCapacity)
        do {
            let p = record
            var n = 0
            Self.putVarint(UInt64(count), p, &n)
            p[n] = s.clockIsFix ? 1 : 0
            n &+= 1
            Self.putVarint(UInt64(name.count), p, &n)
            name.withUnsafeBufferPointer { c in
                if let base = c.baseAddress { (p + n).update(from: base, count: c.count) }
            }
            n &+= name.count
            Self.putVarint(closeAfter, p, &n)
            Self.putVarint(leftOutBefore, p, &n)
            (p + n).update(from: verdicts, count: count)
            n &+= count
            Self.putVarint(UInt64(eventCount), p, &n)
            events.withUnsafeBufferPointer { e in
                if let base = e.baseAddress { (p + n).update(from: base, count: e.count) }
                n &+= e.count
            }
            (p + n).update(from: lags, count: lagsCount)
            n &+= lagsCount
            Self.putVarint(bodyLength, p, &n)
            Self.putVarint(UInt64(count), p, &n)
            (p + n).update(from: body, count: bodyCount)
            n &+= bodyCount
            precondition(n == size)
        }
        count = 0
        bodyCount = 0
        lagsCount = 0
        if eventCount > 0 { events.removeAll(keepingCapacity: true) }
        eventCount = 0
        lastLag = 0
        settings = nil
        previousMask = .max
        seen = 0
        history.update(repeating: 0, count: 2 * PointField.count)
        return UnsafeBufferPointer(start: record, count: size)
    }
}

enum RawBatchLimits {
    /// Raw fixes per record at most (a recorder replaying faster than real time reaches it).
    static let batch = 256
}

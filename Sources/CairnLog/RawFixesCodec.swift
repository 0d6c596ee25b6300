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
        var b = RawBatchEncoder()
        for r in batch.fixes { b.add(r) }
        b.finish(activity: batch.activity, leftOutBefore: batch.leftOutBefore, into: &out)
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
            raws.append(RawFix(fix: fixes[i], arrivalMs: fixes[i].timeMs &+ lags[i], verdict: verdicts[i],
                               events: events[i], settings: settings))
        }
        return RawBatch(activity: activity, fixes: raws, leftOutBefore: leftOut)
    }
}

/// Builds a raw fixes record one fix at a time, so that framing it at a sync costs no pass over
/// the batch (the recorder frames one every few seconds).
struct RawBatchEncoder {
    private var points = PointsEncoder()
    private var verdicts: [UInt8] = []
    private var lags: [UInt8] = []
    private var events: [UInt8] = []
    private var eventCount = 0
    private var lastLag: Int64 = 0
    private var settings: RawSettings?
    var count: Int { points.count }

    init() {
        verdicts.reserveCapacity(256)
        lags.reserveCapacity(512)
    }

    /// Adds a fix that passed `PointsEncoder.isValid`. The batch takes its settings from its first fix.
    mutating func add(_ r: RawFix) {
        if settings == nil { settings = r.settings }
        if !r.events.isEmpty {
            events.appendVarint(UInt64(points.count))
            events.append(r.events.rawValue)
            eventCount += 1
        }
        verdicts.append(RawFixesCodec.verdictByte(r.verdict))
        let lag = r.arrivalMs &- r.fix.timeMs
        lags.appendZigzag(lag &- lastLag)
        lastLag = lag
        points.add(r.fix)
    }

    /// Appends the record body and starts a new batch.
    mutating func finish(activity: String, leftOutBefore: UInt64, into out: inout [UInt8]) {
        let s = settings ?? RawSettings(clockIsFix: false, closeAfterMs: 0)
        out.appendVarint(UInt64(points.count))
        out.append(s.clockIsFix ? 1 : 0)
        out.appendVarint(UInt64(activity.utf8.count))
        out.append(contentsOf: activity.utf8)
        out.appendVarint(UInt64(max(0, s.closeAfterMs)))
        out.appendVarint(leftOutBefore)
        out.append(contentsOf: verdicts)
        out.appendVarint(UInt64(eventCount))
        out.append(contentsOf: events)
        out.append(contentsOf: lags)
        let bodyLength = Varint.length(UInt64(points.count)) + points.body.count
        out.appendVarint(UInt64(bodyLength))
        out.appendVarint(UInt64(points.count))
        out.append(contentsOf: points.body)
        points.reset()
        verdicts.removeAll(keepingCapacity: true)
        lags.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        eventCount = 0
        lastLag = 0
        settings = nil
    }
}

enum RawQueueLimits {
    /// Raw fixes per record at most (a recorder replaying faster than real time reaches it).
    static let batch = 256
}

import CairnCore

/// The raw fixes record (type 8, LOG_FORMAT.md section 7c): the settings the rules ran with,
/// one verdict byte per fix, the rare events, the arrival lags, then the fixes as a compact
/// points body (section 7b) of its own length.
enum RawFixesCodec {
    static let undecided: UInt8 = 255
    static let kept: UInt8 = 0

    static func encode(_ batch: RawBatch, into out: inout [UInt8]) {
        let raws = batch.fixes
        out.appendVarint(UInt64(raws.count))
        let settings = raws.first?.settings ?? RawSettings(clockIsFix: false, closeAfterMs: 0)
        out.append(settings.clockIsFix ? 1 : 0)
        out.appendVarint(UInt64(batch.activity.utf8.count))
        out.append(contentsOf: batch.activity.utf8)
        out.appendVarint(UInt64(max(0, settings.closeAfterMs)))
        out.appendVarint(batch.leftOutBefore)
        for r in raws {
            switch r.verdict {
            case .kept: out.append(kept)
            case .dropped(let reason): out.append(reason.rawValue)
            case .undecided: out.append(undecided)
            }
        }
        var events = 0
        for r in raws where !r.events.isEmpty { events += 1 }
        out.appendVarint(UInt64(events))
        for (i, r) in raws.enumerated() where !r.events.isEmpty {
            out.appendVarint(UInt64(i))
            out.append(r.events.rawValue)
        }
        var lastLag: Int64 = 0
        for r in raws {
            let lag = r.arrivalMs &- r.fix.timeMs
            out.appendZigzag(lag &- lastLag)
            lastLag = lag
        }
        var body: [UInt8] = []
        var e = CompactPointsEncoder()
        e.speedStep = 1
        e.encode(raws.map(\.fix)[...], into: &body)
        out.appendVarint(UInt64(body.count))
        out.append(contentsOf: body)
    }

    static func decode(_ r: inout ByteReader) throws(Malformed) -> RawBatch {
        let count = try r.varint()
        guard count <= UInt64(CompactPoints.maxPoints), count <= UInt64(r.remaining) else { throw Malformed() }
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
        let fixes = try CompactPointsDecoder.decode(&body)
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

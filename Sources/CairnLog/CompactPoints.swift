import CairnCore

// The compact points record (type 7, format 2), specified in LOG_FORMAT.md section 7b.
// Type 3 spent a whole byte or more on every field of every point; at the resolution a receiver
// really has most fields need a few bits. Per record and field this stores the first value, the
// field's step (the greatest common divisor of its changes: a receiver's 0.1 m altitude is a
// step of 10 cm, a constant mode or geoid separation a step of 0) and a Rice parameter, then
// Rice-coded prediction residuals in a bit stream. Records stay self-contained, so damage still
// costs only the damaged frame.

enum CompactPoints {
    /// A reader rejects larger counts (the writer frames at most `LogWriter.pointsBatchCapacity`),
    /// so a tiny frame cannot make it allocate millions of points.
    static let maxPoints = 4096
    /// Unary quotients from this length on are escaped: the run of ones, then 64 raw bits.
    static let escapeRun = 24
    /// Header flag: field 5 holds altMSL − altHAE (the geoid separation, nearly constant).
    static let separationFlag: UInt8 = 1

    /// How a field is predicted from its earlier values in the record (reduced units).
    @inline(__always)
    static func predictsSecondOrder(_ bit: Int) -> Bool { bit == PointField.time }
    @inline(__always)
    static func predictsFromTime(_ bit: Int) -> Bool { bit == PointField.lat || bit == PointField.lon }

    /// `a + round((a − b) × t2 / t1)` (half away from zero), or `2a − b` when the times do not
    /// allow it; all arithmetic modulo 2^64 like the rest of the format.
    @inline(__always)
    static func timeScaled(_ a: Int64, _ b: Int64, t1: Int64, t2: Int64) -> Int64 {
        let d = a &- b
        guard t1 > 0, t2 >= 0 else { return a &+ d }
        let (n, overflow) = d.multipliedReportingOverflow(by: t2)
        guard !overflow else { return a &+ d }
        let q = (n.magnitude + UInt64(t1 / 2)) / UInt64(t1)
        let step = Int64(truncatingIfNeeded: q)
        return n < 0 ? a &- step : a &+ step
    }

    @inline(__always)
    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    @inline(__always)
    static func unzigzag(_ u: UInt64) -> Int64 { Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1) }

    /// Bits a Rice code with parameter `k` spends on `u`.
    @inline(__always)
    static func riceBits(_ u: UInt64, _ k: Int) -> Int {
        let q = u >> UInt64(k)
        return q < UInt64(escapeRun) ? Int(q) + 1 + k : escapeRun + 64
    }
}

/// Appends bits least significant first.
struct BitWriter {
    private(set) var bytes: [UInt8]
    private var acc: UInt64 = 0
    private var used = 0

    /// Reuses `bytes`' storage (emptied) so that steady encoding does not allocate.
    init(reusing bytes: [UInt8]) {
        self.bytes = bytes
        self.bytes.removeAll(keepingCapacity: true)
    }

    /// Writes the low `n` bits of `v` (n ≤ 64).
    @inline(__always)
    mutating func write(_ v: UInt64, _ n: Int) {
        guard n > 0 else { return }
        let v = n == 64 ? v : v & ((1 << UInt64(n)) - 1)
        if used + n <= 64 {
            acc |= used == 64 ? 0 : v << UInt64(used)
            used += n
        } else {
            let first = 64 - used
            acc |= v << UInt64(used)
            used = 64
            drain()
            acc = v >> UInt64(first)
            used = n - first
        }
        if used >= 32 { drain() }
    }

    @inline(__always)
    private mutating func drain() {
        while used >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: acc))
            acc = used == 8 ? 0 : acc >> 8
            used -= 8
        }
    }

    @inline(__always)
    mutating func rice(_ u: UInt64, _ k: Int) {
        let q = u >> UInt64(k)
        if q < UInt64(CompactPoints.escapeRun) {
            write((1 << q) - 1, Int(q) + 1)  // q ones, then the terminating zero
            write(u, k)
        } else {
            write((1 << UInt64(CompactPoints.escapeRun)) - 1, CompactPoints.escapeRun)
            write(u, 64)
        }
    }

    /// Pads the last byte with zero bits and returns everything written.
    mutating func finish() -> [UInt8] {
        drain()
        if used > 0 { bytes.append(UInt8(truncatingIfNeeded: acc)); acc = 0; used = 0 }
        return bytes
    }
}

/// Reads bits least significant first from a byte reader's remaining bytes.
struct BitReader {
    private let base: UnsafeRawBufferPointer
    private var bit = 0

    init(_ r: inout ByteReader) { base = r.rest() }

    @inline(__always)
    mutating func read(_ n: Int) throws(Malformed) -> UInt64 {
        guard n > 0 else { return 0 }
        guard bit + n <= base.count * 8 else { throw Malformed() }
        var v: UInt64 = 0
        var got = 0
        while got < n {
            let byte = UInt64(base[bit >> 3]) >> UInt64(bit & 7)
            let take = min(8 - (bit & 7), n - got)
            v |= (byte & ((1 << UInt64(take)) - 1)) << UInt64(got)
            got += take
            bit += take
        }
        return v
    }

    @inline(__always)
    mutating func rice(_ k: Int) throws(Malformed) -> UInt64 {
        var q = 0
        while q < CompactPoints.escapeRun {
            if try read(1) == 0 { break }
            q += 1
        }
        if q == CompactPoints.escapeRun { return try read(64) }
        let low = try read(k)
        return UInt64(q) << UInt64(k) | low
    }
}

/// Encodes a batch of fixes (each passing `PointsEncoder.isValid`) as a compact points body.
/// Reusable: keeps its scratch memory between batches, so that a steady writer does not
/// allocate per record (at real time a record holds one or two points, and the per-record
/// set-up was most of its cost).
struct CompactPointsEncoder {
    /// Column f (`f * n ..< f * n + n`, n = the batch's count) holds field f of every point:
    /// its quantised value, whether it is present, and (from the column's start) its residuals.
    /// Grown to the largest batch seen, never shrunk.
    private var values: [Int64] = []
    private var present: [Bool] = []
    private var residuals: [UInt64] = []
    /// Per field: step, Rice parameter, points seen so far in the bit stream.
    private var perField = [Int64](repeating: 0, count: 3 * PointField.count)
    private var stream: [UInt8] = []

    init() {}

    /// Appends the record body (count, header, bit stream) for `fixes` to `out`.
    mutating func encode(_ fixes: ArraySlice<Fix>, into out: inout [UInt8]) {
        let n = fixes.count
        precondition(n <= CompactPoints.maxPoints)
        guard n > 0 else { out.appendVarint(0); return }
        if values.count < PointField.count * n {
            values = [Int64](repeating: 0, count: PointField.count * n)
            present = [Bool](repeating: false, count: PointField.count * n)
            residuals = [UInt64](repeating: 0, count: PointField.count * n)
        }
        // Moved out of self (no copy) so that the work runs on plain buffers.
        var v: [Int64] = [], p: [Bool] = [], r: [UInt64] = [], pf: [Int64] = [], bytes: [UInt8] = []
        swap(&v, &values); swap(&p, &present); swap(&r, &residuals); swap(&pf, &perField); swap(&bytes, &stream)
        v.withUnsafeMutableBufferPointer { v in
            p.withUnsafeMutableBufferPointer { p in
                r.withUnsafeMutableBufferPointer { r in
                    pf.withUnsafeMutableBufferPointer { pf in
                        Self.encode(fixes, v, p, r, pf, &bytes, into: &out)
                    }
                }
            }
        }
        swap(&v, &values); swap(&p, &present); swap(&r, &residuals); swap(&pf, &perField); swap(&bytes, &stream)
    }

    private static func encode(
        _ fixes: ArraySlice<Fix>, _ values: UnsafeMutableBufferPointer<Int64>,
        _ present: UnsafeMutableBufferPointer<Bool>, _ residuals: UnsafeMutableBufferPointer<UInt64>,
        _ perField: UnsafeMutableBufferPointer<Int64>, _ stream: inout [UInt8], into out: inout [UInt8]
    ) {
        let n = fixes.count
        let count = PointField.count
        @inline(__always) func put(_ f: Int, _ i: Int, _ q: Int64) {
            values[f * n + i] = q
            present[f * n + i] = true
        }
        // Quantise; field 5 becomes the geoid separation when every point with altMSL has altHAE.
        var separation = true
        var i = 0
        for fix in fixes {
            let msl = fix.altMSL.map { $0.isFinite } ?? false
            let hae = fix.altHAE.map { $0.isFinite } ?? false
            if msl && !hae { separation = false }
            put(PointField.time, i, fix.timeMs)
            put(PointField.lat, i, PointField.quantise(fix.lat, PointField.lat))
            put(PointField.lon, i, PointField.quantise(fix.lon, PointField.lon))
            put(PointField.mode, i, Int64(fix.mode))
            for f in PointField.optionals {
                if let x = PointField.optional(fix, f) {
                    // Speed to whole cm/s: finer digits are noise (doppler speed is good to a
                    // few cm/s) and cost 3 bits a point.
                    put(f, i, PointField.quantise(x, f, step: f == PointField.speed ? 10 : 1))
                } else {
                    values[f * n + i] = 0
                    present[f * n + i] = false
                }
            }
            i += 1
        }
        if separation {
            let msl = PointField.altMSL * n, hae = PointField.altHAE * n
            for i in 0..<n where present[msl + i] {
                values[msl + i] = values[msl + i] &- values[hae + i]
            }
        }
        var fields: UInt64 = 0, partial: UInt64 = 0
        for f in 0..<count {
            var c = 0
            for i in f * n..<(f * n + n) where present[i] { c += 1 }
            if c > 0 { fields |= 1 << UInt64(f) }
            if c > 0 && c < n { partial |= 1 << UInt64(f) }
        }
        out.appendVarint(UInt64(n))
        out.append(separation ? CompactPoints.separationFlag : 0)
        out.appendVarint(fields)
        out.appendVarint(partial)
        // A field missing from some points: its presence as runs (a field is usually missing
        // only from the first point after a gap, so this costs a few bytes a record).
        for f in 0..<count where partial & (1 << UInt64(f)) != 0 {
            let col = f * n
            var runs = 1
            for i in 1..<n where present[col + i] != present[col + i - 1] { runs += 1 }
            out.appendVarint(UInt64(runs) << 1 | (present[col] ? 1 : 0))
            var length = 1
            for i in 1..<n {
                if present[col + i] == present[col + i - 1] {
                    length += 1
                } else {
                    out.appendVarint(UInt64(length))  // every run but the last
                    length = 1
                }
            }
        }

        // Per field: base (first present value), step (gcd of changes), Rice parameter.
        let steps = perField.baseAddress!, ks = steps + count, seen = ks + count
        for f in 0..<count {
            steps[f] = 0; ks[f] = 0; seen[f] = 0
        }
        // The reduced time of point i, for the time-scaled position prediction (time is in
        // every point and its column comes first; 0 while its step is 0).
        var timeBase: Int64 = 0
        @inline(__always) func time(_ i: Int) -> Int64 {
            steps[PointField.time] == 0 ? 0 : (values[i] &- timeBase) / steps[PointField.time]
        }
        for f in 0..<count where fields & (1 << UInt64(f)) != 0 {
            let col = f * n
            var base: Int64 = 0, haveBase = false
            var g: UInt64 = 0
            for i in 0..<n where present[col + i] {
                let x = values[col + i]
                if !haveBase { base = x; haveBase = true; continue }
                g = gcd(g, (x &- base).magnitude)
            }
            if g > UInt64(Int64.max) { g = 1 }
            let step = Int64(g)
            steps[f] = step
            if f == PointField.time { timeBase = base }
            out.appendZigzag(base)
            guard n > 1 else { continue }  // one point: no steps, nothing to predict
            out.appendVarint(g)
            guard step != 0 else { continue }
            // Residuals of the reduced values w = (v − base) / step against the prediction.
            var a: Int64 = 0, b: Int64 = 0, k = 0
            var ta: Int64 = 0, tb: Int64 = 0
            for i in 0..<n where present[col + i] {
                let w = (values[col + i] &- base) / step
                if k > 0 {
                    let prediction: Int64
                    if k == 1 {
                        prediction = a
                    } else if CompactPoints.predictsSecondOrder(f) {
                        prediction = 2 &* a &- b
                    } else if CompactPoints.predictsFromTime(f) {
                        prediction = CompactPoints.timeScaled(a, b, t1: ta &- tb, t2: time(i) &- ta)
                    } else {
                        prediction = a
                    }
                    residuals[col + k - 1] = CompactPoints.zigzag(w &- prediction)
                }
                b = a; a = w
                tb = ta; ta = time(i)
                k += 1
            }
            ks[f] = Int64(bestK(UnsafeBufferPointer(rebasing: residuals[col..<(col + k - 1)])))
            out.append(UInt8(ks[f]))
        }

        var bits = BitWriter(reusing: stream)
        stream = []
        for i in 0..<n {
            for f in 0..<count where fields & (1 << UInt64(f)) != 0 && present[f * n + i] {
                let k = seen[f]
                seen[f] = k + 1
                if k == 0 || steps[f] == 0 { continue }  // the first value is the base
                bits.rice(residuals[f * n + Int(k) - 1], Int(ks[f]))
            }
        }
        stream = bits.finish()
        out.append(contentsOf: stream)
    }

    private static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// The Rice parameter that spends the fewest bits on `us` (searched around log2 of the mean).
    private static func bestK(_ us: UnsafeBufferPointer<UInt64>) -> Int {
        guard !us.isEmpty else { return 0 }
        var sum: UInt64 = 0
        for u in us { sum = sum &+ min(u, 1 << 40) }
        let mean = sum / UInt64(us.count)
        let guess = mean == 0 ? 0 : 63 - mean.leadingZeroBitCount
        var best = 0, bestBits = Int.max
        for k in max(0, guess - 2)...min(62, guess + 2) {
            var bits = 0
            for u in us { bits += CompactPoints.riceBits(u, k) }
            if bits < bestBits { bestBits = bits; best = k }
        }
        return best
    }
}

enum CompactPointsDecoder {
    static func decode(_ r: inout ByteReader) throws(Malformed) -> [Fix] {
        let count = try r.varint()
        guard count <= UInt64(CompactPoints.maxPoints) else { throw Malformed() }
        if count == 0 { return [] }
        let n = Int(count)
        let flags = try r.u8()
        let fields = try r.varint()
        let partial = try r.varint()
        guard fields & PointField.required == PointField.required, partial & fields == partial,
            partial & PointField.required == 0
        else { throw Malformed() }
        // Presence runs of the partial fields: run boundaries, flipping presence at each.
        var runEnds: [[Int]] = Array(repeating: [], count: 64)
        var firstPresent = [Bool](repeating: true, count: 64)
        for f in 0..<64 where partial & (1 << UInt64(f)) != 0 {
            let head = try r.varint()
            let runs = head >> 1
            guard runs >= 2, runs <= UInt64(n) else { throw Malformed() }
            firstPresent[f] = head & 1 != 0
            var end = 0
            for _ in 0..<(runs - 1) {
                let len = try r.varint()
                guard len >= 1, len < UInt64(n - end) else { throw Malformed() }
                end += Int(len)
                runEnds[f].append(end)
            }
        }
        var base = [Int64](repeating: 0, count: 64)
        var step = [Int64](repeating: 0, count: 64)
        var k = [Int](repeating: 0, count: 64)
        for f in 0..<64 where fields & (1 << UInt64(f)) != 0 {
            base[f] = try r.zigzag()
            guard n > 1 else { continue }
            let g = try r.varint()
            guard g <= UInt64(Int64.max) else { throw Malformed() }
            step[f] = Int64(g)
            if g != 0 {
                let kf = try r.u8()
                guard kf <= 62 else { throw Malformed() }
                k[f] = Int(kf)
            }
        }
        var bits = BitReader(&r)
        var last = [Int64](repeating: 0, count: 64), before = [Int64](repeating: 0, count: 64)
        var seen = [UInt8](repeating: 0, count: 64)
        var lastTime: Int64 = 0, beforeTime: Int64 = 0
        var fixes: [Fix] = []
        fixes.reserveCapacity(n)
        let separation = flags & CompactPoints.separationFlag != 0
        var runIndex = [Int](repeating: 0, count: 64)
        for i in 0..<n {
            var here = fields
            var p = partial
            var f = 0
            while p != 0 {
                if p & 1 != 0 {
                    while runIndex[f] < runEnds[f].count && runEnds[f][runIndex[f]] <= i { runIndex[f] += 1 }
                    // Presence flips at every run boundary passed.
                    if firstPresent[f] == (runIndex[f] % 2 == 1) { here &= ~(1 << UInt64(f)) }
                }
                p >>= 1
                f += 1
            }
            var fix = Fix(timeMs: 0, lat: 0, lon: 0, mode: 0)
            var hae: Int64?
            var msl: Int64?
            var t: Int64 = 0
            var m = here
            f = 0
            while m != 0 {
                defer { m >>= 1; f += 1 }
                guard m & 1 != 0 else { continue }
                var w: Int64 = 0
                if seen[f] > 0 && step[f] != 0 {
                    let pred: Int64
                    if seen[f] == 1 {
                        pred = last[f]
                    } else if CompactPoints.predictsSecondOrder(f) {
                        pred = 2 &* last[f] &- before[f]
                    } else if CompactPoints.predictsFromTime(f) {
                        pred = CompactPoints.timeScaled(last[f], before[f], t1: lastTime &- beforeTime, t2: t &- lastTime)
                    } else {
                        pred = last[f]
                    }
                    w = pred &+ CompactPoints.unzigzag(try bits.rice(k[f]))
                }
                before[f] = last[f]
                last[f] = w
                if seen[f] < 2 { seen[f] += 1 }
                let v = base[f] &+ w &* step[f]
                switch f {
                case PointField.time: fix.timeMs = v; t = w
                case PointField.altHAE: hae = v; fix.altHAE = PointField.value(v, f)
                case PointField.altMSL: msl = v
                case PointField.mode: fix.mode = Int(truncatingIfNeeded: v)
                case 0..<PointField.count: PointsDecoder.set(&fix, f, v)
                default: break  // a field from a newer writer: read and skipped
                }
            }
            if let msl {
                if separation {
                    guard let hae else { throw Malformed() }
                    fix.altMSL = PointField.value(msl &+ hae, PointField.altMSL)
                } else {
                    fix.altMSL = PointField.value(msl, PointField.altMSL)
                }
            }
            beforeTime = lastTime
            lastTime = t
            fixes.append(fix)
        }
        return fixes
    }
}

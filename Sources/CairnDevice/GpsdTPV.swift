import CairnCore

/// A one-pass reader for gpsd's TPV lines in the shape gpsd writes them. libgps's
/// `gps_unpack` dominated the recorder's instructions per fix (a debug-trace call per input
/// character, attribute look-up by `strcmp`; Tests/bench/callgrind-results.md); this
/// reads the same fields in one pass. It answers only when it is sure: any line it does not
/// fully understand (a field of an unexpected type, a repeated field, a time in another form,
/// an escaped key, invalid JSON, a very long number) goes to libgps exactly as before, behind
/// the strict-JSON gate. The tests compare both on every TPV line of gpsd's regression logs and
/// the fuzzer compares them on every line it makes.
enum GpsdTPV {
    /// The fields cairn maps, as `GpsdSource.report(from:set:)` does for libgps's fix. Plain
    /// stored values, not an array: one line must not cost an allocation.
    struct Fields {
        var mode: Int?
        var timeMs: Int64?
        var lat: Double?, lon: Double?, altHAE: Double?, altMSL: Double?
        var eph: Double?, epx: Double?, epy: Double?, epv: Double?
        var speed: Double?, track: Double?, climb: Double?

        mutating func set(_ k: Int, _ v: Double) {
            switch k {
            case 0: lat = v
            case 1: lon = v
            case 2: altHAE = v
            case 3: altMSL = v
            case 4: eph = v
            case 5: epx = v
            case 6: epy = v
            case 7: epv = v
            case 8: speed = v
            case 9: track = v
            default: climb = v
            }
        }
    }

    /// What a TPV key holds. Only the keys gpsd writes, with the JSON types it writes them
    /// with, are read here: libgps stops at a key it does not know or a value of a type it
    /// does not expect, so such a line goes to libgps to get exactly its answer.
    enum Kind {
        case field(Int)  // a number cairn maps (`Fields.set`)
        case mode, time, tpvClass
        case string, integer, number  // known to libgps, not used by cairn
    }

    static let kindsByName: [(String, Kind)] = {
        var t: [(String, Kind)] = [
            ("class", .tpvClass), ("mode", .mode), ("time", .time), ("device", .string),
            ("status", .integer), ("dgpsSta", .integer)
        ]
        for (k, name) in ["lat", "lon", "altHAE", "altMSL", "eph", "epx", "epy", "epv", "speed", "track", "climb"].enumerated() {
            t.append((name, .field(k)))
        }
        for n in [
            "alt", "depth", "dgpsAge", "epc", "epd", "eps", "ept", "geoidSep", "magtrack", "magvar", "sep",
            "wanglem", "wangler", "wanglet", "wspeedr", "wspeedt",
            "ecefx", "ecefy", "ecefz", "ecefvx", "ecefvy", "ecefvz", "ecefpAcc", "ecefvAcc",
            "velN", "velE", "velD"
        ] {
            t.append((n, .number))
        }
        return t
    }()

    /// Every key is at most 8 bytes, so its bytes packed into a UInt64 (little-endian, zeros
    /// after the key) name it exactly; no key packs to 0, which marks an empty slot. Keys are
    /// found by a perfect hash: `(packed × hashMultiplier) >> 57` is a different slot of 128 for
    /// every key of `kindsByName` (the multiplier was found by trying random odd numbers; the
    /// table's initialiser checks it). Each entry carries the key's kind and its index in
    /// `kindsByName` (its bit in the repeated-key mask), so the loop never touches the names.
    struct Entry {
        let key: UInt64
        let kind: Kind
        let slot: Int
    }

    static let hashMultiplier: UInt64 = 0xba75_a8a0_374f_0859
    static let hashShift: UInt64 = 57

    @inline(__always)
    static func hashSlot(_ packed: UInt64) -> Int { Int(truncatingIfNeeded: (packed &* hashMultiplier) >> hashShift) }

    static let table: [Entry] = {
        var t = [Entry](repeating: Entry(key: 0, kind: .string, slot: 0), count: 1 << (64 - Int(hashShift)))
        for (i, e) in kindsByName.enumerated() {
            precondition(e.0.utf8.count >= 1 && e.0.utf8.count <= 8)
            var p: UInt64 = 0
            for (k, c) in e.0.utf8.enumerated() { p |= UInt64(c) << (8 * UInt64(k)) }
            let h = hashSlot(p)
            precondition(t[h].key == 0, "GpsdTPV.hashMultiplier maps two keys to one slot")
            t[h] = Entry(key: p, kind: e.1, slot: i)
        }
        return t
    }()

    /// The entry of `key`, or nil for a key not in `kindsByName`. `end`: how far the line may
    /// be read (8 bytes from the key's start are loaded at once when the line has them).
    @inline(__always)
    static func entry(
        _ key: UnsafeBufferPointer<UInt8>, readableTo end: UnsafePointer<UInt8>,
        _ table: UnsafeBufferPointer<Entry>
    ) -> Entry? {
        let n = key.count
        guard n >= 1, n <= 8, let start = key.baseAddress else { return nil }
        var p: UInt64
        if end - start >= 8 {
            p = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
            if n < 8 { p &= (1 << (8 * UInt64(n))) &- 1 }
        } else {
            p = 0
            for k in 0..<n { p |= UInt64(key[k]) << (8 * UInt64(k)) }
        }
        let e = table[hashSlot(p)]
        return e.key == p ? e : nil
    }

    /// The report for a TPV line, or nil when libgps must decide.
    static func report(_ b: UnsafeBufferPointer<UInt8>) -> Report? {
        // Mode 0 ("not seen") is what libgps also reads for a missing mode; it decides those.
        guard GpsdLine.hasTPVPrefix(b), let f = parse(b), let mode = f.mode, mode >= 1 else { return nil }
        guard mode >= 2, let lat = f.lat, let lon = f.lon else { return .noFix }
        guard let t = f.timeMs, t != 0 else { return .noTime }
        return .fix(
            Fix(
                timeMs: t, lat: lat, lon: lon, mode: mode, altHAE: f.altHAE, altMSL: f.altMSL,
                eph: f.eph, epx: f.epx, epy: f.epy, epv: f.epv, speed: f.speed, track: f.track, climb: f.climb))
    }

    /// The fields of a strict-JSON TPV object line, or nil (libgps decides).
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Fields? {
        // One lazy-global check per line, not per key.
        Self.table.withUnsafeBufferPointer { parse(b, $0) }
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>, _ table: UnsafeBufferPointer<Entry>) -> Fields? {
        guard let base = b.baseAddress else { return nil }
        let end = base + b.count
        var s = Scanner(b: b)
        var f = Fields()
        var seen: UInt64 = 0  // keys already read (a repeated key goes to libgps)
        guard s.eat(123) else { return nil }  // {
        s.ws()
        while true {
            guard let key = s.plainString(), let e = entry(key, readableTo: end, table), seen & (1 << UInt64(e.slot)) == 0 else { return nil }
            seen |= 1 << UInt64(e.slot)
            s.ws()
            guard s.eat(58) else { return nil }  // :
            s.ws()
            switch e.kind {
            case .field(let k):
                guard let n = s.number() else { return nil }
                f.set(k, n)
            case .mode:
                guard let m = s.integer() else { return nil }
                f.mode = m
            case .time:
                guard let t = s.plainString(), let ms = isoTimeMs(t) else { return nil }
                f.timeMs = ms
            case .tpvClass:
                guard let c = s.plainString(), c.count == 3, c[0] == 84, c[1] == 80, c[2] == 86 else { return nil }  // TPV
            case .string:
                // libgps copies "device" into a GPS_PATH_MAX (128) buffer and refuses the whole
                // line when it does not fit (the fuzzer's find); device names are ASCII.
                guard let v = s.plainString(), v.count < 128, !v.contains(where: { $0 > 126 }) else { return nil }
            case .integer:
                guard s.integer() != nil else { return nil }
            case .number:
                guard s.number() != nil else { return nil }
            }
            s.ws()
            if s.eat(44) { s.ws(); continue }  // ,
            guard s.eat(125) else { return nil }  // }
            s.ws()
            return s.atEnd ? f : nil
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (gpsd's form) to ms since the epoch, the fraction
    /// truncated to whole ms as the libgps path does; nil for any other form or range (years
    /// outside 1970-2099 too: libgps's calendar arithmetic differs from the proleptic calendar
    /// there, a fuzzer's find).
    static func isoTimeMs(_ t: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard t.count >= 20, t.count <= 30, t[4] == 45, t[7] == 45, t[10] == 84, t[13] == 58, t[16] == 58,
            t[t.count - 1] == 90
        else { return nil }
        func num(_ a: Int, _ n: Int) -> Int? {
            var v = 0
            for i in a..<(a + n) {
                let d = Int(t[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                v = v * 10 + d
            }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let sec = num(17, 2), (1970...2099).contains(y), (1...12).contains(mo), (1...28).contains(d) || d <= daysIn(mo, y), d >= 1,
            h <= 23, mi <= 59, sec <= 59
        else { return nil }
        var ms = 0
        if t.count > 20 {
            // ".d..." between the seconds and the Z: 1 to 9 digits.
            let digits = t.count - 21
            guard t[19] == 46, digits >= 1, digits <= 9, let frac = num(20, digits) else { return nil }
            var scaled = frac, d = digits
            while d < 3 { scaled *= 10; d += 1 }
            while d > 3 { scaled /= 10; d -= 1 }
            ms = scaled
        }
        let days = daysFromCivil(y, mo, d)
        return ((Int64(days) * 24 + Int64(h)) * 60 + Int64(mi)) * 60_000 + Int64(sec) * 1000 + Int64(ms)
    }

    static func daysIn(_ m: Int, _ y: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

/// Strict JSON (RFC 8259) scanning over one line; every read is bounds-checked.
private struct Scanner {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    var atEnd: Bool { i == b.count }

    @inline(__always)
    mutating func ws() { while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 13 || b[i] == 10 { i += 1 } }

    @inline(__always)
    mutating func eat(_ c: UInt8) -> Bool {
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }

    /// A string without escapes or control characters; its bytes between the quotes.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard eat(34) else { return nil }
        let start = i
        while i < b.count {
            let c = b[i]
            if c == 34 {
                i += 1
                return UnsafeBufferPointer(rebasing: b[start..<(i - 1)])
            }
            if c == 92 || c < 32 { return nil }  // escapes: libgps decides
            i += 1
        }
        return nil
    }

    /// The span of a JSON number, checked against the grammar.
    mutating func numberSpan() -> (start: Int, end: Int, integral: Bool)? {
        let start = i
        _ = eat(45)  // -
        guard i < b.count else { return nil }
        if b[i] == 48 {
            i += 1
        } else if (49...57).contains(b[i]) {
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
        } else {
            return nil
        }
        var integral = true
        if eat(46) {  // .
            integral = false
            let d = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > d else { return nil }
        }
        if i < b.count, b[i] == 101 || b[i] == 69 {  // e E
            integral = false
            i += 1
            if i < b.count, b[i] == 43 || b[i] == 45 { i += 1 }
            let d = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > d else { return nil }
        }
        return (start, i, integral)
    }

    /// A JSON number as the nearest Double, when it can be had exactly the cheap way: at most
    /// 15 significant digits and no exponent, so `digits / 10^k` is one correctly rounded
    /// division (Clinger's fast path). Otherwise nil: libgps decides. One pass: the grammar is
    /// checked while the digits are read.
    mutating func number() -> Double? {
        let negative = eat(45)  // -
        guard i < b.count else { return nil }
        var mantissa: Int64 = 0
        var digits = 0  // significant digits so far
        var c = b[i]
        if c == 48 {
            i += 1
        } else if c >= 49 && c <= 57 {
            while i < b.count {
                c = b[i]
                guard c >= 48 && c <= 57 else { break }
                mantissa = mantissa &* 10 &+ Int64(c &- 48)
                digits += 1
                i += 1
            }
        } else {
            return nil
        }
        var fraction = 0
        if i < b.count && b[i] == 46 {  // .
            i += 1
            let d = i
            while i < b.count {
                c = b[i]
                guard c >= 48 && c <= 57 else { break }
                if mantissa != 0 || c != 48 {
                    mantissa = mantissa &* 10 &+ Int64(c &- 48)
                    digits += 1
                }
                fraction += 1
                i += 1
            }
            guard i > d else { return nil }
        }
        // An exponent, or more digits than a Double holds exactly: libgps decides.
        if i < b.count && (b[i] == 101 || b[i] == 69) { return nil }
        guard digits <= 15, fraction <= 22 else { return nil }
        let v = Double(mantissa) / Self.powerOfTen(fraction)
        return negative ? -v : v
    }

    /// 10^k, exact (k ≤ 22). Literals, not a global array: no lazy initialisation check per number.
    @inline(__always)
    static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// A JSON integer (no fraction, no exponent) that fits 32 bits.
    mutating func integer() -> Int? {
        guard let (start, end, integral) = numberSpan(), integral, end - start <= 11 else { return nil }
        var v = 0
        var j = start
        let negative = b[j] == 45
        if negative { j += 1 }
        while j < end { v = v * 10 + Int(b[j] - 48); j += 1 }
        v = negative ? -v : v
        return v >= Int(Int32.min) && v <= Int(Int32.max) ? v : nil
    }
}

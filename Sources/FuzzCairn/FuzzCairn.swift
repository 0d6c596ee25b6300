// libFuzzer target for the log reader and the TPV decoding. Built only with -DFUZZING
// (Tests/crash/fuzz.sh); a plain `swift build` compiles the stub `main` at the bottom.
//
// The first input byte picks what the rest is:
//   0  a whole file, as it is (header checks, resync over garbage);
//   1  a valid header, then chunks [kind][length][type][bytes...] turned into frames with
//      correct CRCs (so record decoders run on arbitrary payloads), raw garbage, or copies of
//      earlier frames; the reader must never trap and only ever deliver verified frames;
//   2  one gpsd JSON line through libgps (gps_unpack) and cairn's TPV mapping; every fix the
//      writer accepts must come back from a points record exactly as quantised.
#if FUZZING
#if canImport(Glibc)
import Glibc
#endif
import CGPS
import CairnCore
@testable import CairnDevice
@testable import CairnLog

nonisolated(unsafe) var scratchPath = "/dev/shm/cairn-fuzz-\(getpid()).cairn"

func writeScratch(_ bytes: [UInt8]) {
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot open \(scratchPath)")
    var off = 0
    bytes.withUnsafeBytes { b in
        while off < b.count {
            let n = write(fd, b.baseAddress! + off, b.count - off)
            precondition(n > 0)
            off += n
        }
    }
    close(fd)
}

func readBack() {
    guard let r = try? LogReader(path: scratchPath) else { return }
    var last = -1
    var count = 0
    try? r.forEach { e in
        precondition(e.offset > last && e.offset >= r.dataOffset && e.offset < r.fileSize, "entry out of order or bounds")
        last = e.offset
        count += 1
        return true
    }
    guard let s = try? r.scan() else { return }
    precondition(s.records + s.unknownRecords >= 0 && count >= s.records, "forEach delivered fewer records than scan counted")
    var covered = s.tornTailBytes
    for d in s.damaged {
        precondition(d.lowerBound >= r.dataOffset && d.upperBound <= r.fileSize, "damaged range out of bounds")
        covered += d.count
    }
    precondition(covered <= r.fileSize - r.dataOffset, "damage and tail exceed the file")
}

func frame(salt: UInt32, type: UInt8, payload: [UInt8]) -> [UInt8] {
    let n = payload.count
    var covered: [UInt8] = [UInt8(n & 0xFF), UInt8(n >> 8), type]
    covered += payload
    let crc = covered.withUnsafeBytes { ~CRC32C.update(CRC32C.saltRegister(salt), $0) }
    let m = CRC32C.mask(crc)
    return [UInt8(m & 0xFF), UInt8((m >> 8) & 0xFF), UInt8((m >> 16) & 0xFF), UInt8(m >> 24)] + covered
}

func fuzzFramed(_ input: UnsafeBufferPointer<UInt8>) {
    let salt: UInt32 = 0x0F0F_1234
    var file = FileHeader(tripId: 1, segmentIndex: 0, salt: salt).encoded()
    var frames: [[UInt8]] = []
    var i = 0
    while i + 3 <= input.count {
        let kind = input[i] % 4, length = Int(input[i + 1]), type = input[i + 2]
        i += 3
        let bytes = Array(input[i..<min(input.count, i + length)])
        i += bytes.count
        switch kind {
        case 0, 1:
            let f = frame(salt: salt, type: type, payload: bytes)
            frames.append(f)
            file += f
        case 2: file += bytes  // garbage
        default: if let f = frames.last { file += f }  // a stale copy
        }
    }
    writeScratch(file)
    readBack()
    // The record decoders directly, on the same payloads.
    for f in frames {
        f.withUnsafeBytes { b in
            var r = ByteReader(UnsafeRawBufferPointer(rebasing: b[7...]))
            if (try? r.varint()) != nil { _ = try? RecordCodec.decodeBody(type: f[6], &r) }
        }
    }
}

func quantisedEqual(_ a: Fix, _ b: Fix) -> Bool {
    func q(_ v: Double?, _ bit: Int) -> Int64? { v.flatMap { $0.isFinite ? PointField.quantise($0, bit) : nil } }
    return a.timeMs == b.timeMs && a.mode == b.mode
        && q(a.lat, PointField.lat) == q(b.lat, PointField.lat) && q(a.lon, PointField.lon) == q(b.lon, PointField.lon)
        && q(a.altHAE, 4) == q(b.altHAE, 4) && q(a.altMSL, 5) == q(b.altMSL, 5) && q(a.eph, 6) == q(b.eph, 6)
        && q(a.epx, 7) == q(b.epx, 7) && q(a.epy, 8) == q(b.epy, 8) && q(a.epv, 9) == q(b.epv, 9)
        && q(a.speed, 10) == q(b.speed, 10) && q(a.track, 11) == q(b.track, 11) && q(a.climb, 12) == q(b.climb, 12)
}

/// Only TPV lines reach libgps here: Debian's libgps 3.22 loops forever in its RTCM2 parser on
/// a malformed line such as `{"c"class":"RTCM2":mod` (found by this fuzzer; see
/// Tests/crash/RESULTS.md). libgps picks the parser by the first `"class":` in the line, so a
/// line that starts with `{"class":"TPV",` only ever reaches the TPV parser.
let tpvPrefix = Array("{\"class\":\"TPV\",".utf8)

/// libgps's parser also loops forever on some malformed TPV lines (e.g. a NUL byte and a stray
/// `"class":"TPV":` inside), so lines are checked for strict JSON first: one object of
/// strings, numbers, literals, arrays and objects, nothing after it. This is the check
/// GpsdSource needs before handing a line to libgps.
func isStrictJSONObject(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    func ws() { while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 13 || b[i] == 10 { i += 1 } }
    func lit(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= b.count else { return false }
        for k in 0..<n where b[i + k] != s.utf8Start[k] { return false }
        i += n
        return true
    }
    func string() -> Bool {
        guard i < b.count, b[i] == 34 else { return false }
        i += 1
        while i < b.count {
            let c = b[i]
            if c == 34 { i += 1; return true }
            if c < 32 { return false }
            if c == 92 {
                i += 1
                guard i < b.count else { return false }
                if b[i] == 117 { guard i + 4 < b.count else { return false }; i += 4 }
                else if !"\"\\/bfnrt".utf8.contains(b[i]) { return false }
            }
            i += 1
        }
        return false
    }
    func number() -> Bool {
        let start = i
        if i < b.count, b[i] == 45 { i += 1 }
        var digits = 0
        while i < b.count, (48...57).contains(b[i]) || b[i] == 46 || b[i] == 101 || b[i] == 69 || b[i] == 43 || b[i] == 45 {
            i += 1
            digits += 1
        }
        return digits > 0 && i - start <= 40
    }
    func value(_ depth: Int) -> Bool {
        guard depth < 8 else { return false }
        ws()
        guard i < b.count else { return false }
        switch b[i] {
        case 34: return string()
        case 123, 91:
            let close: UInt8 = b[i] == 123 ? 125 : 93
            let object = b[i] == 123
            i += 1
            ws()
            if i < b.count, b[i] == close { i += 1; return true }
            while true {
                if object {
                    ws()
                    guard string() else { return false }
                    ws()
                    guard i < b.count, b[i] == 58 else { return false }
                    i += 1
                }
                guard value(depth + 1) else { return false }
                ws()
                guard i < b.count else { return false }
                if b[i] == 44 { i += 1; continue }
                if b[i] == close { i += 1; return true }
                return false
            }
        case 116: return lit("true")
        case 102: return lit("false")
        case 110: return lit("null")
        default: return number()
        }
    }
    guard b.first == 123, value(0) else { return false }
    ws()
    return i == b.count
}

func fuzzTPV(_ input: UnsafeBufferPointer<UInt8>) {
    guard input.starts(with: tpvPrefix), isStrictJSONObject(input) else { return }
    var line = [CChar](repeating: 0, count: input.count + 1)
    for (k, b) in input.enumerated() { line[k] = CChar(bitPattern: b == 0 ? 32 : b) }
    var data = gps_data_t()
    _ = gps_unpack(&line, &data)
    guard data.set & UInt64(MODE_SET) != 0 else { return }
    guard case .fix(let fix) = GpsdSource.report(from: data.fix, set: data.set) else { return }
    guard PointsEncoder.isValid(fix) else { return }
    var e = PointsEncoder()
    e.add(fix)
    e.add(fix)
    var body: [UInt8] = []
    body.appendVarint(UInt64(e.count))
    body += e.body
    body.withUnsafeBytes { b in
        var r = ByteReader(b)
        guard let back = try? PointsDecoder.decode(&r) else { preconditionFailure("a points record the writer made does not decode") }
        precondition(back.count == 2 && quantisedEqual(back[0], fix) && quantisedEqual(back[1], fix), "round trip changed a fix")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 3 {
    case 0:
        writeScratch(Array(body))
        readBack()
    case 1: fuzzFramed(body)
    default: fuzzTPV(body)
    }
    return 0
}
#else
@main
struct FuzzCairnStub {
    static func main() {
        print("FuzzCairn: build with `swift build --sanitize=fuzzer -Xswiftc -DFUZZING --product FuzzCairn` (Tests/crash/fuzz.sh)")
    }
}
#endif

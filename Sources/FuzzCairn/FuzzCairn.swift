// libFuzzer target for the log reader and the TPV decoding. Built only with -DFUZZING
// (Tests/crash/fuzz.sh); a plain `swift build` compiles the stub `main` at the bottom.
//
// The first input byte picks what the rest is:
//   0  a whole file, as it is (header checks, resync over garbage; the crafted-* seeds are
//      CRC-valid records with impossible values, which the reader must never deliver);
//   1  a valid header, then chunks [kind][length][type][bytes...] turned into frames with
//      correct CRCs (so record decoders run on arbitrary payloads), raw garbage, or copies of
//      earlier frames; the reader must never trap and only ever deliver verified frames;
//   2  one gpsd JSON line through libgps (gps_unpack) and cairn's TPV mapping, and through the
//      one-pass reader (which must agree with libgps whenever it answers); a TPV laid out with
//      whitespace is compacted first, as the recorder does; every fix the
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
        if case .points(let fixes) = e.record {
            // The reader screens every record: no impossible time or position gets through.
            for f in fixes { precondition(PointBounds.positionProblem(f) == nil, "an impossible point was delivered") }
        }
        last = e.offset
        count += 1
        return true
    }
    guard let s = try? r.scan() else { return }
    precondition(s.records + s.unknownRecords >= 0 && count >= s.records, "forEach delivered fewer records than scan counted")
    var covered = s.tornTailBytes + s.unusedTailBytes
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
    var file = FileHeader(tripId: 1, part: 0, salt: salt).encoded()
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

/// Equal on the log's grid; `speedStep` 10 for the compact record (whole cm/s).
func quantisedEqual(_ a: Fix, _ b: Fix, speedStep: Int64 = 1) -> Bool {
    func q(_ v: Double?, _ bit: Int) -> Int64? {
        v.flatMap { $0.isFinite ? PointField.quantise($0, bit, step: bit == PointField.speed ? speedStep : 1) : nil }
    }
    return a.timeMs == b.timeMs && a.mode == b.mode
        && q(a.lat, PointField.lat) == q(b.lat, PointField.lat) && q(a.lon, PointField.lon) == q(b.lon, PointField.lon)
        && q(a.altHAE, 4) == q(b.altHAE, 4) && q(a.altMSL, 5) == q(b.altMSL, 5) && q(a.eph, 6) == q(b.eph, 6)
        && q(a.epx, 7) == q(b.epx, 7) && q(a.epy, 8) == q(b.epy, 8) && q(a.epv, 9) == q(b.epv, 9)
        && q(a.speed, 10) == q(b.speed, 10) && q(a.track, 11) == q(b.track, 11) && q(a.climb, 12) == q(b.climb, 12)
}

// The gate in front of libgps (GpsdLine in CairnDevice) is what is fuzzed here: only lines it
// passes reach gps_unpack, exactly as in the recorder. The one-pass reader (GpsdTPV) must agree
// with libgps on every line it answers for.

func same(_ a: Report, _ b: Report) -> Bool {
    switch (a, b) {
    case (.fix(let x), .fix(let y)): return x == y
    case (.noFix, .noFix), (.noTime, .noTime): return true
    default: return false
    }
}

func fuzzTPV(_ input: UnsafeBufferPointer<UInt8>) {
    // A TPV laid out with whitespace is compacted first, as GpsdSource does: the compact line
    // must still be strict JSON, and then goes through the same checks.
    if !GpsdLine.hasTPVPrefix(input) && GpsdLine.hasSpacedTPVPrefix(input) {
        guard let compact = GpsdLine.compacted(input) else { return }
        compact.withUnsafeBufferPointer { c in
            precondition(GpsdLine.isStrictJSONObject(c), "compacting a strict JSON line broke it")
            precondition(!GpsdLine.hasSpacedTPVPrefix(c) || GpsdLine.hasTPVPrefix(c), "a compacted TPV line is not compact")
            fuzzTPV(c)
        }
        return
    }
    let fast = GpsdTPV.report(input)
    guard GpsdLine.isSafeTPV(input) else {
        precondition(fast == nil, "the fast TPV reader read a line the strict-JSON gate refuses")
        return
    }
    var line = [CChar](repeating: 0, count: input.count + 1)
    for (k, b) in input.enumerated() { line[k] = CChar(bitPattern: b == 0 ? 32 : b) }
    var data = gps_data_t()
    let status = gps_unpack(&line, &data)
    if let fast {
        precondition(status >= 0 && data.set & UInt64(MODE_SET) != 0, "the fast TPV reader read a line libgps refuses")
        precondition(same(fast, GpsdSource.report(from: data.fix, set: data.set)), "the fast TPV reader and libgps disagree")
    }
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
    // The compact record the writer uses now (three points: base, step and a residual).
    var compact = CompactPointsEncoder()
    var cbody: [UInt8] = []
    var moved = fix
    moved.timeMs &+= 1000
    compact.encode([fix, moved, fix][...], into: &cbody)
    cbody.withUnsafeBytes { b in
        var r = ByteReader(b)
        guard let back = try? CompactPointsDecoder.decode(&r) else { preconditionFailure("a compact points record the writer made does not decode") }
        precondition(
            back.count == 3 && quantisedEqual(back[0], fix, speedStep: 10) && quantisedEqual(back[1], moved, speedStep: 10)
                && quantisedEqual(back[2], fix, speedStep: 10), "compact round trip changed a fix")
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

// Replays gpsd JSON lines (as `gpspipe -w` captures them) through what `cairn record` does per
// gpsd message: decode, rules, log; then the stop path. No socket, sleep or clock: the fix times
// drive the log's sync clock, so one input always costs the same instructions (callgrind).
// Usage: CairnBench <capture.jsonl> <outdir> [maxLines]     See Tests/bench/callgrind.sh.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnDevice
import CairnLog
import CairnSystem

func printErr(_ s: String) {
    var line = "CairnBench: \(s)\n"
    line.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    printErr(message)
    exit(status)
}

let args = CommandLine.arguments
guard args.count == 3 || args.count == 4 else {
    fail("usage: CairnBench <capture.jsonl> <outdir> [maxLines]", status: 64)
}
let capturePath = args[1], outDir = args[2]
var maxLines = Int.max
if args.count == 4 {
    guard let n = Int(args[3]), n > 0 else { fail("maxLines must be a positive integer", status: 64) }
    maxLines = n
}

func readFile(_ path: String) -> [UInt8] {
    do {
        let fd = try POSIX.open(path, O_RDONLY | O_CLOEXEC)
        defer { POSIX.close(fd) }
        return try POSIX.readToEnd(fd, limit: .max - 1, chunk: 1 << 16)
    } catch {
        fail("\(path): \(error)")
    }
}

/// Sum of the sizes of the regular files in `dir` (the log files just written).
func bytesIn(_ dir: String) -> Int {
    guard let d = opendir(dir) else { fail("\(dir): \(Errno.current)") }
    defer { closedir(d) }
    var total = 0
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var st = stat()
        if stat(POSIX.join(dir, name), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG { total += Int(st.st_size) }
    }
    return total
}

let input = readFile(capturePath)

// As `cairn record --clock fix --activity ride` (default close-after, sync and --raw on).
let profile = ActivityProfile.ride
var config = TripRecorder<FixRules>.Config()
config.clockIsFix = true
config.closeWithoutFixMs = profile.closeAfterMs
config.keepsRaw = true
var recorder = TripRecorder(filter: FixRules(profile: profile), config: config)
let log: TripLog
do {
    log = try TripLog(
        directory: outDir, activity: profile.name, software: "cairn bench",
        syncIntervalMs: 5000, padding: 512, say: { printErr($0) })
} catch {
    fail("\(error)")
}
var syncs = 0
log.onSync = { _, _ in syncs += 1 }
recorder.resumeCandidate = log.resumable?.last

// The clock for the log and recorder: the newest fix time, so syncs come every 5 s of ride.
var clockMs: Int64 = 0
var kept = 0
let apply: (RecorderAction) -> Void = { action in
    if case .keep = action { kept += 1 }
    log.apply(action, monoMs: clockMs)
}

let state = GpsdSource.DecodeState()
var lines = 0, fixes = 0, unreadable = 0
var start = 0
while start < input.count && lines < maxLines {
    let end = input[start...].firstIndex(of: 10) ?? input.count
    var line = Array(input[start..<end])
    start = end + 1
    // GpsdSource's line splitting: CR stripped, empty lines skipped.
    if line.last == 13 { line.removeLast() }
    if line.isEmpty { continue }
    lines += 1

    // One pass of the record loop (RecordLoop): tick the log and recorder, then handle the message.
    log.tick(monoMs: clockMs)
    recorder.tick(wallClockMs: clockMs, emit: apply)
    switch GpsdSource.decode(line: line, state: state) {
    case .other: break
    case .unreadable: unreadable += 1
    case .report(let r):
        if case .fix(let f) = r {
            fixes += 1
            clockMs = max(clockMs, f.timeMs)
        }
        recorder.report(r, wallClockMs: clockMs, emit: apply)
    }
}

// The record loop's stop path: release the held epoch, close the trip with its summary, sync.
recorder.finish(wallClockMs: clockMs, emit: apply)
if recorder.tripOpen {
    let s = recorder.stats
    log.closeTrip(
        TripEnd(
            reason: .shutdown, points: UInt64(s.points), distanceM: s.distanceM,
            movingTimeMs: s.movingTimeMs, firstTimeMs: s.firstTimeMs, lastTimeMs: s.lastTimeMs),
        drops: recorder.drops, monoMs: clockMs)
} else {
    log.shutdown(monoMs: clockMs)
}

print("lines=\(lines) fixes=\(fixes) kept=\(kept) bytes=\(bytesIn(outDir)) syncs=\(syncs) unreadable=\(unreadable)")

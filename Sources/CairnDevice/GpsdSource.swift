#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CGPS
import CGPSShim
import CairnCore

/// A gpsd connection through libgps (`gps_open`/`gps_stream`/`gps_waiting`/`gps_read`).
/// gpsd's address must be numeric: a static glibc binary has no name service.
public final class GpsdSource {
    public let host: String
    public let port: String
    private let state = DecodeState()
    private var data: UnsafeMutablePointer<gps_data_t> { state.data }
    public private(set) var isOpen = false
    /// Messages libgps could not read (garbage, truncated lines); they are skipped.
    public private(set) var unreadable = 0

    /// `host:port`, an IPv6 host in brackets.
    public var address: String { Self.address(host: host, port: port) }

    /// `host:port`, an IPv6 host in brackets (`[::1]:2947`).
    public static func address(host: String, port: String) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public init(host: String, port: String) {
        self.host = host
        self.port = port
        _ = cairn_gps_shim_linked()
    }

    deinit {
        close()
        buffer.deallocate()
        pfds.deallocate()
    }

    /// Connects and asks for JSON reports. Returns an error text on failure.
    public func open() -> String? {
        close()
        partial.removeAll()
        pos = 0
        end = 0
        overlong = false
        emptied = false
        if gps_open(host, port, data) != 0 {
            return "cannot connect to gpsd at \(address): \(String(cString: gps_errstr(Errno.current.rawValue)))"
        }
        isOpen = true
        if gps_stream(data, UInt32(WATCH_ENABLE | WATCH_JSON), nil) != 0 {
            close()
            return "gpsd at \(address) refused the WATCH request"
        }
        applyLowWater()
        return nil
    }

    /// Batched reading: `read` wakes for gpsd's data only once this many bytes are queued
    /// (SO_RCVLOWAT; 1 = each report as it comes). Meanwhile the reports wait in the socket,
    /// which bounds how much can queue before cairn takes it (gpsd drops a client that
    /// cannot keep up). The end of the connection still wakes `read` at once.
    public var wakeAtBytes: Int32 = 1 {
        didSet { if wakeAtBytes != oldValue { applyLowWater() } }
    }
    /// The largest batch worth waiting for: one `recv` takes it.
    public static let batchBytes: Int32 = 16 * 1024

    private func applyLowWater() {
        guard isOpen else { return }
        _ = try? POSIX.setReceiveLowWater(data.pointee.gps_fd, bytes: max(1, wakeAtBytes))
    }

    public func close() {
        if isOpen {
            _ = gps_stream(data, UInt32(WATCH_DISABLE), nil)
            _ = gps_close(data)
            isOpen = false
        }
    }

    /// A descriptor that is readable once `read`'s waits should end at once (-1: none): the
    /// stop pipe (`StopSignals.wakeFd`), so that a stop signal that came just before a wait
    /// (after the caller last looked) does not leave it to run its whole timeout.
    public var stopFd: Int32 = -1

    public enum ReadResult {
        /// Nothing arrived within the timeout.
        case idle
        /// A message arrived; `report` is set when it was a TPV.
        case message(report: Report?)
        /// The connection is gone (EOF, error).
        case closed(String)
    }

    /// Waits up to `timeoutUs` for data (for `wakeAtBytes` of it) and returns one message.
    /// `takeQueued`: when the wait ends without enough data, take whatever is queued anyway
    /// (the end of a batch). cairn reads gpsd's socket itself and hands libgps (`gps_unpack`)
    /// only TPV lines that are strict JSON: Debian's libgps 3.22 loops forever on some
    /// malformed lines (see `GpsdLine`), which through `gps_read` would stop the recorder for
    /// good. Other classes (VERSION, DEVICES, SKY, ...) are not needed and are skipped.
    public func read(timeoutUs: Int32, takeQueued: Bool = false) -> ReadResult {
        guard isOpen else { return .closed("not connected") }
        if let m = nextMessage() { return m }
        // The last recv of a batch came back short: the socket was empty then; what came
        // since waits for the next batch (two system calls fewer per batch).
        if takeQueued && timeoutUs == 0 && emptied { emptied = false; return .idle }
        emptied = false
        pfds[0] = pollfd(fd: data.pointee.gps_fd, events: Int16(POLLIN), revents: 0)
        pfds[1] = pollfd(fd: stopFd, events: Int16(POLLIN), revents: 0)
        // Not retried: a stop signal interrupts the wait, and the caller looks at it.
        do throws(Errno) { _ = try POSIX.poll(pfds, count: stopFd >= 0 ? 2 : 1, timeoutMs: max(0, timeoutUs / 1000)) } catch {
            return error == .interrupted ? .idle : .closed("poll failed: \(error)")
        }
        if pfds[0].revents == 0 && !takeQueued { return .idle }
        let n: Int
        do throws(Errno) { n = try POSIX.receive(data.pointee.gps_fd, into: buffer, count: Self.bufferSize, flags: Int32(MSG_DONTWAIT)) } catch {
            if error == .interrupted || error == .wouldBlock || error.rawValue == EAGAIN { return .idle }
            return .closed("read error from gpsd: \(error)")
        }
        if n == 0 { return .closed("gpsd closed the connection") }
        emptied = takeQueued && n < Self.bufferSize
        pos = 0
        end = n
        return nextMessage() ?? .idle
    }

    /// Bytes received; `buffer[pos..<end]` is not handed out yet. A line that ends in the
    /// buffer goes to the decoder where it lies (no copy, no allocation per line: the heap
    /// stays the same size whatever the batch); one that spans two reads is gathered in
    /// `partial`. A line longer than `maxLine` is dropped whole and counted.
    private static let bufferSize = Int(batchBytes)
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
    /// gpsd's socket and `stopFd`, for poll.
    private let pfds = UnsafeMutablePointer<pollfd>.allocate(capacity: 2)
    private var pos = 0
    private var end = 0
    private var partial: [UInt8] = []
    private var overlong = false
    private var emptied = false
    static let maxLine = 16 * 1024

    /// The message of the next complete line in the buffer; nil when none is left (the start
    /// of an unfinished line is kept in `partial`).
    private func nextMessage() -> ReadResult? {
        while pos < end {
            guard let hit = memchr(buffer + pos, 10, end - pos) else {
                gather(pos, end)
                pos = end
                return nil
            }
            let nl = hit.assumingMemoryBound(to: UInt8.self) - buffer
            let start = pos
            pos = nl + 1
            if overlong || !partial.isEmpty {
                gather(start, nl)
                defer {
                    partial.removeAll(keepingCapacity: true)
                    overlong = false
                }
                if overlong {
                    unreadable += 1
                    continue
                }
                if partial.last == 13 { partial.removeLast() }
                if partial.isEmpty { continue }
                return partial.withUnsafeBufferPointer { message($0) }
            }
            var count = nl - start
            if count > 0 && buffer[nl - 1] == 13 { count -= 1 }
            if count == 0 { continue }
            return message(UnsafeBufferPointer(start: buffer + start, count: count))
        }
        return nil
    }

    /// Adds `buffer[from..<to]` to the line being gathered, unless that has grown too long.
    private func gather(_ from: Int, _ to: Int) {
        guard !overlong else { return }
        if partial.count + (to - from) > Self.maxLine {
            overlong = true
            partial.removeAll(keepingCapacity: true)
        } else {
            partial.append(contentsOf: UnsafeBufferPointer(start: buffer + from, count: to - from))
        }
    }

    private func message(_ line: UnsafeBufferPointer<UInt8>) -> ReadResult {
        switch Self.decode(line, data) {
        case .other: return .message(report: nil)
        case .unreadable:
            unreadable += 1
            return .message(report: nil)
        case .report(let r): return .message(report: r)
        }
    }

    /// What one gpsd line turns into.
    public enum LineResult {
        /// Not a TPV line (VERSION, DEVICES, SKY, ...): skipped.
        case other
        /// A TPV line that failed the strict-JSON gate or libgps: counted in `unreadable`.
        case unreadable
        case report(Report)
    }

    /// libgps's decode buffer (a `gps_data_t`, tens of KB), on the heap: held by value, the large
    /// C struct makes the compiler emit large value-witness functions for it. Reuse one across
    /// lines, as `read()` does.
    public final class DecodeState {
        private let raw: UnsafeMutableRawPointer
        var data: UnsafeMutablePointer<gps_data_t> { raw.assumingMemoryBound(to: gps_data_t.self) }
        public init() {
            let size = MemoryLayout<gps_data_t>.size
            raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<gps_data_t>.alignment)
            raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            _ = cairn_gps_shim_linked()  // keeps the D-Bus stubs in a static link
        }
        deinit { raw.deallocate() }
    }

    /// Decodes one gpsd JSON line (without its newline) exactly as `read()` does; for replays
    /// and benchmarks that have the lines without a socket.
    public static func decode(line: [UInt8], state: DecodeState) -> LineResult {
        line.withUnsafeBufferPointer { decode($0, state.data) }
    }

    /// Only the libgps path, for the tests that hold the fast path to it.
    static func decodeWithLibgps(line: [UInt8], state: DecodeState) -> LineResult {
        line.withUnsafeBufferPointer { decodeWithLibgps($0, state.data) }
    }

    /// The one implementation: `read()` passes its connection's own buffer.
    static func decode(_ line: UnsafeBufferPointer<UInt8>, _ data: UnsafeMutablePointer<gps_data_t>) -> LineResult {
        guard GpsdLine.hasTPVPrefix(line) else {
            // A TPV laid out with whitespace (`"class": "TPV"`): made compact, then read as
            // gpsd's own. Only lines that open like a TPV pay for the copy.
            guard GpsdLine.hasSpacedTPVPrefix(line) else { return .other }
            guard let compact = GpsdLine.compacted(line), !compact.isEmpty else { return .unreadable }
            return compact.withUnsafeBufferPointer { c in GpsdLine.hasTPVPrefix(c) ? decode(c, data) : .unreadable }
        }
        // gpsd's own TPV shape is read in one pass; anything else goes to libgps.
        if let r = GpsdTPV.report(line) { return .report(r) }
        return decodeWithLibgps(line, data)
    }

    /// The libgps path: the strict-JSON gate, then `gps_unpack`.
    static func decodeWithLibgps(_ line: UnsafeBufferPointer<UInt8>, _ data: UnsafeMutablePointer<gps_data_t>) -> LineResult {
        guard GpsdLine.hasTPVPrefix(line) else { return .other }
        guard GpsdLine.isSafeTPV(line) else { return .unreadable }
        var cline = line.map { CChar(bitPattern: $0) }
        cline.append(0)
        data.pointee.set = 0
        guard gps_unpack(&cline, data) >= 0, data.pointee.set & UInt64(MODE_SET) != 0 else { return .unreadable }
        return .report(report(from: data.pointee.fix, set: data.pointee.set))
    }

    /// Turns libgps's fix into a `Report`. Gate on `mode`, never on `status` (libgps reads a
    /// normal fix as status 0). Missing values are NaN in libgps; they become nil.
    static func report(from f: gps_fix_t, set: gps_mask_t) -> Report {
        guard f.mode >= 2, set & UInt64(LATLON_SET) != 0, f.latitude.isFinite, f.longitude.isFinite else {
            return .noFix
        }
        guard set & UInt64(TIME_SET) != 0, f.time.tv_sec != 0 else { return .noTime }
        func v(_ x: Double) -> Double? { x.isFinite ? x : nil }
        let ms = Int64(f.time.tv_sec) * 1000 + Int64(f.time.tv_nsec) / 1_000_000
        return .fix(
            Fix(
                timeMs: ms, lat: f.latitude, lon: f.longitude, mode: Int(f.mode),
                altHAE: v(f.altHAE), altMSL: v(f.altMSL),
                eph: v(f.eph), epx: v(f.epx), epy: v(f.epy), epv: v(f.epv),
                speed: v(f.speed), track: v(f.track), climb: v(f.climb)))
    }
}

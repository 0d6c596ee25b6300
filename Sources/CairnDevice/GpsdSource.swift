#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPS
import CGPSShim
import CairnCore

/// A gpsd connection through libgps (`gps_open`/`gps_stream`/`gps_waiting`/`gps_read`).
/// gpsd's address must be numeric: a static glibc binary has no name service.
public final class GpsdSource {
    public let host: String
    public let port: String
    private var data = gps_data_t()
    public private(set) var isOpen = false
    /// Messages libgps could not read (garbage, truncated lines); they are skipped.
    public private(set) var unreadable = 0

    public init(host: String, port: String) {
        self.host = host
        self.port = port
        _ = cairn_gps_shim_linked()
    }

    deinit { close() }

    /// Connects and asks for JSON reports. Returns an error text on failure.
    public func open() -> String? {
        close()
        partial.removeAll()
        lines.removeAll()
        overlong = false
        if gps_open(host, port, &data) != 0 {
            return "cannot connect to gpsd at \(host):\(port): \(String(cString: gps_errstr(errno)))"
        }
        isOpen = true
        if gps_stream(&data, UInt32(WATCH_ENABLE | WATCH_JSON), nil) != 0 {
            close()
            return "gpsd at \(host):\(port) refused the WATCH request"
        }
        return nil
    }

    public func close() {
        if isOpen {
            _ = gps_stream(&data, UInt32(WATCH_DISABLE), nil)
            _ = gps_close(&data)
            isOpen = false
        }
    }

    public enum ReadResult {
        /// Nothing arrived within the timeout.
        case idle
        /// A message arrived; `report` is set when it was a TPV.
        case message(report: Report?)
        /// The connection is gone (EOF, error).
        case closed(String)
    }

    /// Waits up to `timeoutUs` for data and returns one message. cairn reads gpsd's socket
    /// itself and hands libgps (`gps_unpack`) only TPV lines that are strict JSON: Debian's
    /// libgps 3.22 loops forever on some malformed lines (see `GpsdLine`), which through
    /// `gps_read` would stop the recorder for good. Other classes (VERSION, DEVICES, SKY, ...)
    /// are not needed and are skipped.
    public func read(timeoutUs: Int32) -> ReadResult {
        guard isOpen else { return .closed("not connected") }
        if let line = nextLine() { return message(line) }
        var pfd = pollfd(fd: data.gps_fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&pfd, 1, max(0, timeoutUs / 1000))
        if r < 0 { return errno == EINTR ? .idle : .closed("poll failed: \(String(cString: strerror(errno)))") }
        if r == 0 { return .idle }
        let n = chunk.withUnsafeMutableBytes { recv(data.gps_fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if n == 0 { return .closed("gpsd closed the connection") }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .idle }
            return .closed("read error from gpsd: \(String(cString: strerror(errno)))")
        }
        for i in 0..<n { take(chunk[i]) }
        if let line = nextLine() { return message(line) }
        return .idle
    }

    /// Bytes received, split into lines; a line longer than `maxLine` is dropped whole.
    private var chunk = [UInt8](repeating: 0, count: 8192)
    private var partial: [UInt8] = []
    private var lines = RingBuffer<[UInt8]>(capacity: 64)
    private var overlong = false
    static let maxLine = 16 * 1024

    private func take(_ byte: UInt8) {
        if byte == 10 {
            if overlong { unreadable += 1 } else if !partial.isEmpty {
                if partial.last == 13 { partial.removeLast() }
                if lines.isFull { unreadable += 1 }
                lines.append(partial)
            }
            partial.removeAll(keepingCapacity: true)
            overlong = false
        } else if !overlong {
            partial.append(byte)
            if partial.count > Self.maxLine {
                overlong = true
                partial.removeAll(keepingCapacity: true)
            }
        }
    }

    private func nextLine() -> [UInt8]? { lines.popFirst() }

    private func message(_ line: [UInt8]) -> ReadResult {
        guard line.starts(with: GpsdLine.tpvPrefix) else { return .message(report: nil) }
        guard line.withUnsafeBufferPointer({ GpsdLine.isSafeTPV($0) }) else {
            unreadable += 1
            return .message(report: nil)
        }
        var cline = line.map { CChar(bitPattern: $0) }
        cline.append(0)
        data.set = 0
        guard gps_unpack(&cline, &data) >= 0, data.set & UInt64(MODE_SET) != 0 else {
            unreadable += 1
            return .message(report: nil)
        }
        return .message(report: Self.report(from: data.fix, set: data.set))
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
        return .fix(Fix(timeMs: ms, lat: f.latitude, lon: f.longitude, mode: Int(f.mode),
                        altHAE: v(f.altHAE), altMSL: v(f.altMSL),
                        eph: v(f.eph), epx: v(f.epx), epy: v(f.epy), epv: v(f.epv),
                        speed: v(f.speed), track: v(f.track), climb: v(f.climb)))
    }
}

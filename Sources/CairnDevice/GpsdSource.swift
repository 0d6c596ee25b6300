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

    /// Waits up to `timeoutUs` for data, reads one message, and decodes a TPV into a `Report`.
    public func read(timeoutUs: Int32) -> ReadResult {
        guard isOpen else { return .closed("not connected") }
        if !gps_waiting(&data, timeoutUs) {
            // gps_waiting returns false on timeout and on error; errno tells them apart.
            if errno != 0 && errno != EINTR && errno != EAGAIN { return .closed(String(cString: strerror(errno))) }
            return .idle
        }
        data.set = 0
        let n = gps_read(&data, nil, 0)
        if n < 0 {
            // libgps returns -1 for EOF, for a recv that found only part of a line, and for a
            // message it could not parse. Only a closed socket ends the connection: peek at it.
            var byte: UInt8 = 0
            let r = recv(data.gps_fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if r == 0 { return .closed("gpsd closed the connection") }
            if r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                return .closed("read error from gpsd: \(String(cString: strerror(errno)))")
            }
            unreadable += 1
            return .message(report: nil)
        }
        if n == 0 { return .idle }
        // Every TPV carries a mode, and only a TPV sets MODE_SET.
        guard data.set & UInt64(MODE_SET) != 0 else { return .message(report: nil) }
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnSystem
import CairnDevice

// The values of `record --timezone`, `--gpsd`, `--sensor` and `--wheel`.
extension RecordCommand {
    /// The `sensor` lines' addresses, in order. One sensor is one line: an address given twice
    /// (in any case, with or without its type) would open two links to one sensor and record
    /// it twice, so it is an error naming the option (and the file's lines).
    static func sensorList(_ texts: [String], invalid: (String) -> UsageError) throws(UsageError) -> [SensorAddress] {
        var sensors: [SensorAddress] = []
        for text in texts {
            let value = "The value '\(text)' is invalid for '--sensor <address>': "
            guard let s = SensorAddress(parsing: text) else {
                throw invalid(value + "use AA:BB:CC:DD:EE:FF, then public or random when known")
            }
            if sensors.contains(where: { $0.address == s.address }) {
                throw invalid(value + "the sensor \(SensorAddress(address: s.address, type: nil)) is given twice (one sensor line each)")
            }
            sensors.append(s)
        }
        return sensors
    }

    /// `--wheel`: the circumference in metres, 0.5 ... 3.5 (`WheelSpeed.circumferenceMmRange`), to the millimetre.
    static func wheelCircumference(_ text: String) throws(UsageError) -> Double {
        let range = WheelSpeed.circumferenceMmRange
        guard let m = StrictNumber.decimal(text), m >= Double(range.lowerBound) / 1000, m <= Double(range.upperBound) / 1000 else {
            throw UsageError(
                "The value '\(text)' is invalid for '--wheel <metres>': the wheel's circumference, a plain decimal number of metres from 0.5 to 3.5 (2.105 for 700x25C)"
            )
        }
        return (m * 1000).rounded() / 1000
    }

    /// The zone `--timezone` names, and how `--check` describes it. `auto` reads /etc/localtime:
    /// missing, it means UTC (as for the C library); unreadable or not a zone file, trips record
    /// no offset and this says so once (nothing else changes: the recording goes on).
    static func timeZone(_ text: String, invalid: (String) -> UsageError) throws(UsageError) -> (TimeZoneFile?, String) {
        func now(_ z: TimeZoneFile) -> String { "UTC" + UTCOffset.format(z.offset(atUnixMs: SystemClock.wallClockMs())) + " now" }
        if text == "auto" {
            let path = "/etc/localtime"
            switch TimeZoneFile.local(path) {
            case .utc: return (.fixed(0), "no \(path): UTC")
            case .zone(let z): return (z, "\(path): " + now(z))
            case .unusable(let why):
                printErr("cairn: timezone: \(why); trips record no UTC offset (convert --utc-offset sets FIT's local time)")
                return (nil, "\(why): none recorded")
            }
        }
        if let s = UTCOffset.parse(text) { return (.fixed(s), "fixed UTC" + UTCOffset.format(s)) }
        let path: String
        if text.hasPrefix("/") {
            path = text
        } else {
            // A zone name: letters, digits, '_', '-', '+' and '/' (no '.', so never '..').
            guard !text.isEmpty,
                text.utf8.allSatisfy({ c in
                    (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 95 || c == 45 || c == 43 || c == 47
                })
            else {
                throw invalid(
                    "The value '\(text)' is invalid for '--timezone <auto|zone|±HH:MM>': use auto, a zone name like Europe/Zurich, a TZif file or an offset like +02:00"
                )
            }
            path = "/usr/share/zoneinfo/" + text
        }
        do {
            let z = try TimeZoneFile.load(path)
            return (z, "\(path): " + now(z))
        } catch {
            throw invalid("The value '\(text)' is invalid for '--timezone <auto|zone|±HH:MM>': \(error)")
        }
    }

    /// `HOST[:PORT]` with a numeric host (static binaries have no name service): IPv4 with an
    /// optional port, IPv6 bare (no port: `::1`) or in brackets with an optional port
    /// (`[::1]:2947`), or `localhost` (taken as 127.0.0.1).
    static func parseGpsdAddress(_ s: String) throws(UsageError) -> (String, String) {
        func invalid(_ why: String) -> UsageError { UsageError("The value '\(s)' is invalid for '--gpsd <host[:port]>': \(why)") }
        var host = s
        var port = "2947"
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { throw invalid("no ']' after the IPv6 address") }
            host = String(s[s.index(after: s.startIndex)..<close])
            let rest = s[s.index(after: close)...]
            if rest.hasPrefix(":") {
                port = String(rest.dropFirst())
            } else if !rest.isEmpty {
                throw invalid("use [IPv6]:PORT")
            }
            guard POSIX.isIPv6Address(host) else { throw invalid("'\(host)' in brackets is not an IPv6 address") }
        } else if let colon = s.lastIndex(of: ":"), s.firstIndex(of: ":") == colon {
            host = String(s[..<colon])
            port = String(s[s.index(after: colon)...])
        }
        // Several colons without brackets: an IPv6 address, and no port (`::1:2947` is an address).
        if host == "localhost" { host = "127.0.0.1" }
        guard let p = StrictNumber.whole(port), p > 0, p < 65536 else {
            throw invalid("port must be 1-65535")
        }
        guard POSIX.isIPv4Address(host) || POSIX.isIPv6Address(host) else {
            throw invalid("use a numeric address (this static binary does no DNS look-ups); an IPv6 address with a port goes in brackets: [::1]:2947")
        }
        return (host, String(p))
    }
}

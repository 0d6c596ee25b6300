#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// A barometer behind the Linux IIO sysfs ABI (`/sys/bus/iio/devices/iio:deviceN`): BMP280/BME280,
/// BMP388/390, MS5611, DPS310, LPS22, MPL3115 and others.
///
/// Pressure comes from `in_pressure_input`, or `(in_pressure_raw + in_pressure_offset) ×
/// in_pressure_scale`. The ABI says kilopascals, but drivers differ (old bme680 kernels report
/// hPa, out-of-tree ones Pa), so the magnitude decides: 30-110 is kPa, 300-1100 hPa,
/// 30 000-110 000 Pa; anything else is an error. The unit assumed is reported once.
/// Temperature (`in_temp_input`, or raw × scale) is read when present: |v| < 150 is °C
/// (mpl3115 reports °C), otherwise m°C.
public final class IIOBarometer {
    public enum Unit: String, Sendable {
        case kPa, hPa
        case pa = "Pa"
    }

    public struct Reading: Sendable, Equatable {
        public var pressurePa: Double
        public var temperatureC: Double?
    }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        public init(_ d: String) { description = d }
    }

    public let path: String
    public let name: String
    public private(set) var assumedUnit: Unit?
    private let processed: Bool

    /// Opens the device directory at `path` (the one holding `in_pressure_input`).
    public init(path: String) throws(Failure) {
        self.path = path
        if Self.exists(path + "/in_pressure_input") {
            processed = true
        } else if Self.exists(path + "/in_pressure_raw") && Self.exists(path + "/in_pressure_scale") {
            processed = false
        } else {
            throw Failure("\(path): no in_pressure_input, nor in_pressure_raw with in_pressure_scale: not an IIO pressure sensor")
        }
        name = (try? Self.readText(path + "/name"))?.trimmingNewlines ?? "unknown"
    }

    /// IIO devices under `<sysfsRoot>/bus/iio/devices` that measure pressure, in name order.
    public static func find(sysfsRoot: String = "/sys") -> [String] {
        let dir = sysfsRoot + "/bus/iio/devices"
        guard let names = try? POSIX.listDirectory(dir) else { return [] }
        var found: [String] = []
        for entry in names where entry.hasPrefix("iio:device") {
            let p = dir + "/" + entry
            if exists(p + "/in_pressure_input") || (exists(p + "/in_pressure_raw") && exists(p + "/in_pressure_scale")) {
                found.append(p)
            }
        }
        return found.sorted()
    }

    /// One reading. Every call re-reads sysfs (each read runs the driver). `temperature`: also
    /// read the temperature (the recorder stores it with the points; on a BMP280 it is one more
    /// I2C transfer per reading, and the driver reads it for the pressure's compensation anyway).
    public func read(temperature withTemperature: Bool = true) -> Result<Reading, Failure> {
        let value: Double
        do {
            if processed {
                value = try Self.number(path + "/in_pressure_input")
            } else {
                let raw = try Self.number(path + "/in_pressure_raw")
                let scale = try Self.number(path + "/in_pressure_scale")
                let offset = Self.exists(path + "/in_pressure_offset") ? try Self.number(path + "/in_pressure_offset") : 0
                value = (raw + offset) * scale
            }
        } catch {
            return .failure(error)
        }
        let pa: Double, unit: Unit
        switch value {
        case 30...110: pa = value * 1000; unit = .kPa
        case 300...1100: pa = value * 100; unit = .hPa
        case 30_000...110_000: pa = value; unit = .pa
        default:
            let file = processed ? "in_pressure_input" : "in_pressure_raw × in_pressure_scale"
            return .failure(Failure("\(path)/\(file): \(value) is no plausible pressure in kPa, hPa or Pa"))
        }
        assumedUnit = unit
        return .success(Reading(pressurePa: pa, temperatureC: withTemperature ? temperature() : nil))
    }

    private func temperature() -> Double? {
        var v: Double?
        if let t = try? Self.number(path + "/in_temp_input") {
            v = t
        } else if let r = try? Self.number(path + "/in_temp_raw"), let s = try? Self.number(path + "/in_temp_scale") {
            let o = (try? Self.number(path + "/in_temp_offset")) ?? 0
            v = (r + o) * s
        }
        guard let t = v else { return nil }
        return abs(t) < 150 ? t : t / 1000
    }

    // MARK: - sysfs

    static func exists(_ p: String) -> Bool { POSIX.exists(p) }

    /// A sysfs attribute as text: one read of at most 256 bytes (attributes are short).
    static func readText(_ p: String) throws(Failure) -> String {
        do {
            let fd = try POSIX.open(p, O_RDONLY | O_CLOEXEC)
            defer { POSIX.close(fd) }
            var buf = [UInt8](repeating: 0, count: 256)
            let n = try buf.withUnsafeMutableBytes { b throws(Errno) in try POSIX.read(fd, into: b) }
            return String(decoding: buf[..<n], as: UTF8.self)
        } catch {
            throw Failure("\(p): \(error)")
        }
    }

    /// A decimal number as sysfs prints it (`100.123456789\n`, `-0.5\n`, `23450\n`).
    static func number(_ p: String) throws(Failure) -> Double {
        let text = try readText(p).trimmingNewlines
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 }),
            let v = Double(text), v.isFinite
        else {
            throw Failure("\(p): '\(text.prefix(40))' is not a number")
        }
        return v
    }
}

extension String {
    var trimmingNewlines: String {
        var s = Substring(self)
        while let c = s.last, c == "\n" || c == " " || c == "\r" || c == "\t" { s.removeLast() }
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        return String(s)
    }
}

import XCTest
import Foundation
@testable import CairnDevice

/// Fake sysfs trees with the real file names and value formats (see notes on IIO).
final class IIOBarometerTests: XCTestCase {
    var root = ""

    override func setUp() {
        root = NSTemporaryDirectory() + "iio-\(UUID().uuidString)"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    /// `<root>/bus/iio/devices/iio:deviceN` as a symlink into the device tree, like the kernel.
    @discardableResult
    func device(_ n: Int, _ files: [String: String]) -> String {
        let real = root + "/devices/platform/soc/fe804000.i2c/i2c-1/1-007\(6 + n)/iio:device\(n)"
        try! FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        for (name, value) in files { try! value.write(toFile: real + "/" + name, atomically: true, encoding: .utf8) }
        try! FileManager.default.createDirectory(atPath: root + "/bus/iio/devices", withIntermediateDirectories: true)
        let link = root + "/bus/iio/devices/iio:device\(n)"
        try? FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        return link
    }

    func set(_ dev: String, _ file: String, _ value: String) {
        // Rename over the old file, as a driver's new value appears atomically.
        try! value.write(toFile: dev + "/" + file + ".tmp", atomically: false, encoding: .utf8)
        rename(dev + "/" + file + ".tmp", dev + "/" + file)
    }

    func testUnitConventions() throws {
        let cases: [([String: String], Double, IIOBarometer.Unit, Double?, String)] = [
            (
                ["name": "bmp280\n", "in_pressure_input": "100.123456789\n", "in_temp_input": "23450\n"], 100_123.456789, .kPa, 23.45,
                "bmp280: kPa, m°C"
            ),
            (["name": "bme680\n", "in_pressure_input": "1001.23\n"], 100_123, .hPa, nil, "old bme680 kernels: hPa"),
            (["name": "oot\n", "in_pressure_input": "100123\n"], 100_123, .pa, nil, "an out-of-tree driver in Pa"),
            (
                ["name": "lps22hb\n", "in_pressure_raw": "4101029\n", "in_pressure_scale": "0.000024414\n"], 4_101_029 * 0.000024414 * 1000, .kPa,
                nil, "st_pressure: raw × scale"
            ),
            (
                [
                    "name": "x\n", "in_pressure_raw": "400000\n", "in_pressure_scale": "0.00025\n", "in_pressure_offset": "1000\n",
                    "in_temp_raw": "360\n", "in_temp_scale": "0.0625\n"
                ], 401_000 * 0.00025 * 1000, .kPa, 22.5, "(raw + offset) × scale; mpl3115 temperature in °C"
            )
        ]
        for (i, (files, pa, unit, temp, why)) in cases.enumerated() {
            let dev = device(i, files)
            let b = try IIOBarometer(path: dev)
            guard case .success(let r) = b.read() else { return XCTFail(why) }
            XCTAssertEqual(r.pressurePa, pa, accuracy: 0.001, why)
            XCTAssertEqual(b.assumedUnit, unit, why)
            if let t = temp { XCTAssertEqual(r.temperatureC!, t, accuracy: 1e-9, why) } else { XCTAssertNil(r.temperatureC, why) }
            // The recorder's reading: the same pressure, no temperature read.
            guard case .success(let p) = b.read(temperature: false) else { return XCTFail(why) }
            XCTAssertEqual(p.pressurePa, pa, accuracy: 0.001, why)
            XCTAssertNil(p.temperatureC, why)
        }
        XCTAssertEqual(IIOBarometer.find(sysfsRoot: root).count, cases.count)
    }

    func testFindSkipsDevicesWithoutPressure() {
        device(0, ["name": "ads1015\n", "in_voltage0_raw": "1234\n"])
        device(1, ["name": "bmp280\n", "in_pressure_input": "95.0\n"])
        XCTAssertEqual(IIOBarometer.find(sysfsRoot: root).map { $0.hasSuffix("iio:device1") }, [true])
        XCTAssertEqual(IIOBarometer.find(sysfsRoot: root + "/nowhere"), [])
        XCTAssertThrowsError(try IIOBarometer(path: root + "/bus/iio/devices/iio:device0")) { e in
            XCTAssertTrue("\(e)".contains("not an IIO pressure sensor"), "\(e)")
        }
    }

    func testGarbageAndImplausibleValuesAreErrors() throws {
        let dev = device(0, ["name": "bmp280\n", "in_pressure_input": "100.1\n"])
        let b = try IIOBarometer(path: dev)
        for bad in ["garbage\n", "\n", "nan\n", "1e400\n", "12.5\n", "5000\n", "-0.5\n"] {
            set(dev, "in_pressure_input", bad)
            guard case .failure(let f) = b.read() else { return XCTFail("'\(bad)' must not read") }
            XCTAssertTrue(f.description.contains("in_pressure_input"), f.description)
        }
    }

    func testDeviceThatVanishesAndReturns() throws {
        let dev = device(0, ["name": "bmp280\n", "in_pressure_input": "100.1\n"])
        let b = try IIOBarometer(path: dev)
        XCTAssertNotNil(try? b.read().get())
        let real = try FileManager.default.destinationOfSymbolicLink(atPath: dev)
        try FileManager.default.moveItem(atPath: real, toPath: real + ".gone")
        guard case .failure(let f) = b.read() else { return XCTFail("an unbound device must fail") }
        XCTAssertTrue(f.description.contains("No such file"), f.description)
        try FileManager.default.moveItem(atPath: real + ".gone", toPath: real)
        XCTAssertEqual(try b.read().get().pressurePa, 100_100, accuracy: 1e-6, "it is used again when it comes back")
        // A directory where the value should be: EISDIR, like an attribute that cannot be read.
        try FileManager.default.removeItem(atPath: real + "/in_pressure_input")
        try FileManager.default.createDirectory(atPath: real + "/in_pressure_input", withIntermediateDirectories: false)
        guard case .failure = b.read() else { return XCTFail("EISDIR must fail") }
    }
}

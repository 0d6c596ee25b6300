import XCTest
import Foundation
import CairnCore
import CairnDevice
@testable import CairnRecorder

/// The status LED in the record loop (issue 41, items 2 and 5): the real `StatusLight` on a fake
/// sysfs tree, the loop on its fake gpsd and clock. It adds no wake-up (the loop waits exactly
/// as it does without one) and writes the LED only when the pattern changes.
final class StatusLightLoopTests: XCTestCase {
    var root = ""

    override func setUp() {
        root = NSTemporaryDirectory() + "light-\(UUID().uuidString)"
        let real = root + "/sys/devices/platform/leds/leds/ACT"
        try! FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        for (f, v) in ["brightness": "0\n", "max_brightness": "1\n", "trigger": "none [timer] heartbeat\n", "delay_on": "500\n", "delay_off": "500\n"]
        {
            try! v.write(toFile: real + "/" + f, atomically: false, encoding: .utf8)
        }
        try! FileManager.default.createDirectory(atPath: root + "/sys/class/leds", withIntermediateDirectories: true)
        try! FileManager.default.createSymbolicLink(atPath: root + "/sys/class/leds/ACT", withDestinationPath: real)
        try! FileManager.default.createDirectory(atPath: root + "/logs", withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    final class Recording: LoopLight {
        let inner: StatusLight
        var shown: [(mono: Int64, pattern: LedPattern)] = []
        var updates = 0
        init(_ inner: StatusLight) { self.inner = inner }
        func tripClosed() { inner.tripClosed() }
        func update(_ live: LiveStatus, monoMs: Int64, wallClockMs: Int64, stopped: Bool) {
            updates += 1
            inner.update(live, monoMs: monoMs, wallClockMs: wallClockMs, stopped: stopped)
            if let p = inner.pattern, shown.last?.pattern != p { shown.append((monoMs, p)) }
        }
    }

    func rig(readEvery: Double, light: Bool) -> (RecordLoopTests.Rig, Recording?, LedClassDevice?) {
        let r = RecordLoopTests.Rig(readEverySeconds: readEvery, notify: true, watchdogIntervalMs: 15_000, status: true)
        // 40 s riding, then the receiver loses the sky (a garage) for 40 s; stopped at 90 s.
        r.gpsd.arrivals = RecordLoopTests.ride(seconds: 40)
        r.gpsd.stopAt = 90_000
        guard light else { return (r, nil, nil) }
        let device = try! LedClassDevice(name: "ACT", sysfsRoot: root + "/sys")
        let l = Recording(StatusLight(name: "ACT", sysfsRoot: root + "/sys", directory: root + "/logs", device: device) { _ in })
        r.light = l
        return (r, l, device)
    }

    func testNoWakeUpOfItsOwnAndWritesOnlyOnChange() {
        for readEvery in [5.0, 0] {
            let (plain, _, _) = rig(readEvery: readEvery, light: false)
            plain.run()
            let (lit, light, device) = rig(readEvery: readEvery, light: true)
            lit.run()
            let why = "read every \(readEvery) s"
            XCTAssertEqual(lit.gpsd.waits.map(\.mono), plain.gpsd.waits.map(\.mono), "the same wake-ups: \(why)")
            XCTAssertEqual(lit.gpsd.waits.map(\.timeoutUs), plain.gpsd.waits.map(\.timeoutUs), why)
            XCTAssertEqual(lit.log.syncs.count, plain.log.syncs.count, why)
            // Connected before the first fix (reading live): waiting for one, slow.
            let shown = Array(light!.shown.drop { $0.mono < 2000 && $0.pattern == .slow })
            let patterns = light!.shown.map(\.pattern)
            XCTAssertEqual(shown.map(\.pattern), [.solid, .slow, .dark], "\(why): \(light!.shown)")
            // Each change is at most two writes (delay_on, delay_off); the updates are many.
            XCTAssertLessThanOrEqual(device!.writeCount, 2 * patterns.count, why)
            XCTAssertGreaterThan(light!.updates, 10, why)
            // The fix lost 40 s in: slow within the gap's 10 s and a batch.
            let slowAt = shown[1].mono
            XCTAssertTrue((50_000...56_000).contains(slowAt), "\(why): slow at \(slowAt)")
        }
        let on = try! String(contentsOfFile: root + "/sys/class/leds/ACT/delay_on", encoding: .utf8)
        XCTAssertEqual(on, "0\n", "dark once stopped")
    }

    /// An LED missing at start-up (a keyboard plugged in later) is looked for at each change of
    /// pattern, not at each refresh; a ride closed this run waits to go up until a delivery ends.
    func testAnLedThatAppearsLaterAndARideThatWaits() throws {
        let logs = root + "/logs"
        // A delivery set up, its last run from an earlier boot.
        try "result = ok\nat_ms = 500\nwaiting = 0\n".write(toFile: logs + "/delivery", atomically: true, encoding: .utf8)
        let light = StatusLight(name: "input7::capslock", sysfsRoot: root + "/sys", directory: logs, device: nil) { _ in }
        var live = LiveStatus()
        live.gpsdConnected = true
        light.update(live, monoMs: 0, wallClockMs: 0, stopped: false)
        XCTAssertEqual(light.pattern, .slow, "no fix")
        let real = root + "/sys/devices/virtual/input/input7/input7::capslock"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        for (f, v) in ["brightness": "0\n", "trigger": "none [timer]\n", "delay_on": "500\n", "delay_off": "500\n"] {
            try v.write(toFile: real + "/" + f, atomically: false, encoding: .utf8)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/sys/class/leds/input7::capslock", withDestinationPath: real)
        func delays() -> String {
            ((try? String(contentsOfFile: real + "/delay_on", encoding: .utf8)) ?? "")
                + ((try? String(contentsOfFile: real + "/delay_off", encoding: .utf8)) ?? "")
        }
        light.update(live, monoMs: 1000, wallClockMs: 1000, stopped: false)
        XCTAssertEqual(delays(), "500\n500\n", "the same pattern: not looked for")
        live.tripOpen = true
        live.state = "recording"
        light.update(live, monoMs: 2000, wallClockMs: 2000, stopped: false)
        XCTAssertEqual(delays(), "1000\n0\n", "a change: found, and steady")
        // Closed at home: a wink until a delivery ends after it.
        light.tripClosed()
        live.tripOpen = false
        live.state = "waiting"
        live.fixMode = 3
        live.fixAgeS = 1
        live.accuracyM = 4
        light.update(live, monoMs: 3000, wallClockMs: 3000, stopped: false)
        XCTAssertEqual(light.pattern, .wink)
        XCTAssertEqual(delays(), "100\n1900\n")
        try "result = ok\nat_ms = 4000\nwaiting = 0\n".write(toFile: logs + "/delivery", atomically: true, encoding: .utf8)
        light.update(live, monoMs: 5000, wallClockMs: 5000, stopped: false)
        XCTAssertEqual(light.pattern, .glow, "delivered")
        light.update(live, monoMs: 6000, wallClockMs: 6000, stopped: true)
        XCTAssertEqual(delays(), "0\n1000\n", "dark")
    }
}

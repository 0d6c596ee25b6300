import XCTest
import Foundation
@testable import CairnCore
@testable import CairnDevice

/// The LED writer on fake sysfs trees with the kernel's file names and formats (a Pi's ACT LED
/// from gpio-leds, a uinput keyboard's caps lock from input-leds), and its writes against a
/// model of the kernel's `led_blink_set`.
final class LedClassDeviceTests: XCTestCase {
    var root = ""

    override func setUp() { root = NSTemporaryDirectory() + "leds-\(UUID().uuidString)" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    /// A Pi 3's trigger list, the current one bracketed (the ACT LED's default: mmc0).
    static let piTriggers =
        "none rc-feedback kbd-scrolllock kbd-numlock kbd-capslock kbd-kanalock kbd-shiftlock timer oneshot heartbeat backlight gpio cpu cpu0 cpu1 cpu2 cpu3 default-on input panic actpwr [mmc0] rfkill-any rfkill-none\n"

    /// `<root>/class/leds/NAME` as a symlink into the device tree, like the kernel; the timer's
    /// files only when `timer` is the trigger (the kernel makes them as it is set).
    @discardableResult
    func led(_ name: String, under device: String = "platform/leds/leds", triggers: String = piTriggers, timer: Bool = false) -> String {
        let real = root + "/devices/" + device + "/" + name
        try! FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        var files = ["brightness": "0\n", "max_brightness": "1\n", "trigger": triggers]
        if timer { files["delay_on"] = "500\n"; files["delay_off"] = "500\n" }
        for (f, v) in files { try! v.write(toFile: real + "/" + f, atomically: false, encoding: .utf8) }
        try! FileManager.default.createDirectory(atPath: root + "/class/leds", withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: root + "/class/leds/" + name, withDestinationPath: real)
        return root + "/class/leds/" + name
    }

    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<none>" }

    func testShowWritesTheTimerAndOnlyOnChange() throws {
        let p = led("ACT", timer: true)
        let d = try LedClassDevice(name: "ACT", sysfsRoot: root)
        XCTAssertEqual(d.trigger(), "mmc0")
        XCTAssertNil(d.show(.slow))
        XCTAssertEqual(read(p + "/trigger"), "timer\n", "the timer trigger set first")
        XCTAssertEqual(read(p + "/delay_on"), "1000\n")
        XCTAssertEqual(read(p + "/delay_off"), "1000\n")
        XCTAssertEqual(d.writeCount, 3)
        for _ in 0..<100 { XCTAssertNil(d.show(.slow)) }
        XCTAssertEqual(d.writeCount, 3, "the same pattern is not written again")
        XCTAssertNil(d.show(.fast))
        XCTAssertEqual(d.writeCount, 5)
        XCTAssertEqual(read(p + "/delay_on") + read(p + "/delay_off"), "100\n100\n")
        // The kernel now says [timer]: a second device (a restart) does not set it again.
        try "none [timer] heartbeat\n".write(toFile: p + "/trigger", atomically: false, encoding: .utf8)
        let again = try LedClassDevice(name: "ACT", sysfsRoot: root)
        XCTAssertNil(again.show(.solid))
        XCTAssertEqual(again.writeCount, 2, "delay_on, delay_off; no trigger")
        XCTAssertEqual(read(p + "/delay_on") + read(p + "/delay_off"), "1000\n0\n")
    }

    func testAKeyboardsCapsLock() throws {
        let p = led("input5::capslock", under: "virtual/input/input5", triggers: "[none] kbd-capslock timer heartbeat\n", timer: true)
        XCTAssertEqual(LedClassDevice.names(sysfsRoot: root), ["input5::capslock"])
        let d = try LedClassDevice(name: "input5::capslock", sysfsRoot: root)
        XCTAssertNil(d.show(.wink))
        XCTAssertEqual(read(p + "/delay_on") + read(p + "/delay_off"), "100\n1900\n")
    }

    /// The kernel's `led_blink_set` as `delay_on`/`delay_off` writes reach it: each write sets
    /// its delay with the other as it stands; 0/0 becomes 500/500 (blink at 1 Hz).
    struct KernelModel {
        var on = 500, off = 500
        var sawDefaultBlink = false
        mutating func write(_ file: String, _ v: Int) {
            if file == "delay_on" { on = v } else { off = v }
            if on == 0 && off == 0 {
                on = 500; off = 500
                sawDefaultBlink = true
            }
        }
    }

    func testEveryChangeReachesItsPatternWithoutTheKernelsDefault() {
        let all = LedPattern.allCases
        for from in [nil] + all.map(Optional.some) {
            for to in all {
                var k = KernelModel()
                var known: (onMs: Int, offMs: Int)? = nil
                if let f = from {
                    for s in LedClassDevice.writes(from: nil, to: f.delays) { k.write(s.file, s.value) }
                    known = f.delays
                }
                k.sawDefaultBlink = false
                let steps = LedClassDevice.writes(from: known, to: to.delays)
                for s in steps { k.write(s.file, s.value) }
                let why = "\(from.map { "\($0)" } ?? "unknown") -> \(to)"
                XCTAssertEqual(k.on, to.delays.onMs, why)
                XCTAssertEqual(k.off, to.delays.offMs, why)
                XCTAssertFalse(k.sawDefaultBlink, why)
                XCTAssertLessThanOrEqual(steps.count, from == to ? 0 : 2, why)
            }
        }
    }

    func testMissingLedsAndBadNames() {
        led("ACT", timer: true)
        led("PWR", timer: true)
        XCTAssertThrowsError(try LedClassDevice(name: "led0", sysfsRoot: root)) { e in
            XCTAssertEqual("\(e)", "no LED 'led0' in \(self.root)/class/leds (it has ACT, PWR)")
        }
        XCTAssertThrowsError(try LedClassDevice(name: "ACT", sysfsRoot: root + "/none")) { e in
            XCTAssertTrue("\(e)".hasSuffix("(it has none)"), "\(e)")
        }
        for bad in ["", ".", "..", "../ACT", "a/b", "led\u{7}", String(repeating: "x", count: 65)] {
            XCTAssertNotNil(LedClassDevice.nameProblem(bad), bad)
            XCTAssertThrowsError(try LedClassDevice(name: bad, sysfsRoot: root), bad)
        }
        for good in ["ACT", "led0", "input3::capslock", "mmc0::", "beaglebone:green:usr0"] { XCTAssertNil(LedClassDevice.nameProblem(good), good) }
        // An LED without the timer trigger (ledtrig-timer not loaded).
        led("nt", triggers: "[none] heartbeat\n")
        XCTAssertThrowsError(try LedClassDevice(name: "nt", sysfsRoot: root)) { e in
            XCTAssertTrue("\(e)".contains("no 'timer' trigger"), "\(e)")
        }
    }

    func testAFailedWriteIsSaidWithItsFileAndTriedAgain() throws {
        let p = led("ACT", triggers: "none [timer]\n", timer: true)
        let d = try LedClassDevice(name: "ACT", sysfsRoot: root)
        // A directory where the file is: open for writing fails (EISDIR) even as root.
        try FileManager.default.removeItem(atPath: p + "/delay_on")
        try FileManager.default.createDirectory(atPath: p + "/delay_on", withIntermediateDirectories: false)
        let e = d.show(.solid)
        XCTAssertTrue(e?.description.hasPrefix(p + "/delay_on: cannot write '1000'") ?? false, "\(String(describing: e))")
        XCTAssertNil(d.shown)
        try FileManager.default.removeItem(atPath: p + "/delay_on")
        try "500\n".write(toFile: p + "/delay_on", atomically: false, encoding: .utf8)
        XCTAssertNil(d.show(.solid), "tried again")
        XCTAssertEqual(d.shown, .solid)
        XCTAssertEqual(read(p + "/delay_on") + read(p + "/delay_off"), "1000\n0\n")
    }

    func testGrantHandsOverTheTwoDelayFilesOnly() throws {
        let p = led("ACT", timer: true)
        let d = try LedClassDevice(name: "ACT", sysfsRoot: root)
        guard getuid() == 0 else { throw XCTSkip("chown needs root") }
        try d.grant(uid: 4321, gid: 4322)
        XCTAssertEqual(read(p + "/trigger"), "timer\n")
        for f in ["delay_on", "delay_off"] {
            let a = try FileManager.default.attributesOfItem(atPath: p + "/" + f)
            XCTAssertEqual((a[.ownerAccountID] as? NSNumber)?.intValue, 4321, f)
            XCTAssertEqual((a[.groupOwnerAccountID] as? NSNumber)?.intValue, 4322, f)
            XCTAssertEqual((a[.posixPermissions] as? NSNumber)?.intValue, 0o644, f)
        }
        for f in ["brightness", "trigger", "max_brightness"] {
            let a = try FileManager.default.attributesOfItem(atPath: p + "/" + f)
            XCTAssertEqual((a[.ownerAccountID] as? NSNumber)?.intValue, 0, f)
        }
    }

    /// Delivery's phase from the files `cairn deliver` leaves: its lock (mtime: a run's start)
    /// and `delivery` (`at_ms`: its end).
    func testDeliveryWatch() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let w = DeliveryWatch(directory: root)
        let now: Int64 = 1_780_000_000_000
        XCTAssertEqual(w.phase(wallClockMs: now), .none, "no delivery on this card")
        func delivery(_ result: String, at: Int64, waiting: Int) throws {
            let text = "# the last 'cairn deliver'\nresult = \(result)\nat_ms = \(at)\nremote = nas:rides\nwaiting = \(waiting)\n"
            try text.write(toFile: root + "/delivery", atomically: true, encoding: .utf8)
        }
        func lock(at ms: Int64) throws {
            let p = root + "/.cairn-deliver.lock"
            try "1234\n".write(toFile: p, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(ms) / 1000)], ofItemAtPath: p)
        }
        try delivery("ok", at: now - 3_600_000, waiting: 0)
        let w2 = DeliveryWatch(directory: root)
        XCTAssertEqual(w2.phase(wallClockMs: now), .none, "an earlier boot's delivery is no news")
        w2.tripClosed()
        XCTAssertEqual(w2.phase(wallClockMs: now), .waiting, "closed at home")
        try lock(at: now - 1000)
        XCTAssertEqual(w2.phase(wallClockMs: now), .delivering)
        try delivery("ok", at: now, waiting: 0)
        XCTAssertEqual(w2.phase(wallClockMs: now + 1000), .delivered)
        w2.tripClosed()
        try lock(at: now + 60_000)
        XCTAssertEqual(w2.phase(wallClockMs: now + 61_000), .delivering)
        XCTAssertEqual(w2.phase(wallClockMs: now + 3 * 3_600_000), .waiting, "a run that never ended is over after 2 hours")
        try delivery("failed", at: now + 120_000, waiting: 1)
        XCTAssertEqual(w2.phase(wallClockMs: now + 121_000), .failing)
        try delivery("deferred", at: now + 180_000, waiting: 1)
        XCTAssertEqual(w2.phase(wallClockMs: now + 181_000), .waiting, "out of reach")
        // attack-r20b: a remote out of reach writes `failed` with `try_later = yes` (exit 75):
        // the rides wait; a refused password (no try_later) is failing.
        try delivery("failed\ntry_later = yes", at: now + 240_000, waiting: 1)
        XCTAssertEqual(w2.phase(wallClockMs: now + 241_000), .waiting, "a remote out of reach is no failing delivery")
        try delivery("failed", at: now + 300_000, waiting: 1)
        XCTAssertEqual(w2.phase(wallClockMs: now + 301_000), .failing, "a refused setup is")
    }
}

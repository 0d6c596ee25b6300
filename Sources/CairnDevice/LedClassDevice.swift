#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnCore
import CairnSystem

/// An LED behind the kernel's LED class (`/sys/class/leds/NAME`: the Pi's ACT LED, a GPIO LED
/// from `dtoverlay=gpio-led`, a keyboard's caps lock through `input-leds`), shown through the
/// `timer` trigger alone (`LedPattern`): the recorder writes `delay_on` and `delay_off` when the
/// pattern changes and the kernel does the blinking, with no timer at all for solid and dark.
///
/// Only the timer, never switching triggers: a trigger set makes its attribute files anew,
/// owned by root, so an unprivileged recorder could not write `delay_on` again after showing
/// `heartbeat` once. The unit's root step (`record --led-grant`, `grant(to:)`) sets the timer
/// and hands the two files to the recorder's user; nothing else of sysfs is its to write.
public final class LedClassDevice {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        /// The LED is there but the kernel offers it no `timer` trigger (not loaded: Debian's
        /// kernels build it as a module, ledtrig-timer; a Pi's has it built in).
        public var noTimer = false
        public init(_ d: String, noTimer: Bool = false) {
            description = d
            self.noTimer = noTimer
        }
    }

    public let name: String
    /// `<sysfsRoot>/class/leds/NAME`.
    public let path: String
    /// The pattern last written whole; nil before the first, or after a failed write.
    public private(set) var shown: LedPattern?
    /// The delays the kernel holds as far as we know (to order the writes; see `writes`).
    private var delays: (onMs: Int, offMs: Int)?
    /// Writes made (for the tests and the cost check).
    public private(set) var writeCount = 0

    /// A name as the LED class makes them (`ACT`, `led0`, `input3::capslock`, `pwr`): no `/`,
    /// not `.` or `..`, no control characters, at most 64 bytes. Nil when fine, else why not.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty || name == "." || name == ".." { return "not an LED name" }
        if name.utf8.count > 64 { return "longer than 64 bytes" }
        if name.utf8.contains(where: { $0 == 47 || $0 < 32 || $0 == 127 }) { return "an LED name holds no '/' and no control characters" }
        return nil
    }

    /// The LEDs the kernel has, by name.
    public static func names(sysfsRoot: String = "/sys") -> [String] {
        ((try? POSIX.listDirectory(sysfsRoot + "/class/leds")) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Finds the LED `name` under `<sysfsRoot>/class/leds`; it must have the timer's files or a
    /// trigger file that offers it.
    public init(name: String, sysfsRoot: String = "/sys") throws(Failure) {
        if let why = Self.nameProblem(name) { throw Failure("'\(name)': \(why)") }
        self.name = name
        path = sysfsRoot + "/class/leds/" + name
        guard POSIX.exists(path + "/brightness") else {
            let there = Self.names(sysfsRoot: sysfsRoot)
            throw Failure(
                "no LED '\(name)' in \(sysfsRoot)/class/leds ("
                    + (there.isEmpty ? "it has none" : "it has " + there.prefix(12).joined(separator: ", ")) + ")")
        }
        let triggers = (try? Self.readText(path + "/trigger")) ?? ""
        guard triggers.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains(where: { $0 == "timer" || $0 == "[timer]" }) else {
            throw Failure("\(path)/trigger: no 'timer' trigger offered (the kernel's ledtrig-timer: modprobe ledtrig-timer)", noTimer: true)
        }
    }

    /// The trigger in effect: the bracketed word of `trigger` (`none [timer] heartbeat`).
    public func trigger() -> String? {
        guard let text = try? Self.readText(path + "/trigger") else { return nil }
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("[") && word.hasSuffix("]") {
            return String(word.dropFirst().dropLast())
        }
        return nil
    }

    /// The root step before the recorder starts (the unit's `ExecStartPre=+`): the timer
    /// trigger set, and its `delay_on` and `delay_off` given to `uid`:`gid`, mode 0644. Nothing
    /// else changes hands.
    public func grant(uid: uid_t, gid: gid_t) throws(Failure) {
        if trigger() != "timer" { try write("trigger", "timer") }
        for file in ["delay_on", "delay_off"] {
            let p = path + "/" + file
            do throws(Errno) {
                try POSIX.changeOwner(p, uid: uid, gid: gid)
                try POSIX.changeMode(p, 0o644)
            } catch {
                throw Failure("\(p): cannot hand it to uid \(uid): \(error)")
            }
        }
    }

    /// The writes that take the kernel from `from` (nil: unknown) to `to`, in order. The kernel
    /// reads a write of one delay with the other as it stands, and two zeros as "blink at 1 Hz"
    /// (`led_blink_setup`), so the non-zero delay goes first and no step passes through 0/0.
    public static func writes(from: (onMs: Int, offMs: Int)?, to: (onMs: Int, offMs: Int)) -> [(file: String, value: Int)] {
        let on = ("delay_on", to.onMs), off = ("delay_off", to.offMs)
        var steps = to.onMs == 0 ? [off, on] : [on, off]
        if let f = from {
            // Unchanged delays are not written again (each write restarts the kernel's blink).
            if f.onMs == to.onMs && f.offMs == to.offMs { return [] }
            if f.onMs == to.onMs { steps = [off] } else if f.offMs == to.offMs { steps = [on] }
        }
        return steps.map { (file: $0.0, value: $0.1) }
    }

    /// Shows `pattern`, writing only when it differs from the one shown. Nil when shown (or
    /// already), else the error (the next call tries again).
    @discardableResult
    public func show(_ pattern: LedPattern) -> Failure? {
        if shown == pattern { return nil }
        do throws(Failure) {
            if shown == nil, trigger() != "timer" { try write("trigger", "timer") }
            for step in Self.writes(from: delays, to: pattern.delays) {
                try write(step.file, String(step.value))
            }
            delays = pattern.delays
            shown = pattern
            return nil
        } catch {
            shown = nil
            delays = nil
            return error
        }
    }

    private func write(_ file: String, _ value: String) throws(Failure) {
        let p = path + "/" + file
        do throws(Errno) {
            let fd = try POSIX.open(p, O_WRONLY | O_TRUNC | O_CLOEXEC)
            defer { POSIX.close(fd) }
            try POSIX.writeAll(fd, Array((value + "\n").utf8))
            writeCount += 1
        } catch {
            throw Failure("\(p): cannot write '\(value)': \(error)")
        }
    }

    static func readText(_ p: String) throws(Failure) -> String {
        do {
            let fd = try POSIX.open(p, O_RDONLY | O_CLOEXEC)
            defer { POSIX.close(fd) }
            // A trigger list is long (every trigger the kernel has: 1-2 KiB on a Pi).
            return String(decoding: try POSIX.readToEnd(fd, limit: 16384), as: UTF8.self)
        } catch {
            throw Failure("\(p): \(error)")
        }
    }
}

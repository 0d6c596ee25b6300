import CairnCore
import CairnSystem

/// The rider's button as the record loop sees it: at each wake-up the loop makes anyway, what
/// the presses since the last one decided (`ButtonPresses`). A fake in the tests.
public protocol LoopButton: AnyObject {
    func actions(monoMs: Int64) -> [ButtonPresses.Action]
    /// The device is not there (or has no such key): looked for again, and said in the status.
    var isMissing: Bool { get }
}

extension LoopButton {
    public var isMissing: Bool { false }
}

/// The rider's button (`record --button PATH`): one key (`--button-key`) of an evdev device, a
/// `gpio-keys` button from the `gpio-key` overlay (Hardware/button.md). Its queued events are
/// read without blocking at the loop's wake-ups (no wake-up of its own; a press waits in the
/// kernel's queue, stamped with its own time). A device that is missing or goes away is said
/// once and looked for again every 10 s.
public final class RiderButton: LoopButton {
    public let path: String
    public let keyCode: Int
    private let say: (String) -> Void
    private var device: InputDevice?
    private var rule = ButtonPresses()
    private var missing = false
    public var isMissing: Bool { missing }
    private var lastTryMono: Int64 = .min

    /// EV_KEY, and its values: 0 released, 1 pressed, 2 auto-repeat.
    static let evKey: UInt16 = 1

    public init(path: String, keyCode: Int, say: @escaping (String) -> Void) {
        self.path = path
        self.keyCode = keyCode
        self.say = say
    }

    public func actions(monoMs: Int64) -> [ButtonPresses.Action] {
        if device == nil {
            guard lastTryMono == .min || monoMs - lastTryMono >= 10_000 else { return [] }
            lastTryMono = monoMs
            do throws(Errno) {
                let d = try InputDevice(path: path)
                if try !d.hasKey(keyCode) {
                    if !missing { say("button: \(path) has no key \(keyCode); looking again every 10 s") }
                    missing = true
                    return []
                }
                device = d
                if missing { say("button: \(path) found") }
                missing = false
            } catch {
                if !missing { say("button: \(path): \(error); looking for it again every 10 s") }
                missing = true
                return []
            }
        }
        var edges: [ButtonPresses.Edge] = []
        do throws(Errno) {
            for e in try device?.queued() ?? [] where e.type == Self.evKey && Int(e.code) == keyCode && e.value != 2 {
                edges.append(.init(monoMs: e.monoMs, down: e.value == 1))
            }
        } catch {
            say("button: \(path): \(error); looking for it again every 10 s")
            device = nil
            missing = true
            rule.deviceLost(atMonoMs: monoMs)
        }
        return rule.take(edges, nowMonoMs: monoMs)
    }
}

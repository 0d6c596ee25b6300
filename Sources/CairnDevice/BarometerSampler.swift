import CairnCore

/// Reads the barometer every `sampleEveryMs` and keeps the filtered pressure of the last
/// minutes, so that fixes read in a batch get the pressure of the moment they arrived
/// (`PressureHistory`). The recorder reads it with each batch of gpsd's reports (every 5 s by
/// default), in the same wake-up: a reading of its own costs a wake-up and an I2C transfer,
/// which at once a second cost more CPU than the rest of the recorder (Tests/bench/peer-before-after.md).
/// Pressure changes smoothly at a rider's pace, so a fix between two readings 5 s apart gets
/// the line between them; the climb on the generated ride is the same at 1 s and 5 s (see
/// `Tests/bench/climb-results.md`). A reading rides along with any wake-up of the loop from a
/// quarter period early to a quarter period late, and wakes the loop itself only then, so it
/// never costs a wake-up of its own a moment before or after a batch or a report.
/// A sensor that fails (EIO, EBUSY, unbound) is reported once; the recorder falls back to GPS
/// heights for climb and retries every 5 s; when the sensor answers again it is used again,
/// and that is reported once too. With `auto`, a barometer plugged in later is found within 30 s;
/// a named one (`--baro PATH`) missing at start-up is reported once and taken within 5 s of appearing.
public final class BarometerSampler {
    public enum Source: Sendable {
        case none
        case auto(sysfsRoot: String)
        case path(String)
    }

    public let source: Source
    private let say: (String) -> Void
    private var device: IIOBarometer?
    private var filter = PressureFilter()
    private var history = PressureHistory()
    private var lastReadMono: Int64?
    private var lastGoodMono: Int64?
    private var lastTemperature: (monoMs: Int64, celsius: Double)?
    private var lastAttemptMono: Int64?
    private var failing = false
    private var reportedUnit = false
    /// One word for the live status: none, searching, ok, failing.
    public private(set) var state: String
    /// A sensor is open and sampled every `sampleEveryMs`.
    public var isSampling: Bool { device != nil }

    /// How often the sensor is read (1-60 s).
    public let sampleEveryMs: Int64
    /// A reading is taken at a wake-up from this much before it is due to this much after.
    public var slackMs: Int64 { sampleEveryMs / 4 }
    /// A fix further than this from a good reading gets no pressure: readings are at most
    /// `sampleEveryMs` + `slackMs` apart when all is well.
    public var staleAfterMs: Int64 { sampleEveryMs + slackMs + 1000 }

    public init(source: Source, sampleEveryMs: Int64 = 1000, say: @escaping (String) -> Void) {
        self.source = source
        self.sampleEveryMs = min(60_000, max(1000, sampleEveryMs))
        self.say = say
        if case .none = source { state = "none" } else { state = "searching" }
    }

    /// Opens the device named by `--baro PATH` now. One that is missing or is no pressure
    /// sensor is reported once and looked for again every 5 s: the ride is recorded meanwhile,
    /// with climb from GPS heights (a restart loop would record nothing). Returns the failure.
    @discardableResult
    public func openNamedDevice(monoMs: Int64) -> IIOBarometer.Failure? {
        guard case .path(let p) = source else { return nil }
        lastAttemptMono = monoMs
        do {
            let d = try IIOBarometer(path: p)
            device = d
            say("barometer: using \(d.name) at \(p), \(every)")
            return nil
        } catch {
            say("barometer: \(error); recording without it (climb from GPS heights), looking for it every 5 s")
            return error
        }
    }

    /// Whether `--baro PATH` names a pressure sensor now (for `record --check`).
    public static func probe(path: String) -> IIOBarometer.Failure? {
        do { _ = try IIOBarometer(path: path); return nil } catch { return error }
    }

    private var every: String {
        if sampleEveryMs == 1000 { return "read every second" }
        return "read every " + (sampleEveryMs % 1000 == 0 ? "\(sampleEveryMs / 1000)" : "\(Double(sampleEveryMs) / 1000)") + " s"
    }

    /// Call at every wake-up of the record loop; it reads when `msUntilDue` says so.
    public func poll(monoMs: Int64, wallClockMs: Int64) {
        if case .none = source { return }
        if device == nil {
            let retry: Int64 = { if case .auto = source { return 30_000 } else { return 5_000 } }()
            guard lastAttemptMono.map({ monoMs - $0 >= retry }) ?? true else { return }
            lastAttemptMono = monoMs
            switch source {
            case .auto(let root):
                guard let p = IIOBarometer.find(sysfsRoot: root).first, let d = try? IIOBarometer(path: p) else {
                    if state != "none-found" { say("barometer: none found under \(root)/bus/iio/devices; climb from GPS heights") }
                    state = "none-found"
                    return
                }
                device = d
                say("barometer: using \(d.name) at \(p), \(every)")
            case .path(let p):
                guard let d = try? IIOBarometer(path: p) else { return }
                device = d
                say("barometer: using \(d.name) at \(p), \(every) (it appeared)")
            case .none:
                return
            }
        }
        guard let d = device, lastReadMono.map({ monoMs - $0 >= sampleEveryMs - slackMs }) ?? true else { return }
        lastReadMono = monoMs
        switch d.read(temperature: true) {
        case .success(let r):
            if let t = r.temperatureC, t.isFinite { lastTemperature = (monoMs, t) } else { lastTemperature = nil }
            if let v = filter.add(pressurePa: r.pressurePa, timeMs: wallClockMs) { history.add(monoMs: monoMs, pressurePa: v) }
            lastGoodMono = monoMs
            if failing { say("barometer: \(d.name) answers again; climb from the barometer") }
            if !reportedUnit, let u = d.assumedUnit {
                say("barometer: \(d.name) reads \((r.pressurePa / 10).rounded() / 10) hPa (its value taken as \(u.rawValue))")
                reportedUnit = true
            }
            failing = false
            state = "ok"
        case .failure(let f):
            if !failing { say("barometer: \(f); climb from GPS heights until it answers again (retrying every 5 s)") }
            failing = true
            state = "failing"
            // Retry at a gentle pace; the filter restarts when readings come back.
            lastReadMono = monoMs + max(5_000, sampleEveryMs) - sampleEveryMs
            if let g = lastGoodMono, monoMs - g > staleAfterMs { filter = PressureFilter(); history.removeAll() }
        }
    }

    /// Milliseconds until `poll` has work to do (a read or a retry), so the loop can sleep. A
    /// reading is taken at any wake-up from `sampleEveryMs` − `slackMs` after the last, and
    /// wakes the loop itself at `sampleEveryMs` + `slackMs`.
    public func msUntilDue(monoMs: Int64) -> Int64 {
        if case .none = source { return .max }
        if device == nil {
            let retry: Int64 = { if case .auto = source { return 30_000 } else { return 5_000 } }()
            return lastAttemptMono.map { max(0, $0 + retry - monoMs) } ?? 0
        }
        return lastReadMono.map { max(0, $0 + sampleEveryMs + slackMs - monoMs) } ?? 0
    }

    /// The filtered pressure (Pa) at `monoMs` (now, or when a fix arrived), when a good reading
    /// lies within `staleAfterMs` of it.
    public func pressurePa(monoMs: Int64) -> Double? {
        history.value(atMonoMs: monoMs, maxGapMs: staleAfterMs)
    }

    /// The sensor's last temperature (°C), when it was read within `staleAfterMs` of `monoMs`
    /// (air temperature changes over minutes: no line between readings).
    public func temperatureC(monoMs: Int64) -> Double? {
        guard let t = lastTemperature, abs(monoMs - t.monoMs) <= staleAfterMs else { return nil }
        return t.celsius
    }
}

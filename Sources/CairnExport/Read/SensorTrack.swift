import CairnCore
import CairnLog

/// A trip's sensor values on the fixes' time line, for the exports: the log keeps the raw
/// notifications (LOG_FORMAT.md section 7d); here they are decoded, each at its GPS time, and a
/// point takes of each channel the value nearest its time within `windowMs`. Cadence comes from
/// the crank counters of a speed and cadence sensor (`CrankCadence`, rollovers included), from a
/// power meter's crank data only where the trip has no such sensor. Heart rate 0 (a strap
/// without a reading) is no value. Memory: one small sample per decoded value (16 bytes: 4 MB for
/// ten hours of three sensors at 1-4 Hz), read record by record before the points; a ride
/// without sensors costs one pass over its records and nothing else.
public struct SensorTrack: Sendable {
    /// The farthest a value may lie from a point's time: a sensor that stopped sending gives
    /// none after this (a strap taken off, a crank standing still reads 0 from its counter).
    public static let windowMs: Int64 = 3000

    struct Sample: Sendable {
        var timeMs: Int64
        var value: Int32
    }

    private(set) var heartRate: [Sample] = []
    private(set) var cadence: [Sample] = []
    private(set) var power: [Sample] = []

    public var isEmpty: Bool { heartRate.isEmpty && cadence.isEmpty && power.isEmpty }

    /// What a point at `timeMs` takes.
    public func values(atMs timeMs: Int64) -> (heartRate: Int?, cadence: Int?, powerW: Int?) {
        (Self.nearest(heartRate, timeMs), Self.nearest(cadence, timeMs), Self.nearest(power, timeMs))
    }

    /// The trip's sensor track; nil when its log holds no sensor value (then every export is
    /// what it was without sensors, byte for byte).
    public static func read(_ trip: TripRef) throws -> SensorTrack? {
        var builder = Builder()
        for f in trip.files {
            try LogReader(path: f.path).forEach { e in
                if case .sensors(let b) = e.record { builder.add(b) }
                return true
            }
        }
        let track = builder.finish()
        return track.isEmpty ? nil : track
    }

    /// The trip's heart rate, cadence and power figures over the points an export writes, as
    /// the FIT session has them (`cairn info`): with privacy zones (`window`) the exported
    /// part's only, like the rest of `info`'s figures; nil without sensor values.
    public static func figures(_ trip: TripRef, window: PrivacyWindow? = nil) throws -> SensorFigures? {
        guard let track = try read(trip) else { return nil }
        var f = SensorFigures()
        func add(_ fix: Fix) {
            let v = track.values(atMs: fix.timeMs)
            f.add(heartRate: v.heartRate, cadence: v.cadence, powerW: v.powerW)
        }
        if let window {
            var stages = ExportStages(window: window, laps: .none)
            _ = try TripCatalog.read(trip) { e in stages.feed(e, segment: { _ in }, point: { fix, _ in add(fix) }) }
        } else {
            _ = try TripCatalog.read(trip) { e in if case .point(let fix) = e { add(fix) } }
        }
        return f
    }

    /// Decodes batch by batch, as the log is read (no notification is kept: only the samples).
    struct Builder {
        private var t = SensorTrack()
        private var cscCranks: [UInt64: CrankCadence] = [:]
        private var powerCranks: [UInt64: CrankCadence] = [:]
        private var powerCadence: [Sample] = []

        mutating func add(_ b: SensorBatch) {
            for n in b.notifications {
                guard let time = b.timeMs(of: n), let reading = try? SensorReading(decoding: n) else { continue }
                switch reading {
                case .heartRate(let h):
                    if h.beatsPerMinute > 0 { t.heartRate.append(Sample(timeMs: time, value: Int32(h.beatsPerMinute))) }
                case .speedCadence(let c):
                    guard let crank = c.crank else { continue }
                    var counter = cscCranks[n.address] ?? CrankCadence(format: .cscCrank)
                    if let rpm = counter.add(crank, arrivalMs: time).rpm, rpm.isFinite {
                        t.cadence.append(Sample(timeMs: time, value: Int32(rpm.rounded())))
                    }
                    cscCranks[n.address] = counter
                case .power(let p):
                    t.power.append(Sample(timeMs: time, value: Int32(p.powerWatts)))
                    guard let crank = p.crank else { continue }
                    var counter = powerCranks[n.address] ?? CrankCadence(format: .powerCrank)
                    if let rpm = counter.add(crank, arrivalMs: time).rpm, rpm.isFinite {
                        powerCadence.append(Sample(timeMs: time, value: Int32(rpm.rounded())))
                    }
                    powerCranks[n.address] = counter
                case .battery:
                    continue
                }
            }
        }

        /// Cadence from the power meter's cranks only without a speed and cadence sensor's.
        mutating func finish() -> SensorTrack {
            if cscCranks.isEmpty { t.cadence = powerCadence }
            for k in [\SensorTrack.heartRate, \.cadence, \.power] { t[keyPath: k].sort { $0.timeMs < $1.timeMs } }
            return t
        }
    }

    /// The value of the sample nearest `timeMs` within `windowMs` (the earlier on a tie).
    static func nearest(_ samples: [Sample], _ timeMs: Int64) -> Int? {
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].timeMs < timeMs { lo = mid + 1 } else { hi = mid }
        }
        var best: Sample?
        for i in [lo - 1, lo] where i >= 0 && i < samples.count {
            let d = abs(samples[i].timeMs - timeMs)
            if d <= windowMs, best.map({ d < abs($0.timeMs - timeMs) }) ?? true { best = samples[i] }
        }
        return best.map { Int($0.value) }
    }
}

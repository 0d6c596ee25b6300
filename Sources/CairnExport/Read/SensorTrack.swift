import CairnCore
import CairnLog

/// A trip's sensor values on the fixes' time line, for the exports: the log keeps the raw
/// notifications (LOG_FORMAT.md section 7d); here they are decoded, each at its GPS time, and a
/// point takes of each figure the value nearest its time within `windowMs`. Memory: one small
/// sample per decoded value (16 bytes), read record by record before the points; a ride
/// without sensors costs one pass over its records and nothing else.
///
/// Each figure has its sources (a sensor's address and characteristic) in an order of
/// preference, and a point takes the value of the most preferred source with one fresh (within
/// `windowMs` of the point's time): heart rate and power from the first strap or power meter
/// that gave a value, then the next; cadence from a power meter's cranks before a speed and
/// cadence sensor's. One point takes one source's value, never a mix, and each source's crank
/// counter is its own. How often a later source filled in is said (`notes`). Every output reads
/// its values from here, so one rule holds in all of them: a strap saying it has no skin contact
/// gives no rate, nor does one above `maxHeartRate` (FIT's uint8 255 means invalid) or 0;
/// negative watts (the SIG's sint16) are 0, as FIT's uint16 must have them. See
/// Hardware/bluetooth.md.
public struct SensorTrack: Sendable {
    /// The farthest a value may lie from a point's time: a sensor that stopped sending gives
    /// none after this (a strap taken off, a crank standing still reads 0 from its counter),
    /// and the next source in the order fills in. A source's value this close is fresh.
    public static let windowMs: Int64 = 3000
    /// The highest heart rate kept: FIT's uint8 field holds 0-254 (255 is "invalid"), and no
    /// rider's heart beats faster; a reading above it is left out, in every output alike.
    public static let maxHeartRate = 254

    struct Sample: Sendable {
        var timeMs: Int64
        var value: Int32
    }

    /// Each figure's sources, most preferred first; each source's samples in time order.
    private(set) var heartRate: [[Sample]] = []
    private(set) var cadence: [[Sample]] = []
    private(set) var power: [[Sample]] = []
    /// What was left out or set aside, in a rider's words: said by `convert` and `info`.
    public private(set) var notes: [String] = []
    /// The wheel's distance (`WheelTrack`), read in the same pass; nil without a wheel reading.
    public private(set) var wheel: WheelTrack?

    public var isEmpty: Bool { heartRate.isEmpty && cadence.isEmpty && power.isEmpty }

    /// What a point at `timeMs` takes: of each figure, the first source's with a fresh value.
    public func values(atMs timeMs: Int64) -> (heartRate: Int?, cadence: Int?, powerW: Int?) {
        (Self.preferred(heartRate, timeMs), Self.preferred(cadence, timeMs), Self.preferred(power, timeMs))
    }

    /// The value of the first source in `sources` with a sample within `windowMs` of `timeMs`.
    static func preferred(_ sources: [[Sample]], _ timeMs: Int64) -> Int? {
        for s in sources { if let v = nearest(s, timeMs) { return v } }
        return nil
    }

    /// The trip's sensor track; nil when its log holds no sensor value and nothing was left out
    /// (then every export is what it was without sensors, byte for byte). A track of notes only
    /// (every rate over 254, two counters under one address) is kept, to be said.
    public static func read(_ trip: TripRef) throws -> SensorTrack? {
        var builder = Builder()
        let references = try SensorClock.references(trip.files.map(\.path))
        for (f, reference) in zip(trip.files, references) {
            try LogReader(path: f.path).forEach { e in
                if case .sensors(let b) = e.record { builder.add(b, reference: reference) }
                return true
            }
        }
        let track = builder.finish()
        return track.isEmpty && track.notes.isEmpty && track.wheel == nil ? nil : track
    }

    /// Whether the trip's log holds a sensor record: read up to the first.
    public static func has(_ trip: TripRef) throws -> Bool {
        var found = false
        for f in trip.files where !found {
            try LogReader(path: f.path).forEach { e in
                if case .sensors = e.record { found = true }
                return !found
            }
        }
        return found
    }

    /// The trip's heart rate, cadence and power figures over the points an export writes, as
    /// the FIT session has them (`cairn info`): with privacy zones (`window`) the exported
    /// part's only, like the rest of `info`'s figures; nil without sensor values.
    public static func figures(_ trip: TripRef, window: PrivacyWindow? = nil) throws -> SensorFigures? {
        // A wheel alone (a speed sensor) has no heart rate, cadence or power figures.
        guard let track = try read(trip), !track.isEmpty || !track.notes.isEmpty else { return nil }
        var f = SensorFigures()
        f.notes = track.notes
        var points = 0
        func add(_ fix: Fix) {
            points += 1
            let v = track.values(atMs: fix.timeMs)
            f.add(heartRate: v.heartRate, cadence: v.cadence, powerW: v.powerW)
        }
        if let window {
            var stages = ExportStages(window: window, laps: .none)
            _ = try TripCatalog.read(trip) { e in stages.feed(e, segment: { _ in }, point: { fix, _ in add(fix) }) }
        } else {
            _ = try TripCatalog.read(trip) { e in if case .point(let fix) = e { add(fix) } }
        }
        // A trainer's trip (no points): at the wheel's samples, FIT's records.
        if points == 0, let w = track.wheel {
            for s in w.samples { add(Fix(timeMs: s.timeMs, lat: 0, lon: 0, mode: 1)) }
        }
        return f
    }

    /// One figure's values, kept apart per source in the order the sources first gave one.
    struct Sources {
        private(set) var order: [UInt64] = []
        private(set) var samples: [UInt64: [Sample]] = [:]

        var isEmpty: Bool { order.isEmpty }

        mutating func add(_ address: UInt64, _ s: Sample) {
            if samples[address] == nil { order.append(address) }
            samples[address, default: []].append(s)
        }

        /// Every source's samples in time order, in the order of preference, taken out (sorted in
        /// place: a copy of ten hours at 4 Hz would be 2 MB more).
        mutating func ranked() -> [(address: UInt64, samples: [Sample])] {
            order.map { a in
                var kept = samples.removeValue(forKey: a) ?? []
                kept.sort { $0.timeMs < $1.timeMs }
                return (a, kept)
            }
        }
    }

    /// For each source after the first, how many of its values a point could take (no source
    /// before it had a fresh one then) and how many it could not, said in a rider's words.
    static func fillNotes(
        _ figure: String, _ ranked: [(kind: String, address: UInt64, samples: [Sample])], into notes: inout [String]
    ) {
        guard let first = ranked.first else { return }
        for i in ranked.indices.dropFirst() {
            let before = ranked[..<i].map(\.samples)
            let used = ranked[i].samples.filter { s in preferred(before, s.timeMs) == nil }.count
            let who = "\(ranked[i].kind) \(SensorReading.addressText(ranked[i].address))"
            let over = "\(first.kind) \(SensorReading.addressText(first.address))"
            notes.append(
                used == 0
                    ? "\(figure): \(ranked[i].samples.count) values of \(who) set aside (\(over) comes first and had a value within \(windowMs / 1000) s)"
                    : "\(figure): \(who) filled in \(used) of its \(ranked[i].samples.count) values while the sources before it "
                        + "(first \(over)) had none within \(windowMs / 1000) s")
        }
    }

    /// Decodes batch by batch, as the log is read (no notification is kept: only the samples).
    struct Builder {
        private var heartRates = Sources()
        private var powers = Sources()
        private var cscCadence = Sources()
        private var powerCadence = Sources()
        private var cscCranks: [UInt64: CrankCadence] = [:]
        private var powerCranks: [UInt64: CrankCadence] = [:]
        /// Per source, readings of its crank counter and how often it went back.
        private var crankReadings: [UInt64: (readings: Int, wentBack: Int)] = [:]
        private var noContact = 0
        private var overMax = 0
        private var negative = 0
        private var wheel = WheelTrack.Builder()

        mutating func add(_ b: SensorBatch, reference: Int64? = nil) {
            wheel.add(b, reference: reference)
            for n in b.notifications {
                guard let time = b.timeMs(of: n, reference: reference), let reading = try? SensorReading(decoding: n) else { continue }
                switch reading {
                case .heartRate(let h):
                    if h.contact == .notDetected {
                        noContact += 1
                    } else if Int(h.beatsPerMinute) > SensorTrack.maxHeartRate {
                        overMax += 1
                    } else if h.beatsPerMinute > 0 {
                        heartRates.add(n.address, Sample(timeMs: time, value: Int32(h.beatsPerMinute)))
                    }
                case .speedCadence(let c):
                    guard let crank = c.crank else { continue }
                    if let rpm = Self.rpm(&cscCranks, &crankReadings, n.address, .cscCrank, crank, time) {
                        cscCadence.add(n.address, Sample(timeMs: time, value: rpm))
                    }
                case .power(let p):
                    if p.powerWatts < 0 { negative += 1 }
                    powers.add(n.address, Sample(timeMs: time, value: Int32(max(0, p.powerWatts))))
                    guard let crank = p.crank else { continue }
                    // A power meter's address never meets a speed and cadence sensor's in one
                    // key: `crankReadings` keys the power meter's with the top bit set.
                    if let rpm = Self.rpm(&powerCranks, &crankReadings, n.address | 1 << 63, .powerCrank, crank, time) {
                        powerCadence.add(n.address, Sample(timeMs: time, value: rpm))
                    }
                case .battery:
                    continue
                }
            }
        }

        private static func rpm(
            _ counters: inout [UInt64: CrankCadence], _ readings: inout [UInt64: (readings: Int, wentBack: Int)],
            _ key: UInt64, _ format: RevolutionFormat, _ crank: RevolutionData, _ time: Int64
        ) -> Int32? {
            let address = key & ~(1 << 63)
            var counter = counters[address] ?? CrankCadence(format: format)
            let step = counter.add(crank, arrivalMs: time)
            counters[address] = counter
            var r = readings[key] ?? (0, 0)
            r.readings += 1
            if step.event == .counterWentBack { r.wentBack += 1 }
            readings[key] = r
            guard let rpm = step.rpm, rpm.isFinite else { return nil }
            return Int32(rpm.rounded())
        }

        mutating func finish() -> SensorTrack {
            var t = SensorTrack()
            var notes: [String] = []
            let hr = heartRates.ranked().map { (kind: "strap", address: $0.address, samples: $0.samples) }
            let pw = powers.ranked().map { (kind: "power meter", address: $0.address, samples: $0.samples) }
            // Cadence: the power meters' cranks first (a speed and cadence sensor's crank magnet
            // is the one that falls off), then the speed and cadence sensors'.
            let cad =
                powerCadence.ranked().map { (kind: "power meter", address: $0.address, samples: $0.samples) }
                + cscCadence.ranked().map { (kind: "speed and cadence sensor", address: $0.address, samples: $0.samples) }
            SensorTrack.fillNotes("heart rate", hr, into: &notes)
            SensorTrack.fillNotes("power", pw, into: &notes)
            SensorTrack.fillNotes("cadence", cad, into: &notes)
            (t.heartRate, t.power, t.cadence) = (hr.map(\.samples), pw.map(\.samples), cad.map(\.samples))
            for (key, r) in crankReadings.sorted(by: { $0.key < $1.key }) where r.wentBack >= 3 && r.wentBack * 10 > r.readings {
                let kind = key & (1 << 63) != 0 ? "power meter" : "speed and cadence sensor"
                notes.append(
                    "cadence: the crank counter of \(kind) \(SensorReading.addressText(key & ~(1 << 63))) went back "
                        + "\(r.wentBack) times in \(r.readings) readings (two sensors answering to one address?): "
                        + "no cadence from those readings")
            }
            if noContact > 0 { notes.append("heart rate: \(noContact) readings without skin contact left out") }
            if overMax > 0 { notes.append("heart rate: \(overMax) readings above \(SensorTrack.maxHeartRate) bpm left out") }
            if negative > 0 { notes.append("power: \(negative) negative readings taken as 0 W") }
            if !wheel.track.samples.isEmpty { t.wheel = wheel.track }
            if wheel.takeOvers > 0 {
                let n = wheel.takeOvers
                notes.append(
                    "wheel: another wheel source took over \(n) time\(n == 1 ? "" : "s") when the one counting had been silent "
                        + "\(WheelSource.silentAfterMs / 1000) s (each revolution counted once)")
            }
            t.notes = notes
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

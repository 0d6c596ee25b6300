import CairnCore
import CairnLog

/// A trip's distance as its wheel sensor measured it, on the fixes' time line (issue 40): where
/// GPS has none, a trainer's whole trip or a tunnel's gap between two points, the distance is
/// the wheel's. Read from the sensors' records (LOG_FORMAT.md section 7d): one wheel source at a
/// time (`WheelSource`: a speed and cadence sensor's wheel, or a power meter's wheel data; the
/// first, and the next from when the one counting has gone silent), at the circumference
/// each record carries (2.105 m in records without one). Memory: one 32-byte sample a second.
public struct WheelTrack: Sendable {
    public struct Sample: Sendable, Equatable {
        public var timeMs: Int64
        /// Metres since the first reading.
        public var metres: Double
        /// Metres a second, nil until two revolutions tell.
        public var speed: Double?
        /// The moving time (`WheelTrack.movingMs`) up to this sample: a record's share of it.
        public var movingMs: Int64 = 0
    }

    /// Points further apart than this are a gap (the fixes stopped) the wheel may measure.
    public static let gapMs: Int64 = 10_000
    /// A gap's ends count only with a wheel reading this close to each.
    public static let reachMs: Int64 = 5_000
    /// A wheel that measured less than this share of the straight line over a gap is not this
    /// ride's wheel (the bike on a train, a sensor of another bike): the straight line stays.
    public static let minShareOfChord = 0.8
    /// Roads bend, they do not fold: a wheel that turned more than this share of the straight
    /// line (plus `slackM`) over a gap did not roll the bike along it (a bike carried with its
    /// wheel spinning freely, spun on a stand in a garage): the straight line stays. A tunnel's
    /// bends are well within it (1.2 times the line in the attack's t05).
    public static let maxShareOfChord = 2.0
    /// What a short gap's turn (a corner, a roundabout) may add beyond `maxShareOfChord`.
    public static let slackM = 20.0

    public private(set) var samples: [Sample] = []
    /// Time the wheel turned, between readings at most `reachMs` apart.
    public private(set) var movingMs: Int64 = 0

    public var distanceM: Double { samples.last?.metres ?? 0 }

    /// The ride on the wheel before the trip's first point (issue 40, attack r21 F3): a trainer's
    /// trip that went outdoors, its indoor part. What the wheel turned from its first sample to
    /// the point (`metres`, `movingMs`) and its samples before the point (the records FIT and
    /// CSV write without a position); nil unless the wheel started `gapMs` or more before the
    /// point and turned (a sensor that connected a moment before the first fix adds nothing).
    public struct Lead: Sendable, Equatable {
        public var samples: ArraySlice<Sample>
        public var metres: Double
        public var movingMs: Int64
        public var firstMs: Int64 { samples.first?.timeMs ?? 0 }
        /// The top speed of its records (as FIT's session has it from them: `WheelTrack.topMps`).
        public var topMps: Double? { WheelTrack.fastest(samples) }
    }

    public func lead(before pointMs: Int64) -> Lead? {
        guard let first = samples.first, pointMs - first.timeMs >= Self.gapMs else { return nil }
        var end = 0
        while end < samples.count, samples[end].timeMs < pointMs { end += 1 }
        let before = samples[..<end]
        guard let last = before.last else { return nil }
        // At the point: between the readings around it, or the last one before.
        let atPoint = at(pointMs) ?? last.metres
        guard atPoint - first.metres > 0 else { return nil }
        return Lead(samples: before, metres: atPoint - first.metres, movingMs: last.movingMs - first.movingMs - resumeStepsMs(in: before))
    }

    /// The wheel's ride after the last point (a trainer's trip that came back in and rode on
    /// indoors, the trip still open): the samples after `pointMs`, up to the rider's end press
    /// (`endMs`) when there is one, when the wheel went on at least a gap past the point and
    /// turned. FIT and CSV write them as records without a position (`TripConversion`).
    /// `metres` counts from the point (the wheel between the readings around it).
    public func trail(after pointMs: Int64, upToMs endMs: Int64? = nil) -> Lead? {
        var start = samples.count
        while start > 0, samples[start - 1].timeMs > pointMs { start -= 1 }
        var end = start
        while end < samples.count, samples[end].timeMs <= endMs ?? .max { end += 1 }
        let after = samples[start..<end]
        guard let first = after.first, let last = after.last, last.timeMs - pointMs >= Self.gapMs else { return nil }
        let atPoint = at(pointMs) ?? first.metres
        guard last.metres - atPoint > 0 else { return nil }
        // The step into the first sample is the trail's: the records' steps add up to it.
        let movingAtPoint = start > 0 ? samples[start - 1].movingMs : first.movingMs
        return Lead(samples: after, metres: last.metres - atPoint, movingMs: last.movingMs - movingAtPoint - resumeStepsMs(in: after))
    }

    /// A trip without positions' figures over the records its exports write when the rider's
    /// end press is at `endMs` (the samples up to it, the first always), and their count.
    public func figures(upToMs endMs: Int64, activity: String?) -> (TripStats, Int)? {
        guard let first = samples.first else { return nil }
        var n = 1
        while n < samples.count, samples[n].timeMs <= endMs { n += 1 }
        let last = samples[n - 1]
        var kept = WheelTrack()
        kept.samples = Array(samples[..<n])
        var stats = activity.map { TripStats(profile: ActivityProfile.named($0)) } ?? TripStats()
        stats.addWheel(
            extraM: last.metres - first.metres, movingMs: last.movingMs - first.movingMs - resumeStepsMs(upToMs: last.timeMs),
            firstMs: first.timeMs, lastMs: last.timeMs, topMps: kept.topMps, stillM: resumeStepsM(upToMs: last.timeMs))
        return (stats, n)
    }

    /// The samples at which the wheel turns again after standing longer than the recorder's
    /// pause (`WheelTrip.Config.pauseAfterMs`, 2 min): each starts a segment of a trip without
    /// positions, as the recorder's segment start (reason pause) does. Read from the samples, so a
    /// log without those records (an older recorder, a crafted one) pauses alike.
    public var resumes: [Int] {
        let pauseMs = WheelTrip.Config().pauseAfterMs
        var out: [Int] = []
        var lastTurnMs: Int64?
        for i in samples.indices.dropFirst() where samples[i].metres > samples[i - 1].metres {
            if let t = lastTurnMs ?? samples.first?.timeMs, samples[i].timeMs - t > pauseMs { out.append(i) }
            lastTurnMs = samples[i].timeMs
        }
        return out
    }

    /// The top speed of a trip without positions: the wheel's fastest reading, as FIT's session
    /// has it from the records written at the samples (`FITWriter`: a trainer's records give
    /// their speed as the wheel's top); `list` and `info` give the same. Never `TripStats`'
    /// judgement of speeds against positions' steps: a trainer has no step, so its speeds went
    /// unsupported, the top came out low (6 m/s of a wheel alternating 6 and 8) and moving time,
    /// never less than the distance at the top speed, came out as the elapsed time (attack r23:
    /// 0:19:59 with a sensor silent 8 s, against the wheel's 0:19:50).
    public var topMps: Double? { Self.fastest(samples[...]) }

    /// The moving time of the steps into the samples that end a pause (`resumes`) up to `endMs`:
    /// a trip without positions starts a segment there, so FIT's timer is stopped over that step
    /// (its lap starts at the sample) and no figure counts it as moving.
    public func resumeStepsMs(upToMs endMs: Int64 = .max) -> Int64 {
        resumes.reduce(0) { sum, i in samples[i].timeMs <= endMs ? sum + samples[i].movingMs - samples[i - 1].movingMs : sum }
    }

    /// The metres of the steps into the resumes up to `endMs` (`TripStats.addWheel`'s `stillM`).
    public func resumeStepsM(upToMs endMs: Int64 = .max) -> Double {
        resumes.reduce(0) { sum, i in samples[i].timeMs <= endMs ? sum + samples[i].metres - samples[i - 1].metres : sum }
    }

    /// The same over the resumes among `part`'s samples (a lead's or a trail's records).
    func resumeStepsMs(in part: ArraySlice<Sample>) -> Int64 {
        resumes.reduce(0) { sum, i in part.indices.contains(i) ? sum + samples[i].movingMs - samples[i - 1].movingMs : sum }
    }

    static func fastest(_ samples: ArraySlice<Sample>) -> Double? {
        samples.reduce(nil as Double?) { top, s in
            guard let v = s.speed, v.isFinite, v > 0 else { return top }
            return max(top ?? 0, v)
        }
    }
    public var firstMs: Int64? { samples.first?.timeMs }
    public var lastMs: Int64? { samples.last?.timeMs }

    /// The trip's wheel track; nil when its log holds no wheel reading.
    public static func read(_ trip: TripRef) throws -> WheelTrack? {
        var b = Builder()
        let references = try SensorClock.references(trip.files.map(\.path))
        for (f, reference) in zip(trip.files, references) {
            try LogReader(path: f.path).forEach { e in
                if case .sensors(let batch) = e.record { b.add(batch, reference: reference) }
                return true
            }
        }
        return b.track.samples.isEmpty ? nil : b.track
    }

    /// The metres the wheel turned from `fromMs` to `toMs`; nil unless readings lie within
    /// `reachMs` of both.
    public func metres(fromMs: Int64, toMs: Int64) -> Double? {
        guard let a = at(fromMs), let b = at(toMs), b >= a else { return nil }
        return b - a
    }

    /// What the wheel adds to the straight line from `a` to `b` when they are a gap
    /// (`gapMs` apart or more) it measured: between `minShareOfChord` and `maxShareOfChord`
    /// (plus `slackM`) of the line; nil otherwise.
    public func extraMetres(from a: Fix, to b: Fix) -> Double? {
        guard b.timeMs - a.timeMs >= Self.gapMs else { return nil }
        let chord = Geodesy.distance(a, b)
        guard let m = metres(fromMs: a.timeMs, toMs: b.timeMs), m > 0, Self.plausible(m, chord: chord) else { return nil }
        return m - chord
    }

    /// Whether `metres` of the wheel can be the bike's way over a gap whose straight line is `chord`.
    static func plausible(_ metres: Double, chord: Double) -> Bool {
        metres >= chord * minShareOfChord && metres <= chord * maxShareOfChord + slackM
    }

    /// The distance the wheel had turned at `timeMs`, between the readings around it (the
    /// nearest within `reachMs` beyond the ends).
    func at(_ timeMs: Int64) -> Double? {
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].timeMs < timeMs { lo = mid + 1 } else { hi = mid }
        }
        if lo < samples.count, samples[lo].timeMs == timeMs { return samples[lo].metres }
        let before = lo > 0 ? samples[lo - 1] : nil, after = lo < samples.count ? samples[lo] : nil
        switch (before, after) {
        case (let a?, let b?):
            guard timeMs - a.timeMs <= Self.reachMs || b.timeMs - timeMs <= Self.reachMs else { return nil }
            return a.metres + (b.metres - a.metres) * Double(timeMs - a.timeMs) / Double(b.timeMs - a.timeMs)
        case (let a?, nil): return timeMs - a.timeMs <= Self.reachMs ? a.metres : nil
        case (nil, let b?): return b.timeMs - timeMs <= Self.reachMs ? b.metres : nil
        case (nil, nil): return nil
        }
    }

    /// Decodes record by record, as the log is read; keeps a sample a second at most.
    struct Builder {
        var track = WheelTrack()
        private var source = WheelSource()
        /// How often a later wheel source took over from a silent one (said by `SensorTrack`).
        var takeOvers: Int { source.takeOvers }
        private var speed: WheelSpeed?
        private var metres = 0.0
        private var lastMs: Int64?

        /// `reference`: the file's offset for records without a GPS one (`SensorClock`).
        mutating func add(_ b: SensorBatch, reference: Int64? = nil) {
            for n in b.notifications {
                let format: RevolutionFormat
                let data: RevolutionData?
                switch try? SensorReading(decoding: n) {
                case .speedCadence(let c)?: (format, data) = (.cscWheel, c.wheel)
                case .power(let p)?: (format, data) = (.powerWheel, p.wheel)
                default: continue
                }
                guard let data, let time = b.timeMs(of: n, reference: reference) else { continue }
                let key = n.address << 16 | UInt64(n.characteristic)
                // One source counts at a time: the first, then the next when it went silent.
                switch source.reading(key, atMs: time) {
                case .ignore: continue
                case .takeOver: speed = nil
                case .count: break
                }
                var s = speed ?? WheelSpeed(circumferenceM: b.wheelCircumferenceM, format: format)
                // The counter counts revolutions; the record says what one is.
                let step = s.add(data, arrivalMs: n.arrivalMonoMs)
                speed = s
                metres += Double(step.metres) / s.circumferenceM * b.wheelCircumferenceM
                if let last = lastMs, time > last, time - last <= WheelTrack.reachMs, step.metres > 0 {
                    track.movingMs += time - last
                }
                lastMs = time
                let sample = Sample(
                    timeMs: time, metres: metres, speed: step.metresPerSecond.map { $0 / s.circumferenceM * b.wheelCircumferenceM },
                    movingMs: track.movingMs)
                guard track.samples.last.map({ time > $0.timeMs }) ?? true else { continue }
                let n = track.samples.count
                if n >= 2, track.samples[n - 1].timeMs - track.samples[n - 2].timeMs < 1000 {
                    // The last sample is within a second of the one before: this reading replaces it.
                    track.samples[n - 1] = sample
                } else {
                    track.samples.append(sample)
                }
            }
        }
    }
}

/// The gaps in a trip's points (`WheelTrack.gapMs` or longer between two points whose straight
/// line counts toward distance), gathered as the points are read, and what the wheel adds to
/// their straight lines.
struct WheelGaps {
    /// At most this many kept (a log of a million dropouts is no ride: memory stays bounded).
    static let max = 100_000
    private(set) var gaps: [(from: Fix, to: Fix)] = []
    private var last: Fix?

    /// A segment starts: across a pause or a fresh start no line is drawn (`TripStats.bridges`).
    mutating func segment(_ reason: SegmentReason) {
        if !TripStats.bridges(reason) { last = nil }
    }

    mutating func point(_ fix: Fix) {
        if let p = last, fix.timeMs - p.timeMs >= WheelTrack.gapMs, gaps.count < Self.max {
            gaps.append((p, fix))
        }
        last = fix
    }

    /// The metres the wheel adds over the gaps it measured, and how many.
    func extraMetres(_ wheel: WheelTrack) -> (metres: Double, gaps: Int) {
        var extra = 0.0, n = 0
        for g in gaps {
            guard let m = wheel.extraMetres(from: g.from, to: g.to) else { continue }
            extra += m
            n += 1
        }
        return (extra, n)
    }
}

import CairnCore
import CairnLog

/// What is exported of each trip: the recorded points, the points of the rules run again
/// (`convert --refilter`), or every raw fix with its verdict (`convert --raw`).
public enum TrackSource {
    case recorded
    case refilter(TripReplay.Options)
    case raw

    public var isRaw: Bool { if case .raw = self { return true } else { return false } }

    /// The activity the export names, when it is not the recorded one.
    public var activity: String? {
        if case .refilter(let o) = self { return o.activity?.name }
        return nil
    }

    /// The trip's track as this source exports it (recorded or re-filtered points; a raw
    /// export's kept points), for the figures and the privacy window. `warn` is told when a
    /// replay cannot be exact.
    @discardableResult
    public func readTrack(_ t: TripRef, thinned: Bool = false, warn: (String) -> Void, visit: (TripEvent) -> Void) throws -> TripSummary {
        if case .raw = self { return try TripCatalog.read(t, visit: visit) }
        return try read(t, thinned: thinned, warn: warn) { e in
            switch e {
            case .segment(let r): visit(.segment(r))
            case .point(let f): visit(.point(f))
            case .judged(let r): visit(.raw(r))
            case .raw: break
            }
        }
    }

    public enum Event {
        case segment(SegmentReason)
        case point(Fix)
        /// A fix to export with its verdict (`--raw`).
        case raw(RawFix)
        /// A raw fix for the smoother to learn from (`TrackPipeline.usesRaw`), not exported.
        case judged(RawFix)
    }

    /// Streams one trip's events and returns its summary; with `thinned`, the raw fixes
    /// behind the points too (`Event.judged`), as the recording or the replay judged them.
    @discardableResult
    public func read(_ t: TripRef, thinned: Bool = false, warn: (String) -> Void, visit: (Event) -> Void = { _ in }) throws -> TripSummary {
        switch self {
        case .recorded:
            return try TripCatalog.read(t, raw: thinned) { e in
                switch e {
                case .segment(let r): visit(.segment(r))
                case .point(let f): visit(.point(f))
                case .raw(let r): visit(.judged(r))
                }
            }
        case .refilter(var options):
            options.judged = thinned
            var s = try TripReplay.read(
                t, options: options, warn: warn,
                visit: { e in
                    switch e {
                    case .segment(let r): visit(.segment(r))
                    case .point(let f): visit(.point(f))
                    case .raw(let r): visit(.judged(r))
                    }
                })
            if options.activity == nil { s.activity = s.activity ?? activity }
            return s
        case .raw:
            let s = try TripCatalog.read(t)
            var first = true
            try TripRaw.read(t) { r, _ in
                if first { visit(.segment(.start)); first = false }
                visit(.raw(r))
            }
            return s
        }
    }
}

/// One conversion: trips, one after another, from the log through the export-side stages
/// (`TrackPipeline`: smoothing and gap filling; `ExportStages`: privacy zones and laps) into one
/// writer. `cairn convert` runs every selected trip through one; `cairn export` one trip per
/// format and file. What a trip's conversion has to say (a zone's cut, a filled gap, a trip
/// recovered from damage, an error) goes to `say` as "trip ID: …", for the CLI to print.
public final class TripConversion {
    public struct Stages {
        public var source: TrackSource = .recorded
        public var smooth = false
        public var fillGaps = false
        /// The zones, with their key; none: nothing left out.
        public var zones = PrivacyZones()
        public var laps: LapRule = .marksElsePause
        /// The board id for trips whose log carries none (`--board`); the log's own id wins.
        public var board: String?
        public init() {}

        /// Smoothing or gap filling: the track goes through a `TrackPipeline`.
        public var pipelined: Bool { smooth || fillGaps }
    }

    /// What became of one trip.
    public struct Outcome: Equatable {
        /// The trip's output was completed (its FIT file, its part of the document).
        public var converted = false
        /// Errors said: reading, opening or finishing its output.
        public var problems = 0
        /// The first error's text (without "trip ID: ").
        public var error: String?
    }

    public let writer: TrackExporter
    public let stages: Stages
    /// Whether the document was begun (`TrackExporter.begin`): it starts with its first trip
    /// that has a point, so no trip, no document.
    public private(set) var begun = false
    private let say: (String) -> Void

    public init(writer: TrackExporter, stages: Stages, say: @escaping (String) -> Void) {
        self.writer = writer
        self.stages = stages
        self.say = say
    }

    /// Converts one trip. `window` replaces the zones' window for it (one that has seen the
    /// trip's points, `ExportStages.window`); `summary` is the heading's, when the caller has it.
    public func convert(_ t: TripRef, window given: PrivacyWindow? = nil, summary known: TripSummary? = nil) -> Outcome {
        var outcome = Outcome()
        func failed(_ error: Any) {
            let text = "\(error)"
            say("trip \(t.id): \(text)")
            outcome.problems += 1
            if outcome.error == nil { outcome.error = text }
        }
        let source = stages.source
        let smooth = stages.smooth, fillGaps = stages.fillGaps, pipelined = stages.pipelined
        var heading = TripHeading(id: t.id, activity: nil, nameSuffix: t.nameSuffix, board: TripCatalog.board(of: t, fallback: stages.board))
        // Privacy zones: this trip's cut circles, applied to each point as it is written.
        let window: PrivacyWindow? = given ?? (stages.zones.isEmpty ? nil : stages.zones.window(for: t))
        // The rider's presses (the button): the default laps where the trip has any, and the
        // end press, where every export ends (FIT's last timer stop there); one more streamed
        // pass. A log that cannot be read fails below, as ever. `--raw` writes every fix.
        var marks = TripMarks.none
        if !source.isRaw { marks = (try? TripMarks.read(t)) ?? .none }
        // The smoother's tuning follows the activity, which the trip's first record names.
        let stageActivity = pipelined ? (source.activity ?? Self.recordedActivity(of: t)) : nil
        // The smoother learns from the fixes the rules thinned out where the log holds them,
        // and the filler tells a dropout from a thinned step by them (a re-filtered trip
        // always has them: the replay judges them anew).
        var thinned = false
        if pipelined && !source.isRaw {
            if case .refilter = source { thinned = true } else { thinned = (try? TripRaw.has(t)) == true }
            if smooth && !thinned {
                say("trip \(t.id): no raw fixes (\(TripRaw.whyMissing(t))): smoothed from its points alone, which corrects less")
            }
        }
        let warn: (String) -> Void = { self.say($0) }
        var laps: LapRule = source.isRaw ? .none : stages.laps.forTrip(marks)
        if stages.laps == .marksElsePause && laps == .marks {
            // The default takes the rider's laps only where a press makes one in this export
            // (one more streamed pass, for trips with presses alone); a log that cannot be read
            // fails below, as ever.
            let made = try? ButtonLaps.count(
                t, marks: marks, window: window,
                pipeline: pipelined
                    ? TrackPipeline(smooth: smooth, fillGaps: fillGaps, activity: stageActivity, usesRaw: thinned, window: window) : nil,
                read: { t, visit in try source.readTrack(t, thinned: thinned, warn: { _ in }, visit: visit) })
            laps = made?.rule ?? .marks
        }
        heading.laps = laps
        heading.endPressMs = marks.endMs
        heading.endedByRider = marks.endedByRider
        var exportStages = ExportStages(window: window, laps: laps, marks: marks)
        // The sensors' values, joined to each point by time (a ride without them: nil).
        var sensors: SensorTrack?
        do { sensors = try SensorTrack.read(t) } catch { say("trip \(t.id): sensor values not read: \(error)") }
        // A wheel alone (a speed sensor) adds no sensor field: its figures are distance and speed.
        heading.hasSensors = sensors.map { !$0.isEmpty || !$0.notes.isEmpty } ?? false
        let wheel = sensors?.wheel
        exportStages.wheel = wheel
        for note in sensors?.notes ?? [] { say("trip \(t.id): \(note)") }
        func withSensors(_ f: Fix, _ extras: PointExtras) -> PointExtras {
            guard let sensors else { return extras }
            var e = extras
            (e.heartRate, e.cadence, e.powerW) = sensors.values(atMs: f.timeMs)
            return e
        }
        if let s = known {
            heading.summary = s
            heading.activity = s.activity
        } else if writer.wantsSummaryFirst {
            // A first streamed pass for the figures the format puts before the points (those
            // of the exported track: through the same stages as the points).
            var summaryLeftOut = 0
            do {
                let s = try ExportStages.summary(
                    t, window: window,
                    pipeline: pipelined
                        ? TrackPipeline(smooth: smooth, fillGaps: fillGaps, activity: stageActivity, usesRaw: thinned, window: window) : nil,
                    endPressMs: marks.endMs,
                    read: { t, visit in try source.readTrack(t, thinned: thinned, warn: warn, visit: visit) },
                    leftOut: { summaryLeftOut = $0 })
                heading.summary = s
                heading.activity = s.activity
            } catch {
                failed(error)
                return outcome
            }
            if heading.summary?.stats.points == 0 && heading.summary?.hasNoPositions != true {
                if summaryLeftOut > 0 {
                    say("trip \(t.id): every point is inside a privacy zone; nothing written for it")
                } else {
                    say("trip \(t.id): no points (an empty or unfinished trip); nothing written for it")
                }
                return outcome
            }
        } else {
            // The heading needs the activity, which the trip's first record names.
            heading.activity = source.activity ?? Self.recordedActivity(of: t)
        }
        let writer = self.writer
        // The trip begins at its first point, so a trip without one writes nothing.
        var tripBegun = false
        var beginFailed = false
        var segments: [SegmentReason] = []
        // Fixes for FIT's climb that came before its trip began (the smoother holds points back).
        var earlyOffered: [Fix] = []
        func beginTrip() -> Bool {
            if tripBegun { return true }
            if beginFailed { return false }
            if !begun { writer.begin(); begun = true }
            do {
                try writer.beginTrip(heading)
            } catch {
                failed(error)
                beginFailed = true
                return false
            }
            tripBegun = true
            if let fit = writer as? FITWriter { earlyOffered.forEach(fit.offeredHeight) }
            earlyOffered = []
            for r in segments { writer.beginSegment(r) }
            return true
        }
        var readFailed = false
        // --raw: a stretch left out between written fixes starts a segment, as in `ExportStages`.
        var rawHiding = false, rawLeftOut = 0, rawStretches = 0
        let pipeline = TrackPipeline(smooth: smooth, fillGaps: fillGaps, activity: stageActivity, usesRaw: thinned, window: window)
        // The exported track's figures, for the line that says what the filling did.
        var exported: TripStats? = fillGaps ? TripStats() : nil
        // The wheel's ride before the first point (a trainer's indoor part, `WheelTrack.lead`):
        // written once, before the first point; the points' laps go on from its last lap, and
        // the first point's distance from its last record is the wheel's.
        var leadDone = source.isRaw
        var lapOffset = 0
        var leadRestM: Double?
        func writeLead(before f: Fix) {
            // Only before the trip's own first point: where a zone hid the start, the wheel's
            // records up to the first written point would carry the hidden way (its time, speed
            // and running distance: attack-r22 case 21), so none is written.
            guard let wheel, let lead = wheel.lead(before: f.timeMs) else { return }
            let km = TextFormat.fixed(lead.metres / 1000, 2) ?? "?"
            guard writer.holdsNoPositions else {
                say(
                    "trip \(t.id): its first \(km) km, on the wheel before the first fix (from "
                        + TextFormat.isoTime(ms: lead.firstMs).dropFirst(11)
                        + "), have no positions: \(Self.formatName(writer)) cannot hold them (FIT and CSV do); its figures count them")
                return
            }
            guard beginTrip() else { return }
            let last = writeWithoutPositions(
                lead.samples, resumes: Set(wheel.resumes.filter { lead.samples.indices.contains($0) }), laps: LapSplitter(laps, marks: marks),
                endMs: marks.endMs, beginTrip: beginTrip, withSensors: withSensors)
            lapOffset = max(0, (last.lap ?? 1) - 1)
            if let l = last.sample, let first = lead.samples.first { leadRestM = lead.metres - (l.metres - first.metres) }
            // No line from the records without a position to the first point.
            writer.beginSegment(.start)
        }
        // Where a zone hid the trip's first point, the indoor part is left out (where it ends is
        // where the fixes start, inside the zone; its time and distance up to the first written
        // point would tell the hidden way: attack-r22 case 19), and said.
        var firstPointMs: Int64?
        func sayLeadHidden(before firstMs: Int64) {
            guard let wheel, let lead = wheel.lead(before: firstMs) else { return }
            let km = TextFormat.fixed(lead.metres / 1000, 2) ?? "?"
            say(
                "trip \(t.id): its first \(km) km, on the wheel before the first fix, are left out: a privacy zone hides where "
                    + "the fixes start, and their time and distance would tell the hidden way; the log keeps them")
        }
        // The wheel's ride after the trip's last point (back on the trainer, the trip still
        // open: attack-r23 case 1): FIT and CSV write it as records without a position after
        // it, up to the end press; the track formats end at the last point, and say so. Only
        // after the trip's own last point (`ExportStages.summary` counts it alike): where a
        // zone hid the end, its time and distance would tell the hidden way.
        func writeTrail(_ s: TripSummary) {
            guard let wheel, let from = s.wheelTrailFromMs, exportStages.lastWritten?.timeMs == from, exportStages.afterEnd == 0,
                let trail = wheel.trail(after: from, upToMs: marks.endMs), let last = trail.samples.last
            else { return }
            let km = TextFormat.fixed(trail.metres / 1000, 2) ?? "?"
            guard exportStages.leftOut == 0 else {
                say(
                    "trip \(t.id): its last \(km) km, on the wheel after the last fix, are left out: a privacy zone hides part of "
                        + "the ride, and may hide where the fixes end; the log keeps them")
                return
            }
            guard writer.holdsNoPositions else {
                say(
                    "trip \(t.id): its last \(km) km, on the wheel after the last fix (to "
                        + TextFormat.isoTime(ms: last.timeMs).dropFirst(11)
                        + "), have no positions: \(Self.formatName(writer)) cannot hold them and ends at the last fix (FIT and CSV hold them); its figures count them"
                )
                return
            }
            // No line from the last point to the records without a position.
            writer.beginSegment(.start)
            let resumes = Set(wheel.resumes.filter { trail.samples.indices.contains($0) })
            _ = writeWithoutPositions(
                trail.samples, resumes: resumes, laps: exportStages.laps, lapOffset: lapOffset, endMs: nil,
                from: (last.metres - trail.metres, last.movingMs - trail.movingMs), beginTrip: beginTrip, withSensors: withSensors)
        }
        // The exported track (through the pipeline) through the privacy window and the laps.
        func put(_ item: TrackItem) {
            if firstPointMs == nil, case .point(let f, _) = item { firstPointMs = f.timeMs }
            // Read before `feed` (which owns the stages while it runs): a hidden point is not
            // passed on, so the count is the same when this item's point is.
            let hidBefore = exportStages.leftOut > 0
            // The lead will be written before this point: the points' km laps go on from its
            // distance (the lead's own laps end at its last whole km; lapOffset numbers on).
            if !leadDone, !hidBefore, writer.holdsNoPositions, case .point(let f, _) = item, window?.keeps(f) ?? true,
                let lead = wheel?.lead(before: f.timeMs)
            {
                exportStages.lapsGoOn(fromM: lead.metres)
            }
            exportStages.feed(
                item,
                segment: { reason in
                    exported?.startSegment(reason)
                    if tripBegun { writer.beginSegment(reason) } else { segments.append(reason) }
                },
                point: { f, extras in
                    if !leadDone {
                        leadDone = true
                        if !hidBefore { writeLead(before: f) } else if let first = firstPointMs { sayLeadHidden(before: first) }
                    }
                    exported?.add(f)
                    var e = extras
                    if let l = e.lap { e.lap = l + lapOffset }
                    if let rest = leadRestM {
                        e.wheelExtraM = rest
                        leadRestM = nil
                    }
                    if beginTrip() { writer.point(f, withSensors(f, e)) }
                })
        }
        // FIT's session and laps count the barometer's climb on every fix kept or thinned out,
        // as `cairn info` does (the log's raw fixes): each is passed to the writer in time order
        // between the records (`FITWriter.offeredHeight`). The raw fixes trail the points they
        // judged, so the trip's events are held until a raw fix as late as the point at their
        // head has been seen, then passed on in their own order (at most `heldLimit`). A log
        // without raw fixes (`--raw off`) counts on its points, as `info` does.
        let fit = source.isRaw ? nil : writer as? FITWriter
        let feedsClimb = fit != nil && heading.summary?.stats.offeredClimb.fromBarometer == true
        var held = HeldQueue<TrackSource.Event>()
        held.reserveCapacity(feedsClimb ? 64 : 0)
        func pass(_ event: TrackSource.Event) {
            switch event {
            case .judged(let r): pipeline.push(.raw(r), emit: put)
            case .segment(let reason): pipeline.push(.segment(reason), emit: put)
            case .point(let f): pipeline.push(.point(f), emit: put)
            case .raw: break  // `--raw` is never held
            }
        }
        /// Passes on the held events up to the first point later than `ms` (all of them: nil).
        func release(upTo ms: Int64?) {
            while let e = held.first {
                if let ms, case .point(let f) = e, f.timeMs > ms { break }
                held.popFirst()
                pass(e)
            }
        }
        func hold(_ event: TrackSource.Event) {
            held.append(event)
            // Raw fixes missing for that long (a damaged log): on without them.
            if held.count > Self.heldLimit, let e = held.popFirst() { pass(e) }
        }
        do {
            let s = try source.read(t, thinned: thinned || feedsClimb, warn: warn) { event in
                if feedsClimb, let fit {
                    if case .judged(let r) = event {
                        release(upTo: r.fix.timeMs)
                        // Only what the export holds: inside the window, up to the end press.
                        if r.countsForClimb, window?.keeps(r.fix) ?? true, r.fix.timeMs <= exportStages.endPressMs ?? .max {
                            if tripBegun { fit.offeredHeight(r.fix) } else if earlyOffered.count < Self.heldLimit { earlyOffered.append(r.fix) }
                        }
                        if held.isEmpty { pass(event) } else { hold(event) }
                    } else {
                        hold(event)
                    }
                    return
                }
                switch event {
                case .judged(let r): pipeline.push(.raw(r), emit: put)
                case .segment(let reason) where source.isRaw:
                    if tripBegun { writer.beginSegment(reason) } else { segments.append(reason) }
                case .segment(let reason): pipeline.push(.segment(reason), emit: put)
                case .point(let f): pipeline.push(.point(f), emit: put)
                case .raw(let r):
                    if let w = window, !w.keeps(r.fix) {
                        rawLeftOut += 1
                        if !rawHiding { rawStretches += 1 }
                        rawHiding = true
                        return
                    }
                    if rawHiding && tripBegun { writer.beginSegment(.hidden) }
                    rawHiding = false
                    if beginTrip() { writer.point(r.fix, withSensors(r.fix, PointExtras(r))) }
                }
            }
            release(upTo: nil)
            pipeline.finish(emit: put)
            if !source.isRaw, tripBegun { writeTrail(s) }
            let leftOut = source.isRaw ? rawLeftOut : exportStages.leftOut
            let stretches = source.isRaw ? rawStretches : exportStages.stretches
            if window != nil && leftOut > 0 {
                say(
                    tripBegun
                        ? "trip \(t.id): privacy zones: left out \(leftOut) point\(leftOut == 1 ? "" : "s") in \(stretches) stretch\(stretches == 1 ? "" : "es")"
                        : "trip \(t.id): every point is inside a privacy zone; nothing written for it")
            }
            if exportStages.afterEnd > 0, let end = exportStages.endPressMs {
                // No time with privacy zones: the press is often at the door, inside home's.
                let n = exportStages.afterEnd
                let at = window == nil ? " (" + TextFormat.isoTime(ms: end).dropFirst(11) + ")" : ""
                say("trip \(t.id): \(n) point\(n == 1 ? "" : "s") after the rider's end press\(at) left out; the log keeps them")
            }
            if !tripBegun, exportStages.endsInLead, let wheel, let first = firstPointMs, let lead = wheel.lead(before: first),
                let end = marks.endMs
            {
                // The rider ended the ride on the wheel before the first fix (a trainer, then the
                // bike went out with the trip still open): the export ends at the press, as `info`
                // says, so it is the wheel's records up to it, a trip without positions.
                let at = TextFormat.isoTime(ms: end).dropFirst(11)
                if writer.holdsNoPositions {
                    heading.noPositions = true
                    let after = writeWithoutPositions(
                        lead.samples, resumes: Set(wheel.resumes.filter { lead.samples.indices.contains($0) }),
                        laps: LapSplitter(laps, marks: marks), endMs: end, beginTrip: beginTrip, withSensors: withSensors
                    ).afterEnd
                    say(
                        "trip \(t.id): ended by the rider's press (\(at)) on the wheel before the first fix: its records up to it, "
                            + "without positions; \(after) more record\(after == 1 ? "" : "s") left out")
                } else {
                    say(
                        "trip \(t.id): ended by the rider's press (\(at)) on the wheel before the first fix: no position before it; "
                            + "\(Self.formatName(writer)) cannot hold a trip without positions; nothing written for it (FIT and CSV can)")
                }
            }
            if var f = pipeline.filled, let exported, tripBegun {
                if window != nil { f.points = exportStages.interpolatedWritten }  // what the zones left of them
                say(
                    "trip \(t.id): filled \(f.gaps) gap\(f.gaps == 1 ? "" : "s") with \(f.points) interpolated point\(f.points == 1 ? "" : "s")"
                        + (f.chords > 0 ? " (\(f.chords) as straight chords)" : "")
                        + "; exported length \(TextFormat.fixed(exported.distanceM / 1000, 2) ?? "?") km, recorded \(TextFormat.fixed(s.stats.distanceM / 1000, 2) ?? "?") km"
                )
            }
            if let u = pipeline.unfilled, u.tooLong + u.overBudget > 0, tripBegun {
                say("trip \(t.id): " + GapFiller.unfilledNote(tooLong: u.tooLong, overBudget: u.overBudget))
            }
            if s.hasNoPositions && !tripBegun {
                // A trainer's trip (issue 40): the wheel's records, in the formats that hold them.
                if s.undatable {
                    say("trip \(t.id): " + s.undatableText)
                } else if writer.holdsNoPositions, let wheel {
                    // The figures the file's name and times are from (a zone's window has none).
                    if heading.summary.map({ $0.stats.firstTimeMs == nil }) ?? true { heading.summary = s }
                    heading.noPositions = true
                    // Its laps (issue 40): the presses' (`ButtonLaps` counts them on the
                    // wheel's samples too), or the wheel's kilometres.
                    let after = writeWithoutPositions(
                        wheel.samples[...], resumes: Set(wheel.resumes), laps: LapSplitter(laps, marks: marks), endMs: marks.endMs,
                        beginTrip: beginTrip, withSensors: withSensors
                    ).afterEnd
                    if after > 0, let end = marks.endMs {
                        let at = TextFormat.isoTime(ms: end).dropFirst(11)
                        say("trip \(t.id): \(after) record\(after == 1 ? "" : "s") after the rider's end press (\(at)) left out; the log keeps them")
                    }
                } else {
                    say(
                        "trip \(t.id): no positions (a trainer ride: \(TextFormat.fixed(s.stats.distanceM / 1000, 2) ?? "?") km from the wheel); "
                            + "\(Self.formatName(writer)) cannot hold a trip without positions; nothing written for it (FIT and CSV can)")
                }
            } else if s.stats.points == 0 && !writer.wantsSummaryFirst {
                say("trip \(t.id): no points (an empty or unfinished trip); nothing written for it")
            } else if s.status == .recovered && tripBegun {
                say("trip \(t.id): recovered from a damaged or interrupted log; converted what is intact (\(s.stats.points) points)")
            }
        } catch {
            failed(error)
            readFailed = true
        }
        guard tripBegun else { return outcome }
        if readFailed, let fit = writer as? FITWriter {
            fit.abandonTrip()  // no FIT file for a trip that could not be read to its end
            return outcome
        }
        do throws(OutputError) {
            try writer.endTrip()
            outcome.converted = true
        } catch {
            failed(error)
        }
        return outcome
    }

    /// A trip without positions (a trainer): a record at each of the wheel's samples (one a
    /// second), with its time, the wheel's speed, the step's metres and moving time, its lap
    /// (`laps`, the km counted on the wheel) and the sensors' values; a segment where the wheel
    /// turns again after a pause (`WheelTrack.resumes`).
    /// The samples after the rider's end press (`endMs`) are left out, as a ride's points are
    /// (`ExportStages`); returns how many.
    /// `resumes`: the samples after a stand longer than a pause (`WheelTrack.resumes`), each a
    /// new segment (FIT's timer stops; `--laps pause` laps). Returns the last record's sample
    /// and lap (where a lead's points go on).
    /// `from`: the wheel's metres and moving time where the records go on from a point (the
    /// trail after the last one), so the first record's step is counted; `lapOffset` numbers
    /// the laps on after a lead's.
    private func writeWithoutPositions(
        _ samples: ArraySlice<WheelTrack.Sample>, resumes: Set<Int> = [], laps: LapSplitter, lapOffset: Int = 0, endMs: Int64?,
        from: (metres: Double, movingMs: Int64)? = nil, beginTrip: () -> Bool, withSensors: (Fix, PointExtras) -> PointExtras
    ) -> (afterEnd: Int, sample: WheelTrack.Sample?, lap: Int?) {
        guard beginTrip() else { return (0, nil, nil) }
        var laps = laps
        var before: WheelTrack.Sample?
        var lap: Int?
        var afterEnd = 0
        for (i, sample) in zip(samples.indices, samples) {
            // A press before the first record ends nothing (`ExportStages`: it is ignored).
            if let end = endMs, sample.timeMs > end, before != nil {
                afterEnd += 1
                continue
            }
            let resumed = resumes.contains(i)
            if resumed {
                laps.segment(.pause)
                writer.beginSegment(.pause)
            }
            let f = Fix(timeMs: sample.timeMs, lat: 0, lon: 0, mode: 1, speed: sample.speed)
            var e = PointExtras()
            e.noPosition = true
            e.wheelExtraM = before.map { sample.metres - $0.metres } ?? from.map { sample.metres - $0.metres }
            // The step into a resume is in the pause: the timer is stopped (`WheelTrack.resumeStepsMs`).
            e.wheelMovingMs = resumed ? 0 : before.map { sample.movingMs - $0.movingMs } ?? from.map { sample.movingMs - $0.movingMs }
            e.lap = laps.lap(of: f, stepM: e.wheelExtraM ?? 0).map { $0 + lapOffset }
            e.lapMarkMs = laps.startedAtMarkMs
            before = sample
            lap = e.lap
            writer.point(f, withSensors(f, e))
        }
        return (afterEnd, before, lap)
    }

    /// The most events held for the raw fixes to catch up (`FITWriter.offeredHeight`): a log's
    /// raw fixes trail their points by at most a queue (`RawQueue`, 2048 fixes).
    static let heldLimit = 4096

    /// The format's name for what is said: `GPXWriter` is GPX.

    static func formatName(_ writer: TrackExporter) -> String {
        let name = String(describing: type(of: writer))
        return name.hasSuffix("Writer") ? String(name.dropLast(6)) : name
    }

    /// Finishes the document; throws if writing failed.
    public func finish() throws(OutputError) { try writer.end() }

    /// The activity the trip's first record names; nil when it cannot be read.
    public static func recordedActivity(of t: TripRef) -> String? {
        guard let r = try? LogReader(path: t.files[0].path) else { return nil }
        var a: String?
        try? r.forEach { e in
            if case .tripStart(let act, _, _, _) = e.record { a = act }
            return false
        }
        return a
    }
}

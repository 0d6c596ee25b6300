/// The one place where gpsd's error figures are mapped to the 68 % ("one sigma") accuracy that
/// the recorder's thresholds are written in.
///
/// gpsd's TPV carries two kinds of figure under the same names, and they differ by a factor of
/// five on ordinary receivers:
/// - **DOP guesses.** Where the receiver sends only DOPs (plain NMEA: GGA, GSA, RMC), gpsd's
///   `gpsd_error_model` (libgpsd_core.c) fills eph = HDOP × 19 m, epv = VDOP × 23 m and
///   epx/epy = xDOP/yDOP × 15 m (× 4.75 / 5.75 / 3.75 with DGPS), with xDOP/yDOP computed by gpsd
///   from the satellites' azimuths and elevations. Those user-equivalent range errors are gpsd's
///   pessimistic "95 %" constants. A DOP maps to a 68 % figure through the receiver's real
///   range error instead: horizontal drms = HDOP × σ, vertical σ = VDOP × σ, with σ ≈ 3.5 m for a
///   single-frequency receiver without corrections (the GPS SPS Performance Standard bounds the
///   signal-in-space part at 7.8 m at 95 %; ionosphere, troposphere and multipath bring a typical
///   total of 3–4 m at one sigma). Checked on real recordings: a receiver at HDOP 4.3–6.6
///   reported about 17 m of its own (HDOP × 3.1), where gpsd's eph said 82–125 m.
/// - **The receiver's own estimates.** NMEA GBS fills epx, epy and epv verbatim (one-sigma
///   expected errors; gpsd's eph then stays HDOP × 19); binary u-blox NAV-PVT/NAV-POSLLH fill eph
///   and epv from hAcc/vAcc, and SiRF from EHPE/EVPE (gpsd's epx/epy then stay DOP guesses).
///   These are taken as 68 % figures as they are.
/// The TPV does not say which is which. What tells them apart is the ratio of the two horizontal
/// figures: when both come from DOPs, √(epx² + epy²) / eph = 15 × HDOP(gpsd) / (19 × HDOP) is
/// 0.4–1.7 on real logs (gpsd's DOPs from the sky view differ from the receiver's); a receiver's
/// own figure is several times smaller than a DOP guess beside it (GBS: epx/epy under 0.3 × eph;
/// hAcc: eph under a third of √(epx² + epy²)). Anything in between, and a lone eph or epv, is
/// taken for a DOP guess: that is what gpsd computes unless a driver says otherwise.
/// A zero, negative, non-finite or absurd (over 10 km) figure is unknown, never perfect.
public enum Accuracy {
    /// The receiver's range error (one sigma, metres) that turns a DOP into a 68 % figure.
    public static let rangeErrorM = 3.5
    /// gpsd's constants (no DGPS) that made its DOP guesses: eph/HDOP, epv/VDOP, epx/xDOP.
    public static let gpsdHorizontalPerDOP = 19.0
    public static let gpsdVerticalPerDOP = 23.0
    public static let gpsdAxisPerDOP = 15.0
    /// Above this a figure is not a measurement.
    public static let absurdM = 10_000.0

    /// Where a fix's figures came from.
    public enum Source: Sendable, Equatable {
        /// gpsd's DOP × constant guesses (plain NMEA).
        case dopGuess
        /// epx/epy/epv from the receiver (NMEA GBS); eph beside them is a DOP guess.
        case receiverAxes
        /// eph/epv from the receiver (u-blox hAcc/vAcc, SiRF EHPE/EVPE).
        case receiverRadius
    }

    @inline(__always) static func usable(_ v: Double?) -> Double? {
        guard let v, v.isFinite, v > 0, v <= absurdM else { return nil }
        return v
    }

    public static func source(_ fix: Fix) -> Source { classify(fix).source }

    /// The source, with the horizontal figures it was judged on (one pass: this runs several
    /// times per fix).
    @inline(__always)
    static func classify(_ fix: Fix) -> (source: Source, eph: Double?, axes: Double?) {
        let eph = usable(fix.eph)
        guard let x = usable(fix.epx), let y = usable(fix.epy) else { return (.dopGuess, eph, nil) }
        let axes = (x * x + y * y).squareRoot()
        guard let e = eph else { return (.dopGuess, nil, axes) }
        if axes < 0.3 * e { return (.receiverAxes, e, axes) }
        if e * 3 < axes { return (.receiverRadius, e, axes) }
        return (.dopGuess, e, axes)
    }

    /// Horizontal accuracy of `fix` as a 68 % radius in metres, or nil when gpsd gave none.
    public static func horizontal68(_ fix: Fix) -> Double? {
        let c = classify(fix)
        switch c.source {
        case .receiverAxes: return c.axes
        case .receiverRadius: return c.eph
        case .dopGuess:
            if let eph = c.eph { return eph / gpsdHorizontalPerDOP * rangeErrorM }
            return c.axes.map { $0 / gpsdAxisPerDOP * rangeErrorM }
        }
    }

    /// Vertical accuracy of `fix` as a 68 % (1 σ) figure in metres, or nil when gpsd gave none.
    public static func vertical68(_ fix: Fix) -> Double? {
        guard let epv = usable(fix.epv) else { return nil }
        return source(fix) == .dopGuess ? epv / gpsdVerticalPerDOP * rangeErrorM : epv
    }

    /// A height is written to exports only when it is trusted: a 3-D fix whose vertical
    /// uncertainty is known and within `limit68` metres (8 m by default: VDOP 2.3 on a receiver
    /// that sends only DOPs).
    public static func heightIsTrusted(_ fix: Fix, limit68: Double = 8) -> Bool {
        guard fix.mode >= 3, fix.height != nil, let v = vertical68(fix) else { return false }
        return v <= limit68
    }
}

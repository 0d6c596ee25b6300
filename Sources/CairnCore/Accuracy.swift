/// The one place where gpsd's error figures are mapped to the 68 % ("one sigma") accuracy that
/// the recorder's thresholds are written in.
///
/// gpsd's `eph` and `epv` are not receiver accuracies: for NMEA input they are HDOP × 19 m and
/// VDOP × 23 m, meant as ~95 % confidence figures (gpsd `gpsd_error_model`). The thresholds
/// the fix rules use (20 m, 50 m, 40 m, 8 m) come from phone trackers whose reported accuracy is
/// a 68 % radius. So:
/// - horizontal: a 95 % circular radius is ≈ 2.45 σ per axis; a 68 % circular radius is
///   ≈ 1.51 σ. The ratio 2.45 / 1.51 ≈ 1.62 maps eph to a 68 % radius.
/// - vertical (1-D): 95 % is 1.96 σ and 68 % is 1.0 σ, so epv / 1.96.
/// Where the receiver sends GBS (epx/epy verbatim), gpsd still reports eph, so one mapping covers all.
public enum Accuracy {
    public static let horizontal95To68 = 1.0 / 1.62
    public static let vertical95To68 = 1.0 / 1.96

    /// Horizontal accuracy of `fix` as a 68 % radius in metres, or nil when gpsd gave none.
    public static func horizontal68(_ fix: Fix) -> Double? {
        if let eph = fix.eph { return eph * horizontal95To68 }
        if let x = fix.epx, let y = fix.epy { return (x * x + y * y).squareRoot() * horizontal95To68 }
        return nil
    }

    /// Vertical accuracy of `fix` as a 68 % (1 σ) figure in metres, or nil when gpsd gave none.
    public static func vertical68(_ fix: Fix) -> Double? {
        fix.epv.map { $0 * vertical95To68 }
    }

    /// A height is written to exports only when it is trusted: a 3-D fix whose vertical
    /// uncertainty is known and within `limit68` metres (8 m by default, rule 10).
    public static func heightIsTrusted(_ fix: Fix, limit68: Double = 8) -> Bool {
        guard fix.mode >= 3, fix.height != nil, let v = vertical68(fix) else { return false }
        return v <= limit68
    }
}

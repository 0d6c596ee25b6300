/// The values a fix may hold: what any receiver or barometer can report, with a wide margin
/// (LOG_FORMAT.md section 9). One set of numbers for the log (`PointBounds`, which leaves
/// anything outside out of what it reads) and for the recorder's raw fixes
/// (`Fix.atLogResolution`): the rules must judge a fix as a reader of the log will see it, or a
/// re-run of the rules over the stored fixes decides differently.
public enum FixBounds {
    /// 2000-01-01T00:00:00Z: receivers without a date say 1980 (the rules drop those too).
    public static let earliestMs: Int64 = 946_684_800_000
    /// 2100-01-01T00:00:00Z (exclusive): a ride recorded later is not plausible, and FIT's
    /// timestamps end in 2126.
    public static let latestMs: Int64 = 4_102_444_800_000
    /// Heights (ellipsoid and sea level), metres: below the Dead Sea shore with the geoid's
    /// lowest undulation, and above any aircraft or balloon a rider takes along.
    public static let height: ClosedRange<Double> = -1_000...50_000
    /// gpsd's error estimates, metres (a cold receiver reports a few km).
    public static let accuracy: ClosedRange<Double> = 0...1_000_000
    /// Speed over ground and vertical speed, m/s (an airliner is 250).
    public static let speed: ClosedRange<Double> = 0...1_000
    public static let climb: ClosedRange<Double> = -1_000...1_000
    /// Course over ground, degrees true.
    public static let track: ClosedRange<Double> = 0...360
    /// Air pressure, pascals (sea level is about 101,325; 50 km up about 80).
    public static let pressure: ClosedRange<Double> = 0...200_000
    /// Air temperature, °C (a sensor in sun on a dark board in a desert stays below 100).
    public static let temperature: ClosedRange<Double> = -100...150
}

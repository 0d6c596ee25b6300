/// One position report from the receiver, as gpsd gave it, after the several reports gpsd sends
/// for one epoch have been collapsed into one. Optional fields are absent when gpsd did not send
/// them (NaN in libgps); nothing is ever invented to fill them.
public struct Fix: Equatable, Sendable {
    /// GPS time of the fix, milliseconds since the Unix epoch (UTC).
    public var timeMs: Int64
    /// Degrees, WGS 84.
    public var lat: Double
    public var lon: Double
    /// gpsd fix mode: 2 = 2-D, 3 = 3-D. Reports below 2 never become a `Fix`.
    public var mode: Int

    // The optional fields are kept as NaN when absent, as libgps keeps them: a `Double?` takes 16
    // bytes in a struct and a `Double` 8, so a Fix is 120 bytes instead of 208, and a fix is
    // copied a dozen times on its way through the rules (memcpy was 12 % of the instructions
    // per fix). Setting a field to NaN is setting it absent. The accessors are inlinable: the
    // log's encoders read every field of every fix from another module.
    @usableFromInline var storedAltHAE = Double.nan, storedAltMSL = Double.nan
    @usableFromInline var storedEph = Double.nan, storedEpx = Double.nan, storedEpy = Double.nan, storedEpv = Double.nan
    @usableFromInline var storedSpeed = Double.nan, storedTrack = Double.nan, storedClimb = Double.nan
    @usableFromInline var storedPressurePa = Double.nan, storedTemperatureC = Double.nan

    /// Height above the WGS 84 ellipsoid and above mean sea level (geoid), metres.
    @inlinable public var altHAE: Double? {
        get { Self.value(storedAltHAE) }
        set { storedAltHAE = newValue ?? .nan }
    }
    @inlinable public var altMSL: Double? {
        get { Self.value(storedAltMSL) }
        set { storedAltMSL = newValue ?? .nan }
    }
    /// gpsd's horizontal/vertical error estimates, metres, ~95 % (see `Accuracy`).
    @inlinable public var eph: Double? {
        get { Self.value(storedEph) }
        set { storedEph = newValue ?? .nan }
    }
    @inlinable public var epx: Double? {
        get { Self.value(storedEpx) }
        set { storedEpx = newValue ?? .nan }
    }
    @inlinable public var epy: Double? {
        get { Self.value(storedEpy) }
        set { storedEpy = newValue ?? .nan }
    }
    @inlinable public var epv: Double? {
        get { Self.value(storedEpv) }
        set { storedEpv = newValue ?? .nan }
    }
    /// Speed over ground (m/s), course over ground (degrees true), vertical speed (m/s).
    @inlinable public var speed: Double? {
        get { Self.value(storedSpeed) }
        set { storedSpeed = newValue ?? .nan }
    }
    @inlinable public var track: Double? {
        get { Self.value(storedTrack) }
        set { storedTrack = newValue ?? .nan }
    }
    @inlinable public var climb: Double? {
        get { Self.value(storedClimb) }
        set { storedClimb = newValue ?? .nan }
    }
    /// Air pressure at the fix's time (Pa), from the barometer after spike rejection and a few
    /// seconds of averaging; nil without a working barometer. Not from the receiver, but stored
    /// with the point so climb can be recomputed from the log.
    @inlinable public var pressurePa: Double? {
        get { Self.value(storedPressurePa) }
        set { storedPressurePa = newValue ?? .nan }
    }
    /// Air temperature (°C) from the barometer's own sensor, read with the pressure; nil without one.
    /// The sensor sits on the board: sun and the board's own heat read as warmer air.
    @inlinable public var temperatureC: Double? {
        get { Self.value(storedTemperatureC) }
        set { storedTemperatureC = newValue ?? .nan }
    }

    @usableFromInline @inline(__always) static func value(_ v: Double) -> Double? { v.isNaN ? nil : v }

    public init(
        timeMs: Int64, lat: Double, lon: Double, mode: Int,
        altHAE: Double? = nil, altMSL: Double? = nil,
        eph: Double? = nil, epx: Double? = nil, epy: Double? = nil, epv: Double? = nil,
        speed: Double? = nil, track: Double? = nil, climb: Double? = nil, pressurePa: Double? = nil,
        temperatureC: Double? = nil
    ) {
        self.timeMs = timeMs
        self.lat = lat
        self.lon = lon
        self.mode = mode
        storedAltHAE = altHAE ?? .nan
        storedAltMSL = altMSL ?? .nan
        storedEph = eph ?? .nan
        storedEpx = epx ?? .nan
        storedEpy = epy ?? .nan
        storedEpv = epv ?? .nan
        storedSpeed = speed ?? .nan
        storedTrack = track ?? .nan
        storedClimb = climb ?? .nan
        storedPressurePa = pressurePa ?? .nan
        storedTemperatureC = temperatureC ?? .nan
    }

    /// Equal when every field is, an absent field equal only to an absent one.
    public static func == (a: Fix, b: Fix) -> Bool {
        a.timeMs == b.timeMs && a.lat == b.lat && a.lon == b.lon && a.mode == b.mode
            && a.altHAE == b.altHAE && a.altMSL == b.altMSL && a.eph == b.eph && a.epx == b.epx
            && a.epy == b.epy && a.epv == b.epv && a.speed == b.speed && a.track == b.track
            && a.climb == b.climb && a.pressurePa == b.pressurePa && a.temperatureC == b.temperatureC
    }

    /// The height a track should carry: above mean sea level, as riders' other tools expect;
    /// the ellipsoid height only where the receiver gave no MSL height.
    public var height: Double? { altMSL ?? altHAE }

    /// How many optional fields this report carries; used to pick the most complete report of an epoch.
    public var completeness: Int {
        var n = mode * 100
        for v in [storedAltHAE, storedAltMSL, storedEph, storedEpx, storedEpy, storedEpv, storedSpeed, storedTrack, storedClimb] where !v.isNaN {
            n += 1
        }
        return n
    }
}

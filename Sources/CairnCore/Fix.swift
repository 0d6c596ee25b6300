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
    /// Height above the WGS 84 ellipsoid and above mean sea level (geoid), metres.
    public var altHAE: Double?
    public var altMSL: Double?
    /// gpsd's horizontal/vertical error estimates, metres, ~95 % (see `Accuracy`).
    public var eph: Double?
    public var epx: Double?
    public var epy: Double?
    public var epv: Double?
    /// Speed over ground (m/s), course over ground (degrees true), vertical speed (m/s).
    public var speed: Double?
    public var track: Double?
    public var climb: Double?
    /// Air pressure at the fix's time (Pa), from the barometer after spike rejection and a few
    /// seconds of averaging; nil without a working barometer. Not from the receiver, but stored
    /// with the point so climb can be recomputed from the log.
    public var pressurePa: Double?

    public init(timeMs: Int64, lat: Double, lon: Double, mode: Int,
                altHAE: Double? = nil, altMSL: Double? = nil,
                eph: Double? = nil, epx: Double? = nil, epy: Double? = nil, epv: Double? = nil,
                speed: Double? = nil, track: Double? = nil, climb: Double? = nil, pressurePa: Double? = nil) {
        self.timeMs = timeMs
        self.lat = lat
        self.lon = lon
        self.mode = mode
        self.altHAE = altHAE
        self.altMSL = altMSL
        self.eph = eph
        self.epx = epx
        self.epy = epy
        self.epv = epv
        self.speed = speed
        self.track = track
        self.climb = climb
        self.pressurePa = pressurePa
    }

    /// The height a track should carry: above mean sea level, as riders' other tools expect;
    /// the ellipsoid height only where the receiver gave no MSL height.
    public var height: Double? { altMSL ?? altHAE }

    /// How many optional fields this report carries; used to pick the most complete report of an epoch.
    public var completeness: Int {
        var n = mode * 100
        for v in [altHAE, altMSL, eph, epx, epy, epv, speed, track, climb] where v != nil { n += 1 }
        return n
    }
}

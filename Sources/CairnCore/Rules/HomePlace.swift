/// Home, where a short stand ends the trip (issue 41): a rider who comes home stands the bike and
/// pulls the battery within minutes, long before the close-after time; the trip is closed then,
/// so that it is finished, and delivered, while the board still has power. A stand elsewhere (a
/// café, a red light) keeps the trip open as before; passing home without standing cuts nothing.
public struct HomePlace: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    /// Standing this long inside closes the trip (2 minutes by default).
    public var standMs: Int64

    public static let defaultStandMs: Int64 = 2 * 60_000

    public init(lat: Double, lon: Double, radiusM: Double, standMs: Int64 = HomePlace.defaultStandMs) {
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.standMs = standMs
    }

    /// Whether `f` stands inside (its position, widened by its own horizontal error up to the
    /// radius: a receiver indoors wanders out by tens of metres).
    public func holds(_ f: Fix) -> Bool {
        Geodesy.distance(lat1: lat, lon1: lon, lat2: f.lat, lon2: f.lon) <= radiusM + min(f.eph ?? 0, radiusM)
    }

    /// The rule (issue 41): how long a stand whose newest fix is `f` lasts before it closes the
    /// trip: home's stand inside `home` (never longer than `closeAfterMs`), `closeAfterMs`
    /// elsewhere or without a home. A stop shorter than either (a light, home's gate opened) is
    /// a pause, and riding through home is no stand at all: neither is cut.
    public static func closeLimitMs(home: HomePlace?, standingAt f: Fix, closeAfterMs: Int64) -> Int64 {
        guard let home, home.holds(f) else { return closeAfterMs }
        return min(home.standMs, closeAfterMs)
    }
}

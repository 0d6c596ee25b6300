#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A local tangent plane (east, north, in metres) around an origin, by the equirectangular
/// projection: over the few kilometres a smoothing window or a dropout spans, its distortion is
/// far below GPS noise, and it costs a multiplication per axis.
public struct LocalPlane: Sendable {
    public let lat0: Double
    public let lon0: Double
    private let metresPerDegree = Geodesy.earthRadiusM * .pi / 180
    private let eastScale: Double

    public init(lat: Double, lon: Double) {
        lat0 = lat
        lon0 = lon
        eastScale = max(cos(lat * .pi / 180), 1e-6)
    }

    /// East and north metres of a position; longitudes the short way round (across ±180°).
    @inline(__always)
    public func local(lat: Double, lon: Double) -> (east: Double, north: Double) {
        var dl = lon - lon0
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        return (dl * metresPerDegree * eastScale, (lat - lat0) * metresPerDegree)
    }

    /// The position at east/north metres, its longitude in [-180, 180).
    @inline(__always)
    public func global(east: Double, north: Double) -> (lat: Double, lon: Double) {
        var lon = lon0 + east / (metresPerDegree * eastScale)
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat0 + north / metresPerDegree, lon)
    }

    /// East and north velocity (m/s) of a speed over a course (degrees true).
    @inline(__always)
    public static func velocity(speed: Double, courseDeg: Double) -> (east: Double, north: Double) {
        let c = courseDeg * .pi / 180
        return (speed * sin(c), speed * cos(c))
    }

    /// The course (degrees true, [0, 360)) of an east/north velocity.
    @inline(__always)
    public static func course(east: Double, north: Double) -> Double {
        let d = atan2(east, north) * 180 / .pi
        return d < 0 ? d + 360 : d
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Distances on the Earth. Haversine on a sphere of the WGS 84 mean radius: for the short steps
/// between consecutive fixes (metres to a few hundred metres) its error against the ellipsoid is
/// below 0.5 %, well inside GPS noise, and it costs a handful of flops per fix.
public enum Geodesy {
    public static let earthRadiusM = 6_371_008.8

    /// Great-circle distance in metres between two points given in degrees.
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = p2 - p1
        let dl = (lon2 - lon1) * .pi / 180
        let s1 = sin(dp / 2), s2 = sin(dl / 2)
        let a = s1 * s1 + cos(p1) * cos(p2) * s2 * s2
        return 2 * earthRadiusM * asin(min(1, a.squareRoot()))
    }

    public static func distance(_ a: Fix, _ b: Fix) -> Double {
        distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
    }

    /// Distance in metres on the WGS 84 ellipsoid for points a few hundred metres apart, by the
    /// radii of curvature at the middle latitude: within a millimetre of gpsd's Vincenty distance
    /// over such steps, which is what tells gpsd's speed from positions apart from a doppler speed.
    public static func shortEllipsoidDistance(_ a: Fix, _ b: Fix) -> Double {
        let a0 = 6_378_137.0, e2 = 6.694_379_990_14e-3
        let phi = (a.lat + b.lat) / 2 * .pi / 180
        let s = sin(phi)
        let w = (1 - e2 * s * s).squareRoot()
        let meridian = a0 * (1 - e2) / (w * w * w), normal = a0 / w
        var dl = b.lon - a.lon
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        let dn = (b.lat - a.lat) * .pi / 180 * meridian
        let de = dl * .pi / 180 * normal * cos(phi)
        return (dn * dn + de * de).squareRoot()
    }
}

// Degree-based trigonometry for the rules (CairnCore's only libm use lives in this file).
func cosDeg(_ d: Double) -> Double { cos(d * .pi / 180) }
func sinDeg(_ d: Double) -> Double { sin(d * .pi / 180) }
func atan2Deg(_ y: Double, _ x: Double) -> Double { atan2(y, x) * 180 / .pi }

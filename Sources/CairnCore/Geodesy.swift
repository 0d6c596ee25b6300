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
}

// Degree-based trigonometry for the rules (CairnCore's only libm use lives in this file).
func cosDeg(_ d: Double) -> Double { cos(d * .pi / 180) }
func atan2Deg(_ y: Double, _ x: Double) -> Double { atan2(y, x) * 180 / .pi }

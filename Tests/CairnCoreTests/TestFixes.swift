import XCTest
@testable import CairnCore

/// A fix at `t` seconds, `north` metres north of a fixed origin, with optional fields.
func fix(
    _ t: Double, north: Double = 0, east: Double = 0, mode: Int = 3, eph: Double? = 10, epv: Double? = 10,
    alt: Double? = 100, speed: Double? = 5
) -> Fix {
    let lat0 = 48.0, lon0 = 11.0
    let lat = lat0 + north / 111_195.0
    let lon = lon0 + east / (111_195.0 * cos(lat0 * .pi / 180))
    return Fix(
        timeMs: 1_780_000_000_000 + Int64(t * 1000), lat: lat, lon: lon, mode: mode,
        altHAE: alt.map { $0 + 47 }, altMSL: alt, eph: eph, epv: epv, speed: speed)
}

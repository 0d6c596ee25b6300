#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The International Standard Atmosphere's pressure-height relation, troposphere.
public enum ISA {
    /// g·M/(R·L) for the standard lapse rate; 1/5.25588 = 0.190263.
    static let exponent = 5.25588

    /// Height in metres for `pressurePa` when the sea-level pressure is `seaLevelPa`.
    public static func altitude(pressurePa p: Double, seaLevelPa p0: Double = 101_325) -> Double {
        44_330.77 * (1 - pow(p / p0, 1 / exponent))
    }

    /// The sea-level pressure that puts `pressurePa` at `altitude` metres.
    public static func seaLevel(pressurePa p: Double, altitude h: Double) -> Double {
        p / pow(1 - h / 44_330.77, exponent)
    }
}

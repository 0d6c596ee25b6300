import CairnCore

/// What a drive burnt and cost, from the distance and the car's consumption (the config's
/// `fuel_l_per_100km` and `fuel_price`). An estimate at a fixed rate: the log has no fuel data.
public struct FuelRate: Sendable, Equatable {
    public let litresPer100Km: Double
    /// Per litre, in whatever currency the config means; nil when not set.
    public let pricePerLitre: Double?

    public init(litresPer100Km: Double, pricePerLitre: Double?) {
        self.litresPer100Km = litresPer100Km
        self.pricePerLitre = pricePerLitre
    }

    /// Only drives burn fuel; a ride or a walk gets no figure.
    public static func applies(to activity: String?) -> Bool { Activity(name: activity) == .drive }

    public func litres(distanceM: Double) -> Double { distanceM / 100_000 * litresPer100Km }

    public func cost(distanceM: Double) -> Double? { pricePerLitre.map { litres(distanceM: distanceM) * $0 } }
}

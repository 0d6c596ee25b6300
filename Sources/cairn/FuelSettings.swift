import CairnExport

/// `fuel_l_per_100km` and `fuel_price` from the config file (`record --config`, and the same
/// file given to `info --config` / `list --config`): a drive's fuel and its cost. Checked by
/// `record` too, so a bad value is found when the service starts, not when a trip is shown.
enum FuelSettings {
    /// The rate the (merged) config sets, nil when it sets none. A bad value is a usage error
    /// naming its line.
    static func from(_ a: ParsedArguments, origin: [String: String]) throws(UsageError) -> FuelRate? {
        func invalid(_ key: String, _ message: String) -> UsageError {
            UsageError((origin["--" + key].map { "\($0): " } ?? "") + message)
        }
        let rateText = a.value("--fuel_l_per_100km"), priceText = a.value("--fuel_price")
        guard let rt = rateText else {
            if priceText != nil { throw invalid("fuel_price", "'fuel_price' needs 'fuel_l_per_100km' (the car's litres per 100 km)") }
            return nil
        }
        guard let rate = StrictNumber.decimal(rt), rate > 0, rate <= 100 else {
            throw invalid(
                "fuel_l_per_100km",
                "The value '\(rt)' is invalid for 'fuel_l_per_100km': use litres per 100 km, a plain decimal number above 0 and at most 100 (e.g. 6.5)"
            )
        }
        var price: Double?
        if let pt = priceText {
            guard let p = StrictNumber.decimal(pt), p <= 1_000_000 else {
                throw invalid(
                    "fuel_price",
                    "The value '\(pt)' is invalid for 'fuel_price': use the price of a litre, a plain decimal number from 0 to 1000000 (e.g. 1.85)")
            }
            price = p
        }
        return FuelRate(litresPer100Km: rate, pricePerLitre: price)
    }

    /// `info --config FILE` / `list --config FILE`: the record config file, checked as `record`
    /// checks it, for its fuel keys.
    static func load(_ a: ParsedArguments) throws -> FuelRate? {
        guard let path = a.value("--config"), path != "none" else { return nil }
        if path.isEmpty { throw UsageError("The value '' is invalid for '--config <file>'") }
        var merged = ParsedArguments()
        let origin = try ConfigFile.load(path, options: RecordCommand.options).merge(into: &merged)
        return try from(merged, origin: origin)
    }

    static let option = OptionSpec(
        name: "--config", valueName: "FILE", help: "The record config file: a drive's fuel and its cost from its fuel_l_per_100km and fuel_price.")
}

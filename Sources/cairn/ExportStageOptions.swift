import CairnExport

/// `--laps`, `--privacy-zone` and `--config` of the commands that write exports: what
/// `ExportStages` does between the log and the writers.
struct ExportStageOptions {
    var laps: LapRule = .pause
    var zones: [PrivacyZone] = []

    static let options = [
        OptionSpec(
            name: "--laps", valueName: "LAPS",
            help:
                "Laps: pause (one per part between pauses), a distance (1km, 5km, 10km, 1mi, 5mi: a lap ends at the first point at or past each mark) or none (one lap). FIT lap messages; the lap number in GPX cairn:lap, GeoJSON coordinateProperties.laps, CSV lap. (default: pause)"
        ),
        OptionSpec(
            name: "--privacy-zone", valueName: "LAT,LON,RADIUS_M",
            help:
                "Leave out the points inside this circle at the start and at the end of each trip (the log keeps them); repeatable. The figures count what is written.",
            repeatable: true),
        OptionSpec(
            name: "--config", valueName: "FILE",
            help:
                "Read privacy-zone lines from this file (the recorder's, e.g. /etc/cairn.conf; its other keys are checked and ignored); with --privacy-zone, both count."
        )
    ]

    static func parse(_ a: ParsedArguments) throws -> ExportStageOptions {
        var o = ExportStageOptions()
        if let l = a.value("--laps") {
            guard let rule = LapRule.parse(l) else {
                throw UsageError(
                    "The value '\(l)' is invalid for '--laps <laps>': use pause, none, or a distance from 0.01 to 1000 km or mi such as 1km, 5km, 10km, 1mi or 5mi"
                )
            }
            o.laps = rule
        }
        if let path = a.value("--config") {
            if path.isEmpty { throw UsageError("The value '' is invalid for '--config <file>'") }
            o.zones += try ConfigFile.load(path, options: RecordCommand.options).privacyZones()
        }
        for z in a.all("--privacy-zone") {
            switch PrivacyZone.parse(z) {
            case .success(let zone): o.zones.append(zone)
            case .failure(let why): throw UsageError("The value '\(z)' is invalid for '--privacy-zone <lat,lon,radius_m>': \(why)")
            }
        }
        return o
    }
}

import CairnExport

/// The options of `cairn deliver`, from the command line over the config's `[deliver]` section
/// (and its top's `dir`): each checked, a bad value from the config named by its file and line.
struct DeliverOptions {
    var remote: String
    var dir: String
    var formats: [ExportFormat]
    var copyLogs: Bool
    var page: Bool
    var retries: Int
    var timeout: Int
    var rcloneProgram: String
    var rcloneConfig: String?
    var stageOptions: ExportStageOptions
    var check: Bool
    var json: Bool
    /// Where each option from the config was set ("FILE:LINE"), to name it in a later error.
    var origin: [String: String]

    /// "FILE:LINE: " when `option` came from the config, else "".
    func from(_ option: String) -> String { origin[option].map { "\($0): " } ?? "" }

    init(_ parsed: ParsedArguments) throws {
        var a = parsed
        if let extra = a.positionals.first { throw UsageError("Unexpected argument '\(extra)'") }
        // The config's [deliver] section (and its top's dir), under the command line; a bad value
        // from it is named by its file and line.
        var origin: [String: String] = [:]
        if let path = try ExportStageOptions.configPath(a, defaultConfig: ExportStageOptions.defaultConfig) {
            origin = try ConfigFile.load(path, options: RecordCommand.options).merge(into: &a, section: "deliver", alsoTop: ["dir"])
        }
        func from(_ option: String) -> String { origin[option].map { "\($0): " } ?? "" }
        func invalid(_ option: String, _ message: String) -> UsageError {
            origin[option] != nil ? UsageError(inFile: from(option) + message) : UsageError(message)
        }
        guard let remote = a.value("--remote"), !remote.isEmpty else {
            throw UsageError("Missing expected option '--remote <remote:path>' (or 'remote = ...' in the [deliver] section of the config)")
        }
        try Self.checkRemote(remote, invalid: invalid)
        let dir = a.value("--dir") ?? "/var/lib/cairn"
        let formats: [ExportFormat]
        do throws(UsageError) { formats = try SharedOptions.formats(a.value("--format") ?? "gpx,fit,csv") } catch {
            throw invalid("--format", error.message)
        }
        let logsText = a.value("--logs")
        if let l = logsText, l != "yes" && l != "no" { throw invalid("--logs", "The value '\(l)' is invalid for '--logs <yes|no>'") }
        let pageText = a.value("--page") ?? "yes"
        if pageText != "yes" && pageText != "no" { throw invalid("--page", "The value '\(pageText)' is invalid for '--page <yes|no>'") }
        let retries = try DeliverCommand.wholeOption(a, "--retries", 1...10, default: 3, from: from("--retries"))
        let timeout = try DeliverCommand.wholeOption(a, "--timeout", 1...3600, default: 30, from: from("--timeout"))
        let rcloneConfig = a.value("--rclone-config")
        if let c = rcloneConfig {
            guard !c.isEmpty, pathExists(c) else {
                throw Failure(from("--rclone-config") + "--rclone-config \(c): no such file", status: ExitCode.config)
            }
        }
        let stageOptions = try ExportStageOptions.parse(a, logDirectory: dir)
        let copyLogs = ShippingPlan.logsGo(
            asked: logsText.map { $0 == "yes" }, zones: !stageOptions.zones.isEmpty, formats: formats.count, to: .remote)
        if !copyLogs && formats.isEmpty {
            throw UsageError(
                logsText == nil
                    ? "'--format none' with privacy zones leaves nothing to deliver: the logs hold the zones' points and go only with '--logs yes'"
                    : "'--format none' with '--logs no' leaves nothing to deliver")
        }
        self.remote = remote
        self.dir = dir
        self.formats = formats
        self.copyLogs = copyLogs
        page = pageText == "yes"
        self.retries = retries
        self.timeout = timeout
        rcloneProgram = a.value("--rclone") ?? "rclone"
        self.rcloneConfig = rcloneConfig
        self.stageOptions = stageOptions
        check = a.has("--check")
        json = a.has("--json")
        self.origin = origin
    }

    /// Refuses what is no rclone remote (`record --check` asks too, for the `[deliver]` section).
    static func checkRemote(_ remote: String, invalid: (String, String) -> UsageError) throws(UsageError) {
        // Blank, a lone ':' (rclone's "current folder" of no backend), or what rclone would read
        // as a flag, is no remote.
        if remote.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) || remote.hasPrefix("-")
            || remote.allSatisfy({ $0 == " " || $0 == "\t" || $0 == ":" })
        {
            throw invalid(
                "--remote", "The value '\(terminalSafe(remote))' is invalid for '--remote <remote:path>': use an rclone remote and folder (nas:rides)"
            )
        }
        // A bare name or relative path (`rides`) is no rclone remote: rclone would write a folder
        // of that name wherever the command runs. A folder on this machine is said outright.
        if DeliverCommand.localFolder(remote) != nil && !remote.hasPrefix("/") && !remote.hasPrefix(":local:") {
            throw invalid(
                "--remote",
                "The value '\(terminalSafe(remote))' is invalid for '--remote <remote:path>': it names no rclone remote (nas:rides);"
                    + " for a folder on this machine give its absolute path or ':local:PATH'")
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// A subcommand: its help, its options, and what it does.
protocol Command {
    static var name: String { get }
    static var overview: String { get }
    static var usage: String { get }
    static var arguments: [(String, String)] { get }
    static var options: [OptionSpec] { get }
    static func run(_ args: ParsedArguments) throws -> Int32
}

extension Command {
    static var arguments: [(String, String)] { [] }
    static var help: String { helpText(overview: overview, usage: usage, arguments: arguments, options: options) }
}

let allCommands: [any Command.Type] = [
    RecordCommand.self, ListCommand.self, InfoCommand.self,
    ConvertCommand.self, VerifyCommand.self, StatusCommand.self, ExportCommand.self, DeliverCommand.self, PruneCommand.self,
    CellsCommand.self, RenderCommand.self, SensorsCommand.self
]

let topHelp = """
    OVERVIEW: cairn records GPS trips from gpsd into a crash-safe log and converts them for other tools.

    USAGE: cairn <subcommand>

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      record                  Record trips from gpsd until stopped.
      list                    List the trips in log files or directories.
      info                    Show one trip's figures, or every trip in a file.
      convert                 Convert trips to GPX, FIT, GeoJSON, KML or CSV.
      verify                  Check log files for damage.
      status                  Show what a running recorder is doing (its --status file).
      export                  Copy finished trips and their conversions to a card or stick.
      deliver                 Send finished trips to your storage through rclone, each exactly once.
      prune                   Delete the oldest exported trips over an age or size limit.
      cells                   The geohash cells your trips touched, with trips and first and last visit.
      render                  Draw one trip as an SVG picture: speed colours, height profile, stops.
      sensors                 Watch Bluetooth LE sensors: heart rate, speed and cadence, power.

      See 'cairn help <subcommand>' for detailed help.
    """

let shortUsage = """
    usage: cairn <subcommand> [<options>]
      \(allCommands.map { $0.name }.joined(separator: "  "))
    'cairn --help' says what each does; 'cairn help <subcommand>' shows its options.
    """

func usageFailure(_ message: String, usage: String, helpHint: String) -> Int32 {
    printErr("Error: \(message)\nUsage: \(usage)\n  See '\(helpHint)' for more information.")
    return ExitCode.usage
}

func main(_ argv: [String], commands: [any Command.Type]) -> Int32 {
    var args = Array(argv.dropFirst())
    guard let first = args.first else {
        // As rclone and restic do: a short usage, on standard output.
        printOut(shortUsage)
        return ExitCode.ok
    }
    if first == "-h" || first == "--help" || first == "-help" {
        printOut(topHelp)
        return ExitCode.ok
    }
    if first == "--version" {
        printOut(cairnVersion)
        return ExitCode.ok
    }
    if first == "help" {
        guard args.count > 1 else { printOut(topHelp); return ExitCode.ok }
        guard let c = commands.first(where: { $0.name == args[1] }) else {
            return usageFailure("Unknown subcommand '\(args[1])'", usage: "cairn <subcommand>", helpHint: "cairn --help")
        }
        printOut(c.help)
        return ExitCode.ok
    }
    guard let command = commands.first(where: { $0.name == first }) else {
        let what = first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unknown subcommand '\(first)'"
        return usageFailure(what, usage: "cairn <subcommand>", helpHint: "cairn --help")
    }
    args.removeFirst()
    if args.contains(where: { $0 == "-h" || $0 == "--help" || $0 == "-help" }) {
        printOut(command.help)
        return ExitCode.ok
    }
    do {
        let parsed = try parseArguments(args, options: command.options)
        return try command.run(parsed)
    } catch let e as UsageError {
        if e.inFile {
            printErr("Error: \(e.message)")
            return ExitCode.usage
        }
        return usageFailure(e.message, usage: command.usage, helpHint: "cairn \(command.name) --help")
    } catch let e as Failure {
        printErr("cairn \(command.name): \(e.message)")
        return e.status
    } catch {
        printErr("cairn \(command.name): \(error)")
        return ExitCode.failure
    }
}

if let bad = argumentsNotUTF8(argc: CommandLine.argc, argv: CommandLine.unsafeArgv).first {
    printErr(
        "Error: the argument '\(bad)' is not valid UTF-8 (each \\xHH is a byte that is not): cairn reads paths as UTF-8 and would look for another name; rename the file or link to it under a UTF-8 name"
    )
    POSIX.exit(ExitCode.usage)
}
POSIX.exit(main(CommandLine.arguments, commands: allCommands))

// swift-tools-version:6.0
// cairn: a GPS trip recorder for low-power Linux boards.
// Depends on nothing outside the Swift toolchain; libgps comes from Debian (libgps-dev).
import PackageDescription

// Release builds of the per-fix path (core, device, log) optimise for speed, the rest (exporters,
// CLI) for size, so the static binary stays under 8 MB: speed where every fix passes, size where
// it does not (the trade is measured in Tests/bench/callgrind-results.md).
// Exclusivity is checked at run time in debug builds, where every test runs, and not in the
// release binary. Each function in its own section, so that the release builds can lay out the
// recorder's code together (deploy/link-order.txt: peak RSS, deploy/CROSS-BUILD.md).
let release: [String] = ["-enforce-exclusivity=unchecked", "-Xfrontend", "-function-sections"]
let hotPath: [SwiftSetting] = [.unsafeFlags(release, .when(configuration: .release))]
let forSize: [SwiftSetting] = [.unsafeFlags(["-Osize"] + release, .when(configuration: .release))]

let package = Package(
    name: "cairn",
    products: [
        .executable(name: "cairn", targets: ["cairn"])
    ],
    targets: [
        // gps.h from libgps-dev, linked statically in release builds.
        .systemLibrary(name: "CGPS", path: "Sources/CGPS", pkgConfig: nil, providers: [.apt(["libgps-dev"])]),
        // Stubs that keep Debian's libgps.a from dragging in D-Bus and libsystemd, and its AIS and
        // RTCM parsers, which cairn never calls.
        .target(name: "CGPSShim", path: "Sources/CGPSShim"),
        // statfs(2), which Swift's Glibc module lacks.
        .target(name: "CSystem", path: "Sources/CSystem"),
        // The system calls, each made once: EINTR retried, errno typed (in the spirit of swift-system).
        .target(name: "CairnSystem", dependencies: ["CSystem"], swiftSettings: hotPath),
        // Pure core: values and algorithms, no I/O.
        .target(
            name: "CairnCore", exclude: ["Rules/README.md", "Barometry/README.md", "Smoothing/README.md"],
            swiftSettings: hotPath),
        // The on-card log format.
        .target(
            name: "CairnLog", dependencies: ["CairnCore", "CairnSystem"], exclude: ["LOG_FORMAT.md", "DURABILITY.md"],
            swiftSettings: hotPath),
        // Streaming exporters.
        .target(
            name: "CairnExport", dependencies: ["CairnCore", "CairnLog", "CairnSystem"],
            exclude: [
                "CELL_INDEX.md", "RENDER-AND-CELLS.md", "Stages/PRIVACY.md", "Writers/UPLOADS.md"
            ],
            swiftSettings: forSize),
        // The edges: gpsd through libgps, signals, clocks; Bluetooth LE sensors (Bluetooth/DECISION.md).
        .target(
            name: "CairnDevice", dependencies: ["CairnCore", "CairnSystem", "CGPS", "CGPSShim"],
            exclude: ["Bluetooth/DECISION.md"], swiftSettings: hotPath),
        // The record loop: gpsd's reports through the rules into the log, with the barometer,
        // the live status and systemd; its edges given, so that tests run it on fakes. For size,
        // as it was in the CLI: the per-fix work is in the rules and the log.
        .target(
            name: "CairnRecorder", dependencies: ["CairnCore", "CairnSystem", "CairnLog", "CairnDevice"],
            swiftSettings: forSize),
        // The thin CLI.
        .executableTarget(
            name: "cairn", dependencies: ["CairnCore", "CairnSystem", "CairnLog", "CairnExport", "CairnDevice", "CairnRecorder"],
            exclude: ["README.md"], swiftSettings: forSize),

        // libFuzzer target for the log reader and TPV decoding; see Tests/crash/fuzz.sh.
        .executableTarget(
            name: "FuzzCairn", dependencies: ["CairnCore", "CairnLog", "CairnDevice", "CGPS"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        // Instructions per fix under callgrind: gpsd lines → rules → log; see Tests/bench/callgrind.sh.
        .executableTarget(name: "CairnBench", dependencies: ["CairnCore", "CairnSystem", "CairnLog", "CairnDevice"]),

        .testTarget(name: "CairnCoreTests", dependencies: ["CairnCore"]),
        .testTarget(name: "CairnLogTests", dependencies: ["CairnCore", "CairnLog", "CairnSystem"]),
        .testTarget(name: "CairnExportTests", dependencies: ["CairnCore", "CairnLog", "CairnExport"]),
        .testTarget(name: "CairnDeviceTests", dependencies: ["CairnDevice"]),
        .testTarget(name: "CairnSystemTests", dependencies: ["CairnSystem"]),
        .testTarget(name: "CairnRecorderTests", dependencies: ["CairnCore", "CairnLog", "CairnDevice", "CairnRecorder"]),
        // The CLI's option parsing (`@testable import cairn`), without running the binary.
        .testTarget(name: "CairnCLITests", dependencies: ["cairn", "CairnExport"]),
        // Runs the built `cairn` binary against a private gpsd; depends on the CLI so it is built.
        .testTarget(name: "EndToEndTests", dependencies: ["cairn"], resources: [])
    ]
)

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// Exit codes: 0 success or help, 1 a runtime failure, 64 a usage error (EX_USAGE), 73 another
/// recorder holds the log directory (EX_CANTCREAT), 75 try later (EX_TEMPFAIL), 78 the config
/// file cannot be read (EX_CONFIG). The service unit does not restart on 64, 73 or 78: none of
/// them fixes itself.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    /// `cairn status`: the recorder has stopped, or its file is stale.
    static let statusStale: Int32 = 2
    static let directoryLocked: Int32 = 73
    /// `cairn deliver`: not now (a trip being recorded, the remote out of reach, another
    /// delivery running); the delivery unit counts it as success and the timer tries again.
    static let tryLater: Int32 = 75
    static let config: Int32 = 78
}

let cairnVersion = "0.4.0"

/// A runtime failure: one clear line naming the file, field or option.
struct Failure: Error {
    let message: String
    /// The exit status: 1 unless the failure has one of its own (see `ExitCode`).
    let status: Int32
    init(_ message: String, status: Int32 = ExitCode.failure) {
        self.message = message
        self.status = status
    }
}

func printErr(_ s: String) {
    var line = s
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { p in _ = try? POSIX.writeAll(2, UnsafeRawBufferPointer(p)) }
}

/// The first error writing standard output (an errno), so a command whose output went
/// nowhere (`cairn list > /dev/full`) can fail instead of exiting 0.
nonisolated(unsafe) var stdoutError: Int32?

func printOut(_ s: String) {
    var line = s
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { p in
        do throws(Errno) { try POSIX.writeAll(1, UnsafeRawBufferPointer(p)) } catch {
            if stdoutError == nil { stdoutError = error.rawValue }
        }
    }
}

/// `code`, unless writing standard output failed: then a Failure naming the error (exit 1).
func checkedStdout(_ code: Int32) throws -> Int32 {
    if let e = stdoutError { throw Failure("standard output: write failed: \(Errno(rawValue: e))") }
    return code
}

func pathExists(_ p: String) -> Bool {
    (try? POSIX.status(p)) != nil
}

/// Text read from a log (a trip's activity), fit for a terminal: control characters (C0, DEL,
/// C1) become U+FFFD, so a crafted file cannot send escape sequences or print lines of its own.
func terminalSafe(_ s: String) -> String {
    var out = String.UnicodeScalarView()
    for u in s.unicodeScalars {
        out.append(u.value < 0x20 || (0x7F...0x9F).contains(u.value) ? "\u{FFFD}" : u)
    }
    return String(out)
}

/// Over a file size limit (`ulimit -f`, systemd's LimitFSIZE) a write raises SIGXFSZ, whose
/// default action kills the process without a word and leaves its temporary file behind.
/// Ignored, the write fails with EFBIG: reported, and the temporary file removed.
func ignoreFileSizeLimitSignal() {
    Signals.ignore(SIGXFSZ)
}

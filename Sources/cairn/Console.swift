#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exit codes: 0 success or help, 1 a runtime failure, 64 a usage error (EX_USAGE).
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
}

let cairnVersion = "0.1.0"

/// A runtime failure: one clear line naming the file, field or option.
struct Failure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func printErr(_ s: String) {
    var line = s
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
}

/// The first error writing standard output (an errno), so a command whose output went
/// nowhere (`cairn list > /dev/full`) can fail instead of exiting 0.
nonisolated(unsafe) var stdoutError: Int32?

func printOut(_ s: String) {
    var line = s
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { p in
        var off = 0
        while off < p.count {
            let n = write(1, p.baseAddress! + off, p.count - off)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if stdoutError == nil { stdoutError = n < 0 ? errno : EIO }
                return
            }
            off += n
        }
    }
}

/// `code`, unless writing standard output failed: then a Failure naming the error (exit 1).
func checkedStdout(_ code: Int32) throws -> Int32 {
    if let e = stdoutError { throw Failure("standard output: write failed: \(String(cString: strerror(e)))") }
    return code
}

func pathExists(_ p: String) -> Bool {
    var st = stat()
    return stat(p, &st) == 0
}

import CairnSystem

/// Naming and listing of log files: `NNNNNNNN.cairn`, a counter (never the wall clock).
public enum LogDirectory {
    /// The largest number a name can hold (8 decimal digits).
    public static let maxNumber: UInt32 = 99_999_999

    /// Log files in `dir` (names NNNNNNNN.cairn), sorted by number. Throws LogError if dir unreadable.
    /// Other names (including `.cairn` names of another length) are ignored. `copies`: also
    /// the names copies take on a stick or a remote, `NNNNNNNN-SSSSSSSS.cairn` with the log's
    /// salt (`copyNumber`), for reading a folder of them; a recorder's directory never has them.
    public static func logFiles(in dir: String, copies: Bool = false) throws -> [(number: UInt32, path: String)] {
        let names: [String]
        do throws(Errno) { names = try POSIX.listDirectory(dir) } catch { throw LogError.system(dir, "cannot read directory", error.rawValue) }
        var found: [(number: UInt32, path: String)] = []
        for name in names {
            if let n = number(fromName: name) ?? (copies ? copyNumber(fromName: name) : nil) { found.append((n, POSIX.join(dir, name))) }
        }
        found.sort { ($0.number, $0.path) < ($1.number, $1.path) }
        return found
    }

    /// The number in a copy's name, "00000042-4a875be0.cairn" (8 lowercase hex digits of its
    /// salt), or nil.
    public static func copyNumber(fromName name: String) -> UInt32? {
        let u = Array(name.utf8)
        guard u.count == 23, u[8] == UInt8(ascii: "-"),
            u[9..<17].allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { return nil }
        return number(fromName: String(decoding: u[0..<8] + u[17...], as: UTF8.self))
    }

    /// "00000042.cairn"
    public static func fileName(number: UInt32) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".cairn"
    }

    /// The number in a log file name, or nil if `name` is not exactly NNNNNNNN.cairn.
    public static func number(fromName name: String) -> UInt32? {
        let u = Array(name.utf8)
        guard u.count == 14, u[8...].elementsEqual(".cairn".utf8) else { return nil }
        var n: UInt32 = 0
        for c in u[0..<8] {
            guard c >= 48 && c <= 57 else { return nil }
            n = n * 10 + UInt32(c - 48)
        }
        return n
    }

    /// The number for a new file: the largest existing number + 1 (1 in an empty directory).
    public static func nextNumber(in dir: String) throws -> UInt32 {
        let last = try logFiles(in: dir).last?.number ?? 0
        guard last < maxNumber else {
            throw LogError(
                path: dir, message: "log file numbers exhausted (\(fileName(number: last)) exists)",
                kind: .invalidArgument)
        }
        return last + 1
    }

    /// A random 32-bit salt from the system generator (getrandom(2), /dev/urandom as fallback).
    public static func randomSalt() -> UInt32 {
        var g = SystemRandomNumberGenerator()
        return g.next()
    }

}

import CairnLog

enum VerifyCommand: Command {
    static let name = "verify"
    static let overview = "Check log files: intact records, damaged byte ranges, torn tails."
    static let usage = "cairn verify <path> ..."
    static let arguments = [("<path>", "Log files or directories of them.")]
    static let options: [OptionSpec] = []

    /// Exit status: 0 every file clean; 2 only torn tails (normal after a power cut: nothing that
    /// was synced is lost); 3 damage (records were lost); 1 a file is not a readable cairn log.
    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty else { throw UsageError("Missing expected argument '<path>'") }
        var worst: Int32 = 0
        func note(_ code: Int32) {
            // Precedence: unreadable (1) > damaged (3) > torn (2) > clean (0).
            let rank: [Int32: Int] = [0: 0, 2: 1, 3: 2, 1: 3]
            if rank[code]! > rank[worst]! { worst = code }
        }
        var paths: [String] = []
        for p in a.positionals {
            guard pathExists(p) else { printErr("\(p): no such file or directory"); note(1); continue }
            if let files = try? LogDirectory.logFiles(in: p) {
                if files.isEmpty { printErr("\(p): no cairn log files in this directory"); note(1) }
                paths += files.map(\.path)
            } else {
                paths.append(p)
            }
        }
        for p in paths {
            do {
                let r = try LogReader(path: p)
                let s = try r.scan()
                var line = "\(p): trip \(r.header.tripId) part \(r.header.segmentIndex), \(s.records) records, \(s.points) points"
                if s.isClean {
                    line += s.hasTripEnd ? ", clean, trip closed" : ", clean"
                    note(0)
                } else {
                    if !s.damaged.isEmpty {
                        line += ", DAMAGED bytes " + s.damaged.map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(separator: ",")
                        note(3)
                    }
                    if s.sequenceGaps > 0 { line += ", \(s.sequenceGaps) sequence gap(s)"; note(3) }
                    if s.tornTailBytes > 0 {
                        line += ", torn tail of \(s.tornTailBytes) bytes at \(r.fileSize - s.tornTailBytes) (interrupted write; nothing synced is lost)"
                        note(2)
                    }
                }
                if s.unknownRecords > 0 { line += ", \(s.unknownRecords) records of a newer format skipped" }
                printOut(line)
            } catch {
                printErr("\(error)")
                note(1)
            }
        }
        return worst
    }
}

import CairnLog
import CairnExport

enum VerifyCommand: Command {
    static let name = "verify"
    static let overview = "Check log files: records, trips, intact, recovered and damaged byte ranges, torn tails."
    static let usage = "cairn verify <path> ... [--json]"
    static let arguments = [("<path>", "Log files or directories of them.")]
    static let options: [OptionSpec] = [
        OptionSpec(name: "--json", valueName: nil, help: "Print one JSON object: each file's state and byte ranges, the totals, the exit status.")
    ]

    /// Exit status: 0 every file clean; 2 only torn tails or files whose header was never
    /// completed (normal after a power cut: nothing that was synced is lost); 3 damage (records
    /// were lost); 1 a file is not a readable cairn log (or cannot be read).
    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty else { throw UsageError("Missing expected argument '<path>'") }
        var worst: Int32 = 0
        func note(_ code: Int32) {
            // Precedence: unreadable (1) > damaged (3) > torn (2) > clean (0).
            let rank: [Int32: Int] = [0: 0, 2: 1, 3: 2, 1: 3]
            if rank[code]! > rank[worst]! { worst = code }
        }
        let json = a.has("--json")
        var objects: [String] = []
        var paths: [String] = []
        for p in a.positionals {
            guard pathExists(p) else {
                printErr("\(p): no such file or directory")
                note(1)
                if json { objects.append(fileJSON(p, state: "unreadable", error: "no such file or directory")) }
                continue
            }
            if let files = try? LogDirectory.logFiles(in: p, copies: true) {
                if files.isEmpty { printErr("\(p): no cairn log files in this directory"); note(1) }
                paths += files.map(\.path)
            } else {
                paths.append(p)
            }
        }
        var clean = 0, torn = 0, damaged = 0, unreadable = 0, records = 0
        var trips = Set<String>()  // directory + trip id: two cards' trip 1 are two trips
        for p in paths {
            do {
                let r = try LogReader(path: p)
                let s = try r.scan()
                let dir = p.lastIndex(of: "/").map { String(p[..<$0]) } ?? "."
                trips.insert(dir + "\u{0}" + String(r.header.tripId))
                records += s.records
                var line = "\(p): trip \(r.header.tripId) part \(r.header.part), \(s.records) records, \(s.points) points"
                if s.isClean {
                    line += s.hasTripEnd ? ", clean, trip closed" : ", clean"
                    if s.unusedTailBytes > 0 { line += unusedNote(s) }
                    clean += 1
                    note(0)
                } else {
                    line += ": " + ranges(r, s).joined(separator: ", ")
                    var problems: [String] = []
                    if !s.damaged.isEmpty {
                        problems.append("DAMAGED: \(s.damaged.reduce(0) { $0 + $1.count }) bytes skipped")
                    }
                    if s.sequenceGaps > 0 { problems.append("\(s.sequenceGaps) sequence gap(s)") }
                    if s.malformedRecords > 0 { problems.append("\(s.malformedRecords) malformed record(s)") }
                    if s.implausibleRecords > 0 {
                        problems.append("\(s.implausibleRecords) record(s) with impossible values skipped (first: \(s.firstImplausible ?? "?"))")
                    }
                    if !problems.isEmpty {
                        line += "; " + problems.joined(separator: ", ")
                        damaged += 1
                        note(3)
                    } else {
                        torn += 1
                        note(2)
                    }
                    if s.tornTailBytes > 0 { line += "; torn tail (interrupted write; nothing synced is lost)" }
                    if s.unusedTailBytes > 0 { line += ";" + unusedNote(s).dropFirst() }
                    if s.hasTripEnd { line += "; trip closed" }
                }
                if s.unknownRecords > 0 { line += ", \(s.unknownRecords) records of a newer format skipped" }
                if s.valuesLeftOut > 0 {
                    line += "; \(s.valuesLeftOut) impossible value(s) left out of their points (first: \(s.firstLeftOut ?? "?"))"
                }
                if json {
                    var o = JSONObject()
                    o.add("path", p)
                    o.add(
                        "state",
                        s.isClean
                            ? "clean"
                            : (!s.damaged.isEmpty || s.sequenceGaps > 0 || s.malformedRecords > 0 || s.implausibleRecords > 0) ? "damaged" : "torn")
                    o.add("trip", Int(r.header.tripId))
                    o.add("part", Int(r.header.part))
                    o.add("records", s.records)
                    o.add("points", s.points)
                    o.add("closed", s.hasTripEnd)
                    o.add("damaged_bytes", s.damaged.reduce(0) { $0 + $1.count })
                    o.add("sequence_gaps", s.sequenceGaps)
                    o.add("malformed_records", s.malformedRecords)
                    o.add("implausible_records", s.implausibleRecords)
                    o.add("torn_tail_bytes", s.tornTailBytes)
                    o.add("unused_tail_bytes", s.unusedTailBytes)
                    o.add("newer_records_skipped", s.unknownRecords)
                    o.add("values_left_out", s.valuesLeftOut)
                    o.add("ranges", json: JSONObject.array(ranges(r, s).map(TextFormat.jsonString)))
                    objects.append(o.text)
                } else {
                    printOut(line)
                }
            } catch let e as LogError where e.kind == .truncatedHeader {
                // Created but never completed: the recorder stopped while creating it.
                if json {
                    objects.append(fileJSON(p, state: "torn", error: e.message))
                } else {
                    printOut("\(p): torn: \(e.message); holds no records")
                }
                torn += 1
                note(2)
            } catch {
                printErr("\(error)")
                if json { objects.append(fileJSON(p, state: "unreadable", error: "\(error)")) }
                unreadable += 1
                note(1)
            }
        }
        if json {
            var o = JSONObject()
            o.add("files", json: JSONObject.array(objects))
            o.add("trips", trips.count)
            o.add("records", records)
            o.add("clean", clean)
            o.add("torn", torn)
            o.add("damaged", damaged)
            o.add("unreadable", unreadable)
            o.add("exit_status", Int(worst))
            printOut(o.text)
            return try checkedStdout(worst)
        }
        if paths.count > 1 {
            printOut(
                "\(paths.count) files, \(trips.count) trip\(trips.count == 1 ? "" : "s"), \(records) records: "
                    + "\(clean) clean, \(torn) torn, \(damaged) damaged, \(unreadable) unreadable")
        }
        return try checkedStdout(worst)
    }

    /// A file `verify --json` could not scan: its path, state and why.
    static func fileJSON(_ path: String, state: String, error: String) -> String {
        var o = JSONObject()
        o.add("path", path)
        o.add("state", state)
        o.add("error", error)
        return o.text
    }

    /// Zeros after the last record: the writer's preallocated space, trimmed when it closes a file.
    static func unusedNote(_ s: ScanReport) -> String {
        ", then \(s.unusedTailBytes) bytes of zeros (space preallocated for the next records: "
            + "the recorder is still writing this file, or stopped without closing it)"
    }

    /// The file's byte ranges in order: header, intact frames, damaged ranges, frames recovered
    /// after damage (the reader resynchronised), and the torn tail. Inclusive byte offsets.
    static func ranges(_ r: LogReader, _ s: ScanReport) -> [String] {
        var out: [String] = []
        var pos = r.dataOffset
        var afterDamage = false
        let dataEnd = r.fileSize - s.tornTailBytes - s.unusedTailBytes
        for d in s.damaged {
            if d.lowerBound > pos { out.append("\(afterDamage ? "recovered" : "intact") \(pos)-\(d.lowerBound - 1)") }
            out.append("damaged \(d.lowerBound)-\(d.upperBound - 1)")
            pos = d.upperBound
            afterDamage = true
        }
        if dataEnd > pos { out.append("\(afterDamage ? "recovered" : "intact") \(pos)-\(dataEnd - 1)") }
        if s.tornTailBytes > 0 { out.append("torn \(dataEnd)-\(r.fileSize - 1) (\(s.tornTailBytes) bytes)") }
        if s.unusedTailBytes > 0 { out.append("unused \(dataEnd)-\(r.fileSize - 1) (\(s.unusedTailBytes) bytes of zeros)") }
        return out
    }
}

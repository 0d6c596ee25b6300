import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

extension DeliveryRun {
    /// `deliver --check`: reaches the remote and says what a run would send, writing nothing.
    func check(json: Bool = false) -> Int32 {
        // With --json the same, as one object on standard output at the end (notes in "notes").
        var notes: [String] = []
        var recording: String?
        func say(_ line: String) { if json { notes.append(line) } else { printOut(line) } }
        func ended(_ code: Int32, reached: Bool, reason: String? = nil, body: (inout JSONObject) -> Void = { _ in }) -> Int32 {
            guard json else { return code }
            var o = JSONObject()
            o.add("check", true)
            o.add("remote", remote)
            o.add("board_folder", base)
            o.add("reached", reached)
            o.add("reason", reason)
            o.add("recording", recording)
            body(&o)
            o.add("notes", json: "[" + notes.map(TextFormat.jsonString).joined(separator: ", ") + "]")
            o.add("exit_status", Int(code))
            printOut(o.text)
            return code
        }
        var counts = DeliveryPlans.Counts()
        let found: Survey
        switch surveyWithMarker(&counts, { printErr("cairn: \($0)") }) {
        case .found(let f): found = f
        case .end(let code): return ended(code, reached: false)
        }
        removeStaging(staging)
        if let stop = found.stop {
            switch stop {
            case .recording(let why):
                say("cairn deliver --check: \(why); a run now would wait")
                recording = why
            case .remote(let why):
                printErr("cairn deliver --check: \(remote): \(why)")
                return ended(DeliveryPlans.RemoteTrouble(why).exitCode, reached: false, reason: why)
            }
        }
        if !json { printOut("remote: \(remote) (reached); this board's folder: \(base)") }
        switch (try? transport.localFolders(base)) ?? .folders([]) {
        case .folders(let local):
            if let why = onCardRefusal() {
                printErr("cairn deliver --check: \(why)")
                return ended(ExitCode.config, reached: true, reason: why)
            }
            if let onCard = local.first(where: { OnThisCard.isOnIt($0, logDirectory: dir) }) {
                say(
                    "note: \(terminalSafe(onCard)) is on the log directory's own card (a stick that is not mounted? another partition?):"
                        + " copies there are no copies off the board, and prune keeps the trips")
            }
        case .unknown(let why):
            say("note: where \(terminalSafe(base)) keeps its files cannot be told (\(terminalSafe(why))): prune keeps the trips delivered there")
        }
        if found.goneReadBackTrips > 0 {
            let n = found.goneReadBackTrips
            say(
                "note: \(base) lists no hashes: the copies of \(n) trip\(n == 1 ? "" : "s") no longer on the board (their logs the only copies)"
                    + " are read back in turn, \(DeliveryPlans.readBackBytesPerRun >> 20) MiB a run: each once every"
                    + " \(found.goneReadBackRuns) run\(found.goneReadBackRuns == 1 ? "" : "s")")
        }
        let code = counts.problems > 0 ? ExitCode.failure : ExitCode.ok
        guard !json else {
            return ended(code, reached: true) { o in
                o.add("formats", json: "[" + formats.map { TextFormat.jsonString($0.name) }.joined(separator: ", ") + "]")
                o.add("logs", copyLogs)
                o.add("page", page)
                o.add("privacy_zones", stageOptions.zones.zones.count)
                o.add("would_send", json: "[" + found.waiting.map { "\($0.trip.id)" }.joined(separator: ", ") + "]")
                o.add("already_there", counts.alreadyThere)
            }
        }
        printOut(
            "formats: \(formats.isEmpty ? "none" : formats.map(\.name).joined(separator: ",")); logs: \(copyLogs ? "yes" : "no"); page: \(page ? "yes" : "no")"
                + (stageOptions.zones.isEmpty ? "" : "; privacy zones: \(stageOptions.zones.zones.count), cut"))
        for w in found.waiting {
            printOut("would send: trip \(w.trip.id) (\(w.trip.files.map { baseName($0.path) }.joined(separator: ", ")))")
        }
        printOut("\(found.waiting.count) trip\(found.waiting.count == 1 ? "" : "s") to send, \(counts.alreadyThere) already there")
        return code
    }
}

import CairnExport

/// The decisions of a delivery that send, delete or say, as pure functions of what it found:
/// each has its table tests (DeliveryPlansTests); DeliveryRun does the I/O around them.
enum DeliveryPlans {
    /// A file staged to go up: its path under the board's folder, and its MD5 and size.
    struct Staged: Equatable {
        var relative: String
        var md5: String
        var size: Int
    }

    /// Which staged files a read-back shows whole (`readBack`: relative path -> MD5 read), and
    /// what is wrong with the others ("gpx/x.gpx: missing"). A file listed twice or not staged
    /// is no concern of this check.
    static func verified(_ staged: [Staged], readBack: [String: String]) -> (whole: Set<String>, wrong: [String]) {
        var whole = Set<String>()
        var wrong: [String] = []
        for f in staged {
            guard let got = readBack[f.relative] else {
                wrong.append("\(f.relative): missing")
                continue
            }
            if got == f.md5 { whole.insert(f.relative) } else { wrong.append("\(f.relative): other bytes (MD5 \(got), not \(f.md5))") }
        }
        return (whole, wrong)
    }

    /// Where rclone keeps the board's folder on this machine (`RcloneLocalRoots`: each folder, and
    /// whether it lies on the log directory's own card): the folder a delivery refuses when every
    /// one does (a folder beside the logs, a stick's mount point with the stick not mounted, an
    /// alias, crypt or symlink to one: copies there die with the card), nil otherwise (a remote
    /// elsewhere, or a union with a folder off the card).
    static func onCard(_ folders: [(path: String, onCard: Bool)]) -> String? {
        guard !folders.isEmpty, folders.allSatisfy(\.onCard) else { return nil }
        return folders[0].path
    }

    /// The card's privacy key beside the logs on the remote, as the listing shows it, and the
    /// name it is at or goes to: `logs/privacy-key` when that is free or this key's, else a name
    /// of its own (`TripShipment.keyPath(md5:)`).
    enum KeyThere: Equatable {
        /// There whole (or, on a backend without hashes, at its size), or nothing asks for it
        /// (no logs there): the name it would go to with logs.
        case fine(String)
        /// Missing while logs are there (a run cut before it went, deleted there): sent.
        case owed(String)
        /// Damaged there: other bytes or another size under its own name, or under the plain
        /// name where it went up whole before (`DeliveryStatus.keySent`): sent again.
        case damaged(String)
    }

    /// What a run does about the card's key: `ours` its size and MD5; `plain`, `tagged` what the
    /// listing shows under `logs/privacy-key` and under the key's own name; `holdsLogs` whether
    /// the logs folder holds logs; `sentTo` where this key went up whole before (relative to the
    /// board's folder), if it did. Another key under the plain name (an earlier card's, another
    /// board's) is never replaced: this one goes beside it.
    static func keyThere(
        ours: (size: Int, md5: String), plain: RemoteCopies.FileCheck?, tagged: RemoteCopies.FileCheck?, holdsLogs: Bool, sentTo: String?
    ) -> KeyThere {
        let plainName = TripShipment.keyPath, ownName = TripShipment.keyPath(md5: ours.md5)
        func same(_ l: RemoteCopies.FileCheck) -> Bool { l.size == ours.size && (l.md5 == nil || l.md5 == ours.md5) }
        // Under its own name nothing else goes: other bytes there are this key damaged.
        if let t = tagged { return same(t) ? .fine(ownName) : .damaged(ownName) }
        if let p = plain {
            if same(p) { return .fine(plainName) }
            if sentTo == plainName { return .damaged(plainName) }
            return holdsLogs ? .owed(ownName) : .fine(ownName)
        }
        let name = sentTo == ownName ? ownName : plainName
        return holdsLogs ? .owed(name) : .fine(name)
    }

    /// The page's files (index.html, index.tsv) that are not as this log directory last sent or
    /// found them (`sent`: name -> MD5): missing, or with another MD5 where the listing has
    /// one (a byte flipped at its size, or another card of the board updated the page since).
    /// The page is made again; what matches the remote is not sent.
    static func pageChanged(sent: [String: String], listed: [String: RemoteCopies.FileCheck], readWrong: Set<String> = []) -> [String] {
        sent.keys.sorted().filter { name in
            guard let l = listed[name] else { return true }
            if readWrong.contains(name) { return true }
            return l.md5 != nil && l.md5 != sent[name]
        }
    }

    /// The pictures of delivered trips the listing does not show (deleted there since): each
    /// trip's picture is named as its conversions are (`pictures/STEM.svg` beside `gpx/STEM.gpx`),
    /// so `sent` (the conversions each trip's receipt names) says where it should be. Trips sent
    /// without a conversion, or all of whose conversions are gone too (sent again anyway), are left
    /// out. The page is made again with these trips' entries, their pictures drawn anew.
    /// `md5`: what each trip's picture read back with when it went (its receipt's; none for one
    /// sent before they were kept): a picture listed with another MD5 (a backend with hashes)
    /// is damaged there, drawn again as a missing one is.
    static func picturesGone(sent: [[String]], md5: [[String: String]] = [], listed: [String: RemoteCopies.FileCheck]) -> [String] {
        var gone: [String] = []
        for (i, files) in sent.enumerated() {
            guard let first = files.first(where: { listed[$0] != nil }), let picture = picture(of: first) else { continue }
            guard let there = listed[picture] else {
                gone.append(picture)
                continue
            }
            if let was = i < md5.count ? md5[i][picture] : nil, let now = there.md5, now != was { gone.append(picture) }
        }
        return gone
    }

    /// Whether a run looks for the shipping folders this board's earlier cards left (a card cut
    /// mid-upload, then re-formatted) and removes them: once per log directory, with its first
    /// run that sends (a new card's very first too: attack-r22 c12 found one left to a third
    /// run), not while it is stopped (a ride recorded, the remote away), nor with nothing to send.
    static func clearOtherShipping(clearedBefore: Bool, stopped: Bool, sends: Bool) -> Bool {
        !clearedBefore && !stopped && sends
    }

    /// The page's picture of the trip a conversion (`gpx/STEM.gpx`) belongs to: `pictures/STEM.svg`
    /// (`PageBuilder.picturePath`, the name the page gives it).
    static func picture(of conversion: String) -> String? {
        let name = baseName(conversion)
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return nil }
        return PageBuilder.picturePath(name: String(name[..<dot]))
    }

    /// Whether a trip goes on record as delivered: every file it staged was found whole (a trip
    /// that staged none, its copies there already, goes too).
    static func receipted(_ files: [String], whole: Set<String>) -> Bool { files.allSatisfy { whole.contains($0) } }

    /// What the page's reconciliation deletes of what an earlier delivery sent of a trip
    /// (`before`, the index's files and picture, paths under the board's folder), now that it
    /// sends `now` (empty: the trip is off the page, wholly inside a zone): a file under a name
    /// the trip no longer has in a format still sent (a zone moved its first point), a picture
    /// replaced, every file of a trip now hidden. A file of a format no longer sent stays when
    /// its name is still the one the trip would have (`nameNow`: the name in that format now;
    /// nil when the trip is hidden); one whose name changed showed what is now cut, and goes.
    /// Never a log copy, never anything out of the folders deliver writes, never a path with
    /// `..` or a NUL (the index may have been edited by anyone).
    static func obsolete(
        before: [String], now: [String], hidden: Bool, formatsSent: [String], allFormats: [String], picturesFolder: String,
        nameNow: (_ format: String) -> String?
    ) -> [String] {
        var out: [String] = []
        for rel in before where !now.contains(rel) {
            let parts = rel.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[1].isEmpty, !rel.utf8.contains(0), parts[1] != "..", parts[1] != "." else { continue }
            let folder = String(parts[0])
            if folder == picturesFolder {
                out.append(rel)
            } else if allFormats.contains(folder) {
                if hidden || formatsSent.contains(folder) {
                    out.append(rel)
                } else if let n = nameNow(folder), n != String(parts[1]) {
                    out.append(rel)
                }
            }
        }
        return out
    }

    /// How a run ended, for its status file, its exit code and its last lines.
    enum Stop: Error, Equatable {
        case recording(String)
        case remote(String)
    }

    struct Counts: Equatable {
        var delivered = 0
        /// Finished trips still not delivered.
        var left = 0
        var alreadyThere = 0
        var failedTrips = 0
        /// Problems said on the way (a trip that cannot be read or converted, a page not made).
        var problems = 0
        var firstProblem = ""
        var sentFiles = 0
        var sentBytes = 0
        /// Trips pruned on the board whose conversions or page row this run made again from
        /// their remote logs (`DeliveryRun.remakeGone`): no trip delivered, but files sent.
        var remade = 0
    }

    struct Outcome: Equatable {
        var result: DeliveryStatus.Result
        var reason: String
        var failures: Int
        var failingSinceMs: Int64?
        var exitCode: Int32
        var lines: [String]
        /// The status's `try_later`: failed, and a later run may go through by itself (the LED
        /// shows rides waiting, not delivery failing).
        var tryLater: Bool { result == .failed && exitCode == ExitCode.tryLater }
    }

    /// Whether a remote's failure is one of its setup (a password, a key, a permission), which
    /// no later run mends by itself: said on every run and failing the unit, unlike an outage.
    static func isSetupFailure(_ text: String) -> Bool {
        // Searched as bytes: String's own search would link the regex engine (1.3 MB).
        let t = Array(text.lowercased().utf8)
        return [
            "unauthorized", "forbidden", "permission denied", "access denied", "accessdenied", "invalidaccesskeyid",
            "signaturedoesnotmatch", "unable to authenticate", "authentication failed", "status code: 401", "status code: 403"
        ].contains { Rclone.find(Array($0.utf8), in: t) }
    }

    /// Whether a remote's failure says it is full (WebDAV's 507 Insufficient Storage, a quota, no
    /// space left, a local folder's preallocation refused): no later run mends it by itself
    /// either, the rider must make room.
    static func isFullRemote(_ text: String) -> Bool {
        let t = Array(text.lowercased().utf8)
        return [
            "insufficient storage", "insufficient_storage", "status code: 507", "507 insufficient", "quota", "no space left",
            "not enough space", "disk full", "storage full", "too big for remaining disk space"
        ].contains { Rclone.find(Array($0.utf8), in: t) }
    }

    /// What a remote's failure is, in the one place the exit code, the status's `try_later` and
    /// the words said are chosen from: an outage waits for a later run (75); a setup refused or
    /// a full remote needs the rider (1).
    enum RemoteTrouble: Equatable {
        case outage
        case setup
        case full

        init(_ why: String) {
            self = DeliveryPlans.isFullRemote(why) ? .full : DeliveryPlans.isSetupFailure(why) ? .setup : .outage
        }

        var exitCode: Int32 { self == .outage ? ExitCode.tryLater : ExitCode.failure }
    }

    /// Which delivered trips a run reads back whole where the backend lists no hashes (WebDAV):
    /// `sizes` the bytes of each one's copies, in the log directory's order; from `from`, as many
    /// as `budget` bytes allow (at least one), wrapping; and where the next run starts. Every
    /// copy is read back in turn, a few MB a run, not all of them every run.
    static func readBackTurn(sizes: [Int], from: Int, budget: Int) -> (chosen: [Int], next: Int) {
        if sizes.isEmpty { return ([], 0) }
        var i = from >= 0 && from < sizes.count ? from : 0
        var chosen: [Int] = []
        var bytes = 0
        while chosen.count < sizes.count {
            if !chosen.isEmpty && bytes + sizes[i] > budget { break }
            chosen.append(i)
            bytes += sizes[i]
            i = (i + 1) % sizes.count
        }
        return (chosen, i)
    }

    /// How many runs `readBackTurn` takes to read every one of `sizes` once, from the first:
    /// what `deliver --check` says of the pruned trips' copies (deliv-38g).
    static func readBackRuns(sizes: [Int], budget: Int) -> Int {
        var runs = 0
        var read = 0
        var from = 0
        while read < sizes.count {
            let t = readBackTurn(sizes: sizes, from: from, budget: budget)
            read += t.chosen.count
            from = t.next
            runs += 1
        }
        return runs
    }

    /// The bytes of delivered copies a run reads back where the backend lists no hashes.
    static let readBackBytesPerRun = 4 << 20

    /// The files and bytes a run put on the remote: every file staged (a trip's, the page's,
    /// the key) that read back whole, each once.
    static func tally(_ staged: [Staged], whole: Set<String>) -> (files: Int, bytes: Int) {
        var seen = Set<String>()
        var files = 0
        var bytes = 0
        for f in staged where whole.contains(f.relative) && seen.insert(f.relative).inserted {
            files += 1
            bytes += f.size
        }
        return (files, bytes)
    }

    /// The outcome of a run. A remote failing and a recording ride are "try later" (75), but a
    /// remote refusing the setup (a password, a key) or full fails (1), said every run; a run
    /// that went through with problems fails (1) and its status says so, counted like an outage
    /// so that `cairn status` shows since when.
    static func outcome(
        stop: Stop?, counts c: Counts, remote: String, base: String, previous: DeliveryStatus?, quietFailures: Bool, nowMs: Int64
    ) -> Outcome {
        func trips(_ n: Int) -> String { "\(n) trip\(n == 1 ? "" : "s")" }
        let ongoing = previous?.result == .failed
        var o = Outcome(result: .ok, reason: "", failures: 0, failingSinceMs: nil, exitCode: ExitCode.ok, lines: [])
        func failing(_ why: String) {
            o.result = .failed
            o.reason = why
            o.failures = ongoing ? (previous?.failures ?? 0) + 1 : 1
            o.failingSinceMs = ongoing ? (previous?.failingSinceMs ?? nowMs) : nowMs
        }
        switch stop {
        case .recording(let why):
            o.result = .deferred
            o.reason = why
            o.lines.append("delivery waits: \(why); \(trips(c.left)) left for a later run")
            o.exitCode = ExitCode.tryLater
        case .remote(let why) where RemoteTrouble(why) == .full:
            failing(why)
            let files = "\(c.sentFiles) file\(c.sentFiles == 1 ? "" : "s")"
            let took = c.delivered > 0 ? "; it took \(trips(c.delivered)) (\(files), \(c.sentBytes) bytes)" : ""
            o.lines.append(
                "the remote is full: delivery to \(remote) failed: \(why)\(took); make room on it (or deliver elsewhere); \(trips(c.left)) wait")
            o.exitCode = ExitCode.failure
        case .remote(let why) where RemoteTrouble(why) == .setup:
            failing(why)
            o.lines.append("delivery to \(remote) failed: \(why); fix the remote's setup (rclone config); \(trips(c.left)) wait")
            o.exitCode = ExitCode.failure
        case .remote(let why):
            failing(why)
            if !(ongoing && quietFailures) {
                o.lines.append("delivery to \(remote) failed: \(why); \(trips(c.left)) wait for the next run")
            }
            o.exitCode = ExitCode.tryLater
        case nil:
            if c.problems > 0 {
                failing(
                    c.failedTrips > 0 ? "\(trips(c.failedTrips)) not delivered: \(c.firstProblem)" : c.firstProblem)
            } else if ongoing, let p = previous {
                o.lines.append("delivery to \(remote) works again (it failed \(p.failures) run\(p.failures == 1 ? "" : "s") in a row)")
            }
            let remade = c.remade > 0 ? "; \(c.remade) no longer on the board made again from their logs there" : ""
            o.lines.append(
                "delivered \(trips(c.delivered)) to \(base) (\(c.sentFiles) file\(c.sentFiles == 1 ? "" : "s"), \(c.sentBytes) bytes)\(remade); \(c.alreadyThere) already there"
            )
            if c.failedTrips > 0 { o.lines.append("\(trips(c.failedTrips)) not delivered (see above)") }
            o.exitCode = c.problems > 0 ? ExitCode.failure : ExitCode.ok
        }
        return o
    }

    /// The most bytes of conversions and page a run stages at once, beside the logs (links) on
    /// the board's card: a quarter of its free space, at most 64 MB; 0 (one trip a batch) after
    /// a failed run, so that a remote with room for some trips takes those (`grow` widens it
    /// again after each batch that went).
    static func batchBytes(freeBytes: Int?, afterFailure: Bool) -> Int {
        if afterFailure { return 0 }
        return min(maxBatchBytes, max(0, (freeBytes ?? maxBatchBytes * 4) / 4))
    }

    static let maxBatchBytes = 64 << 20

    /// The next batch's bytes after one of `staged` bytes went whole: twice as much, up to what
    /// the card allows.
    static func grow(_ budget: Int, staged: Int, freeBytes: Int?) -> Int {
        min(batchBytes(freeBytes: freeBytes, afterFailure: false), max(budget * 2, staged * 2))
    }
}

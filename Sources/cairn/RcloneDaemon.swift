import CairnSystem
import CairnExport

/// The rclone of a delivery run as one `rclone rcd` for the run's life (issue 37): the same
/// operations as `Rclone`'s commands (`RcloneCalls`), asked over HTTP on 127.0.0.1 at a port it
/// chose, with a user and password made for this run and passed in its environment (readable by
/// its owner only), so that a run starts one rclone process whatever it sends, instead of one a
/// call. It dies with cairn (PR_SET_PDEATHSIG) and is stopped at the run's end (`stop`); one that
/// moves nothing (no reply bytes, no change in its `core/stats` counters) for `silenceSeconds`
/// is killed, and the next call starts another.
final class RcloneDaemon: TripRemote, @unchecked Sendable {
    typealias Failure = RemoteFailure

    /// The program, config, timeouts and scratch folder, as for `Rclone`'s commands.
    let rclone: Rclone
    private var server: (process: BoundProcess, port: UInt16, authorization: String)?
    private var log: [UInt8] = []
    /// Processes started (one, unless one was killed for not answering).
    private(set) var starts = 0

    init(_ rclone: Rclone) { self.rclone = rclone }

    deinit { stop() }

    /// A call's deadline, as `Rclone`'s: `bytes` lengthens it at 2 kB/s.
    private func seconds(bytes: Int) -> Double { rclone.deadlineSeconds ?? (Double(rclone.timeoutSeconds) * 30 + Double(bytes) / 2000) }

    /// The server, started at the first call.
    private func running(_ what: String) throws(Failure) -> (process: BoundProcess, port: UInt16, authorization: String) {
        if let s = server { return s }
        let user = hex(SecretFile.randomBytes(16))
        let password = hex(SecretFile.randomBytes(16))
        let process: BoundProcess
        do {
            process = try BoundProcess.start(
                rclone.common + ["rcd", "--rc-addr", "127.0.0.1:0", "--rc-serve", "--log-level", "NOTICE"],
                environment: ["RCLONE_RC_USER=" + user, "RCLONE_RC_PASS=" + password])
        } catch {
            throw Failure(what: what, detail: "\(error)", notFound: false)
        }
        starts += 1
        var said: [String] = []
        let end = Subprocess.monotonicSeconds() + min(seconds(bytes: 0), 60)
        while true {
            let left = end - Subprocess.monotonicSeconds()
            guard left > 0, let line = process.readLine(within: left, pending: &log) else {
                process.killNow()
                log = []
                let text = Rclone.lastLines(said.joined(separator: "\n"))
                throw Failure(
                    what: what, detail: text.isEmpty ? "rclone rcd did not start within \(Int(min(seconds(bytes: 0), 60))) s" : text,
                    notFound: false, interrupted: text.isEmpty)
            }
            if let port = RcloneCalls.port(fromLog: line) {
                let s = (process, port, RcloneCalls.basic(user, password))
                server = s
                return s
            }
            said.append(line)
        }
    }

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Stops the server: core/quit, then SIGTERM and SIGKILL after a bound.
    func stop() {
        guard let s = server else { return }
        server = nil
        do {
            let quit = RcloneCalls.quit
            _ = try exchange("stop rclone rcd", "POST", "/" + quit.method, body: Array(quit.body.utf8), seconds: 5, watch: false, on: s) { _, _ in }
        } catch {
            return  // killed and reaped by `exchange`
        }
        // rclone leaves a second after core/quit; SIGTERM ends it at once as gracefully (its
        // exit handlers run), so the run does not wait out that second.
        s.process.stop(grace: 0.1, within: 5)
    }

    /// What the server wrote since the last look (its notices), read without waiting: its pipe
    /// never fills.
    private func drainLog(_ s: (process: BoundProcess, port: UInt16, authorization: String)) {
        while s.process.readLine(within: 0, pending: &log) != nil {}
        if log.count > 4096 { log = [] }
    }

    /// How long a call may move nothing before the remote counts as silent: twice `--timeout`
    /// and 5 s, so that rclone's own `--timeout` ends a stalled transfer first when it can (its
    /// error is the clearer one).
    var silenceSeconds: Double { Double(rclone.timeoutSeconds) * 2 + 5 }

    /// rclone's progress counters now (`RcloneCalls.progress`), nil when it does not say within 5 s.
    private func progress(on s: (process: BoundProcess, port: UInt16, authorization: String)) -> [String]? {
        var bytes: [UInt8] = []
        let status = try? exchange(
            "rclone core/stats", "POST", "/" + RcloneCalls.stats.method, body: Array(RcloneCalls.stats.body.utf8), seconds: 5, watch: false,
            kill: false, on: s
        ) { code, piece in if code == 200 && bytes.count < 1 << 20 { bytes += piece } }
        guard status == 200, let v = RcJSON.parse(bytes) else { return nil }
        return RcloneCalls.progress(v)
    }

    /// One HTTP exchange with the server: the reply's body pieces to `reply`, its status returned.
    /// Watched (`watch`), it lasts while something moves: reply bytes, or rclone's progress
    /// counters (asked each second); `silenceSeconds` without either ends it, as `seconds` does in
    /// any case. Unwatched (a probe), `seconds` bounds it. A server that fails to answer, or closes
    /// part way, is killed, unless `kill` is false (a probe beside a call).
    private func exchange(
        _ what: String, _ method: String, _ path: String, body: [UInt8], seconds: Double, watch: Bool = true,
        kill: Bool = true, on s: (process: BoundProcess, port: UInt16, authorization: String), reply: (Int, ArraySlice<UInt8>) -> Void
    ) throws(Failure) -> Int {
        let start = Subprocess.monotonicSeconds()
        let end = start + seconds
        let silence = silenceSeconds
        var heard = start
        var mark: [String]? = nil
        var silent = false
        var parser = HTTPReply()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        do throws(Errno) {
            let socket = try LoopbackSocket(port: s.port, deadline: watch ? min(end, start + silence) : end)
            try socket.sendAll(HTTPReply.request(method, path, authorization: s.authorization, body: body))
            while !parser.isDone {
                if watch { socket.deadline = min(end, Subprocess.monotonicSeconds() + 1, heard + silence) }
                let n: Int
                do throws(Errno) {
                    n = try socket.receive(into: buffer)
                } catch let e where watch && e.rawValue == 110 {
                    let now = Subprocess.monotonicSeconds()
                    if now >= end { throw e }
                    if let m = progress(on: s), m != mark {
                        if mark != nil { heard = now }
                        mark = m
                    }
                    if now - heard >= silence {
                        silent = true
                        throw e
                    }
                    continue
                }
                if n == 0 {
                    try? parser.end()
                    break
                }
                heard = Subprocess.monotonicSeconds()
                let piece = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                do { try parser.feed(piece[...], body: reply) } catch {
                    throw Errno(rawValue: 71)  // EPROTO: no HTTP
                }
            }
            if !parser.isDone { throw Errno(rawValue: 71) }
        } catch {
            if !kill { throw Failure(what: what, detail: "\(error)", notFound: false) }
            drainLog(s)
            s.process.killNow()
            server = nil
            log = []
            let timedOut = error.rawValue == 110  // ETIMEDOUT
            throw Failure(
                what: what,
                detail: silent
                    ? "the remote stopped answering: nothing moved for \(Int(silence)) s (twice --timeout \(rclone.timeoutSeconds) s and 5 s), rclone stopped"
                    : timedOut ? "no answer within \(Int(seconds)) s, stopped" : "rclone rcd stopped answering (\(error))",
                notFound: false, interrupted: true)
        }
        drainLog(s)
        return parser.status ?? 0
    }

    /// Calls the rc method `call`: the answer's body, when it is 200, to `answer` as it comes;
    /// otherwise the failure rclone gave.
    private func call(_ what: String, _ call: RcloneCalls.Call, answer: (ArraySlice<UInt8>) -> Void = { _ in }) throws(Failure) {
        let s = try running(what)
        var error: [UInt8] = []
        let status = try exchange(what, "POST", "/" + call.method, body: Array(call.body.utf8), seconds: rclone.deadlineSeconds ?? .infinity, on: s) {
            code, piece in
            if code == 200 { answer(piece) } else if error.count < 65536 { error += piece }
        }
        if status != 200 { throw RcloneCalls.failure(what, status: status, body: error) }
    }

    /// A small answer whole (at most 1 MiB).
    private func value(_ what: String, _ c: RcloneCalls.Call) throws(Failure) -> RcJSON {
        var bytes: [UInt8] = []
        try call(what, c) { if bytes.count < 1 << 20 { bytes += $0 } }
        guard let v = RcJSON.parse(bytes) else { throw Failure(what: what, detail: "rclone rcd's answer is not JSON", notFound: false) }
        return v
    }

    /// Streams the file `path` under `folder` (`--rc-serve`) to `output`, at most `limit` bytes:
    /// false when it is not there.
    private func download(_ what: String, _ path: String, under folder: String, limit: Int?, seconds: Double, output: (ArraySlice<UInt8>) -> Void)
        throws(Failure) -> Bool
    {
        guard let url = RcloneCalls.download(path, under: folder) else {
            throw Failure(what: what, detail: "\(folder): a folder with ']' in its name cannot be read back", notFound: false)
        }
        let s = try running(what)
        var error: [UInt8] = []
        var left = limit ?? Int.max
        let status = try exchange(what, "GET", url, body: [], seconds: seconds, on: s) { code, piece in
            if code == 200 {
                let n = min(left, piece.count)
                if n > 0 { output(piece.prefix(n)) }
                left -= n
            } else if error.count < 65536 {
                error += piece
            }
        }
        if status == 404 { return false }
        if status != 200 { throw RcloneCalls.failure(what, status: status, body: error) }
        return true
    }

    /// A remote file's path as its folder and its name ("nas:a/b" is "nas:a" and "b").
    static func split(_ path: String) -> (folder: String, name: String) {
        let colon = path.firstIndex(of: ":").map { path.index(after: $0) } ?? path.startIndex
        guard let slash = path[colon...].lastIndex(of: "/") else { return (String(path[..<colon]), String(path[colon...])) }
        let folder = path[..<slash]
        return (folder.isEmpty || folder.hasSuffix(":") ? String(folder) + "/" : String(folder), String(path[path.index(after: slash)...]))
    }

    // MARK: TripRemote

    func remotes() throws(Failure) -> [String] {
        guard case .array(let names)? = try value("rclone listremotes", RcloneCalls.remotes)["remotes"] else { return [] }
        return names.compactMap(\.string)
    }

    func list(_ folder: String, hashes: Bool, entry: (RemoteEntry) -> Void) throws(Failure) {
        var elements = RcJSON.Elements()
        try call("list \(folder)", RcloneCalls.list(folder, hashes: hashes)) { piece in
            elements.feed(piece) { e in
                if let f = RemoteCopies.entry(e) {
                    entry(RemoteEntry(path: f.name, size: f.size, isFolder: f.isFolder, md5: hashes ? RemoteCopies.listed(e)?.md5 : nil))
                }
            }
        }
    }

    func listFolders(_ folder: String) throws(Failure) -> [String] {
        var names: [String] = []
        var elements = RcJSON.Elements()
        try call("list \(folder)", RcloneCalls.list(folder, foldersOnly: true)) { piece in
            elements.feed(piece) { e in
                if let f = RemoteCopies.entry(e), f.isFolder, !f.name.contains("/") { names.append(f.name) }
            }
        }
        return names
    }

    func read(_ path: String, limit: Int?, output: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        let (folder, name) = Self.split(path)
        let what = "read back \(path)"
        let found = try download(what, name, under: folder, limit: limit, seconds: seconds(bytes: 0)) { piece in
            piece.withUnsafeBytes { output($0) }
        }
        if !found { throw Failure(what: what, detail: "object not found", notFound: true) }
    }

    func mirror(_ local: String, to folder: String) throws(Failure) {
        try call("send to \(folder)", RcloneCalls.mirror(local, to: folder))
    }

    func readBack(_ folder: String, paths: [String]?, md5: (String, String) -> Void) throws(Failure) {
        let what = "read back \(folder)"
        var files = paths ?? []
        if paths == nil {
            do {
                try list(folder) { e in if !e.isFolder { files.append(e.path) } }
            } catch {
                throw Failure(what: what, detail: error.detail, notFound: error.notFound, interrupted: error.interrupted)
            }
        }
        // One deadline for the whole read-back, as `rclone md5sum --download` has.
        let end = Subprocess.monotonicSeconds() + seconds(bytes: 1 << 24)
        for f in files {
            var sum = MD5()
            let left = end - Subprocess.monotonicSeconds()
            if left <= 0 {
                throw Failure(what: what, detail: "no answer within \(Int(seconds(bytes: 1 << 24))) s, stopped", notFound: false, interrupted: true)
            }
            if try download(what, f, under: folder, limit: nil, seconds: left, output: { piece in piece.withUnsafeBytes { sum.add($0) } }) {
                md5(sum.hex(), f)
            }
        }
    }

    func moveAll(_ source: String, into target: String, keep: Set<String>) throws(Failure) {
        let keepList = keep.isEmpty ? nil : try rclone.pathList(keep.sorted())
        let excludeList = keep.isEmpty ? nil : try rclone.excludeList(keep.sorted())
        let calls = RcloneCalls.moveAll(source, into: target, keepList: keepList, excludeList: excludeList)
        var failure: Failure?
        for (i, c) in calls.enumerated() {
            do { try call("move \(source) to \(target)", c) } catch {
                // As `Rclone.moveAll`: a source gone (a move that went through, its answer lost) is
                // no failure unless nothing else failed.
                if i < calls.count - 1 {
                    if !error.notFound { failure = error }
                } else if !error.notFound || failure == nil {
                    failure = failure ?? error
                }
            }
        }
        if let f = failure { throw f }
    }

    func delete(_ paths: [String], under folder: String) throws(Failure) {
        if paths.isEmpty { return }
        do { try call("delete in \(folder)", RcloneCalls.delete(listedIn: try rclone.pathList(paths), under: folder)) } catch {
            if !error.notFound { throw error }
        }
    }

    func removeFolder(_ folder: String) throws(Failure) {
        do { try call("remove \(folder)", RcloneCalls.removeFolder(folder)) } catch {
            if !error.notFound { throw error }
        }
    }

    func deleteMatching(_ pattern: String, under folder: String) throws(Failure) {
        try call("clean up \(folder)", RcloneCalls.deleteMatching(pattern, under: folder))
    }

    func localFolders(_ folder: String) throws(Failure) -> RcloneLocalRoots.Answer {
        let cwd = (try? POSIX.currentDirectory()) ?? "/"
        guard RcloneLocalRoots.split(folder) != nil else { return RcloneLocalRoots.resolve(folder, section: { _ in nil }, cwd: cwd) }
        let sections = RcloneCalls.sections(try value("rclone config show", RcloneCalls.config))
        return RcloneLocalRoots.resolve(folder, section: { Rclone.section($0, config: sections) }, cwd: cwd)
    }
}

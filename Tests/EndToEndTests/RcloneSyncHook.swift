import Foundation

/// An rclone for tests that acts at each upload of a delivery: a `sync` command (one rclone a
/// call) or a sync/sync asked of the run's `rclone rcd` (through a proxy in front of the real
/// daemon). Before each, it fails the upload as a full disk does while `DIR/fail` exists or the
/// upload holds more than `room` bytes (each upload's bytes logged in `DIR/uploads`), else counts
/// it in `DIR/syncs` and runs `hook` (a shell command; `$N` is the upload's number), then lets it
/// through. Every start is logged in `DIR/calls`.
enum RcloneSyncHook {
    static func wrapper(in dir: String, hook: String = ":", room: Int? = nil) throws -> String {
        let real = try rclonePath()
        let script = dir + "/rclone-hook.py"
        try #"""
        #!/usr/bin/env python3
        import base64, http.client, http.server, json, os, re, subprocess, sys, threading
        REAL, DIR, HOOK, ROOM = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
        args = sys.argv[5:]
        open(os.path.join(DIR, "calls"), "a").write(" ".join(args) + "\n")
        def size(src):
            return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(src, followlinks=True) for f in fs)
        def upload(src):
            """None to go on, or rclone's error."""
            n = size(src)
            open(os.path.join(DIR, "uploads"), "a").write(f"{n}\n")
            if os.path.exists(os.path.join(DIR, "fail")) or (ROOM >= 0 and n > ROOM):
                return "write: no space left on device"
            p = os.path.join(DIR, "syncs")
            n = (int(open(p).read()) if os.path.exists(p) else 0) + 1
            open(p, "w").write(str(n))
            subprocess.run(["/bin/sh", "-c", HOOK], env=dict(os.environ, N=str(n)))
            return None
        if "rcd" not in args:
            if "sync" in args:
                e = upload(args[-2])
                if e: sys.stderr.write("ERROR : " + e + "\n"); sys.exit(1)
            os.execv(REAL, [REAL] + args)
        env = dict(os.environ); user, pw = env.pop("RCLONE_RC_USER"), env.pop("RCLONE_RC_PASS")
        inner = subprocess.Popen([REAL] + args, env=dict(env, RCLONE_RC_USER="i", RCLONE_RC_PASS="i"), stderr=subprocess.PIPE, text=True)
        port = None
        for line in inner.stderr:
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if m: port = int(m.group(1)); break
        threading.Thread(target=lambda: [None for _ in inner.stderr], daemon=True).start()
        want = "Basic " + base64.b64encode(f"{user}:{pw}".encode()).decode()
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *a): pass
            def answer(self, status, data):
                self.send_response(status); self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
            def relay(self, body):
                if self.headers.get("Authorization") != want: return self.answer(401, b"")
                if self.path == "/sync/sync":
                    e = upload(json.loads(body)["srcFs"].split(":", 2)[-1])
                    if e: return self.answer(500, json.dumps({"error": e, "status": 500}).encode())
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                c.request(self.command, self.path, body=body, headers={"Authorization": "Basic " + base64.b64encode(b"i:i").decode(), "Content-Type": "application/json"})
                r = c.getresponse(); self.answer(r.status, r.read())
                if self.path == "/core/quit": inner.wait(); os._exit(0)
            def do_POST(self): self.relay(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            def do_GET(self): self.relay(None)
        s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        sys.stderr.write(f"NOTICE: Serving remote control on http://127.0.0.1:{s.server_address[1]}/\n"); sys.stderr.flush()
        s.serve_forever()
        """#.write(toFile: script, atomically: true, encoding: .utf8)
        let wrapper = dir + "/rclone"
        let quoted = "'" + hook.replacingOccurrences(of: "'", with: "'\\''") + "'"
        try "#!/bin/sh\nexec python3 \(script) \(real) \(dir) \(quoted) \(room ?? -1) \"$@\"\n".write(
            toFile: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        return wrapper
    }

    static func rclonePath() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for d in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: d + "/rclone") { return d + "/rclone" }
        throw NSError(domain: "RcloneSyncHook", code: 1, userInfo: [NSLocalizedDescriptionKey: "no rclone in PATH"])
    }
}
